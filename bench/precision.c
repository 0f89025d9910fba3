// SPDX-License-Identifier: GPL-2.0
/*
 * Precision on demand: the metrics --precision watches and their 95%
 * confidence half-widths (precision.h). The case child keeps the measured
 * values of the watched metrics in memory (a few per iteration), so the
 * driver can decide after each iteration whether to run another.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "core.h"
#include "precision.h"

const char *mm_stop_word(enum mm_stop s)
{
	static const char *const w[] = {
		[MM_STOP_NONE] = "",
		[MM_STOP_FIXED] = "fixed",
		[MM_STOP_PRECISION] = "precision",
		[MM_STOP_NOTHING] = "nothing-timed",
		[MM_STOP_MAX_ITER] = "max-iterations",
		[MM_STOP_MAX_TIME] = "max-time",
	};

	return (unsigned)s < sizeof(w) / sizeof(w[0]) ? w[s] : "";
}

bool mm_prec_watched(enum mm_role role, enum mm_better better, bool timed,
		     bool emulated)
{
	return role == MM_EVIDENCE && better != MM_INFO && timed && !emulated;
}

double mm_halfwidth_pct(const double *v, size_t n, double *mean)
{
	double m, sd;

	if (n == 0) {
		if (mean)
			*mean = NAN;
		return NAN;
	}
	m = gsl_stats_mean(v, 1, n);
	if (mean)
		*mean = m;
	if (n < 2)
		return NAN;
	sd = gsl_stats_sd_m(v, 1, n, m);
	/* no spread: every value the same (a sum of rounding is not spread) */
	if (sd == 0 || sd <= fabs(m) * 1e-12)
		return 0;
	if (m == 0)
		return INFINITY;
	return 100 * gsl_cdf_tdist_Pinv(0.975, (double)n - 1) * sd / sqrt((double)n) / fabs(m);
}

/* ---------------------------------------------------------------- child */

static struct {
	struct watched {
		char *name;
		double *v;
		size_t n, cap;
	} *m;
	size_t n, cap;
} prec;

void mm_prec_reset(void)
{
	for (size_t i = 0; i < prec.n; i++) {
		free(prec.m[i].name);
		free(prec.m[i].v);
	}
	free(prec.m);
	memset(&prec, 0, sizeof(prec));
}

void mm_prec_add(const char *metric, double v)
{
	struct watched *w = NULL;

	for (size_t i = 0; i < prec.n && !w; i++)
		if (!strcmp(prec.m[i].name, metric))
			w = &prec.m[i];
	if (!w) {
		if (prec.n == prec.cap) {
			size_t cap = prec.cap * 2 + 8;
			struct watched *m = realloc(prec.m, cap * sizeof(*m));

			if (!m)
				return;	/* the rule then sees fewer values: more iterations */
			prec.m = m;
			prec.cap = cap;
		}
		w = &prec.m[prec.n];
		memset(w, 0, sizeof(*w));
		w->name = strdup(metric);
		if (!w->name)
			return;
		prec.n++;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap * 2 + 16;
		double *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = v;
}

int mm_prec_worst(double *pct, char *metric, size_t len)
{
	*pct = NAN;
	if (len)
		metric[0] = '\0';
	for (size_t i = 0; i < prec.n; i++) {
		double h = mm_halfwidth_pct(prec.m[i].v, prec.m[i].n, NULL);

		if (isnan(h))
			continue;
		if (isnan(*pct) || h > *pct) {
			*pct = h;
			snprintf(metric, len, "%s", prec.m[i].name);
		}
	}
	return (int)prec.n;
}
