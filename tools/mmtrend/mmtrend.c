// SPDX-License-Identifier: GPL-2.0
/*
 * mmtrend: the nightly history as time series. For every judged metric, a
 * gnuplot chart with one line per host and case (error bars: confidence
 * interval of the mean over the run's iterations), the baseline's mean,
 * marks on the runs significantly worse or better than the baseline, and
 * the kernel releases on the x axis. report.md lists the metrics whose
 * latest value is significantly worse, newest regression first, with the
 * run where it started and the last good run before it.
 *
 * Each run is compared with the baseline by mmcompare's own code
 * (bench/results/resultset*.c, compare.c): the marks are the verdicts mmcompare gives for
 * the same two sides, narrowed by --judge and --min-change (judge.h).
 * Hosts are kept apart: a host's runs are judged against that host's
 * baseline runs, and each host draws its own lines, unless --pool-hosts.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "exitcodes.h"
#include "history.h"
#include "numbers.h"
#include "trend.h"

#define MAX_HOSTS 64
#define MAX_BASE 256

struct opts {
	const char *root, *out, *history, *baseline, *fmt;
	const char *host[MAX_HOSTS];
	int nhost;
	bool pool;
	bool exact_only;	/* judge only lines of exact evidence (the nightly) */
	double alpha;
	long last;
	struct judge_opts jo;
};

struct trend {
	struct opts o;
	struct tr_run *runs;
	int nruns;
	struct tr_point *pts;
	size_t npts, cap;
	char *base[MAX_BASE];	/* baseline runs of the host being processed */
	int nbase;
	const char *base_host;
	/* run directories whose history row says failed, skipped or refused:
	 * never part of a baseline (a run made by hand has no row and counts) */
	char **notok;
	size_t nnotok;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmtrend [options] ROOT\n"
		"  ROOT: a results root with history.csv (written by tools/nightly)\n"
		"  -o, --out DIR        output directory (default ROOT/trends)\n"
		"  --history FILE       the history (default ROOT/history.csv)\n"
		"  --baseline B         a label (that host's runs under ROOT/B) or a run directory\n"
		"  --host H             only this host (repeatable; default every host)\n"
		"  --pool-hosts         one line per case over all hosts, baseline of all hosts\n"
		"  --alpha A            significance level (default 0.05)\n"
		"  --judge PATTERNS     only these metrics (fnmatch on metric or workload:metric)\n"
		"  --min-change PCT     significant changes under PCT%% count as the same\n"
		"  --last N             only the last N runs of each host\n"
		"  --format svg|png     chart format (default svg)\n"
		"  --exact-only         judge only lines of exact evidence (no spread on either\n"
		"                       side); the nightly judges the others by their history\n"
		"writes OUT/report.md, OUT/trend.csv, OUT/WORKLOAD-METRIC.{svg,gp,dat}\n"
		"exit: 0 no latest value significantly worse, 3 some are, 1 gnuplot failed,\n"
		"      2 usage or bad input\n");
}

static int usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "mmtrend: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return -1;
}

static int parse_num_opt(int c, const char *arg, struct opts *o)
{
	char *end;

	errno = 0;
	if (c == 'a') {
		return mm_parse_alpha("mmtrend", arg, &o->alpha);
	} else if (c == 'n') {
		o->last = strtol(arg, &end, 10);
		if (!*arg || *end || errno || o->last < 1)
			return usage_err("--last '%s': want a whole number >= 1", arg);
	} else {
		if (mm_parse_real(arg, &o->jo.min_change) || !(o->jo.min_change >= 0))
			return usage_err("--min-change '%s': want a percentage >= 0", arg);
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' }, { "history", required_argument, NULL, 'H' },
		{ "baseline", required_argument, NULL, 'b' }, { "host", required_argument, NULL, 'h' },
		{ "pool-hosts", no_argument, NULL, 'p' }, { "alpha", required_argument, NULL, 'a' },
		{ "judge", required_argument, NULL, 'j' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "last", required_argument, NULL, 'n' }, { "format", required_argument, NULL, 'f' },
		{ "exact-only", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, '?' + 1 }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .alpha = 0.05, .fmt = "svg" };
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'H': o->history = optarg; break;
		case 'b': o->baseline = optarg; break;
		case 'h':
			if (o->nhost == MAX_HOSTS)
				return usage_err("too many --host (%s)", optarg);
			o->host[o->nhost++] = optarg;
			break;
		case 'p': o->pool = true; break;
		case 'e': o->exact_only = true; break;
		case 'a': case 'n': case 'm': if (parse_num_opt(c, optarg, o)) return -1; break;
		case 'j':
			if (judge_add_patterns(&o->jo, optarg))
				return usage_err("--judge '%s': too many patterns", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "svg") && strcmp(optarg, "png"))
				return usage_err("--format '%s': want svg or png", optarg);
			o->fmt = optarg;
			break;
		case '?' + 1: usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -1;
	}
	o->root = argv[optind];
	return 0;
}

