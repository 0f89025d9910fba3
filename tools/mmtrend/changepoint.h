/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Change points in a metric's history, and the nightly's rule for when one
 * is an alert. tools/nightly.md ("Judging the history") explains the
 * choices; the numbers here are the defaults it documents.
 *
 * E-divisive means (Matteson & James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014), with
 * the exponent alpha = 1 and the second segment running to the end of the
 * segment being divided (as MongoDB's CI and Apache Otava use it). For a
 * split of a segment into X = x[0..m) and Y = x[m..m+k):
 *
 *   E(X, Y) = 2/(m k) sum |X_i - Y_j| - 1/C(m,2) sum_{i<l} |X_i - X_l|
 *                                      - 1/C(k,2) sum_{j<l} |Y_j - Y_l|
 *   Q(X, Y) = m k / (m + k) E(X, Y)
 *
 * (a within-sum of one point is 0). The best split of a segment maximises
 * Q over splits leaving at least min_size points on each side. Divisive:
 * the best split over all current segments is tested by permutation: the
 * points of every segment are shuffled within their segment R times, the
 * best split over all segments computed each time, and
 * p = (1 + #(permuted >= observed)) / (R + 1). A split with p <= alpha is
 * kept and the segments divided again; the first that is not ends it.
 *
 * The random numbers (GSL's MT19937) are seeded from the values themselves
 * (a 64-bit FNV-1a hash of the points and the number of splits already
 * made): the same history gives the same change points every time.
 */
#ifndef MMT_CHANGEPOINT_H
#define MMT_CHANGEPOINT_H

#include <stdbool.h>
#include <stdint.h>

#define CP_MAX_CHANGES 32

struct cp_opts {
	double alpha;		/* significance of the permutation test */
	int perms;		/* R: permutations per test */
	int min_size;		/* the fewest points a segment may hold */
};

#define CP_DEFAULT_OPTS { .alpha = 0.05, .perms = 199, .min_size = 2 }

struct cp_change {
	int at;			/* index of the first point after the change */
	double q;		/* Q of the split, in the units of the values */
	double p;		/* permutation p (a lower bound when the test stopped early) */
};

/* Q of splitting x[0..n) into x[0..tau) and x[tau..n); 0 < tau < n. */
double cp_qhat(const double *x, int n, int tau);
/*
 * The best split of x[0..n) with at least min_size points each side, in
 * O(n^2): *tau and *q. Returns false when the segment is too short.
 */
bool cp_best_split(const double *x, int n, int min_size, int *tau, double *q);
/* The seed of a series: FNV-1a over the values' bits and salt. */
uint64_t cp_seed(const double *x, int n, uint64_t salt);
/*
 * E-divisive on x[0..n): the significant change points in the order of
 * their position, at most max. *last_p (may be NULL): p of the first split
 * that was not significant (1 when none was tested). Returns the count, or
 * -1 when out of memory.
 */
int cp_edivisive(const double *x, int n, const struct cp_opts *o, struct cp_change *out,
		 int max, double *last_p);

/*
 * The tail test: is there a change among the last `tail` points of the
 * segment x[lo..n)? Its best split with at least min_size points each side
 * and at most `tail` points after it, tested by permuting the segment and
 * taking the best of the same splits each time (so the choice of the split
 * is paid for). E-divisive's test takes the best split anywhere, where the
 * splits in the middle of a long history have the largest Q by chance, and
 * so finds a change at the end only after many more nights. Returns 1 (out
 * set) when p <= alpha, 0 when not (out->p set), -1 when out of memory.
 */
int cp_tail(const double *x, int n, int lo, int tail, const struct cp_opts *o,
	    struct cp_change *out);

/* ------------------------------------------------------------ the rule */

/*
 * A history: one point per run in time order, night[i] the night it ran
 * in (nondecreasing; the runs of one night, its rerun included, share
 * the host's state of that night), kernel[i] which kernel it ran (equal
 * numbers for equal kernels; NULL: not known), better +1 (higher) or -1
 * (lower).
 */
struct cp_series {
	const double *x;
	const int *night;
	const int *kernel;
	int n;
	int better;
};

struct cp_rule {
	struct cp_opts cp;
	int confirm;		/* M: nights after the change, tonight included */
	double min_sd;		/* K: the change in sd of the runs before it */
	double min_pct;		/* and at least this many percent */
	int min_ref;		/* nights before it: the noise it is measured by */
	int tail;		/* points the tail test scans (0: none) */
	double t_alpha;		/* Student's t of the two segments: p at most */
	double suspect_alpha;	/* ... for a suspect (worth a rerun) */
};

#define CP_DEFAULT_RULE { .cp = CP_DEFAULT_OPTS, .confirm = 2, .min_sd = 2.0, .min_pct = 0, \
			  .min_ref = 10, .tail = 8, .t_alpha = 0.0003, \
			  .suspect_alpha = 0.05 }

enum cp_state {
	CPS_NONE,		/* no change point */
	CPS_UNCONFIRMED,	/* too few nights after it, or they do not stay */
	CPS_YOUNG,		/* too few nights before it to know the noise */
	CPS_SMALL,		/* under min_sd (or min_pct) */
	CPS_SEEN,		/* worse, but to a level the history held before */
	CPS_SUSPECT,		/* worse, likely but not certain: worth a rerun */
	CPS_CONFIRMED,
};

struct cp_verdict {
	struct cp_change cp[CP_MAX_CHANGES];
	int ncp;
	double last_p;		/* the first split that was not kept */
	double tail_p;		/* the tail test's */
	bool from_tail;		/* the latest change point is the tail test's */
	/* the latest change point, when ncp > 0: */
	int at;			/* its first point */
	int seg_start;		/* first point of the segment before it */
	double before, after;	/* means of the segments before and after it */
	double pct;		/* change of the mean, %, positive = better */
	double ref_sd;		/* night-to-night sd before it, at least pooled_sd */
	double pooled_sd;	/* sd around the segments' means, pooled */
	double size_sd;		/* |after - before| / ref_sd */
	double t_p;		/* Student's t of the segments before and after */
	double worst_before;	/* the worst segment mean before it */
	int n_after, nights_after, nights_before;
	bool worse;
	enum cp_state state;
	/* the noise of the whole series (no change point needed): its mean,
	 * and its sd from night to night (consecutive nights' differences) */
	double mean, sd;
};

/*
 * Judge the latest change point of s under r. Confirmed: significant
 * (p <= alpha), at least r->confirm nights after it (tonight included),
 * the mean of each of those nights on the far side of the level before it,
 * the change at least r->min_sd sd of the points before it and r->min_pct
 * percent, and, when worse, beyond every level (segment mean) the history
 * held before it. Returns -1 when out of memory.
 */
int cp_judge(const struct cp_series *s, const struct cp_rule *r, struct cp_verdict *v);
/*
 * A suspected regression re-run: v judged with the rerun as the last point
 * of tonight. It holds when v is still a confirmed change for the worse and
 * the rerun itself lies on the new side of the midpoint between the levels
 * before and after (it reproduces the new level, not the old).
 */
bool cp_rerun_holds(const struct cp_verdict *v, double rerun);
const char *cp_state_str(enum cp_state s);

#endif /* MMT_CHANGEPOINT_H */
