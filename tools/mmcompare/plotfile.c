// SPDX-License-Identifier: GPL-2.0
/*
 * mmplot's chart files: NAME.gp and NAME.dat opened, begun and ended,
 * panels, what can be drawn, and the bar charts of each metric's mean per
 * label.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gptext.h"
#include "mmplot.h"

const char *const plot_colors[8] = {
	"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377",
	"#bbbbbb", "#000000",
};

/* ------------------------------------------------------------ gnuplot files */

/* File-name-safe copy of s. */
void safe_name(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 1 < len && o < 40; s++)
		out[o++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			   (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' ? *s : '_';
	out[o] = '\0';
}

static FILE *open_in(const struct plotter *pl, const char *stem, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", pl->o->out, stem, ext);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "mmplot: %s: %s\n", path, strerror(errno));
	return f;
}

/* A script string of two lines: 'line1'."\n".'line2' (each filtered). */
static void gp_text2(FILE *f, const char *l1, const char *l2)
{
	gp_text(f, l1);
	if (l2 && *l2) {
		fputs(".\"\\n\".", f);
		gp_text(f, l2);
	}
}

/*
 * Start a chart: NAME.gp draws the same page twice, to pngcairo and svg.
 * sub (or NULL) is a second line of the title. Returns 0, 1 when
 * --max-plots is reached, -1 on error.
 */
int chart_begin(struct plotter *pl, int wl, enum plot_kind kind, const char *stem,
		       const char *title, const char *sub, int panels)
{
	int cols = panels <= 1 ? 1 : panels <= 4 ? 2 : 3;
	int rows = (panels + cols - 1) / cols;
	int w = cols == 1 ? 900 : 520 * cols, h = rows == 1 ? 560 : 400 * rows;
	struct plot *p;

	if (pl->height > 0)
		h = pl->height;
	pl->height = 0;
	if (pl->nplots >= pl->o->max_plots) {
		pl->dropped++;
		return 1;
	}
	p = realloc(pl->plots, (pl->nplots + 1) * sizeof(*p));
	if (!p)
		return -1;
	pl->plots = p;
	p = &pl->plots[pl->nplots++];
	memset(p, 0, sizeof(*p));
	snprintf(p->stem, sizeof(p->stem), "%s", stem);
	snprintf(p->title, sizeof(p->title), "%s", title);
	p->wl = wl;
	p->kind = kind;
	pl->gp = open_in(pl, stem, "gp");
	pl->dat = pl->gp ? open_in(pl, stem, "dat") : NULL;
	if (!pl->dat)
		return -1;
	pl->block = 0;
	fprintf(pl->gp, "# mmplot: ");
	gp_put(pl->gp, title, GP_TEXT_MAX);
	fprintf(pl->gp, "\n# data: %s.dat; restyle and redraw: gnuplot %s.gp\n"
		"# text from the inputs is filtered (tools/mmcompare/gptext.h)\n", stem, stem);
	fprintf(pl->gp, "reset\nset datafile missing '?'\nset grid ytics\n"
		"do for [fmt in 'png svg'] {\n"
		"if (fmt eq 'png') {\n"
		"  set terminal pngcairo size %d,%d noenhanced font 'sans,9'\n"
		"} else {\n"
		"  set terminal svg size %d,%d dynamic noenhanced font 'sans,9'\n"
		"}\nset output '%s.'.fmt\nset multiplot layout %d,%d title ",
		w, h, w, h, stem, rows, cols);
	gp_text2(pl->gp, title, sub);
	fputc('\n', pl->gp);
	fprintf(pl->dat, "# mmplot: ");
	gp_put(pl->dat, title, GP_TEXT_MAX);
	fputc('\n', pl->dat);
	return 0;
}

int chart_end(struct plotter *pl)
{
	int err;

	fprintf(pl->gp, "unset multiplot\nset output\n}\n");
	err = ferror(pl->gp) | ferror(pl->dat);
	err |= fclose(pl->gp) | fclose(pl->dat);
	pl->gp = pl->dat = NULL;
	if (err) {
		fprintf(stderr, "mmplot: writing %s/%s: %s\n", pl->o->out,
			pl->plots[pl->nplots - 1].stem, strerror(errno));
		return -1;
	}
	return 0;
}

/* A panel's settings back to the defaults, and its title (sub: NULL or a
 * second line). */
void panel_reset2(FILE *gp, const char *title, const char *sub)
{
	fprintf(gp, "unset logscale\nset autoscale\nunset xlabel\nunset ylabel\nset offsets\n"
		"set xtics autofreq norotate\nset title ");
	gp_text2(gp, title, sub);
	fputc('\n', gp);
}

void panel_reset(FILE *gp, const char *title)
{
	panel_reset2(gp, title, NULL);
}

void dat_num(FILE *f, double v, bool ok)
{
	if (ok)
		fprintf(f, " %.10g", v);
	else
		fprintf(f, " ?");
}

bool plottable(double v)
{
	return isfinite(v) && fabs(v) <= PLOT_MAX;
}

/* Every value a chart would draw of the row: means and intervals. */
bool row_plottable(const struct plotter *pl, const struct cmp_row *r)
{
	int i;

	for (i = 0; i < pl->s->nsides; i++) {
		const struct st_summary *s = &r->cell[i].sum;

		if (r->cell[i].present &&
		    (!plottable(s->mean) || (s->ci_ok && !(plottable(s->ci_lo) &&
							    plottable(s->ci_hi)))))
			return false;
	}
	return true;
}

/* Count each line left out once (the first chart that meets it). */
static bool row_drawn(struct plotter *pl, const struct cmp_row *r, bool count)
{
	if (row_plottable(pl, r))
		return true;
	pl->overflow += count;
	return false;
}

void metric_title(const struct rs_line *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s%s%s)", l->metric, l->unit, *l->unit ? ", " : "",
		 l->better == MM_LOWER ? "lower is better" :
		 l->better == MM_HIGHER ? "higher is better" : "info");
}