/* ------------------------------------------------------------ runs */

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool run_has_results(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/results.csv", dir);
	return is_file(p);
}

static int add_run(struct trend *t, const struct tab_row *r)
{
	char **f = r->f, p[PATH_MAX];
	struct tr_run *n = realloc(t->runs, (t->nruns + 1) * sizeof(*n)), *x;

	if (!n)
		return -1;
	t->runs = n;
	x = &t->runs[t->nruns];
	if (f[H_RUN_DIR][0] == '/')
		snprintf(p, sizeof(p), "%s", f[H_RUN_DIR]);
	else
		snprintf(p, sizeof(p), "%s/%s", t->o.root, f[H_RUN_DIR]);
	*x = (struct tr_run){
		.dir = strdup(p), .rel = strdup(f[H_RUN_DIR]), .host = strdup(f[H_HOST]),
		.date = strdup(f[H_DATE]), .kernel = strdup(f[H_KERNEL]),
		.label = strdup(f[H_LABEL]), .status = strdup(f[H_STATUS]),
	};
	t->nruns++;
	return x->dir && x->rel && x->host && x->date && x->kernel && x->label && x->status ?
	       0 : -1;
}

static bool want_host(const struct opts *o, const char *h)
{
	int i;

	for (i = 0; i < o->nhost; i++)
		if (!strcmp(o->host[i], h))
			return true;
	return !o->nhost;
}

static int row_date_cmp(const void *a, const void *b)
{
	const struct tab_row *x = *(const struct tab_row *const *)a;
	const struct tab_row *y = *(const struct tab_row *const *)b;
	int c = strcmp(x->f[H_DATE], y->f[H_DATE]);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Keep the last N rows of each host (rows are in date order). */
static void keep_last(struct tab_row **rows, size_t *n, long last)
{
	size_t i, j, k = 0;
	long later;

	for (i = 0; i < *n; i++) {
		for (later = 0, j = i + 1; j < *n; j++)
			later += !strcmp(rows[j]->f[H_HOST], rows[i]->f[H_HOST]);
		if (!last || later < last)
			rows[k++] = rows[i];
	}
	*n = k;
}

static int load_runs(struct trend *t, const char *history)
{
	struct tab_row **rows;
	struct tab tab;
	size_t i, n = 0;
	int rc = 0;

	if (hist_load(&tab, history)) {
		fprintf(stderr, "mmtrend: %s\n", tab.err);
		tab_free(&tab);
		return -1;
	}
	if (tab.torn)
		fprintf(stderr, "mmtrend: warning: %s:%ld: torn last line ignored\n", history,
			tab.torn_line);
	rows = calloc(tab.nrows + 1, sizeof(*rows));
	t->notok = calloc(tab.nrows + 1, sizeof(*t->notok));
	for (i = 0; rows && t->notok && i < tab.nrows; i++) {
		char **f = tab.rows[i].f;
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/%s", f[H_RUN_DIR][0] == '/' ? "" : t->o.root,
			 f[H_RUN_DIR]);
		if (*f[H_RUN_DIR] && !hist_measured(f[H_STATUS])) {
			t->notok[t->nnotok] = strdup(p);
			if (!t->notok[t->nnotok++])
				rc = -1;
		}
		if (*f[H_RUN_DIR] && want_host(&t->o, f[H_HOST]) && run_has_results(p))
			rows[n++] = &tab.rows[i];
	}
	if (rows) {
		qsort(rows, n, sizeof(*rows), row_date_cmp);
		keep_last(rows, &n, t->o.last);
	}
	for (i = 0; rows && i < n && !rc; i++) {
		rc = add_run(t, rows[i]);
		t->runs[t->nruns - 1].x = i;
	}
	if (!rows || !t->notok || rc)
		fprintf(stderr, "mmtrend: out of memory\n");
	free(rows);
	tab_free(&tab);
	return rows && t->notok && !rc ? 0 : -1;
}

