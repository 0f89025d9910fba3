// SPDX-License-Identifier: GPL-2.0
/*
 * mmplot: gnuplot charts of mmbench results, from the same inputs as
 * mmcompare. For every chart it writes NAME.gp (the script), NAME.dat (its
 * data), and runs gnuplot to get NAME.png (pngcairo) and NAME.svg, so a
 * user can restyle and rerun `gnuplot NAME.gp`.
 *
 * Charts: per workload a headline chart of its evidence metrics (the
 * metrics its experiment's claim rests on, one panel each, every case, base
 * and NEW means with confidence-interval error bars and each NEW side's
 * verdict); each metric's mean per label with confidence-interval error
 * bars; for case parameters with numeric values (threads, instances,
 * mlock_pct) the mean against that parameter, one line per label (the
 * thpscale scaling plot); latency CDFs per label from samples.csv; and per
 * NEW label the % change of every judged metric and of the evidence,
 * sorted, without times measured in emulated (TCG) guests.
 *
 * Every string from the inputs reaches the scripts and data files only
 * through gptext.h (a filtered, single-quoted copy): labels and case strings
 * are data, never gnuplot commands.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "gptext.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define PANELS_PER_PAGE 9
#define CDF_POINTS 1000
/* A label in a chart's key: at most this many characters */
#define KEY_MAX 60
/*
 * gnuplot's autoscaling overflows on values near the double range (1.4e308
 * fails a histogram with "No valid points"): a line with a value to draw
 * beyond this is left out of the charts (counted in plots.md), as is a
 * latency CDF with such a sample.
 */
#define PLOT_MAX 1e300

struct opts {
	const char *out, *prefix, *gnuplot;
	double alpha;
	bool force, per_arg, iterations_as_samples;
	int max_plots;
};

enum plot_kind { PK_CHANGE, PK_HEADLINE, PK_DETAIL };

struct plot {
	char stem[256];		/* NAME of NAME.{gp,dat,png,svg} */
	char title[512];
	int wl;			/* workload index; -1: change chart */
	enum plot_kind kind;
	bool ok;		/* gnuplot wrote both images */
};

struct plotter {
	const struct opts *o;
	const struct cmp *cmp;
	const struct rs_set *s;
	struct plot *plots;
	int nplots, dropped;
	size_t overflow;	/* lines left out: values beyond PLOT_MAX */
	FILE *gp, *dat;
	int block;		/* next index block in the .dat file */
	int height;		/* > 0: the next chart's height in pixels */
};

