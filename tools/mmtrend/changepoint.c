// SPDX-License-Identifier: GPL-2.0
/*
 * E-divisive means with a permutation test, and the nightly's alert rule.
 * See changepoint.h.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"

/*
 * The sums of distances for the split at tau: between the sides (b),
 * within the left (wl) and within the right (wr).
 */
static void split_sums(const double *x, int n, int tau, double *b, double *wl, double *wr)
{
	int i, j;

	*b = *wl = *wr = 0;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double d = fabs(x[i] - x[j]);

			if (j < tau)
				*wl += d;
			else if (i >= tau)
				*wr += d;
			else
				*b += d;
		}
}

/* Q of sides of m and k points from their sums (a within-sum of one point is 0). */
static double q_of(double b, double wl, double wr, int m, int k)
{
	double e = 2 * b / ((double)m * k);

	if (m > 1)
		e -= wl / (m * (m - 1) / 2.0);
	if (k > 1)
		e -= wr / (k * (k - 1) / 2.0);
	return (double)m * k / (m + k) * e;
}

double cp_qhat(const double *x, int n, int tau)
{
	double b, wl, wr;

	if (tau <= 0 || tau >= n)
		return 0;
	split_sums(x, n, tau, &b, &wl, &wr);
	return q_of(b, wl, wr, tau, n - tau);
}

/*
 * Every split in one pass: moving the split by one point moves x[t] from
 * the right side to the left, which changes each sum by x[t]'s distances
 * to the points on its left (dl) and on its right (dr). The best of the
 * splits tau in [tmin, tmax].
 */
static bool best_in(const double *x, int n, int tmin, int tmax, int *tau, double *q)
{
	double b = 0, wl = 0, wr = 0, best = -INFINITY;
	int t, i, j;

	if (tmin < 1)
		tmin = 1;
	if (tmax > n - 1)
		tmax = n - 1;
	if (tmin > tmax)
		return false;
	split_sums(x, n, tmin, &b, &wl, &wr);
	for (t = tmin;; t++) {
		double v = q_of(b, wl, wr, t, n - t);

		if (v > best) {
			best = v;
			*tau = t;
		}
		if (t + 1 > tmax)
			break;
		{
			double dl = 0, dr = 0;

			for (i = 0; i < t; i++)
				dl += fabs(x[i] - x[t]);
			for (j = t + 1; j < n; j++)
				dr += fabs(x[j] - x[t]);
			wl += dl;
			wr -= dr;
			b += dr - dl;
		}
	}
	*q = best;
	return true;
}

/*
 * The best split of a segment, the second sample ending anywhere after it
 * (Matteson & James's kappa): every (tau, kappa) from 2-D prefix sums of
 * the distances, S[a][b] = sum of |x_i - x_j| over i < a, j < b, in
 * O(n^2). A change that the segment's end undoes (a level for a while,
 * then back) is found as readily as one that lasts.
 */
bool cp_best_split(const double *x, int n, int min_size, int *tau, double *q)
{
	double *S, best = -INFINITY;
	int a, b, t, k, w = n + 1;

	if (min_size < 1)
		min_size = 1;
	if (n < 2 * min_size)
		return false;
	S = malloc((size_t)w * w * sizeof(*S));
	if (!S)	/* out of memory: the split with the rest of the segment */
		return best_in(x, n, min_size, n - min_size, tau, q);
	for (b = 0; b <= n; b++)
		S[b] = 0;
	for (a = 1; a <= n; a++) {
		double row = 0;

		S[a * w] = 0;
		for (b = 1; b <= n; b++) {
			row += fabs(x[a - 1] - x[b - 1]);
			S[a * w + b] = S[(a - 1) * w + b] + row;
		}
	}
	for (t = min_size; t <= n - min_size; t++) {
		double wx = t > 1 ? S[t * w + t] / 2 / (t * (t - 1) / 2.0) : 0;

		for (k = t + min_size; k <= n; k++) {
			int m2 = k - t;
			double bsum = S[t * w + k] - S[t * w + t];
			double wy = (S[k * w + k] - 2 * S[t * w + k] + S[t * w + t]) / 2;
			double e = 2 * bsum / ((double)t * m2) - wx, v;

			if (m2 > 1)
				e -= wy / (m2 * (m2 - 1) / 2.0);
			v = (double)t * m2 / (t + m2) * e;
			if (v > best) {
				best = v;
				*tau = t;
			}
		}
	}
	free(S);
	*q = best;
	return true;
}

