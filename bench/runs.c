// SPDX-License-Identifier: GPL-2.0
/*
 * `mmbench precision [--precision P] RUN_DIR...`: the precision of one
 * side measured as runs (bench/SCHEMA.md, "Precision").
 *
 *  - Within each run: per case, from cases.csv, the measured iterations,
 *    the largest 95% half-width of its judged timed evidence metrics and
 *    how its iterations stopped (a limit before --precision is flagged).
 *  - Between runs (two run directories or more): per case and watched
 *    metric, each run's mean of its iterations is one sample; the 95%
 *    half-width of their mean is t(0.975, k-1) * sd(run means) / sqrt(k)
 *    over k runs, in percent of the mean of the run means. The runs' means
 *    carry the variance between runs (the host's state of the minute) that
 *    iterations of one run do not see.
 *
 * Watched: a metric that metrics.csv declares evidence, judged (better
 * lower or higher) and timed, in a run whose meta.csv does not say
 * vm_accel=tcg (emulated times are not judged): mm_prec_watched().
 *
 * Exit: 0, or with --precision 0 when every watched metric of every case
 * is within P between the runs (or nothing is watched); 1 when one is not,
 * or cannot be told (held by fewer than two runs); 2 bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_statistics_double.h>

#include "core.h"
#include "driver.h"
#include "precision.h"
#include "resrow.h"

/* A watched metric of a workload, from one run's metrics.csv. */
struct decl {
	char *wl, *metric, *unit;
};

/* One (workload, case, metric) line: its mean in each run. */
struct line {
	char *wl, *kase, *metric, *unit;
	double *mean;		/* per run; NAN where the run has no row */
	double sum;		/* the current run's rows */
	long n;
};

struct runs {
	int nruns, run;		/* runs, the one being read */
	struct decl *decl;
	size_t ndecl, capdecl;
	struct line *line;
	size_t nline, capline;
	bool emulated, bad;
	int limited;		/* cases stopped by a limit before P */
	double target;
};

static char *xstrdup(struct runs *r, const char *s)
{
	char *d = strdup(s);

	if (!d)
		r->bad = true;
	return d;
}

static void decl_row(struct mm_csv_in *in, void *arg)
{
	struct runs *r = arg;
	const char *better = mm_csv_get(in, MM_MET_BETTER);
	enum mm_better b = MM_INFO;	/* a word it does not know: never watched */
	enum mm_role role = !strcmp(mm_csv_get(in, MM_MET_ROLE), "evidence") ?
			    MM_EVIDENCE : MM_CONTEXT;
	bool timed = !strcmp(mm_csv_get(in, MM_MET_TIMED), "1");

	mm_better_parse(better, &b);
	if (!mm_prec_watched(role, b, timed, r->emulated))
		return;
	if (r->ndecl == r->capdecl) {
		size_t cap = r->capdecl * 2 + 16;
		struct decl *d = realloc(r->decl, cap * sizeof(*d));

		if (!d) {
			r->bad = true;
			return;
		}
		r->decl = d;
		r->capdecl = cap;
	}
	r->decl[r->ndecl].wl = xstrdup(r, mm_csv_get(in, MM_MET_WORKLOAD));
	r->decl[r->ndecl].metric = xstrdup(r, mm_csv_get(in, MM_MET_METRIC));
	r->decl[r->ndecl].unit = xstrdup(r, mm_csv_get(in, MM_MET_UNIT));
	r->ndecl++;
}

static bool watched(const struct runs *r, const char *wl, const char *metric)
{
	for (size_t i = 0; i < r->ndecl; i++)
		if (r->decl[i].wl && r->decl[i].metric && !strcmp(r->decl[i].metric, metric) &&
		    !strcmp(r->decl[i].wl, wl))
			return true;
	return false;
}

static struct line *line_get(struct runs *r, const char *wl, const char *kase,
			     const char *metric, const char *unit)
{
	struct line *l;

	for (size_t i = 0; i < r->nline; i++) {
		l = &r->line[i];
		if (!strcmp(l->metric, metric) && !strcmp(l->kase, kase) && !strcmp(l->wl, wl))
			return l;
	}
	if (r->nline == r->capline) {
		size_t cap = r->capline * 2 + 16;

		l = realloc(r->line, cap * sizeof(*l));
		if (!l)
			return NULL;
		r->line = l;
		r->capline = cap;
	}
	l = &r->line[r->nline];
	memset(l, 0, sizeof(*l));
	l->mean = malloc((size_t)r->nruns * sizeof(*l->mean));
	l->wl = strdup(wl);
	l->kase = strdup(kase);
	l->metric = strdup(metric);
	l->unit = strdup(unit);
	if (!l->mean || !l->wl || !l->kase || !l->metric || !l->unit) {
		free(l->mean);
		free(l->wl);
		free(l->kase);
		free(l->metric);
		free(l->unit);
		return NULL;
	}
	for (int k = 0; k < r->nruns; k++)
		l->mean[k] = NAN;
	r->nline++;
	return l;
}

