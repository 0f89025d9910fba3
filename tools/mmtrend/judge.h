/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the nightly judges: a line's verdict from mmcompare (or from the
 * same comparison code in mmtrend), narrowed by the lab's policy:
 *  - only metrics matching the --judge patterns (fnmatch on "metric" or
 *    "workload:metric"; none given: every judged metric);
 *  - a significant change smaller than --min-change percent counts as the
 *    same: with tens of metrics compared every night at alpha = 0.05, a
 *    few tiny "significant" changes are expected by chance alone.
 */
#ifndef MMT_JUDGE_H
#define MMT_JUDGE_H

#include <stdbool.h>

#define JUDGE_MAX_PATTERNS 64

struct judge_opts {
	const char *pattern[JUDGE_MAX_PATTERNS];
	int npattern;
	double min_change;	/* percent, >= 0 */
};

enum judge_verdict { JV_WORSE, JV_BETTER, JV_SAME, JV_TOO_FEW, JV_SKIP };

/* Add the space-separated patterns of s. Returns -1 when there are too many. */
int judge_add_patterns(struct judge_opts *o, const char *s);
void judge_free(struct judge_opts *o);
bool judge_metric(const struct judge_opts *o, const char *workload, const char *metric);
/*
 * The policy's verdict for a comparison verdict ("worse", "better", "same",
 * "too_few", "info", "missing", "base") with its % change (positive =
 * better; pct_ok false when unknown).
 */
enum judge_verdict judge_apply(const struct judge_opts *o, const char *workload,
			       const char *metric, const char *verdict, double pct, bool pct_ok);

#endif /* MMT_JUDGE_H */
