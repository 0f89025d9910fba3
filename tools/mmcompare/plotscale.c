// SPDX-License-Identifier: GPL-2.0
/*
 * mmplot's scaling charts: for case parameters with numeric values
 * (threads, instances, mlock_pct) the mean against that parameter, one line
 * per label (the thpscale scaling plot).
 */
#include <stdio.h>
#include <stdlib.h>

#include "numbers.h"
#include "gptext.h"
#include "mmplot.h"

/* ------------------------------------------------------------ scaling */

static bool case_num(const char *kase, const char *key, double *x)
{
	char v[128];

	if (!rs_case_get(kase, key, v, sizeof(v)) || !v[0])
		return false;
	return !mm_parse_real(v, x) && plottable(*x);
}

/* The case string without KEY: the lines one scaling curve joins. */
static char *case_without(const char *kase, const char *key)
{
	size_t kl = strlen(key);
	char *out = malloc(strlen(kase) + 1), *o = out;
	const char *p = kase, *end;

	if (!out)
		return NULL;
	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if (!(strncmp(p, key, kl) == 0 && p[kl] == '=')) {
			if (o != out)
				*o++ = ';';
			memcpy(o, p, end - p);
			o += end - p;
		}
		p = *end ? end + 1 : end;
	}
	*o = '\0';
	return out;
}

struct xrow {
	double x;
	const struct cmp_row *r;
};

static int xrow_cmp(const void *a, const void *b)
{
	double x = ((const struct xrow *)a)->x, y = ((const struct xrow *)b)->x;

	return x < y ? -1 : x > y;
}

/* One panel: metric of rows xr[0..n) against key, one curve per side. */
static void scale_panel(struct plotter *pl, struct xrow *xr, size_t n, const char *key,
			bool first)
{
	char title[256];
	size_t k, points;
	int i;

	qsort(xr, n, sizeof(*xr), xrow_cmp);
	for (i = 0; i < pl->s->nsides; i++) {
		for (k = 0, points = 0; k < n; k++) {
			const struct cmp_cell *c = &xr[k].r->cell[i];

			if (!c->present)
				continue;
			points++;
			fprintf(pl->dat, "%.10g", xr[k].x);
			dat_num(pl->dat, c->sum.mean, true);
			dat_num(pl->dat, c->sum.ci_ok ? c->sum.ci_lo : c->sum.mean, true);
			dat_num(pl->dat, c->sum.ci_ok ? c->sum.ci_hi : c->sum.mean, true);
			fputc('\n', pl->dat);
		}
		/* an empty block would shift the index of the next ones */
		fprintf(pl->dat, "%s\n\n", points ? "" : "? ? ? ?\n");
	}
	metric_title(xr[0].r->line, title, sizeof(title));
	panel_reset(pl->gp, title);
	fprintf(pl->gp, "set xlabel ");
	gp_text(pl->gp, key);
	fprintf(pl->gp, "\nset offsets graph 0.05, graph 0.05, 0, 0\n%s\n%s\n",
		xr[0].x > 0 && xr[n - 1].x / xr[0].x >= 8 ? "set logscale x 2" : "",
		first ? "set key top left opaque font ',8'" : "unset key");
	plot_sides(pl, "1:2:3:4", 0, 0, "", "with yerrorlines");
	pl->block += pl->s->nsides;
}

/*
 * Lines of workload w whose case, without KEY, is REST; judged metrics
 * only (counters with better=info scale with the work, not the patch),
 * unless the workload has no judged metric.
 */
static size_t scale_rows(const struct plotter *pl, const struct rs_workload *w,
			 const char *key, const char *rest, bool judged, struct xrow *xr)
{
	size_t k, n = 0;
	char *r;

	for (k = w->first; k < w->first + w->count; k++) {
		const struct cmp_row *row = &pl->cmp->rows[k];

		if ((judged && row->line->better == MM_INFO) || !row_plottable(pl, row))
			continue;
		r = case_without(row->line->kase, key);
		if (r && !strcmp(r, rest) && case_num(row->line->kase, key, &xr[n].x))
			xr[n++].r = row;
		free(r);
	}
	return n;
}

