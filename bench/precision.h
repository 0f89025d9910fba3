/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Precision on demand (--precision P): the metrics the rule watches, the
 * 95% confidence half-width of a mean, and the case child's record of the
 * watched values. The rule and its formula are in bench/SCHEMA.md
 * ("Precision"); `mmbench precision` applies the same rule to the means of
 * several runs (bench/runs.c).
 */
#ifndef MMBENCH_PRECISION_H
#define MMBENCH_PRECISION_H

#include <stdbool.h>
#include <stddef.h>

#include "mmbench.h"

/* How a case's measured iterations ended: cases.csv stopped_by. */
enum mm_stop {
	MM_STOP_NONE,		/* the case ended otherwise (status, reason) */
	MM_STOP_FIXED,		/* no --precision: -i iterations */
	MM_STOP_PRECISION,	/* every watched metric within P */
	MM_STOP_NOTHING,	/* nothing to watch: stopped at the minimum */
	MM_STOP_MAX_ITER,	/* --max-iterations before P */
	MM_STOP_MAX_TIME,	/* --max-time before P */
};

/* The cases.csv word of a stop ("" for MM_STOP_NONE). */
const char *mm_stop_word(enum mm_stop s);

/*
 * A metric the rule watches: judged (better lower or higher), evidence,
 * timed, and not emulated (a TCG guest's times are not judged).
 */
bool mm_prec_watched(enum mm_role role, enum mm_better better, bool timed,
		     bool emulated);

/*
 * The 95% confidence half-width of the mean of v[0..n), in percent of
 * |mean|: 100 * t(0.975, n - 1) * s / sqrt(n) / |mean|, s the sample
 * standard deviation, t the Student t quantile (GSL). 0 when the values do
 * not vary; INFINITY when they vary around a mean of 0; NAN when n < 2.
 * *mean (when given) gets the mean.
 */
double mm_halfwidth_pct(const double *v, size_t n, double *mean);

/* `mmbench precision [--precision P] RUN_DIR...` (bench/runs.c). */
int mm_precision_cmd(int argc, char **argv);

/* ---- in the case child */

/* Forget the values of the previous case. */
void mm_prec_reset(void);
/* A measured value of a watched metric (mm_emit() calls it). */
void mm_prec_add(const char *metric, double v);
/*
 * The watched metrics so far: how many were emitted (0: nothing to wait
 * for); *pct the largest half-width among those with two values or more
 * (NAN when none has), *metric its name.
 */
int mm_prec_worst(double *pct, char *metric, size_t len);

#endif
