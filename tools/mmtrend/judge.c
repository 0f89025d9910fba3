// SPDX-License-Identifier: GPL-2.0
/*
 * The nightly's judging policy over comparison verdicts. See judge.h.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

int judge_add_patterns(struct judge_opts *o, const char *s)
{
	char *dup = strdup(s), *tok, *save = NULL;
	int rc = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		if (o->npattern == JUDGE_MAX_PATTERNS) {
			rc = -1;
			break;
		}
		o->pattern[o->npattern] = strdup(tok);
		if (!o->pattern[o->npattern]) {
			rc = -1;
			break;
		}
		o->npattern++;
	}
	free(dup);
	return rc;
}

void judge_free(struct judge_opts *o)
{
	while (o->npattern > 0)
		free((char *)o->pattern[--o->npattern]);
}

bool judge_metric(const struct judge_opts *o, const char *workload, const char *metric)
{
	char both[512];
	int i;

	if (!o->npattern)
		return true;
	snprintf(both, sizeof(both), "%s:%s", workload, metric);
	for (i = 0; i < o->npattern; i++)
		if (!fnmatch(o->pattern[i], metric, 0) || !fnmatch(o->pattern[i], both, 0))
			return true;
	return false;
}

enum judge_verdict judge_apply(const struct judge_opts *o, const char *workload,
			       const char *metric, const char *verdict, double pct, bool pct_ok)
{
	bool worse = !strcmp(verdict, "worse"), better = !strcmp(verdict, "better");

	if (!strcmp(verdict, "info") || !strcmp(verdict, "missing") || !strcmp(verdict, "base"))
		return JV_SKIP;
	if (!judge_metric(o, workload, metric))
		return JV_SKIP;
	if (!strcmp(verdict, "too_few"))
		return JV_TOO_FEW;
	if ((worse || better) && pct_ok && fabs(pct) < o->min_change)
		return JV_SAME;
	if (worse)
		return JV_WORSE;
	return better ? JV_BETTER : JV_SAME;
}
