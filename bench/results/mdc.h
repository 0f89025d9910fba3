/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The minimum detectable change (MDC), written once for the whole project:
 * mmcompare (tools/mmcompare/stats.c), `mmbench summary` (bench/summary.c)
 * and the reference benchmarks (tools/selfbench/lib.sh, through the small
 * program tools/mmcompare/mdc) all use these two functions. GSL gives the
 * Student t quantiles; a header, so that whoever includes it links GSL
 * only if it calls them.
 *
 * A two-sided t test at level alpha, whose difference has standard error
 * se with df degrees of freedom, finds a true difference D with
 * probability about `power` when
 *
 *     D >= MDC = (t(1 - alpha/2, df) + t(power, df)) * se
 *
 * (the usual approximation of the noncentral t by a shifted central t;
 * at power 0.5 the second term is 0 and the MDC is the half-width of the
 * 1 - alpha interval of the difference). The project's MDC is at 80%
 * power (MM_MDC_POWER), at the level of the test that decides: mmcompare
 * passes the level Benjamini-Hochberg asks of one more significant line.
 */
#ifndef MMBENCH_MDC_H
#define MMBENCH_MDC_H

#include <gsl/gsl_cdf.h>
#include <math.h>

#define MM_MDC_POWER 0.8

/* The MDC of a difference with standard error se and df degrees of freedom;
 * NAN when it cannot be computed (df <= 0, alpha or power out of (0, 1)). */
static inline double mm_mdc(double se, double df, double alpha, double power)
{
	double t;

	if (!(df > 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1) || !(se >= 0))
		return NAN;
	t = gsl_cdf_tdist_Qinv(alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df);
	return t * se;
}

/*
 * The MDC of comparing a series of n values (standard deviation sd) with
 * another series like it (same n, same sd): se = sd * sqrt(2 / n), df =
 * 2n - 2 (Welch's df when both variances are equal). What `mmbench
 * summary` and tools/selfbench/lib.sh print for one run.
 */
static inline double mm_mdc_like(double sd, double n, double alpha, double power)
{
	if (!(n >= 2))
		return NAN;
	return mm_mdc(sd * sqrt(2 / n), 2 * n - 2, alpha, power);
}

#endif /* MMBENCH_MDC_H */
