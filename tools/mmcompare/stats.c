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

#include "mdc.h"
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

/*
 * The test from w->diff, w->se and the degrees of freedom df: t, the
 * two-sided p and the 1 - alpha interval. Where se, df or the interval
 * overflowed, nothing is claimed (w zeroed, false returned).
 */
static bool welch_finish(struct st_welch *w, double df, double alpha)
{
	double tq;

	w->df = df;
	w->df_ok = true;
	w->t = w->diff / w->se;
	w->t_ok = true;
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	tq = st_t_upper(alpha / 2, w->df);
	w->ci_lo = w->diff - tq * w->se;
	w->ci_hi = w->diff + tq * w->se;
	if (!isfinite(w->se) || !isfinite(w->df) || !isfinite(w->p) || !isfinite(w->t) ||
	    !isfinite(w->ci_lo) || !isfinite(w->ci_hi)) {
		*w = (struct st_welch){ 0 };
		return false;
	}
	return true;
}

void st_welch_moments(double ma, double sa, size_t na, double mb, double sb, size_t nb,
		      double alpha, struct st_welch *w)
{
	double va, vb, r;

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
	welch_finish(w, 1.0 / (r * r / (na - 1) + (1 - r) * (1 - r) / (nb - 1)), alpha);
}

void st_welch(const struct st_summary *a, const struct st_summary *b, double alpha,
	      struct st_welch *w)
{
	st_welch_moments(a->amean, a->sd, a->n, b->amean, b->sd, b->n, alpha, w);
}

/* ------------------------------------------------------------ runs */

void st_runs(const double *v, size_t n, const size_t *starts, size_t nstarts,
	     struct st_runs *r)
{
	size_t j, from, to, k = n ? nstarts + 1 : 0;
	double m, ss = 0, sw = 0;

	*r = (struct st_runs){ .k = k, .n = n };
	if (!k)
		return;
	/* M, the runs' means averaged as a running mean (no sum to overflow) */
	for (j = 0; j < k; j++) {
		from = j ? starts[j - 1] : 0;
		to = j < nstarts ? starts[j] : n;
		m = gsl_stats_mean(v + from, 1, to - from);
		r->mean += (m - r->mean) / (double)(j + 1);
		r->inv_n += 1.0 / (double)(to - from);
	}
	for (j = 0; j < k; j++) {
		from = j ? starts[j - 1] : 0;
		to = j < nstarts ? starts[j] : n;
		m = gsl_stats_mean(v + from, 1, to - from);
		ss += (m - r->mean) * (m - r->mean);
		if (to - from > 1)
			sw += gsl_stats_variance_m(v + from, 1, to - from, m) *
			      (double)(to - from - 1);
	}
	if (k >= 2) {
		r->var_means = ss / (double)(k - 1);
		r->means_ok = isfinite(r->var_means) && isfinite(r->mean);
	}
	if (n > k) {
		r->var_within = sw / (double)(n - k);
		r->within_ok = isfinite(r->var_within) && isfinite(r->mean);
	}
}

/* The estimates a test with the run as the unit combines: a's and b's
 * spread of runs' means, and a's and b's spread inside runs. */
enum { EST_A_RUNS, EST_A_WITHIN, EST_B_RUNS, EST_B_WITHIN, EST_N };

/*
 * The variance of x's mean, its estimate and that estimate's df; y is the
 * other side (its spread of runs' means stands for x's when x has one run).
 */
static enum st_var side_var(const struct st_runs *x, const struct st_runs *y, int est_x,
			    int est_y, double *v, double *df, int *est)
{
	double vw = -1, k = (double)x->k;

	if (x->k >= 2) {
		if (!x->means_ok)
			return ST_VAR_NONE;
		if (x->within_ok)
			vw = x->var_within * x->inv_n / (k * k);
		if (vw > x->var_means / k) {
			*v = vw;
			*df = (double)(x->n - x->k);
			*est = est_x + 1;
			return ST_VAR_WITHIN;
		}
		*v = x->var_means / k;
		*df = k - 1;
		*est = est_x;
		return ST_VAR_RUNS;
	}
	if (x->k != 1 || y->k < 2 || !y->means_ok)
		return ST_VAR_NONE;
	if (x->within_ok)
		vw = x->var_within * x->inv_n;	/* one run: s^2 / n */
	if (vw > y->var_means) {
		*v = vw;
		*df = (double)(x->n - 1);
		*est = est_x + 1;
		return ST_VAR_WITHIN;
	}
	*v = y->var_means;
	*df = (double)(y->k - 1);
	*est = est_y;
	return ST_VAR_BORROWED;
}

void st_welch_runs(const struct st_runs *a, const struct st_runs *b, double alpha,
		   struct st_welch *w, enum st_var *va, enum st_var *vb)
{
	double c[EST_N] = { 0 }, df[EST_N] = { 0 }, v, d, vsum = 0, dsum = 0;
	int ea, eb, j;

	*w = (struct st_welch){ 0 };
	*va = side_var(a, b, EST_A_RUNS, EST_B_RUNS, &v, &d, &ea);
	if (*va != ST_VAR_NONE) {
		c[ea] += v;
		df[ea] = d;
	}
	*vb = side_var(b, a, EST_B_RUNS, EST_A_RUNS, &v, &d, &eb);
	if (*vb != ST_VAR_NONE) {
		c[eb] += v;
		df[eb] = d;
	}
	if (*va == ST_VAR_NONE || *vb == ST_VAR_NONE || !isfinite(b->mean - a->mean)) {
		*va = *vb = ST_VAR_NONE;
		return;
	}
	w->ok = true;
	w->diff = b->mean - a->mean;
	for (j = 0; j < EST_N; j++)
		vsum += c[j];
	w->se = sqrt(vsum);
	if (!(w->se > 0) || !(vsum > 0)) {
		welch_exact(w);
		return;
	}
	/* Welch-Satterthwaite over the distinct estimates, as shares of the
	 * total so that tiny variances cannot underflow into 0/0 */
	for (j = 0; j < EST_N; j++)
		if (c[j] > 0)
			dsum += (c[j] / vsum) * (c[j] / vsum) / df[j];
	if (!welch_finish(w, 1.0 / dsum, alpha))
		*va = *vb = ST_VAR_NONE;
}

double st_mdc(const struct st_welch *w, double level, double power)
{
	double m;

	if (!w->ok)
		return NAN;
	if (!(w->se > 0))
		return 0;	/* exact: any change shows */
	if (!w->df_ok)
		return NAN;
	m = mm_mdc(w->se, w->df, level, power);
	return isfinite(m) ? m : NAN;
}