/* ------------------------------------------------------------ bars */

/* The varying-key part of a display name: "12" of "fault_both-12". */
const char *case_label(const struct rs_line *l)
{
	size_t n = strlen(l->metric);

	return l->name[n] == '-' ? l->name + n + 1 : "all";
}

/*
 * "plot" one data set per side. stride > 0: the sides are column groups of
 * one index block (bars); stride 0: each side is its own index block.
 * extra0 ends the first data set's using spec (":xtic(1)").
 */
void plot_sides(struct plotter *pl, const char *using_fmt, int stride, int first_col,
		       const char *extra0, const char *with)
{
	int i;

	fprintf(pl->gp, "plot ");
	for (i = 0; i < pl->s->nsides; i++) {
		fprintf(pl->gp, "%s'%s.dat' index %d using ", i ? ", \\\n     " : "",
			pl->plots[pl->nplots - 1].stem, pl->block + (stride ? 0 : i));
		fprintf(pl->gp, using_fmt, first_col + i * stride, first_col + i * stride + 1,
			first_col + i * stride + 2);
		fprintf(pl->gp, "%s %s title ", i ? "" : extra0, with);
		gp_textn(pl->gp, pl->s->sides[i].name, KEY_MAX);
		fprintf(pl->gp, " lc rgb '%s'", plot_colors[i % 8]);
	}
	fputc('\n', pl->gp);
}

/* A panel of bars: rows [a, b) share a metric, one cluster per case. */
static void bars_panel(struct plotter *pl, size_t a, size_t b, bool key)
{
	const struct cmp_row *rows = pl->cmp->rows;
	bool nonneg = true;
	char title[256];
	size_t k;
	int i;

	for (k = a; k < b; k++) {
		if (!row_plottable(pl, &rows[k]))
			continue;
		gp_datstr(pl->dat, case_label(rows[k].line));
		for (i = 0; i < pl->s->nsides; i++) {
			const struct cmp_cell *c = &rows[k].cell[i];
			const struct st_summary *s = &c->sum;

			dat_num(pl->dat, s->mean, c->present);
			dat_num(pl->dat, s->ci_ok ? s->ci_lo : s->mean, c->present);
			dat_num(pl->dat, s->ci_ok ? s->ci_hi : s->mean, c->present);
			nonneg &= !c->present || (s->ci_ok ? s->ci_lo : s->mean) >= 0;
		}
		fputc('\n', pl->dat);
	}
	fprintf(pl->dat, "\n\n");
	metric_title(rows[a].line, title, sizeof(title));
	panel_reset(pl->gp, title);
	fprintf(pl->gp, "%s\nset style data histograms\n"
		"set style histogram errorbars gap 2 lw 1\nset style fill solid 0.7 border -1\n"
		"%s\n%s\n", nonneg ? "set yrange [0:*]" : "",
		b - a > 6 ? "set xtics rotate by -30" : "",
		key ? "set key top left opaque font ',8'" : "unset key");
	plot_sides(pl, "%d:%d:%d", 3, 2, ":xtic(1)", "");
	pl->block++;
}

/* Bars of every metric of workload wi, PANELS_PER_PAGE metrics a page. */
int bars_workload(struct plotter *pl, int wi)
{
	const struct rs_workload *w = &pl->s->wls[wi];
	const struct cmp_row *rows = pl->cmp->rows;
	size_t a, b, end = w->first + w->count, starts[PANELS_PER_PAGE], ends[PANELS_PER_PAGE];
	char stem[128], title[256], wn[48];
	int page = 0, n, i, rc;

	safe_name(wn, sizeof(wn), w->name);
	for (a = w->first; a < end; page++) {
		/* the next page: up to PANELS_PER_PAGE runs of one metric */
		for (n = 0, b = a; b < end && n < PANELS_PER_PAGE;) {
			bool any = row_drawn(pl, &rows[b], true);

			starts[n] = b;
			while (++b < end && rows[b].line->metric == rows[starts[n]].line->metric)
				any |= row_drawn(pl, &rows[b], true);
			/* a panel needs a point: a metric without one is left out */
			if (any)
				ends[n++] = b;
		}
		if (!n)
			break;
		snprintf(stem, sizeof(stem), "%02d-%s-bars-%d", wi + 1, wn, page + 1);
		snprintf(title, sizeof(title), "%s: mean per label, %.0f%% CI error bars",
			 w->name, 100 * (1 - pl->o->alpha));
		if (page || b < end)
			snprintf(title + strlen(title), sizeof(title) - strlen(title),
				 " (page %d)", page + 1);
		rc = chart_begin(pl, wi, PK_DETAIL, stem, title, NULL, n);
		if (rc)
			return rc < 0 ? -1 : 0;
		for (i = 0; i < n; i++)
			bars_panel(pl, starts[i], ends[i], i == 0);
		if (chart_end(pl))
			return -1;
		a = b;
	}
	return 0;
}
