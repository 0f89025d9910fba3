// SPDX-License-Identifier: GPL-2.0
/*
 * gen_synth: a synthetic mmbench run for the bench-compare benchmark.
 *
 *   gen_synth DIR LABEL ROWS SEED SHIFT_PCT
 *
 * Writes DIR/results.csv with ROWS rows (schema 1, 10 iterations per line,
 * in the order the core writes them: case by case, iteration by iteration,
 * every metric) and DIR/meta.csv. Values are pseudo-random around a
 * per-metric level; SHIFT_PCT moves every third metric, so a comparison
 * has real differences to find.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csvio.h"
#include "results.h"
#include "exitcodes.h"

#define ITERS 10
#define METRICS 100
#define CASES 100

static uint64_t rng;

static double uniform(void)	/* xorshift64*, in [0, 1) */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void write_meta(const char *dir, const char *label)
{
	static const char *const kv[] = {
		"schema", MM_SCHEMA_STR, "cpus", "2", "numa_nodes", "1", "node_mem_mb", "0:24000",
		"thp_enabled", "madvise", "thp_defrag", "madvise", "numa_balancing", "0",
		"vm", "none", "swap_total_kb", "0", "cpu_model", "synthetic", NULL,
	};
	char path[4096];
	struct csvo o;
	int i;

	snprintf(path, sizeof(path), "%s/meta.csv", dir);
	o = (struct csvo){ .f = fopen(path, "w") };
	if (!o.f) {
		perror(path);
		exit(1);
	}
	csvo_str(&o, "key");
	csvo_str(&o, "value");
	csvo_end(&o);
	csvo_str(&o, "label");
	csvo_str(&o, label);
	csvo_end(&o);
	for (i = 0; kv[i]; i += 2) {
		csvo_str(&o, kv[i]);
		csvo_str(&o, kv[i + 1]);
		csvo_end(&o);
	}
	fclose(o.f);
}

static void row(struct csvo *o, const char *label, int wl, const char *kase, int it,
		int m, double v)
{
	static const char *const better[] = { "lower", "higher", "info" };
	static const char *const unit[] = { "ns", "loops/s", "count" };
	char b[64];

	csvo_str(o, MM_SCHEMA_STR);
	snprintf(b, sizeof(b), "20250101-000000-%.40s", label);	/* one run per label */
	csvo_str(o, b);
	csvo_str(o, label);
	csvo_str(o, "6.1.0-synth");
	snprintf(b, sizeof(b), "workload%02d", wl);
	csvo_str(o, b);
	csvo_str(o, kase);
	csvo_int(o, it);
	snprintf(b, sizeof(b), "metric_%02d", m);
	csvo_str(o, b);
	snprintf(b, sizeof(b), "%.17g", v);
	csvo_str(o, b);
	csvo_str(o, unit[m % 3]);
	csvo_str(o, better[m % 3]);
	csvo_end(o);
}

int main(int argc, char **argv)
{
	long rows, n = 0;
	double shift;
	char path[4096], kase[64];
	struct csvo o;

	if (argc != 6) {
		fprintf(stderr, "usage: gen_synth DIR LABEL ROWS SEED SHIFT_PCT\n");
		return MM_USAGE;
	}
	rows = atol(argv[3]);
	rng = strtoull(argv[4], NULL, 0) | 1;
	shift = atof(argv[5]) / 100;
	mkdir(argv[1], 0777);
	write_meta(argv[1], argv[2]);
	snprintf(path, sizeof(path), "%s/results.csv", argv[1]);
	o = (struct csvo){ .f = fopen(path, "w") };
	if (!o.f) {
		perror(path);
		return 1;
	}
	fputs(MM_RESULTS_HEADER "\n", o.f);
	for (int wl = 0; n < rows; wl++) {
		for (int c = 0; c < CASES && n < rows; c++) {
			snprintf(kase, sizeof(kase), "size_mb=%d;threads=%d", 64 << (c / 10), c % 10 + 1);
			for (int it = 0; it < ITERS && n < rows; it++)
				for (int m = 0; m < METRICS && n < rows; m++, n++)
					row(&o, argv[2], wl, kase, it, m, (1000 + 10 * m) *
					    (1 + (m % 3 == 0 ? shift : 0)) * (0.95 + 0.1 * uniform()));
		}
	}
	if (fclose(o.f)) {
		perror(path);
		return 1;
	}
	return 0;
}
