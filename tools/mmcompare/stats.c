// SPDX-License-Identifier: GPL-2.0
/*
 * Summaries and Welch's t-test. See stats.h.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "stats.h"

double st_t_upper(double q, double df)
{
	return gsl_cdf_tdist_Qinv(q, df);
}

/*
 * The quantile for a mean's interval has integer df = n - 1; tables of
 * thousands of lines ask for the same few again and again.
 */
static double t_upper_int(double q, size_t df)
{
	static _Thread_local double cache_q, cache[256];

	if (df >= 256)
		return st_t_upper(q, df);
	if (cache_q != q) {
		memset(cache, 0, sizeof(cache));
		cache_q = q;
	}
	if (!cache[df])
		cache[df] = st_t_upper(q, df);
	return cache[df];
}

/*
 * Confidence interval of the harmonic mean: the interval of the mean of
 * the reciprocals, inverted. A rate's reciprocal is a time per operation,
 * whose arithmetic mean is what the harmonic mean of the rates averages.
 */
static void hmean_ci(const double *v, size_t n, double tq, struct st_summary *s)
{
	double mr = 1.0 / s->mean, sum = 0, sd, h;
	size_t i;

	for (i = 0; i < n; i++)
		sum += (1.0 / v[i] - mr) * (1.0 / v[i] - mr);
	sd = sqrt(sum / (n - 1));
	h = tq * sd / sqrt((double)n);
	if (mr - h > 0) {
		s->ci_lo = 1.0 / (mr + h);
		s->ci_hi = 1.0 / (mr - h);
		s->ci_ok = true;
	}
}

/* n / sum(1/x), scaled by the smallest x (v is sorted) so 1/x cannot overflow. */
static double harmonic(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[0] / v[i];
	return v[0] * (n / sum);
}

/*
 * Values near DBL_MAX are finite in the file but overflow in a variance or
 * a midpoint: anything that did not stay finite is not claimed at all.
 */
static void summary_finite(struct st_summary *s)
{
	if (!isfinite(s->median))	/* (a + b) / 2 overflowed */
		s->median = s->median > 0 ? DBL_MAX : -DBL_MAX;
	s->sd_ok &= isfinite(s->sd);
	s->cov_ok &= s->sd_ok && isfinite(s->cov);
	s->ci_ok &= s->sd_ok && isfinite(s->ci_lo) && isfinite(s->ci_hi);
}

void st_summarize(double *v, size_t n, bool hmean, double alpha, struct st_summary *s)
{
	double tq;

	*s = (struct st_summary){ .n = n };
	if (!n)
		return;
	gsl_sort(v, 1, n);
	s->min = v[0];
	s->max = v[n - 1];
	s->median = gsl_stats_median_from_sorted_data(v, 1, n);
	if (!isfinite(s->median))
		s->median = v[(n - 1) / 2] / 2 + v[n / 2] / 2;
	s->amean = gsl_stats_mean(v, 1, n);
	s->hmean = hmean && s->min > 0;
	s->mean = s->hmean ? harmonic(v, n) : s->amean;
	if (n < 2)
		return;
	s->sd = gsl_stats_sd_m(v, 1, n, s->amean);
	if (!isfinite(s->sd)) {
		summary_finite(s);
		return;
	}
	s->sd_ok = true;
	if (s->mean != 0) {
		s->cov = 100.0 * s->sd / fabs(s->mean);
		s->cov_ok = true;
	}
	tq = t_upper_int(alpha / 2, n - 1);
	if (s->hmean) {
		hmean_ci(v, n, tq, s);
	} else {
		s->ci_lo = s->amean - tq * s->sd / sqrt((double)n);
		s->ci_hi = s->amean + tq * s->sd / sqrt((double)n);
		s->ci_ok = true;
	}
	summary_finite(s);
}

/*
 * Both sides without spread: the difference is exact. Equal means give
 * p = 1, different means p = 0 (a certain difference, e.g. a counter that
 * reads 0 on every iteration of one kernel and 100 on the other).
 */
static void welch_exact(struct st_welch *w)
{
	w->p = w->diff == 0 ? 1.0 : 0.0;
	w->t = 0;
	w->t_ok = w->diff == 0;
	w->ci_lo = w->ci_hi = w->diff;
}

void st_welch_moments(double ma, double sa, size_t na, double mb, double sb, size_t nb,
		      double alpha, struct st_welch *w)
{
	double va, vb, r, tq;

	*w = (struct st_welch){ 0 };
	if (na < 2 || nb < 2 || !isfinite(sa) || !isfinite(sb) || !isfinite(mb - ma))
		return;
	w->ok = true;
	w->diff = mb - ma;
	va = sa * sa / na;
	vb = sb * sb / nb;
	w->se = sqrt(va + vb);
	if (!(w->se > 0) || !(va + vb > 0)) {
		welch_exact(w);
		return;
	}
	/*
	 * Welch-Satterthwaite, written with r = va / (va + vb) so that tiny
	 * variances cannot underflow the squares into 0/0.
	 */
	r = va / (va + vb);
	w->df = 1.0 / (r * r / (na - 1) + (1 - r) * (1 - r) / (nb - 1));
	w->df_ok = true;
	w->t = w->diff / w->se;
	w->t_ok = true;
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	tq = st_t_upper(alpha / 2, w->df);
	w->ci_lo = w->diff - tq * w->se;
	w->ci_hi = w->diff + tq * w->se;
	/* se, df or the interval overflowed: claim nothing */
	if (!isfinite(w->se) || !isfinite(w->df) || !isfinite(w->p) || !isfinite(w->t) ||
	    !isfinite(w->ci_lo) || !isfinite(w->ci_hi))
		*w = (struct st_welch){ 0 };
}

void st_welch(const struct st_summary *a, const struct st_summary *b, double alpha,
	      struct st_welch *w)
{
	st_welch_moments(a->amean, a->sd, a->n, b->amean, b->sd, b->n, alpha, w);
}
