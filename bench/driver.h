/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMBENCH_DRIVER_H
#define MMBENCH_DRIVER_H

#include "core.h"
#include "label.h"	/* mm_label_check, mm_escape */
#include "numbers.h"	/* mm_decimal_real, mm_parse_decimal */

struct mm_opts {
	int iterations;		/* measured iterations; with --precision the minimum */
	int warmups;
	unsigned int timeout;	/* seconds per case */
	bool verbose;
	char **sets;		/* --set PATH=VALUE, applied in each case */
	int nsets;
	/* --precision P (0: off): iterations are added until every watched
	 * metric's 95% half-width is at most P% of its mean, or a limit */
	double precision;
	int max_iterations;	/* --max-iterations: at most this many */
	unsigned int max_time;	/* --max-time: no iteration added after it, s */
};

/* What a case's measured iterations came to (cases.csv's last columns). */
struct mm_case_outcome {
	int status;		/* MM_PASS, MM_FAIL, MM_SKIP */
	int iterations;		/* measured iterations that completed */
	double pct;		/* the largest watched half-width, % (NAN: none) */
	char metric[MM_METRIC_MAX + 1];	/* its metric */
	int nwatched;		/* watched metrics the case emitted */
	int stop;		/* enum mm_stop */
};

void mm_driver_signals(void);
int mm_driver_interrupted(void);
/* Apply every --set (journalled); MM_PASS, or MM_FAIL with the reason. */
int mm_apply_sets(const struct mm_opts *o, char *why, size_t len);
/* Run one case; out (optional) gets its iterations and precision. */
int mm_run_case(const struct workload *wl, const struct mm_case *c,
		const struct mm_opts *o, struct mm_case_outcome *out);

#endif
