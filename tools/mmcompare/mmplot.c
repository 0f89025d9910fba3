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
 * are data, never gnuplot commands. mmplot.h names the file of each chart.
 */
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "exitcodes.h"
#include "gptext.h"
#include "mmplot.h"
#include "numbers.h"

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
		case 'a': if (mm_parse_alpha("mmplot", optarg, &o->alpha)) return -1; break;
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
	int i, rc = MM_FAIL, good = 0;

	struct cmp_opts co = { .alpha = o->alpha, .correction = CMP_BH,
			       .iterations_as_samples = o->iterations_as_samples };

	if (cmp_build_opts(&c, s, &co))
		return MM_FAIL;
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
		rc = MM_USAGE;
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
	int rc = MM_USAGE;

	if (parse_opts(argc, argv, &o))
		return MM_USAGE;
	if (find_gnuplot(&o, gnuplot, sizeof(gnuplot))) {
		fprintf(stderr, "mmplot: gnuplot not found%s%s (Debian package gnuplot-nox); "
			"cannot plot\n", o.gnuplot ? " at " : " in PATH", o.gnuplot ? o.gnuplot : "");
		return MM_FAIL;
	}
	gsl_set_error_handler_off();
	rs_init(&s, RS_SAMPLES | (o.per_arg ? RS_PER_ARG : 0));
	if (!load(&s, &o, argc - optind, argv + optind))
		rc = plot_all(&o, &s, gnuplot);
	rs_free(&s);
	return rc;
}
