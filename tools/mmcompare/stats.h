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
 * A side as runs, the run as the unit (README "The run as the unit"): run
 * i has n_i values with mean m_i and variance s_i^2; k runs, N values.
 */
struct st_runs {
	size_t k;		/* runs with values */
	size_t n;		/* N, values in them */
	double mean;		/* M = mean of the runs' means (each run weighs 1) */
	double var_means;	/* S^2 = sum (m_i - M)^2 / (k - 1): spread of runs' means */
	bool means_ok;		/* k >= 2 and S^2 finite */
	double var_within;	/* MSW = sum (n_i - 1) s_i^2 / (N - k), pooled within runs */
	bool within_ok;		/* N > k and MSW finite */
	double inv_n;		/* sum 1 / n_i (the within term of var(M)) */
};

/* Where the variance of a side's mean came from. */
enum st_var {
	ST_VAR_NONE,
	ST_VAR_ITER,		/* its iterations as independent samples (one run) */
	ST_VAR_RUNS,		/* its runs' means: S^2 / k, df k - 1 */
	ST_VAR_WITHIN,		/* its runs' iterations, MSW * sum(1/n_i) / k^2, df N - k:
				 * the runs' means agreed better than their iterations
				 * can (the between-run component estimated as 0) */
	ST_VAR_BORROWED,	/* one run: the other side's S^2 (a run's mean's
				 * variance), df of the other side's k - 1 */
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
/*
 * The runs of v[0..n): run j starts at starts[j - 1] (j >= 1), run 0 at 0.
 * v is read, not sorted: call before st_summarize() on the same array.
 */
void st_runs(const double *v, size_t n, const size_t *starts, size_t nstarts,
	     struct st_runs *r);
/*
 * Welch's test of b against a with the run as the unit: at least one side
 * has k >= 2 runs. Each side's mean M has the variance of the nested
 * one-way random-effects model, its components by the method of moments
 * with the between-run component truncated at 0: max(S^2 / k,
 * MSW * sum(1/n_i) / k^2). A side of one run takes the other side's S^2
 * (floored by its own iterations' s^2 / n). The degrees of freedom are
 * Welch-Satterthwaite's over the distinct estimates (a borrowed S^2 is the
 * other side's estimate, counted once). Sets *va and *vb to the sources.
 */
void st_welch_runs(const struct st_runs *a, const struct st_runs *b, double alpha,
		   struct st_welch *w, enum st_var *va, enum st_var *vb);
/*
 * The minimum detectable change of a test (bench/results/mdc.h): (t(1 - level/2, df)
 * + t(power, df)) * se; NAN when it cannot be computed.
 */
double st_mdc(const struct st_welch *w, double level, double power);

#endif /* MMC_STATS_H */