/* ------------------------------------------------------------ baseline */

static void base_clear(struct trend *t)
{
	while (t->nbase)
		free(t->base[--t->nbase]);
}

/* The host in a run's meta.csv ("" when it has none). */
static const char *run_host(const char *dir, char *buf, size_t len)
{
	return mm_meta_get(dir, "host", buf, len);
}

static int base_add(struct trend *t, const char *dir)
{
	if (t->nbase == MAX_BASE) {
		fprintf(stderr, "mmtrend: more than %d baseline runs\n", MAX_BASE);
		return -1;
	}
	t->base[t->nbase] = strdup(dir);
	return t->base[t->nbase++] ? 0 : -1;
}

static bool same_path(const char *a, const char *b);

/* The history says this run failed (or was skipped): no baseline run. */
static bool run_not_ok(const struct trend *t, const char *dir)
{
	size_t i;

	for (i = 0; i < t->nnotok; i++)
		if (same_path(t->notok[i], dir))
			return true;
	return false;
}

/* A label directory: its runs of HOST (every run when hosts are pooled),
 * but not those the history records as failed, skipped or refused. */
static int base_label(struct trend *t, const char *ldir, const char *host)
{
	struct dirent **ents;
	char p[PATH_MAX], h[256];
	int n, i, rc = 0;

	n = scandir(ldir, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "mmtrend: baseline %s: %s\n", ldir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", ldir, ents[i]->d_name);
		if (!rc && ents[i]->d_name[0] != '.' && run_has_results(p) && !run_not_ok(t, p) &&
		    (t->o.pool || !strcmp(run_host(p, h, sizeof(h)), host)))
			rc = base_add(t, p);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int base_for_host(struct trend *t, const char *host)
{
	const char *b = t->o.baseline;
	char p[PATH_MAX];

	if (t->base_host && !strcmp(t->base_host, host))
		return 0;
	base_clear(t);
	t->base_host = host;
	if (!b)
		return 0;
	if (run_has_results(b))
		return base_add(t, b);
	snprintf(p, sizeof(p), "%s/%s", t->o.root, b);
	if (b[0] != '/' && run_has_results(p))
		return base_add(t, p);
	if (b[0] != '/' && !strchr(b, '/') && is_dir(p))
		return base_label(t, p, host);
	fprintf(stderr, "mmtrend: --baseline '%s': not a run directory (no results.csv) and "
		"no label directory %s\n", b, p);
	return -1;
}

/* ------------------------------------------------------------ points */

static bool same_path(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Critical facts that differ between the run and its baseline, "a b". */
static char *critical_facts(struct rs_set *s)
{
	struct cmp_meta m;
	char *out = strdup("");
	int i;

	if (!out || cmp_meta(s, &m))
		return out;
	for (i = 0; i < m.n; i++) {
		char *n;

		if (!m.f[i].critical)
			continue;
		n = realloc(out, strlen(out) + strlen(m.f[i].key) + 2);
		if (!n)
			break;
		out = n;
		if (*out)
			strcat(out, " ");
		strcat(out, m.f[i].key);
	}
	cmp_meta_free(&m);
	return out;
}

static struct tr_point *new_point(struct trend *t)
{
	if (t->npts == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct tr_point *n = realloc(t->pts, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->pts = n;
		t->cap = cap;
	}
	memset(&t->pts[t->npts], 0, sizeof(t->pts[0]));
	return &t->pts[t->npts++];
}

static int point_from(struct trend *t, int run, const struct cmp *c, const struct cmp_row *r,
		      const char *facts)
{
	const struct rs_line *l = r->line;
	const struct cmp_cell *cell = &r->cell[c->nsides - 1];
	struct tr_point *p;

	if (l->better == MM_INFO || !cell->present ||
	    !judge_metric(&t->o.jo, l->workload, l->metric))
		return 0;
	p = new_point(t);
	if (!p)
		return -1;
	p->run = run;
	p->host = strdup(t->o.pool ? "all-hosts" : t->runs[run].host);
	p->workload = strdup(l->workload);
	p->kase = strdup(l->kase);
	p->metric = strdup(l->metric);
	p->unit = strdup(l->unit);
	p->better = strdup(mm_better_str(l->better));
	p->facts = strdup(facts);
	p->hmean = r->hmean;
	p->mean = cell->sum.mean;
	p->ci_ok = cell->sum.ci_ok;
	p->lo = p->ci_ok ? cell->sum.ci_lo : p->mean;
	p->hi = p->ci_ok ? cell->sum.ci_hi : p->mean;
	p->n = cell->sum.n;
	p->compared = c->nsides == 2 && r->cell[0].present;
	p->base_ok = p->compared;
	p->base_mean = r->cell[0].sum.mean;
	p->pct_ok = p->compared && cell->pct_ok;
	p->pct = cell->pct;
	p->p_ok = p->compared && cell->w.ok;
	p->p = cell->w.p;
	p->jv = p->compared ? judge_apply(&t->o.jo, l->workload, l->metric,
					  cmp_verdict_str(cell->verdict), cell->pct, cell->pct_ok)
			    : JV_SKIP;
	if (t->o.exact_only && !cell->exact)
		p->jv = JV_SKIP;	/* its history judges it (tools/mmtrend/mmchange) */
	return p->host && p->workload && p->kase && p->metric && p->unit && p->better &&
	       p->facts ? 0 : -1;
}

/* Load the host's baseline runs (side 0) and the run (side 1), one set. */
static int load_pair(struct trend *t, const struct tr_run *run, struct rs_set *s, int *nbase)
{
	int i;

	rs_init(s, RS_PER_ARG);
	*nbase = 0;
	for (i = 0; i < t->nbase; i++) {
		if (same_path(t->base[i], run->dir))
			continue;	/* a baseline run is not judged against itself */
		s->cur_arg = 0;
		if (rs_add_arg(s, t->base[i]))
			return -1;
		(*nbase)++;
	}
	s->cur_arg = 1;
	if (rs_add_arg(s, run->dir) || rs_finish(s))
		return -1;
	return 0;
}

static int judge_run(struct trend *t, int run)
{
	struct tr_run *r = &t->runs[run];
	struct rs_set s;
	struct cmp c;
	char *facts = NULL;
	int nbase, rc = -1;
	size_t k;

	if (base_for_host(t, r->host))
		return -1;
	if (load_pair(t, r, &s, &nbase)) {
		fprintf(stderr, "mmtrend: %s\n", s.err);
		rs_free(&s);
		return -1;
	}
	/* No rows in the run: the baseline alone is one side, nothing to plot. */
	if (nbase && s.nsides < 2) {
		rs_free(&s);
		return 0;
	}
	if (cmp_build(&c, &s, t->o.alpha))
		goto out;
	facts = s.nsides == 2 ? critical_facts(&s) : strdup("");
	for (k = 0; facts && k < c.nrows; k++)
		if (point_from(t, run, &c, &c.rows[k], facts))
			goto out;
	rc = facts ? 0 : -1;
out:
	if (rc)
		fprintf(stderr, "mmtrend: out of memory\n");
	free(facts);
	cmp_free(&c);
	rs_free(&s);
	return rc;
}

/* Order of series: workload, metric (one chart), then host and case. */
static int point_cmp_series(const struct tr_point *x, const struct tr_point *y)
{
	int c;

	if ((c = strcmp(x->workload, y->workload)) || (c = strcmp(x->metric, y->metric)) ||
	    (c = strcmp(x->host, y->host)))
		return c;
	return strcmp(x->kase, y->kase);
}

static int point_cmp(const void *a, const void *b)
{
	const struct tr_point *x = a, *y = b;
	int c = point_cmp_series(x, y);

	return c ? c : (x->run > y->run) - (x->run < y->run);
}

/* ------------------------------------------------------------ outputs */

static const char *jv_str(const struct tr_point *p)
{
	static const char *const names[] = {
		[JV_WORSE] = "worse", [JV_BETTER] = "better", [JV_SAME] = "same",
		[JV_TOO_FEW] = "too_few", [JV_SKIP] = "not_judged",
	};

	return p->compared ? names[p->jv] : "no_baseline";
}

static void fmt_num(char *buf, size_t len, double v, bool ok)
{
	if (ok)
		snprintf(buf, len, "%.12g", v);
	else
		buf[0] = '\0';
}

static int write_csv(const struct trend *t, FILE *f)
{
	static const char *const hdr[] = {
		"host", "workload", "case", "metric", "unit", "better", "run_dir", "date", "kernel",
		"label", "x", "n", "mean_type", "mean", "ci_low", "ci_high", "baseline_mean",
		"change_pct", "p_value", "verdict", "facts_differ",
	};
	char x[16], n[24], m[32], lo[32], hi[32], bm[32], pct[32], pv[32], *l;
	size_t i;
	int rc = 0;

	l = tab_line(hdr, 21);
	rc |= !l || fputs(l, f) < 0;
	free(l);
	for (i = 0; i < t->npts; i++) {
		const struct tr_point *p = &t->pts[i];
		const struct tr_run *r = &t->runs[p->run];
		const char *row[] = {
			p->host, p->workload, p->kase, p->metric, p->unit, p->better, r->rel,
			r->date, r->kernel, r->label, x, n, p->hmean ? "Hmean" : "Amean", m, lo, hi,
			bm, pct, pv, jv_str(p), p->facts,
		};

		snprintf(x, sizeof(x), "%d", r->x);
		snprintf(n, sizeof(n), "%zu", p->n);
		fmt_num(m, sizeof(m), p->mean, true);
		fmt_num(lo, sizeof(lo), p->lo, p->ci_ok);
		fmt_num(hi, sizeof(hi), p->hi, p->ci_ok);
		fmt_num(bm, sizeof(bm), p->base_mean, p->base_ok);
		fmt_num(pct, sizeof(pct), p->pct, p->pct_ok);
		fmt_num(pv, sizeof(pv), p->p, p->p_ok);
		l = tab_line(row, 21);
		rc |= !l || fputs(l, f) < 0;
		free(l);
	}
	return rc ? -1 : 0;
}

/* A series whose latest point is worse: where the streak began. */
struct streak {
	const struct tr_point *latest, *first, *last_good;
};

static int streak_cmp(const void *a, const void *b)
{
	const struct streak *x = a, *y = b;
	int c;

	c = x->first->run != y->first->run ? (y->first->run > x->first->run) -
					      (y->first->run < x->first->run) : 0;
	return c ? c : point_cmp(x->latest, y->latest);
}

/* Points are sorted by series then run: walk each series from its end. */
static struct streak *find_streaks(const struct trend *t, size_t *n)
{
	struct streak *s = calloc(t->npts + 1, sizeof(*s));
	size_t i, j;

	*n = 0;
	for (i = 0; s && i < t->npts; i++) {
		const struct tr_point *p = &t->pts[i];

		if (i + 1 < t->npts && !point_cmp_series(p, p + 1))
			continue;	/* not the series' latest point */
		if (!p->compared || p->jv != JV_WORSE)
			continue;
		for (j = i; j > 0 && !point_cmp_series(&t->pts[j - 1], p) &&
		     t->pts[j - 1].compared && t->pts[j - 1].jv == JV_WORSE; j--)
			;
		s[*n].latest = p;
		s[*n].first = &t->pts[j];
		s[*n].last_good = j > 0 && !point_cmp_series(&t->pts[j - 1], p) ?
				  &t->pts[j - 1] : NULL;
		(*n)++;
	}
	if (s)
		qsort(s, *n, sizeof(*s), streak_cmp);
	return s;
}

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

static void md_run(FILE *f, const struct trend *t, const struct tr_point *p)
{
	const struct tr_run *r;

	if (!p) {
		fprintf(f, " - |");
		return;
	}
	r = &t->runs[p->run];
	fprintf(f, " `");
	md_cell(f, r->rel);
	fprintf(f, "` (");
	md_cell(f, r->kernel);
	fprintf(f, ") |");
}

static void md_streak(FILE *f, const struct trend *t, const struct streak *s)
{
	const struct tr_point *p = s->latest;

	fprintf(f, "| %s | %s | %s | %s | ", t->runs[s->first->run].date, p->host, p->workload,
		p->metric);
	md_cell(f, p->kase);
	fprintf(f, " |");
	md_run(f, t, s->first);
	md_run(f, t, s->last_good);
	md_run(f, t, p);
	if (p->pct_ok)
		fprintf(f, " %+.2f%%", p->pct);
	else
		fprintf(f, " n/a");
	if (*p->facts)
		fprintf(f, " (facts differ: %s)", p->facts);
	fprintf(f, " | %.2g |\n", p->p);
}

static void md_intro(FILE *f, const struct trend *t)
{
	char now[32];
	int i, j, nh = 0;

	hist_date_fmt(time(NULL), now, sizeof(now));
	fprintf(f, "# mmbench trends\n\nGenerated %s by tools/mmtrend from `%s`: %d run%s",
		now, t->o.history, t->nruns, t->nruns == 1 ? "" : "s");
	if (t->nruns)
		fprintf(f, " from %.10s to %.10s", t->runs[0].date, t->runs[t->nruns - 1].date);
	fprintf(f, ", hosts:");
	for (i = 0; i < t->nruns; i++) {
		for (j = 0; j < i && strcmp(t->runs[j].host, t->runs[i].host); j++)
			;
		if (j == i)
			fprintf(f, "%s %s", nh++ ? "," : "", t->runs[i].host);
	}
	fprintf(f, ". %s\n\n", t->o.pool ? "Hosts are pooled: one line per case, judged "
		"against the baseline runs of every host." : "Hosts are kept apart: one line "
		"per host and case, each host judged against its own baseline runs.");
	if (!t->o.baseline) {
		fprintf(f, "No baseline given: nothing is judged, the charts show values only. "
			"Error bars: %.0f%% confidence interval of the mean over a run's "
			"iterations.\n\n", 100 * (1 - t->o.alpha));
		return;
	}
	fprintf(f, "Baseline: `%s`. ", t->o.baseline);
	if (t->o.exact_only)
		fprintf(f, "Only lines of exact evidence (no spread on either side) are judged "
			"against it; every other line is judged by the change points of its history "
			"(the night's `changes.csv` and summary). ");
	fprintf(f, "Significance: Welch's t-test (mmcompare's), p < %g, n >= %d on both sides",
		t->o.alpha, CMP_MIN_N);
	if (t->o.jo.min_change > 0)
		fprintf(f, "; significant changes under %g%% count as the same", t->o.jo.min_change);
	for (i = 0; i < t->o.jo.npattern; i++)
		fprintf(f, "%s%s", i ? " " : "; judged metrics: ", t->o.jo.pattern[i]);
	fprintf(f, ". Error bars: %.0f%% confidence interval of the mean over a run's "
		"iterations. Every run is judged against today's baseline.\n\n",
		100 * (1 - t->o.alpha));
}

static size_t write_report(const struct trend *t, FILE *f, const char *const *stems, size_t nst,
			   const char *plot_err)
{
	size_t n = 0, i;
	struct streak *s = find_streaks(t, &n);

	md_intro(f, t);
	fprintf(f, "## Significantly worse in the latest run, newest first\n\n");
	if (!t->o.baseline)
		fprintf(f, "Not judged: no baseline.\n\n");
	else if (!n)
		fprintf(f, "None: no metric's latest value is significantly worse than the "
			"baseline.\n\n");
	if (n)
		fprintf(f, "| worse since | host | workload | metric | case | first worse run | "
			"last good run | latest run | change vs baseline | p |\n"
			"|---|---|---|---|---|---|---|---|---:|---:|\n");
	for (i = 0; s && i < n; i++)
		md_streak(f, t, &s[i]);
	fprintf(f, "%s## Charts\n\n", n ? "\n" : "");
	if (plot_err)
		fprintf(f, "Charts missing: %s\n\n", plot_err);
	for (i = 0; i < nst; i++)
		fprintf(f, "![%s](%s.%s)\n\n", stems[i], stems[i], t->o.fmt);
	free(s);
	return n;
}

/* One chart per (workload, metric); stems[] gets the names drawn. */
static int draw_all(struct trend *t, const char *out, char **stems, size_t *nst, char *err,
		    size_t errlen)
{
	size_t i = 0, j;
	int rc = 0;

	*nst = 0;
	while (i < t->npts) {
		struct tr_plot pl = { .pts = &t->pts[i] };

		for (j = i + 1; j < t->npts && !strcmp(t->pts[j].workload, t->pts[i].workload) &&
		     !strcmp(t->pts[j].metric, t->pts[i].metric); j++)
			;
		pl.workload = t->pts[i].workload;
		pl.metric = t->pts[i].metric;
		pl.unit = t->pts[i].unit;
		pl.better = t->pts[i].better;
		pl.n = j - i;
		tp_stem(pl.workload, pl.metric, pl.stem, sizeof(pl.stem));
		if (tp_draw(&pl, t->runs, t->nruns, out, t->o.fmt, t->o.alpha, err, errlen))
			rc = -1;
		else
			stems[(*nst)++] = strdup(pl.stem);
		i = j;
	}
	return rc;
}

static int write_outputs(struct trend *t, const char *out)
{
	char p[PATH_MAX], err[1024] = "", **stems = calloc(t->npts + 1, sizeof(*stems));
	size_t nst = 0, nworse, i;
	int plot_rc;
	FILE *f;

	if (!stems)
		return MM_FAIL;
	plot_rc = draw_all(t, out, stems, &nst, err, sizeof(err));
	snprintf(p, sizeof(p), "%s/trend.csv", out);
	f = fopen(p, "w");
	if (!f || write_csv(t, f) || fclose(f)) {
		fprintf(stderr, "mmtrend: %s: %s\n", p, strerror(errno));
		return MM_FAIL;
	}
	snprintf(p, sizeof(p), "%s/report.md", out);
	f = fopen(p, "w");
	if (!f) {
		fprintf(stderr, "mmtrend: %s: %s\n", p, strerror(errno));
		return MM_FAIL;
	}
	nworse = write_report(t, f, (const char *const *)stems, nst, plot_rc ? err : NULL);
	fprintf(f, "Every point: [trend.csv](trend.csv).\n");
	if (fclose(f))
		return MM_FAIL;
	for (i = 0; i < nst; i++)
		free(stems[i]);
	free(stems);
	printf("mmtrend: %d runs, %zu charts, %zu latest value(s) significantly worse; %s\n",
	       t->nruns, nst, nworse, p);
	if (plot_rc) {
		fprintf(stderr, "mmtrend: %s\n", err);
		return MM_FAIL;
	}
	return nworse ? MM_WORSE : 0;
}

static void trend_free(struct trend *t)
{
	size_t i;
	int k;

	for (i = 0; i < t->npts; i++) {
		struct tr_point *p = &t->pts[i];

		free(p->host);
		free(p->workload);
		free(p->kase);
		free(p->metric);
		free(p->unit);
		free(p->better);
		free(p->facts);
	}
	free(t->pts);
	for (k = 0; k < t->nruns; k++) {
		struct tr_run *r = &t->runs[k];

		free(r->dir);
		free(r->rel);
		free(r->host);
		free(r->date);
		free(r->kernel);
		free(r->label);
		free(r->status);
	}
	free(t->runs);
	while (t->nnotok)
		free(t->notok[--t->nnotok]);
	free(t->notok);
	base_clear(t);
	judge_free(&t->o.jo);
}

int main(int argc, char **argv)
{
	struct trend t = { .nruns = 0 };
	char hist[PATH_MAX], out[PATH_MAX];
	int i, rc = MM_USAGE;

	if (parse_opts(argc, argv, &t.o)) {
		judge_free(&t.o.jo);
		return MM_USAGE;
	}
	gsl_set_error_handler_off();
	snprintf(hist, sizeof(hist), "%s/history.csv", t.o.root);
	snprintf(out, sizeof(out), "%s/trends", t.o.root);
	if (!t.o.history)
		t.o.history = hist;
	if (!t.o.out)
		t.o.out = out;
	if (!is_file(t.o.history)) {
		fprintf(stderr, "mmtrend: %s: no history (tools/nightly writes it)\n", t.o.history);
		goto out;
	}
	if (load_runs(&t, t.o.history))
		goto out;
	for (i = 0; i < t.nruns; i++)
		if (judge_run(&t, i))
			goto out;
	qsort(t.pts, t.npts, sizeof(*t.pts), point_cmp);
	if (mm_mkdir_p(t.o.out)) {
		fprintf(stderr, "mmtrend: %s: %s\n", t.o.out, strerror(errno));
		goto out;
	}
	rc = write_outputs(&t, t.o.out);
out:
	trend_free(&t);
	return rc;
}