static void result_row(struct mm_csv_in *in, void *arg)
{
	struct mm_rowchk c = { .flags = MM_ROW_SHOW40 };
	struct runs *r = arg;
	const char *wl = mm_csv_get(in, MM_COL_WORKLOAD);
	const char *metric = mm_csv_get(in, MM_RES_METRIC);
	struct mm_resrow row;
	struct line *l;
	double v;

	if (!watched(r, wl, metric))
		return;
	/* the library's one reader of a results.csv row (resrow.h) */
	for (int i = 0; i < MM_RES_NCOLS; i++)
		row.f[i] = (struct mm_field){ mm_csv_get(in, i), strlen(mm_csv_get(in, i)) };
	if (mm_resrow_read(&c, &row)) {
		mm_csv_bad(in, "%s", c.err);
		return;
	}
	v = row.value;
	l = line_get(r, wl, mm_csv_get(in, MM_COL_CASE), metric,
		     mm_csv_get(in, MM_RES_UNIT));
	if (!l) {
		mm_csv_bad(in, "out of memory");
		return;
	}
	l->sum += v;
	l->n++;
}

/* cases.csv: the iterations and precision of each case of the run. */
static void case_row(struct mm_csv_in *in, void *arg)
{
	struct runs *r = arg;
	const char *stop = mm_csv_get(in, MM_CASE_STOPPED_BY);
	const char *pct = mm_csv_get(in, MM_CASE_PREC_PCT);
	const char *tgt = mm_csv_get(in, MM_CASE_PREC_TARGET);
	bool limit = !strcmp(stop, "max-iterations") || !strcmp(stop, "max-time");
	char shown[64];

	if (in->ncols <= MM_CASE_ITERATIONS)
		return;	/* written before cases.csv recorded iterations */
	snprintf(shown, sizeof(shown), "%s%s", pct[0] ? pct : "-", pct[0] ? "%" : "");
	printf("  %-24s %-10s %4s it  %-9s %-28s %s%s%s%s\n", mm_csv_get(in, MM_COL_RUN_ID),
	       mm_csv_get(in, MM_COL_WORKLOAD), mm_csv_get(in, MM_CASE_ITERATIONS), shown,
	       mm_csv_get(in, MM_CASE_PREC_METRIC)[0] ? mm_csv_get(in, MM_CASE_PREC_METRIC) : "-",
	       stop[0] ? stop : mm_csv_get(in, MM_CASE_STATUS),
	       limit ? " (a limit before --precision " : "", limit ? tgt : "", limit ? "%)" : "");
	printf("  %-24s [%s]\n", "", mm_csv_get(in, MM_COL_CASE));
	r->limited += limit;
}

static int read_file(struct runs *r, const char *dir, const char *name,
		     const char *header, void (*row)(struct mm_csv_in *, void *),
		     bool optional)
{
	struct mm_csv_in in = { .prog = "mmbench precision", .header = header,
				.row = row, .arg = r, .printable = true };
	int ret = mm_csv_read(&in, dir, name);

	if (ret < 0 && optional) {
		mm_csv_free(&in);
		return 0;
	}
	if (ret < 0)
		fprintf(stderr, "mmbench precision: %s/%s: %s\n", dir, name, strerror(-ret));
	else if (ret > 0)
		fprintf(stderr, "mmbench precision: %s:%ld: %s\n", in.path, in.err_line, in.err);
	mm_csv_free(&in);
	return ret ? -1 : 0;
}

static void free_decl(struct runs *r)
{
	for (size_t i = 0; i < r->ndecl; i++) {
		free(r->decl[i].wl);
		free(r->decl[i].metric);
		free(r->decl[i].unit);
	}
	r->ndecl = 0;
}

/* One run directory: its watched metrics' means, and its cases. */
static int read_run(struct runs *r, const char *dir)
{
	struct stat st;
	char v[64];

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "mmbench precision: '%s' is not a run directory\n", dir);
		return -1;
	}

	r->emulated = !strcmp(mm_meta_get(dir, "vm_accel", v, sizeof(v)), "tcg");
	free_decl(r);
	if (read_file(r, dir, "metrics.csv", MM_METRICS_HEADER, decl_row, true) < 0 ||
	    read_file(r, dir, "results.csv", MM_RESULTS_HEADER, result_row, true) < 0 ||
	    read_file(r, dir, "cases.csv", MM_CASES_HEADER, case_row, true) < 0)
		return -1;
	if (r->bad) {
		fprintf(stderr, "mmbench precision: out of memory\n");
		return -1;
	}
	for (size_t i = 0; i < r->nline; i++) {
		struct line *l = &r->line[i];

		if (l->n)
			l->mean[r->run] = l->sum / (double)l->n;
		l->sum = 0;
		l->n = 0;
	}
	return 0;
}

