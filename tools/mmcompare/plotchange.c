// SPDX-License-Identifier: GPL-2.0
/*
 * mmplot's judged charts: latency CDFs per label (samples.csv), the %
 * change of every judged metric per NEW label, and each workload's
 * headline chart of its evidence metrics with each NEW side's verdict.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gptext.h"
#include "mmplot.h"

/* ------------------------------------------------------------ CDFs */

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Samples of one (workload, case, class, side), sorted, thinned to points. */
static void cdf_block(FILE *dat, struct rs_sampleset *ss)
{
	size_t n = ss ? ss->vals.n : 0, m = n < CDF_POINTS ? n : CDF_POINTS, j, idx;

	if (!n) {
		fprintf(dat, "? ?\n\n\n");
		return;
	}
	qsort(ss->vals.v, n, sizeof(double), dbl_cmp);
	for (j = 0; j < m; j++) {
		idx = m == 1 ? n - 1 : j * (n - 1) / (m - 1);
		fprintf(dat, "%.10g %.10g\n", ss->vals.v[idx], (double)(idx + 1) / n);
	}
	fprintf(dat, "\n\n");
}

static struct rs_sampleset *find_ss(struct rs_set *s, const char *wl, const char *kase,
				    const char *klass, int side)
{
	size_t i;

	for (i = 0; i < s->nsamples; i++)
		if (s->samples[i].workload == wl && s->samples[i].kase == kase &&
		    s->samples[i].klass == klass && s->samples[i].side == side)
			return &s->samples[i];
	return NULL;
}

static void cdf_panel(struct plotter *pl, struct rs_set *s, const struct rs_sampleset *ss,
		      bool first)
{
	bool logx = true;
	char title[256];
	int i;

	for (i = 0; i < s->nsides; i++) {
		struct rs_sampleset *x = find_ss(s, ss->workload, ss->kase, ss->klass, i);

		cdf_block(pl->dat, x);
		logx &= !x || !x->vals.n || x->vals.v[0] > 0;
	}
	snprintf(title, sizeof(title), "class %s", ss->klass);
	panel_reset(pl->gp, title);
	fprintf(pl->gp, "set xlabel 'latency (ns)'\nset ylabel 'fraction <= x'\n"
		"set yrange [0:1]\n%s\n%s\n", logx ? "set logscale x" : "",
		first ? "set key bottom right opaque font ',8'" : "unset key");
	plot_sides(pl, "1:2", 0, 0, "", "with steps");
	pl->block += s->nsides;
}

/* Every side's samples of ss's case and class are within PLOT_MAX. */
static bool samples_plottable(struct rs_set *s, const struct rs_sampleset *ss)
{
	size_t i, k;

	for (i = 0; i < s->nsamples; i++) {
		const struct rs_sampleset *x = &s->samples[i];

		if (x->workload != ss->workload || x->kase != ss->kase || x->klass != ss->klass)
			continue;
		for (k = 0; k < x->vals.n; k++)
			if (!plottable(x->vals.v[k]))
				return false;
	}
	return true;
}

/* Sample sets of workload wl, first side seen, one per (case, class). */
static size_t cdf_sets(struct rs_set *s, const char *wl, const struct rs_sampleset **out)
{
	size_t i, j, n = 0;

	for (i = 0; i < s->nsamples; i++) {
		if (s->samples[i].workload != wl || !samples_plottable(s, &s->samples[i]))
			continue;
		for (j = 0; j < n; j++)
			if (out[j]->kase == s->samples[i].kase && out[j]->klass == s->samples[i].klass)
				break;
		if (j == n)
			out[n++] = &s->samples[i];
	}
	return n;
}

