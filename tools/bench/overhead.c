// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-overhead: the harness's own cost.
 *  1. ns per timestamp pair (two CLOCK_MONOTONIC reads, as every timed
 *     window takes), and per mm_phase_begin/end pair with a vmstat list.
 *  2. For pageout: the share of wall time spent in user space outside the
 *     measured loop (harness_user_outside_loop_pct, read from a real run's
 *     results.csv with libcsv). Target: under 1%.
 */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbench.h"

struct acc {
	char f[11][512];
	int nf;
	double sum, max;
	int n;
};

static void on_field(void *s, size_t len, void *d)
{
	struct acc *a = d;

	if (a->nf < 11)
		snprintf(a->f[a->nf], sizeof(a->f[0]), "%.*s", (int)len, (char *)s);
	a->nf++;
}

static void on_row(int c, void *d)
{
	struct acc *a = d;

	(void)c;
	if (a->nf == 11 && strcmp(a->f[7], "harness_user_outside_loop_pct") == 0) {
		double v = strtod(a->f[8], NULL);

		a->sum += v;
		a->max = v > a->max ? v : a->max;
		a->n++;
	}
	a->nf = 0;
}

static int read_pct(const char *path, struct acc *a)
{
	struct csv_parser p;
	char buf[8192];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	csv_init(&p, 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		csv_parse(&p, buf, n, on_field, on_row, a);
	csv_fini(&p, on_field, on_row, a);
	csv_free(&p);
	fclose(f);
	return a->n ? 0 : -1;
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
			fprintf(stderr, "bench-overhead: no harness_user_outside_loop_pct in %s\n",
				argv[1]);
			return 1;
		}
		printf("pageout: user time outside the measured loop: mean %.3f%%, max %.3f%% of wall time over %d iterations (target < 1%%): %s\n",
		       a->sum / a->n, a->max, a->n, a->max < 1.0 ? "met" : "NOT met");
	}
	free(a);
	return 0;
}