/* One chart per page of metrics: rows xr[0..n) sorted by metric order. */
static int scale_group(struct plotter *pl, int wi, const char *key, const char *rest,
		       int g, struct xrow *xr, size_t n)
{
	const struct rs_workload *w = &pl->s->wls[wi];
	size_t a, b, starts[PANELS_PER_PAGE + 1];
	char stem[160], title[512], wn[48], kn[48];
	int page = 0, np, i, rc;

	safe_name(wn, sizeof(wn), w->name);
	safe_name(kn, sizeof(kn), key);
	for (a = 0; a < n; page++) {
		for (np = 0, b = a; b < n && np < PANELS_PER_PAGE; np++) {
			starts[np] = b;
			while (++b < n && xr[b].r->line->metric == xr[starts[np]].r->line->metric)
				;
		}
		starts[np] = b;
		snprintf(stem, sizeof(stem), "%02d-%s-scale-%s-%d-%d", wi + 1, wn, kn, g, page + 1);
		snprintf(title, sizeof(title), "%s: mean against %s%s%s, %.0f%% CI", w->name,
			 key, *rest ? " at " : "", rest, 100 * (1 - pl->o->alpha));
		rc = chart_begin(pl, wi, PK_DETAIL, stem, title, NULL, np);
		if (rc)
			return rc < 0 ? -1 : 0;
		for (i = 0; i < np; i++)
			scale_panel(pl, xr + starts[i], starts[i + 1] - starts[i], key, i == 0);
		if (chart_end(pl))
			return -1;
		a = b;
	}
	return 0;
}

/* Distinct case-without-KEY strings among the workload's lines. */
static int scale_rests(const struct plotter *pl, const struct rs_workload *w,
		       const char *key, char ***rests, int *nrests)
{
	size_t k;
	double x;
	int i;

	for (k = w->first; k < w->first + w->count; k++) {
		const char *kase = pl->cmp->rows[k].line->kase;
		char *r, **nr;

		if (!case_num(kase, key, &x))
			return 1;	/* not numeric everywhere: no scaling plot */
		r = case_without(kase, key);
		if (!r)
			return -1;
		for (i = 0; i < *nrests && strcmp((*rests)[i], r); i++)
			;
		if (i < *nrests) {
			free(r);
			continue;
		}
		nr = realloc(*rests, (*nrests + 1) * sizeof(*nr));
		if (!nr) {
			free(r);
			return -1;
		}
		*rests = nr;
		nr[(*nrests)++] = r;
	}
	return 0;
}

static bool has_judged(const struct plotter *pl, const struct rs_workload *w)
{
	size_t k;

	for (k = w->first; k < w->first + w->count; k++)
		if (pl->cmp->rows[k].line->better != MM_INFO)
			return true;
	return false;
}

/* At least two distinct x values, or there is no curve to draw. */
static bool spread_x(const struct xrow *xr, size_t n)
{
	size_t k;

	for (k = 1; k < n; k++)
		if (xr[k].x != xr[0].x)
			return true;
	return false;
}

static int scale_key(struct plotter *pl, int wi, const char *key, struct xrow *xr)
{
	const struct rs_workload *w = &pl->s->wls[wi];
	bool judged = has_judged(pl, w);
	char **rests = NULL;
	int nrests = 0, i, rc;
	size_t n;

	rc = scale_rests(pl, w, key, &rests, &nrests);
	for (i = 0; !rc && i < nrests; i++) {
		n = scale_rows(pl, w, key, rests[i], judged, xr);
		if (spread_x(xr, n))
			rc = scale_group(pl, wi, key, rests[i], i + 1, xr, n);
	}
	for (i = 0; i < nrests; i++)
		free(rests[i]);
	free(rests);
	return rc < 0 ? -1 : 0;
}

int scale_workload(struct plotter *pl, int wi)
{
	const struct rs_workload *w = &pl->s->wls[wi];
	struct xrow *xr = malloc(w->count * sizeof(*xr));
	int i, rc = 0;

	if (!xr)
		return -1;
	for (i = 0; i < w->nvary && !rc; i++)
		rc = scale_key(pl, wi, w->vary[i], xr);
	free(xr);
	return rc;
}