int cdf_workload(struct plotter *pl, struct rs_set *s, int wi)
{
	const struct rs_workload *w = &s->wls[wi];
	const struct rs_sampleset **sets = malloc((s->nsamples + 1) * sizeof(*sets));
	size_t n = sets ? cdf_sets(s, w->name, sets) : 0, a, b;
	char stem[128], title[512], wn[48];
	int c = 0, rc = sets ? 0 : -1;

	safe_name(wn, sizeof(wn), w->name);
	for (a = 0; !rc && a < n; a = b) {
		/* one chart per case, a panel per class (up to a page) */
		for (b = a + 1; b < n && b - a < PANELS_PER_PAGE && sets[b]->kase == sets[a]->kase; b++)
			;
		snprintf(stem, sizeof(stem), "%02d-%s-cdf-%d", wi + 1, wn, ++c);
		snprintf(title, sizeof(title), "%s: latency CDF per label%s%s", w->name,
			 *sets[a]->kase ? " at " : "", sets[a]->kase);
		rc = chart_begin(pl, wi, PK_DETAIL, stem, title, NULL, b - a);
		if (rc)
			break;
		for (size_t k = a; k < b; k++)
			cdf_panel(pl, s, sets[k], k == a);
		rc = chart_end(pl);
	}
	free(sets);
	return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ % change */

/* Bars beyond this are drawn at it; the label says the real change. */
#define PCT_CLIP 100.0
/* More rows than this and the change chart names none of them. */
#define CHANGE_LABELS 120

/*
 * A cell of the % change chart: judged (or too few iterations to judge),
 * or the workload's evidence whatever its direction. Times measured in an
 * emulated (TCG) guest are left out (counted in *nemu): they say how fast
 * QEMU emulates, and their swings would dwarf every real change. A change
 * from a base of 0 has no % and is drawn at the clip, when it changed.
 */
static bool in_change(const struct cmp_row *r, const struct cmp_cell *c, size_t *nemu)
{
	if (!c->present || !r->cell[0].present)
		return false;
	if (c->verdict == CMP_EMULATED) {
		(*nemu)++;
		return false;
	}
	if (!c->judged && c->verdict != CMP_TOO_FEW && !r->line->evidence)
		return false;
	return c->pct_ok || (isfinite(c->diff) && c->diff != 0);
}

struct pct_row {
	double pct;		/* drawn: the change, oriented and clipped */
	const struct cmp_row *r;
	const struct cmp_cell *c;
};

static int pct_cmp(const void *a, const void *b)
{
	double x = ((const struct pct_row *)a)->pct, y = ((const struct pct_row *)b)->pct;

	return x < y ? -1 : x > y;
}

/* The bar of a cell: its % change, or from a base of 0 the clip, signed by
 * whether the change is better (info: by its sign). */
static double pct_shown(const struct cmp_row *r, const struct cmp_cell *c)
{
	double v;

	if (c->pct_ok)
		v = c->pct;
	else if (r->line->better == MM_LOWER)
		v = c->diff < 0 ? PCT_CLIP : -PCT_CLIP;
	else
		v = c->diff > 0 ? PCT_CLIP : -PCT_CLIP;
	return v > PCT_CLIP ? PCT_CLIP : v < -PCT_CLIP ? -PCT_CLIP : v;
}

static void change_data(struct plotter *pl, struct pct_row *pr, size_t n)
{
	char label[512];
	size_t k;

	for (k = 0; k < n; k++) {
		const struct cmp_cell *c = pr[k].c;
		size_t o;

		o = snprintf(label, sizeof(label), "%s:%s", pr[k].r->line->workload,
			     pr[k].r->line->name);
		if (pr[k].r->line->evidence && o < sizeof(label))
			o += snprintf(label + o, sizeof(label) - o, " [evidence]");
		if (c->exact && o < sizeof(label))
			o += snprintf(label + o, sizeof(label) - o, " [exact]");
		if (pr[k].r->line->better == MM_INFO && o < sizeof(label))
			o += snprintf(label + o, sizeof(label) - o, " [info: raw change]");
		if (!c->pct_ok && c->overflow && o < sizeof(label))
			o += snprintf(label + o, sizeof(label) - o, " [change overflowed: %+.4g %s]",
				      c->diff, pr[k].r->line->unit);
		else if (!c->pct_ok && o < sizeof(label))
			o += snprintf(label + o, sizeof(label) - o, " [base 0: %+.4g %s]",
				      c->diff, pr[k].r->line->unit);
		else if (c->pct != pr[k].pct && o < sizeof(label))
			snprintf(label + o, sizeof(label) - o, " [%+.4g%%]", c->pct);
		gp_datstr(pl->dat, label);
		fprintf(pl->dat, " %.10g %d # %s\n", pr[k].pct,
			c->verdict == CMP_BETTER ? 0x228833 :
			c->verdict == CMP_WORSE ? 0xcc3311 : 0xbbbbbb,
			cmp_verdict_str(c->verdict));
	}
}

int change_side(struct plotter *pl, int side)
{
	struct pct_row *pr = malloc((pl->cmp->nrows + 1) * sizeof(*pr));
	char stem[128], title[512], sub[512], sn[48];
	size_t k, n = 0, nev = 0, nemu = 0;
	int rc;

	if (!pr)
		return -1;
	for (k = 0; k < pl->cmp->nrows; k++) {
		const struct cmp_row *r = &pl->cmp->rows[k];

		if (!in_change(r, &r->cell[side], &nemu))
			continue;
		pr[n++] = (struct pct_row){ pct_shown(r, &r->cell[side]), r, &r->cell[side] };
		nev += r->line->evidence;
	}
	if (!n) {
		free(pr);
		return 0;
	}
	qsort(pr, n, sizeof(*pr), pct_cmp);
	safe_name(sn, sizeof(sn), pl->s->sides[side].name);
	snprintf(stem, sizeof(stem), "00-change-%d-%s", side, sn);
	snprintf(title, sizeof(title), "%% change of %s vs %s: %zu metrics (%zu evidence), "
		 "sorted, positive = better", pl->s->sides[side].name, pl->s->sides[0].name,
		 n, nev);
	snprintf(sub, sizeof(sub), "green/red: significant (adjusted p < %g, %s), grey: not; "
		 "bars clipped at +-%.0f%%; %zu emulated (TCG) time(s) left out",
		 pl->o->alpha, cmp_correction_str(pl->cmp->opts.correction), PCT_CLIP, nemu);
	/* horizontal bars, a row each: the names stay readable */
	pl->height = n > CHANGE_LABELS ? 900 : 140 + 16 * (n < 20 ? 20 : n);
	rc = chart_begin(pl, -1, PK_CHANGE, stem, title, sub, 1);
	if (!rc) {
		change_data(pl, pr, n);
		panel_reset(pl->gp, "");
		/* bars grow from 0: the x range must hold it */
		fprintf(pl->gp, "set style fill solid 0.8 border -1\nunset key\n"
			"set xrange [*<0:0<*]\nset yrange [-0.6:%g]\nset yzeroaxis lt -1\n"
			"set grid xtics noytics\n"
			"set xlabel '%% change vs base (positive = better)'\n%s\n"
			"plot '%s.dat' using (0):0:(0):2:($0-0.4):($0+0.4):3%s "
			"with boxxyerror lc rgb variable\n", n - 0.4,
			n > CHANGE_LABELS ? "unset ytics" : "set ytics scale 0 font ',7'", stem,
			n > CHANGE_LABELS ? "" : ":ytic(1)");
		rc = chart_end(pl);
	}
	free(pr);
	return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ headline */

/* What a NEW cell says about its line: "better, exact", "worse, p=0.003". */
static void verdict_words(const struct cmp_cell *c, char *buf, size_t len)
{
	static const char *const words[] = {
		[CMP_BASE] = "base", [CMP_BETTER] = "better", [CMP_WORSE] = "worse",
		[CMP_SAME] = "not significant", [CMP_INFO] = "info, not judged",
		[CMP_TOO_FEW] = "n<3, not judged", [CMP_MISSING] = "missing",
		[CMP_EMULATED] = "emulated (TCG) time, not judged",
		[CMP_ONE_RUN] = "time of one run per side, not judged",
		[CMP_OVERFLOW] = "overflow, not judged",
	};
	const char *w = words[c->verdict];

	if (c->verdict == CMP_SAME && c->exact)
		w = "same";
	if (c->exact)
		snprintf(buf, len, "%s, exact", w);
	else if (c->p_ok && (c->verdict == CMP_BETTER || c->verdict == CMP_WORSE ||
			     c->verdict == CMP_SAME))
		snprintf(buf, len, "%s, p=%.2g", w, c->p_adj);
	else
		snprintf(buf, len, "%s", w);
}

/*
 * The rows of a headline panel, one per case: the cluster's x, its tic
 * label (the case, then one line per NEW side with its verdict), and per
 * side mean, interval and the value printed over the bar.
 */
static bool headline_data(struct plotter *pl, const struct cmp_row *const *rows, size_t n)
{
	bool nonneg = true;
	char words[128];
	size_t k;
	int i;

	for (k = 0; k < n; k++) {
		fprintf(pl->dat, "%zu \"", k);
		gp_put(pl->dat, case_label(rows[k]->line), GP_TEXT_MAX);
		for (i = 1; i < pl->s->nsides; i++) {
			/* a data file's "\n" is a line break in a tic label */
			fputs("\\n", pl->dat);
			if (pl->s->nsides > 2) {
				gp_put(pl->dat, pl->s->sides[i].name, 40);
				fputs(": ", pl->dat);
			}
			verdict_words(&rows[k]->cell[i], words, sizeof(words));
			gp_put(pl->dat, words, GP_TEXT_MAX);
		}
		fputc('"', pl->dat);
		for (i = 0; i < pl->s->nsides; i++) {
			const struct cmp_cell *c = &rows[k]->cell[i];
			const struct st_summary *s = &c->sum;
			char v[64];

			dat_num(pl->dat, s->mean, c->present);
			dat_num(pl->dat, s->ci_ok ? s->ci_lo : s->mean, c->present);
			dat_num(pl->dat, s->ci_ok ? s->ci_hi : s->mean, c->present);
			snprintf(v, sizeof(v), "%.4g%s", s->mean,
				 c->present && c->emulated ? " TCG" : "");
			fputc(' ', pl->dat);
			gp_datstr(pl->dat, c->present ? v : "-");
			nonneg &= !c->present || (s->ci_ok ? s->ci_lo : s->mean) >= 0;
		}
		fputc('\n', pl->dat);
	}
	fprintf(pl->dat, "\n\n");
	return nonneg;
}

/*
 * A panel: one metric, a cluster per case, a bar per side at an explicit
 * x (cluster + offset), so error bars and values sit on their bars.
 */
static void headline_panel(struct plotter *pl, const struct cmp_row *const *rows, size_t n)
{
	const struct rs_line *l = rows[0]->line;
	int ns = pl->s->nsides, i;
	double bw = 0.8 / ns;
	bool nonneg = headline_data(pl, rows, n), emu = false;
	char title[256];
	size_t k;

	for (k = 0; k < n; k++)
		for (i = 1; i < ns; i++)
			emu |= rows[k]->cell[i].emulated;
	metric_title(l, title, sizeof(title));
	if (emu)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 " - emulated (TCG) time");
	panel_reset2(pl->gp, title, l->claim);
	fprintf(pl->gp, "set style fill solid 0.7 border -1\nset boxwidth %g absolute\n"
		"set xrange [-0.6:%g]\n%s\nset offsets 0, 0, graph 0.2, 0\n"
		"set xtics scale 0 %s\nset bmargin %d\nset key top right font ',8'\n",
		bw * 0.9, n - 0.4, nonneg ? "set yrange [0:*]" : "",
		n > 6 ? "rotate by -30" : "", 3 + ns);
	fprintf(pl->gp, "plot ");
	for (i = 0; i < ns; i++) {
		double off = (i - (ns - 1) / 2.0) * bw;
		int col = 3 + 4 * i;

		fprintf(pl->gp, "%s'%s.dat' index %d using ($1%+g):%d with boxes lc rgb '%s' title ",
			i ? ", \\\n     " : "", pl->plots[pl->nplots - 1].stem, pl->block, off,
			col, plot_colors[i % 8]);
		gp_textn(pl->gp, pl->s->sides[i].name, KEY_MAX);
		fprintf(pl->gp, ", \\\n     '' index %d using ($1%+g):%d:%d:%d with yerrorbars "
			"lc rgb '#333333' pt 7 ps 0 notitle", pl->block, off, col, col + 1, col + 2);
		fprintf(pl->gp, ", \\\n     '' index %d using ($1%+g):%d:%d with labels "
			"offset 0,0.6 font ',7' notitle", pl->block, off, col + 2, col + 3);
	}
	/* the tic labels, at the clusters' centres (the points themselves: none) */
	fprintf(pl->gp, ", \\\n     '' index %d using 1:(NaN):xtic(2) notitle\n", pl->block);
	pl->block++;
}

/*
 * The rows a workload's headline chart shows: its evidence; when it
 * declares none, the lines that changed significantly on a NEW side.
 * Rows of one metric are adjacent (rs_set.sorted order).
 */
static size_t headline_rows(const struct plotter *pl, const struct rs_workload *w,
			    const struct cmp_row **out, bool *evidence)
{
	size_t k, n = 0;
	int i;

	for (k = w->first; k < w->first + w->count; k++)
		if (pl->cmp->rows[k].line->evidence && row_plottable(pl, &pl->cmp->rows[k]))
			out[n++] = &pl->cmp->rows[k];
	*evidence = n > 0;
	for (k = w->first; !*evidence && k < w->first + w->count; k++)
		for (i = 1; i < pl->s->nsides; i++)
			if (pl->cmp->rows[k].cell[i].significant &&
			    row_plottable(pl, &pl->cmp->rows[k])) {
				out[n++] = &pl->cmp->rows[k];
				break;
			}
	return n;
}

/* The headline chart of workload wi: a panel per metric, a page of nine. */
int headline_workload(struct plotter *pl, int wi)
{
	const struct rs_workload *w = &pl->s->wls[wi];
	const struct cmp_row **rows = malloc((w->count + 1) * sizeof(*rows));
	size_t n, a, b, starts[PANELS_PER_PAGE + 1];
	char stem[128], title[512], sub[256], wn[48];
	int page = 0, np, i, rc = 0;
	bool evidence;

	if (!rows)
		return -1;
	n = headline_rows(pl, w, rows, &evidence);
	safe_name(wn, sizeof(wn), w->name);
	snprintf(sub, sizeof(sub), "mean per label, %.0f%% CI error bars; under each case: "
		 "the verdict of each NEW side (p: %s adjusted; exact: no variance)",
		 100 * (1 - pl->o->alpha), cmp_correction_str(pl->cmp->opts.correction));
	for (a = 0; a < n && !rc; page++) {
		for (np = 0, b = a; b < n && np < PANELS_PER_PAGE; np++) {
			starts[np] = b;
			while (++b < n && rows[b]->line->metric == rows[starts[np]]->line->metric)
				;
		}
		starts[np] = b;
		snprintf(stem, sizeof(stem), "%02d-%s-headline-%d", wi + 1, wn, page + 1);
		snprintf(title, sizeof(title), "%s: %s", w->name,
			 evidence ? "the evidence" :
			 "no evidence declared; the metrics that changed significantly");
		if (page || b < n)
			snprintf(title + strlen(title), sizeof(title) - strlen(title),
				 " (page %d)", page + 1);
		rc = chart_begin(pl, wi, PK_HEADLINE, stem, title, sub, np);
		if (rc)
			break;
		for (i = 0; i < np; i++)
			headline_panel(pl, rows + starts[i], starts[i + 1] - starts[i]);
		rc = chart_end(pl);
		a = b;
	}
	free(rows);
	return rc < 0 ? -1 : 0;
}