/* Between runs: each line's runs' means; returns how many miss P. */
static int between(struct runs *r)
{
	int missing = 0;

	if (r->nline == 0) {
		printf("Between runs: no judged timed evidence metric in these runs (counts, "
		       "or emulated times): nothing to wait for\n");
		return 0;
	}
	printf("Between runs (each run's mean a sample; 95%% half-width = t(0.975, k-1) * "
	       "sd / sqrt(k), %% of the mean):\n");
	printf("  %-10s %-28s %3s %14s %-8s %8s %10s\n", "WORKLOAD", "METRIC", "k", "MEAN",
	       "UNIT", "RUNS_COV", "HALFWIDTH");
	for (size_t i = 0; i < r->nline; i++) {
		struct line *l = &r->line[i];
		double *v = malloc((size_t)r->nruns * sizeof(*v)), m = NAN, h, sd;
		size_t k = 0;
		char cov[32] = "-", hw[48] = "-";
		bool ok;

		if (!v)
			return r->nline;
		for (int j = 0; j < r->nruns; j++)
			if (!isnan(l->mean[j]))
				v[k++] = l->mean[j];
		h = mm_halfwidth_pct(v, k, &m);
		if (k >= 2 && m != 0) {
			sd = gsl_stats_sd_m(v, 1, k, m);
			snprintf(cov, sizeof(cov), "%.2f%%", 100 * sd / fabs(m));
		}
		if (!isnan(h))
			snprintf(hw, sizeof(hw), "%.2f%%", h);
		ok = k >= 2 && isfinite(h) && (r->target <= 0 || h <= r->target);
		missing += !ok;
		printf("  %-10s %-28s %3zu %14.6g %-8s %8s %10s%s\n", l->wl, l->metric, k, m,
		       l->unit, cov, hw, r->target <= 0 ? "" : ok ? "" :
		       k < 2 ? "  (fewer than 2 runs)" : "  (above --precision)");
		printf("  %-10s [%s]\n", "", l->kase);
		free(v);
	}
	return missing;
}

static void usage_precision(void)
{
	fprintf(stderr, "usage: mmbench precision [--precision P] RUN_DIR...\n");
}

int mm_precision_cmd(int argc, char **argv)
{
	struct runs r = { 0 };
	int first = 1, missing, ret = MM_PASS;

	if (argc >= 3 && !strcmp(argv[1], "--precision")) {
		double v = mm_decimal_real(argv[2]) ? strtod(argv[2], NULL) : NAN;

		if (!(v > 0 && v <= 100)) {
			fprintf(stderr, "mmbench precision: --precision: '%s' is not a percentage "
				"above 0 and at most 100\n", argv[2]);
			return MM_USAGE;
		}
		r.target = v;
		first = 3;
	}
	if (first >= argc || argv[first][0] == '-') {
		usage_precision();
		return MM_USAGE;
	}
	r.nruns = argc - first;
	printf("Within each run (cases.csv: measured iterations, the largest 95%% half-width "
	       "of the judged timed evidence, how they stopped):\n");
	for (r.run = 0; r.run < r.nruns; r.run++)
		if (read_run(&r, argv[first + r.run]) < 0) {
			ret = MM_USAGE;
			goto out;
		}
	if (r.limited)
		printf("  %d case(s) stopped by a limit before --precision\n", r.limited);
	printf("\n");
	missing = between(&r);
	if (r.target > 0) {
		if (!r.nline)
			printf("--precision %g%%: nothing timed to wait for\n", r.target);
		else if (r.nruns < 2)
			printf("--precision %g%%: one run: the variance between runs needs two\n",
			       r.target);
		else if (missing)
			printf("--precision %g%%: %d of %zu line(s) not within it between the "
			       "runs\n", r.target, missing, r.nline);
		else
			printf("--precision %g%%: every line within it between the runs\n",
			       r.target);
		ret = missing ? MM_FAIL : MM_PASS;
	}
out:
	free_decl(&r);
	free(r.decl);
	for (size_t i = 0; i < r.nline; i++) {
		free(r.line[i].wl);
		free(r.line[i].kase);
		free(r.line[i].metric);
		free(r.line[i].unit);
		free(r.line[i].mean);
	}
	free(r.line);
	return ret;
}