uint64_t cp_seed(const double *x, int n, uint64_t salt)
{
	uint64_t h = 1469598103934665603ULL;
	int i;
	size_t k;

	for (i = 0; i <= n; i++) {
		double v = i < n ? x[i] : (double)salt;
		unsigned char b[sizeof(double)];

		if (v == 0)
			v = 0;	/* -0 and +0 hash alike */
		memcpy(b, &v, sizeof(b));
		for (k = 0; k < sizeof(b); k++) {
			h ^= b[k];
			h *= 1099511628211ULL;
		}
	}
	return h;
}

/* Segments as their first index; bounds[0] = 0, bounds[nb] = n. */
struct segs {
	int b[CP_MAX_CHANGES + 2];
	int nb;			/* segments */
};

/* The best split over every segment of y: its segment, position and Q. */
static bool best_over(const double *y, const struct segs *s, int min_size, int *seg, int *at,
		      double *q)
{
	bool any = false;
	int i, t;
	double v;

	for (i = 0; i < s->nb; i++) {
		int lo = s->b[i], len = s->b[i + 1] - lo;

		if (!cp_best_split(y + lo, len, min_size, &t, &v))
			continue;
		if (!any || v > *q) {
			any = true;
			*q = v;
			*seg = i;
			*at = lo + t;
		}
	}
	return any;
}

/*
 * The permutation p of an observed best Q: the points shuffled within
 * their segments. Stops as soon as p cannot be <= alpha any more (then
 * the p returned is a lower bound of the full test's).
 */
static double perm_p(const double *x, int n, const struct segs *s, double q_obs,
		     const struct cp_opts *o, gsl_rng *rng, double *y)
{
	int r, i, seg, at, over = 0;
	int stop = (int)floor(o->alpha * (o->perms + 1));	/* p <= alpha needs over < stop */
	double q;

	for (r = 0; r < o->perms; r++) {
		memcpy(y, x, n * sizeof(*y));
		for (i = 0; i < s->nb; i++)
			gsl_ran_shuffle(rng, y + s->b[i], s->b[i + 1] - s->b[i], sizeof(*y));
		if (best_over(y, s, o->min_size, &seg, &at, &q) &&
		    q >= q_obs * (1 - 1e-12))
			over++;
		if (over >= stop)
			return (1.0 + over) / (r + 2);
	}
	return (1.0 + over) / (o->perms + 1);
}

int cp_edivisive(const double *x, int n, const struct cp_opts *o, struct cp_change *out,
		 int max, double *last_p)
{
	struct segs s = { .b = { 0, n }, .nb = 1 };
	double *y, q = 0, p;
	gsl_rng *rng;
	int nc = 0, seg = 0, at = 0, i;

	if (last_p)
		*last_p = 1;
	if (n < 2)
		return 0;
	y = malloc(n * sizeof(*y));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!y || !rng) {
		free(y);
		if (rng)
			gsl_rng_free(rng);
		return -1;
	}
	while (nc < max && nc < CP_MAX_CHANGES && best_over(x, &s, o->min_size, &seg, &at, &q)) {
		/* a flat history: nothing to find, and nothing to permute */
		if (!(q > 0)) {
			p = 1;
		} else {
			gsl_rng_set(rng, (unsigned long)cp_seed(x, n, nc));
			p = perm_p(x, n, &s, q, o, rng, y);
		}
		if (p > o->alpha) {
			if (last_p)
				*last_p = p;
			break;
		}
		out[nc++] = (struct cp_change){ .at = at, .q = q, .p = p };
		memmove(&s.b[seg + 2], &s.b[seg + 1], (s.nb - seg) * sizeof(s.b[0]));
		s.b[seg + 1] = at;
		s.nb++;
	}
	/* in the order of their position */
	for (i = 1; i < nc; i++) {
		struct cp_change c = out[i];
		int j = i;

		for (; j > 0 && out[j - 1].at > c.at; j--)
			out[j] = out[j - 1];
		out[j] = c;
	}
	free(y);
	gsl_rng_free(rng);
	return nc;
}

int cp_tail(const double *x, int n, int lo, int tail, const struct cp_opts *o,
	    struct cp_change *out)
{
	int len = n - lo, tmin, tmax, tau, r, over = 0, t;
	int stop = (int)floor(o->alpha * (o->perms + 1));
	double q, v, *y;
	gsl_rng *rng;

	out->p = 1;
	tmin = len - tail > o->min_size ? len - tail : o->min_size;
	tmax = len - o->min_size;
	if (len < 2 * o->min_size || !best_in(x + lo, len, tmin, tmax, &tau, &q))
		return 0;
	out->at = lo + tau;
	out->q = q;
	if (!(q > 0))
		return 0;
	y = malloc(len * sizeof(*y));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!y || !rng) {
		free(y);
		if (rng)
			gsl_rng_free(rng);
		return -1;
	}
	gsl_rng_set(rng, (unsigned long)cp_seed(x + lo, len, 0x7a11));
	for (r = 0; r < o->perms; r++) {
		memcpy(y, x + lo, len * sizeof(*y));
		gsl_ran_shuffle(rng, y, len, sizeof(*y));
		if (best_in(y, len, tmin, tmax, &t, &v) && v >= q * (1 - 1e-12))
			over++;
		if (over >= stop)
			break;
	}
	out->p = r < o->perms ? (1.0 + over) / (r + 2) : (1.0 + over) / (o->perms + 1);
	free(y);
	gsl_rng_free(rng);
	return out->p <= o->alpha;
}