static const char *const colors[] = {
	"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377",
	"#bbbbbb", "#000000",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmplot -o DIR [options] BASE NEW [NEW2...]\n"
		"  BASE, NEW: as for mmcompare (run directory, results.csv, or a\n"
		"  directory of runs; runs with the same label are pooled).\n"
		"options:\n"
		"  -o, --out DIR        where to write NAME.gp, .dat, .png, .svg and plots.md\n"
		"  --alpha A            significance level and 1-A confidence (default 0.05)\n"
		"  --force              plot even if facts that change the answer differ\n"
		"  --per-arg            one side per argument instead of per label\n"
		"  --iterations-as-samples  judge as mmcompare --iterations-as-samples does\n"
		"  --link-prefix P      prefix of the image links in plots.md\n"
		"  --max-plots N        draw at most N charts (default 300)\n"
		"  --gnuplot PATH       the gnuplot to run (default: $MMPLOT_GNUPLOT, or\n"
		"                       gnuplot in PATH)\n"
		"exit: 0 ok, 1 gnuplot missing or failed, 2 usage, bad input or nothing\n"
		"plottable\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "per-arg", no_argument, NULL, 'p' },
		{ "iterations-as-samples", no_argument, NULL, 'I' },
		{ "link-prefix", required_argument, NULL, 'l' },
		{ "max-plots", required_argument, NULL, 'm' },
		{ "gnuplot", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct opts){ .alpha = 0.05, .prefix = "", .max_plots = 300,
			    .gnuplot = getenv("MMPLOT_GNUPLOT") };
	while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'f': o->force = true; break;
		case 'p': o->per_arg = true; break;
		case 'l': o->prefix = optarg; break;
		case 'g': o->gnuplot = optarg; break;
		case 'a':
			/* decimal only, the result files' rule (mm_decimal_real) */
			o->alpha = mm_decimal_real(optarg) ? strtod(optarg, NULL) : NAN;
			if (!(o->alpha > 0 && o->alpha < 1)) {
				fprintf(stderr, "mmplot: --alpha '%s': want a decimal number between "
					"0 and 1 (such as 0.05)\n", optarg);
				return -1;
			}
			break;
		case 'I': o->iterations_as_samples = true; break;
		case 'm':
			o->max_plots = strtol(optarg, &end, 10);
			if (*end || !*optarg || o->max_plots < 1) {
				fprintf(stderr, "mmplot: --max-plots '%s': want a positive integer\n",
					optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (!o->out || argc - optind < 2) {
		fprintf(stderr, "mmplot: need -o DIR, BASE and at least one NEW\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ gnuplot files */

/* File-name-safe copy of s. */
static void safe_name(char *out, size_t len, const char *s)
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
static int chart_begin(struct plotter *pl, int wl, enum plot_kind kind, const char *stem,
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

static int chart_end(struct plotter *pl)
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
static void panel_reset2(FILE *gp, const char *title, const char *sub)
{
	fprintf(gp, "unset logscale\nset autoscale\nunset xlabel\nunset ylabel\nset offsets\n"
		"set xtics autofreq norotate\nset title ");
	gp_text2(gp, title, sub);
	fputc('\n', gp);
}

static void panel_reset(FILE *gp, const char *title)
{
	panel_reset2(gp, title, NULL);
}

static void dat_num(FILE *f, double v, bool ok)
{
	if (ok)
		fprintf(f, " %.10g", v);
	else
		fprintf(f, " ?");
}

static bool plottable(double v)
{
	return isfinite(v) && fabs(v) <= PLOT_MAX;
}

/* Every value a chart would draw of the row: means and intervals. */
static bool row_plottable(const struct plotter *pl, const struct cmp_row *r)
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

static void metric_title(const struct rs_line *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s%s%s)", l->metric, l->unit, *l->unit ? ", " : "",
		 l->better == MM_LOWER ? "lower is better" :
		 l->better == MM_HIGHER ? "higher is better" : "info");
}

/* ------------------------------------------------------------ bars */

/* The varying-key part of a display name: "12" of "fault_both-12". */
static const char *case_label(const struct rs_line *l)
{
	size_t n = strlen(l->metric);

	return l->name[n] == '-' ? l->name + n + 1 : "all";
}

/*
 * "plot" one data set per side. stride > 0: the sides are column groups of
 * one index block (bars); stride 0: each side is its own index block.
 * extra0 ends the first data set's using spec (":xtic(1)").
 */
static void plot_sides(struct plotter *pl, const char *using_fmt, int stride, int first_col,
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
		fprintf(pl->gp, " lc rgb '%s'", colors[i % 8]);
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
static int bars_workload(struct plotter *pl, int wi)
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

/* ------------------------------------------------------------ scaling */

static bool case_num(const char *kase, const char *key, double *x)
{
	char v[128], *end;

	if (!rs_case_get(kase, key, v, sizeof(v)) || !v[0])
		return false;
	*x = strtod(v, &end);
	return !*end && plottable(*x);
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

static int scale_workload(struct plotter *pl, int wi)
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

static int cdf_workload(struct plotter *pl, struct rs_set *s, int wi)
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

static int change_side(struct plotter *pl, int side)
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
			col, colors[i % 8]);
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
static int headline_workload(struct plotter *pl, int wi)
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

/* ------------------------------------------------------------ gnuplot */

/* The gnuplot to run: --gnuplot, or the first one in PATH. */
static int find_gnuplot(const struct opts *o, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save;

	if (o->gnuplot) {
		snprintf(out, len, "%s", o->gnuplot);
		return access(out, X_OK);
	}
	dirs = strdup(path ? path : "/usr/bin:/bin");
	for (d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/gnuplot", *d ? d : ".");
		if (!access(out, X_OK)) {
			free(dirs);
			return 0;
		}
	}
	free(dirs);
	return -1;
}

/* Run gnuplot on every script, in the output directory; log to gnuplot.log. */
static int run_gnuplot(const struct plotter *pl, const char *gnuplot)
{
	char **argv = calloc(pl->nplots + 2, sizeof(*argv)), log[4096];
	int i, status = -1;
	pid_t pid;

	if (!argv)
		return -1;
	argv[0] = (char *)gnuplot;
	for (i = 0; i < pl->nplots; i++)
		if (asprintf(&argv[i + 1], "%s.gp", pl->plots[i].stem) < 0)
			argv[i + 1] = NULL;
	snprintf(log, sizeof(log), "%s/gnuplot.log", pl->o->out);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (!freopen(log, "w", stderr) || chdir(pl->o->out))
			_exit(127);
		execv(gnuplot, argv);
		fprintf(stderr, "exec %s: %s\n", gnuplot, strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	for (i = 1; i <= pl->nplots; i++)
		free(argv[i]);
	free(argv);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "mmplot: %s failed (status %d), see %s\n", gnuplot,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1, log);
		return -1;
	}
	return 0;
}

/* Did gnuplot write this image? PNG: the signature; SVG: an <svg> root. */
static bool image_ok(const struct plotter *pl, const char *stem, const char *ext)
{
	static const unsigned char png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	char path[4096], head[512] = "";
	struct stat st;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", pl->o->out, stem, ext);
	f = fopen(path, "rb");
	if (f) {
		n = fread(head, 1, sizeof(head) - 1, f);
		fclose(f);
	}
	if (!f || stat(path, &st) || st.st_size < 200)
		return false;
	head[n] = '\0';
	if (!strcmp(ext, "png"))
		return n >= 8 && !memcmp(head, png_sig, 8);
	return strstr(head, "<svg") != NULL;
}

/* ------------------------------------------------------------ plots.md */

/*
 * Input text in markdown: the gnuplot filter, then the characters that
 * would end the alt text or open a tag.
 */
static void md_text(FILE *f, const char *s)
{
	char buf[GP_TEXT_MAX + 1];
	const char *p;

	gp_clean(buf, sizeof(buf), s);
	for (p = buf; *p; p++)
		fputs(*p == '[' ? "(" : *p == ']' ? ")" : *p == '<' ? "&lt;" :
		      *p == '>' ? "&gt;" : *p == '|' ? "/" : *p == '*' ? "\\*" :
		      (char[2]){ *p, 0 }, f);
}

/* A marker's name: letters, digits and . _ : = + - only (compare-report
 * maps mmcompare's markers the same way before it matches them). */
static void md_marker(FILE *f, const char *kind, const char *name)
{
	fprintf(f, "<!-- mmplot:%s ", kind);
	for (; *name; name++)
		fputc((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
		      (*name >= '0' && *name <= '9') || strchr("._:=+-", *name) ? *name : '_', f);
	fprintf(f, " -->\n");
}

static void md_plot(const struct plotter *pl, FILE *f, const struct plot *p)
{
	const char *x = pl->o->prefix;

	fprintf(f, "![");
	md_text(f, p->title);
	fprintf(f, "](%s%s.png)\n\n", x, p->stem);
	fprintf(f, "[SVG](%s%s.svg) · [gnuplot script](%s%s.gp) · [data](%s%s.dat)\n\n",
		x, p->stem, x, p->stem, x, p->stem);
}

/*
 * plots.md: the % change charts, each workload's headline chart, each
 * workload's other charts, each section opened by an HTML comment that
 * tools/compare-report keys on.
 */
static int write_md(const struct plotter *pl)
{
	char path[4096];
	int w, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/plots.md", pl->o->out);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "mmplot: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "<!-- mmplot:change -->\n");
	for (i = 0; i < pl->nplots; i++)
		if (pl->plots[i].ok && pl->plots[i].kind == PK_CHANGE)
			md_plot(pl, f, &pl->plots[i]);
	for (w = 0; w < pl->s->nwls; w++) {
		md_marker(f, "headline", pl->s->wls[w].name);
		for (i = 0; i < pl->nplots; i++)
			if (pl->plots[i].ok && pl->plots[i].wl == w &&
			    pl->plots[i].kind == PK_HEADLINE)
				md_plot(pl, f, &pl->plots[i]);
	}
	for (w = 0; w < pl->s->nwls; w++) {
		md_marker(f, "workload", pl->s->wls[w].name);
		for (i = 0; i < pl->nplots; i++)
			if (pl->plots[i].ok && pl->plots[i].wl == w &&
			    pl->plots[i].kind == PK_DETAIL)
				md_plot(pl, f, &pl->plots[i]);
	}
	if (pl->dropped || pl->overflow)
		fprintf(f, "<!-- mmplot:dropped -->\n");
	if (pl->dropped)
		fprintf(f, "%d more chart(s) not drawn (--max-plots %d).\n", pl->dropped,
			pl->o->max_plots);
	if (pl->overflow)
		fprintf(f, "%zu line(s) left out of the charts: a value beyond +-%g, which "
			"gnuplot cannot scale (the tables show them).\n", pl->overflow, PLOT_MAX);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "mmplot: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ main */

static int load(struct rs_set *s, const struct opts *o, int argc, char **argv)
{
	struct cmp_meta m;
	int i;

	for (i = 0; i < argc; i++) {
		if (rs_add_arg(s, argv[i])) {
			fprintf(stderr, "mmplot: %s\n", s->err);
			return -1;
		}
	}
	if (rs_finish(s)) {
		if (!s->nlines && !strcmp(s->err, "no measured rows in the input"))
			fprintf(stderr, "mmplot: the input holds nothing plottable: no measured rows\n");
		else
			fprintf(stderr, "mmplot: %s\n", s->err);
		return -1;
	}
	if (s->nsides < 2) {
		fprintf(stderr, "mmplot: only one label (%s) in the input: nothing to compare\n",
			s->nsides ? s->sides[0].name : "none");
		return -1;
	}
	if (cmp_meta(s, &m))
		return -1;
	for (i = 0; i < m.n; i++)
		if (m.f[i].critical)
			fprintf(stderr, "mmplot: %s: %s differs between runs (%s ...)\n",
				o->force ? "warning" : "error", m.f[i].key, m.f[i].val[0]);
	i = m.ncritical && !o->force;
	if (i)
		fprintf(stderr, "mmplot: refusing to plot runs that differ in facts that change "
			"the answer; --force plots anyway\n");
	cmp_meta_free(&m);
	return i ? -1 : 0;
}

static int draw(struct plotter *pl, struct rs_set *s)
{
	int i;

	/* the verdict first: --max-plots drops detail, not the headline */
	for (i = 1; i < s->nsides; i++)
		if (change_side(pl, i))
			return -1;
	for (i = 0; i < s->nwls; i++)
		if (headline_workload(pl, i))
			return -1;
	for (i = 0; i < s->nwls; i++)
		if (bars_workload(pl, i) || scale_workload(pl, i) || cdf_workload(pl, s, i))
			return -1;
	return 0;
}

static int plot_all(const struct opts *o, struct rs_set *s, const char *gnuplot)
{
	struct plotter pl = { .o = o, .s = s };
	struct cmp c;
	int i, rc = EXIT_FAIL, good = 0;

	struct cmp_opts co = { .alpha = o->alpha, .correction = CMP_BH,
			       .iterations_as_samples = o->iterations_as_samples };

	if (cmp_build_opts(&c, s, &co))
		return EXIT_FAIL;
	pl.cmp = &c;
	if (mkdir(o->out, 0777) && errno != EEXIST) {
		fprintf(stderr, "mmplot: %s: %s\n", o->out, strerror(errno));
		goto out;
	}
	if (draw(&pl, s))
		goto out;
	if (!pl.nplots) {
		if (pl.overflow)
			fprintf(stderr, "mmplot: the input holds nothing plottable: %zu line(s) "
				"with a value beyond +-%g, which gnuplot cannot scale\n", pl.overflow,
				PLOT_MAX);
		else
			fprintf(stderr, "mmplot: the input holds nothing plottable\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (run_gnuplot(&pl, gnuplot))
		goto out;
	for (i = 0; i < pl.nplots; i++) {
		pl.plots[i].ok = image_ok(&pl, pl.plots[i].stem, "png") &&
				 image_ok(&pl, pl.plots[i].stem, "svg");
		if (!pl.plots[i].ok)
			fprintf(stderr, "mmplot: gnuplot did not write %s/%s.png and .svg\n",
				o->out, pl.plots[i].stem);
		good += pl.plots[i].ok;
	}
	if (!write_md(&pl) && good == pl.nplots) {
		printf("mmplot: %d chart(s) in %s%s\n", good, o->out,
		       pl.dropped ? " (more dropped, see --max-plots)" : "");
		if (pl.overflow)
			fprintf(stderr, "mmplot: %zu line(s) left out of the charts: a value "
				"beyond +-%g, which gnuplot cannot scale\n", pl.overflow, PLOT_MAX);
		rc = 0;
	}
out:
	free(pl.plots);
	cmp_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	char gnuplot[4096];
	struct rs_set s;
	struct opts o;
	int rc = EXIT_USAGE;

	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	if (find_gnuplot(&o, gnuplot, sizeof(gnuplot))) {
		fprintf(stderr, "mmplot: gnuplot not found%s%s (Debian package gnuplot-nox); "
			"cannot plot\n", o.gnuplot ? " at " : " in PATH", o.gnuplot ? o.gnuplot : "");
		return EXIT_FAIL;
	}
	gsl_set_error_handler_off();
	rs_init(&s, RS_SAMPLES | (o.per_arg ? RS_PER_ARG : 0));
	if (!load(&s, &o, argc - optind, argv + optind))
		rc = plot_all(&o, &s, gnuplot);
	rs_free(&s);
	return rc;
}
