/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics for comparing benchmark runs: per-side summaries and Welch's
 * unequal-variance t-test (GSL for the Student t distribution).
 *
 * Kernel benchmark iterations rarely share a variance between a base and a
 * patched kernel (a patch that removes a lock changes the spread as well as
 * the mean), so the test is Welch's, with Welch-Satterthwaite degrees of
 * freedom, never the pooled-variance Student test.
 */
#ifndef MMC_STATS_H
#define MMC_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct st_summary {
	size_t n;
	bool hmean;		/* mean is the harmonic mean */
	double mean;		/* Hmean or Amean: the value tables show */
	double amean;
	double sd;		/* sample standard deviation (n - 1) */
	bool sd_ok;		/* n >= 2 */
	double cov;		/* coefficient of variation, 100 * sd / |mean| */
	bool cov_ok;
	double min, median, max;
	double ci_lo, ci_hi;	/* confidence interval of the mean */
	bool ci_ok;
};

struct st_welch {
	bool ok;		/* both sides have n >= 2 */
	double diff;		/* amean(b) - amean(a) */
	double se;		/* standard error of diff */
	double t;
	bool t_ok;		/* se > 0 */
	double df;		/* Welch-Satterthwaite */
	bool df_ok;
	double p;		/* two-sided */
	double ci_lo, ci_hi;	/* confidence interval of diff */
};

/*
 * Summarize v[0..n) (sorted in place). hmean: report the harmonic mean
 * (only when every value is > 0, otherwise the arithmetic mean). The
 * confidence level of ci_* is 1 - alpha.
 */
void st_summarize(double *v, size_t n, bool hmean, double alpha, struct st_summary *s);
/* Welch's t-test of b against a at level alpha (for the interval). */
void st_welch(const struct st_summary *a, const struct st_summary *b, double alpha,
	      struct st_welch *w);
/* Welch test from raw moments (exposed for the unit tests). */
void st_welch_moments(double ma, double sa, size_t na, double mb, double sb, size_t nb,
		      double alpha, struct st_welch *w);
/* Student t quantile: the t with P(T > t) = q for df degrees of freedom. */
double st_t_upper(double q, double df);

#endif /* MMC_STATS_H */