/* ------------------------------------------------------------ the rule */

const char *cp_state_str(enum cp_state s)
{
	static const char *const names[] = {
		[CPS_NONE] = "none", [CPS_UNCONFIRMED] = "unconfirmed", [CPS_YOUNG] = "young",
		[CPS_SMALL] = "small",
		[CPS_SEEN] = "seen_before", [CPS_SUSPECT] = "suspect", [CPS_CONFIRMED] = "confirmed",
	};

	return names[s];
}

static double mean_of(const double *x, int lo, int hi)
{
	return hi > lo ? gsl_stats_mean(x + lo, 1, hi - lo) : NAN;
}

/* change from a to b in %, positive = better */
static double pct_of(double a, double b, int better)
{
	return a != 0 ? (better > 0 ? b - a : a - b) / fabs(a) * 100 : NAN;
}

/*
 * The spread between consecutive runs: sqrt(sum (x[i+1] - x[i])^2 / 2(n-1))
 * (von Neumann), the sd of the noise when the runs are independent, which
 * a host that moves between levels raises at each move, and one step of
 * the level hardly does.
 */
static double mssd_sd(const double *x, const int *night, int n)
{
	double ss = 0;
	int i, k = 0;

	/* the runs of one night share its state: only pairs across nights */
	for (i = 1; i < n; i++)
		if (night[i] != night[i - 1]) {
			ss += (x[i] - x[i - 1]) * (x[i] - x[i - 1]);
			k++;
		}
	return k ? sqrt(ss / (2.0 * k)) : NAN;
}

/*
 * Where exactly the level moved: the split of x[lo..n) within 2 points of
 * at that leaves the least squared distance of the points to their
 * segment's mean (the maximum likelihood location of one shift of the mean
 * in normal noise). The energy statistic finds the change; with a few
 * points after it, this locates it more often on the first bad run
 * (make bench-alarms: "named"). Only splits between nights: the runs of
 * one night ran on one kernel, so a change never starts inside a night;
 * and when one of them lies where the kernel changed (kernel[], may be
 * NULL), only those: a change of the kernel's is where the kernel changed.
 */
static bool night_edge(const struct cp_series *s, int t)
{
	return !s->night || s->night[t] != s->night[t - 1];
}

static bool kernel_edge(const struct cp_series *s, int t)
{
	return s->kernel && s->kernel[t] != s->kernel[t - 1];
}

static int refine(const struct cp_series *s, int lo, int at, int min_size)
{
	const double *x = s->x;
	int t, best = at, i, n = s->n;
	double bss = INFINITY;
	bool kernels = false;

	for (t = at - 2; t <= at + 2; t++)
		if (t - lo >= min_size && n - t >= min_size && kernel_edge(s, t))
			kernels = true;
	for (t = at - 2; t <= at + 2; t++) {
		double ml, mr, ss = 0;

		if (t - lo < min_size || n - t < min_size || !night_edge(s, t) ||
		    (kernels && !kernel_edge(s, t)))
			continue;
		ml = mean_of(x, lo, t);
		mr = mean_of(x, t, n);
		for (i = lo; i < n; i++)
			ss += (x[i] - (i < t ? ml : mr)) * (x[i] - (i < t ? ml : mr));
		/* (the first candidate: INFINITY - INFINITY would be NaN) */
		if (isinf(bss) || ss < bss - 1e-12 * fabs(bss)) {
			bss = ss;
			best = t;
		}
	}
	return best;
}

