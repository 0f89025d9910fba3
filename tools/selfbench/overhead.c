// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-overhead: the harness's own cost.
 *  1. ns per timestamp pair (two CLOCK_MONOTONIC reads, as every timed
 *     window takes), and per mm_phase_begin/end pair with a vmstat list.
 *  2. For pageout: the share of wall time spent in user space outside the
 *     measured loop (harness_user_outside_loop_pct, read from a real run's
 *     results.csv by the core's reader, columns by name). Target: under 1%.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvio.h"
#include "mmbench.h"

struct acc {
	int metric, value;	/* columns, by name */
	double sum, max;
	int n;
};

static void on_row(struct mm_csv_in *in, void *arg)
{
	struct acc *a = arg;
	double v;
	char *end;

	if (strcmp(mm_csv_get(in, a->metric), "harness_user_outside_loop_pct"))
		return;
	v = strtod(mm_csv_get(in, a->value), &end);
	if (*end || end == mm_csv_get(in, a->value)) {
		mm_csv_bad(in, "value '%.40s' is not a number", mm_csv_get(in, a->value));
		return;
	}
	a->sum += v;
	a->max = v > a->max ? v : a->max;
	a->n++;
}

/* 0 with a->n rows read, or -1 with the reason on stderr. */
static int read_pct(const char *path, struct acc *a)
{
	struct mm_csv_in in = {
		.prog = "bench-overhead", .header = MM_RESULTS_HEADER,
		.row = on_row, .arg = a,
	};
	int ret;

	a->metric = mm_schema_col(MM_RESULTS_HEADER, "metric");
	a->value = mm_schema_col(MM_RESULTS_HEADER, "value");
	ret = mm_csv_read(&in, NULL, path);
	if (ret == 1)
		fprintf(stderr, "bench-overhead: %s:%ld: %s\n", in.path, in.err_line, in.err);
	else if (ret < 0)
		fprintf(stderr, "bench-overhead: %s: %s\n", path, strerror(-ret));
	mm_csv_free(&in);
	return ret ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const char *const counters[] = { "pgfault", "pgmajfault",
		"pgmigrate_success", "compact_stall", NULL };
	const int n = 5000000, np = 2000;
	volatile uint64_t sink = 0;
	struct acc *a = calloc(1, sizeof(*a));
	uint64_t t0, t1;

	t0 = mm_now_ns();
	for (int i = 0; i < n; i++) {
		uint64_t x = mm_now_ns();

		sink += mm_now_ns() - x;
	}
	t1 = mm_now_ns();
	printf("timestamp pair (2 x clock_gettime(CLOCK_MONOTONIC)): %.1f ns\n",
	       (double)(t1 - t0) / n);
	t0 = mm_now_ns();
	for (int i = 0; i < np; i++) {
		struct mm_phase ph;

		mm_phase_begin(&ph, "x", RUSAGE_SELF, counters);
		mm_phase_end(&ph);
	}
	t1 = mm_now_ns();
	printf("phase begin+end (time, getrusage, 4 vmstat counters): %.1f us\n",
	       (double)(t1 - t0) / np / 1e3);
	if (argc > 1) {
		if (!a || read_pct(argv[1], a) < 0) {
			free(a);
			return 1;
		}
		if (!a->n) {
			fprintf(stderr, "bench-overhead: no harness_user_outside_loop_pct in %s\n",
				argv[1]);
			free(a);
			return 1;
		}
		printf("pageout: user time outside the measured loop: mean %.3f%%, max %.3f%% of wall time over %d iterations (target < 1%%): %s\n",
		       a->sum / a->n, a->max, a->n, a->max < 1.0 ? "met" : "NOT met");
	}
	free(a);
	return 0;
}