int cp_judge(const struct cp_series *s, const struct cp_rule *r, struct cp_verdict *v)
{
	int k, i, j, lo, n = s->n;
	double d;

	memset(v, 0, sizeof(*v));
	v->state = CPS_NONE;
	v->mean = n ? gsl_stats_mean(s->x, 1, n) : NAN;
	v->sd = n > 1 ? mssd_sd(s->x, s->night, n) : NAN;
	v->tail_p = 1;
	v->ncp = cp_edivisive(s->x, n, &r->cp, v->cp, CP_MAX_CHANGES, &v->last_p);
	if (v->ncp < 0)
		return -1;
	if (r->tail > 0 && v->ncp < CP_MAX_CHANGES) {
		struct cp_change t;

		lo = v->ncp ? v->cp[v->ncp - 1].at : 0;
		i = cp_tail(s->x, n, lo, r->tail, &r->cp, &t);
		if (i < 0)
			return -1;
		v->tail_p = t.p;
		if (i > 0) {
			v->cp[v->ncp++] = t;
			v->from_tail = true;
		}
	}
	if (!v->ncp)
		return 0;
	k = v->ncp - 1;
	v->seg_start = k ? v->cp[k - 1].at : 0;
	v->at = v->cp[k].at = refine(s, v->seg_start, v->cp[k].at, r->cp.min_size);
	v->before = mean_of(s->x, v->seg_start, v->at);
	v->after = mean_of(s->x, v->at, n);
	v->pct = pct_of(v->before, v->after, s->better);
	v->worse = s->better > 0 ? v->after < v->before : v->after > v->before;
	d = fabs(v->after - v->before);
	/*
	 * The yardstick: the spread from night to night of the runs before the
	 * change (the host's moods included: each move between levels counts),
	 * but never less than the spread around the levels (the segments' own
	 * means, pooled over the whole history): the runs before a change point
	 * split where they happen to lie close together.
	 */
	{
		double ss = 0;
		int df = 0;

		for (j = 0, lo = 0; j <= v->ncp; j++) {
			int hi = j < v->ncp ? v->cp[j].at : n;
			double m = mean_of(s->x, lo, hi);

			for (i = lo; i < hi; i++)
				ss += (s->x[i] - m) * (s->x[i] - m);
			df += hi - lo - 1;
			lo = hi;
		}
		v->pooled_sd = df > 0 ? sqrt(ss / df) : NAN;
	}
	v->ref_sd = v->at > 1 ? mssd_sd(s->x, s->night, v->at) : NAN;
	if (!(v->ref_sd >= v->pooled_sd))
		v->ref_sd = v->pooled_sd;
	v->size_sd = v->ref_sd > 0 ? d / v->ref_sd : d > 0 ? INFINITY : 0;
	/* the two segments against their own spread: Student's t, one-sided
	 * in the direction the level went */
	{
		int m = v->at - v->seg_start, k2 = n - v->at;
		double ss = 0, sp;

		for (i = v->seg_start; i < n; i++) {
			double c = s->x[i] - (i < v->at ? v->before : v->after);

			ss += c * c;
		}
		sp = m + k2 > 2 ? sqrt(ss / (m + k2 - 2)) : NAN;
		v->t_p = sp > 0 ? gsl_cdf_tdist_Q(d / (sp * sqrt(1.0 / m + 1.0 / k2)), m + k2 - 2)
			   : d > 0 ? 0 : 1;
	}
	/* the worst level before it: the segments' means up to the change */
	v->worst_before = v->before;
	for (i = 0, lo = 0; i < k; lo = v->cp[i++].at) {
		double m = mean_of(s->x, lo, v->cp[i].at);

		if (s->better > 0 ? m < v->worst_before : m > v->worst_before)
			v->worst_before = m;
	}
	v->n_after = n - v->at;
	for (i = v->at; i < n; i++)
		v->nights_after += i == v->at || s->night[i] != s->night[i - 1];
	for (i = 0; i < v->at; i++)
		v->nights_before += i == 0 || s->night[i] != s->night[i - 1];

	v->state = CPS_UNCONFIRMED;
	if (v->nights_after < r->confirm)
		return 0;
	v->state = CPS_YOUNG;
	if (v->nights_before < r->min_ref)
		return 0;
	/* each of the last `confirm` nights on the new side of the old level */
	v->state = CPS_UNCONFIRMED;
	for (i = n - 1, j = 0; i >= v->at && j < r->confirm; j++) {
		int night = s->night[i], hi = i + 1;
		double m;

		while (i >= v->at && s->night[i] == night)
			i--;
		m = mean_of(s->x, i + 1, hi);
		if (v->after < v->before ? m >= v->before : m <= v->before)
			return 0;
	}
	v->state = CPS_SEEN;
	if (v->worse && (s->better > 0 ? v->after >= v->worst_before : v->after <= v->worst_before))
		return 0;
	if (v->t_p <= r->t_alpha && v->size_sd >= r->min_sd && fabs(v->pct) >= r->min_pct)
		v->state = CPS_CONFIRMED;
	else if (v->worse && v->t_p <= r->suspect_alpha && fabs(v->pct) >= r->min_pct)
		v->state = CPS_SUSPECT;
	else
		v->state = CPS_SMALL;
	return 0;
}

bool cp_rerun_holds(const struct cp_verdict *v, double rerun)
{
	double mid = (v->before + v->after) / 2;

	if (v->state != CPS_CONFIRMED || !v->worse)
		return false;
	return v->after < v->before ? rerun < mid : rerun > mid;
}
