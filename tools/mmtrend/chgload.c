// SPDX-License-Identifier: GPL-2.0
/*
 * mmchange detect's inputs: the host's runs from history.csv, each run's
 * lines read with the core's result-set reader, and the open history
 * regressions of the ledger.
 */
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "numbers.h"
#include "mmchange.h"

/* ------------------------------------------------------------ detect */

static const char *keep_str(struct detect *d, const char *s)
{
	size_t i;

	for (i = 0; i < d->nnames; i++)
		if (!strcmp(d->names[i], s))
			return d->names[i];
	if (d->nnames == d->capnames) {
		size_t cap = d->capnames ? 2 * d->capnames : 256;
		char **n = realloc(d->names, cap * sizeof(*n));

		if (!n)
			return NULL;
		d->names = n;
		d->capnames = cap;
	}
	d->names[d->nnames] = strdup(s);
	return d->names[d->nnames] ? d->names[d->nnames++] : NULL;
}

static bool file_ok(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static int add_drun(struct detect *d, const char *dir, const char *rel, const char *date,
		    const char *kernel, bool rerun)
{
	struct drun *n = realloc(d->runs, (d->nruns + 1) * sizeof(*n)), *x;

	if (!n)
		return -1;
	d->runs = n;
	x = &d->runs[d->nruns++];
	*x = (struct drun){ .dir = strdup(dir), .rel = strdup(rel), .date = strdup(date),
			    .kernel = strdup(kernel), .rerun = rerun, .busy = NAN };
	return x->dir && x->rel && x->date && x->kernel ? 0 : -1;
}

static int hrow_cmp(const void *a, const void *b)
{
	const struct tab_row *x = *(const struct tab_row *const *)a;
	const struct tab_row *y = *(const struct tab_row *const *)b;
	int c = strcmp(x->f[H_DATE], y->f[H_DATE]);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* This host's measured runs of the history, oldest first, and tonight's. */
int load_history(struct detect *d)
{
	struct tab t;
	struct tab_row **rows;
	size_t i, n = 0;
	char p[PATH_MAX], rel[PATH_MAX], cfg[PATH_MAX], now[32];
	int k, rc = 0;

	if (hist_load(&t, d->history)) {
		fprintf(stderr, "%s: %s\n", hist_prog, t.err);
		tab_free(&t);
		return -1;
	}
	rows = calloc(t.nrows + 1, sizeof(*rows));
	if (!rows) {
		tab_free(&t);
		return die_usage("out of memory"), -1;
	}
	for (i = 0; i < t.nrows; i++) {
		char **f = t.rows[i].f;

		if (strcmp(f[H_HOST], d->host) || !*f[H_RUN_DIR] ||
		    (strcmp(f[H_STATUS], "ok") && strcmp(f[H_STATUS], "not_measured")))
			continue;
		snprintf(p, sizeof(p), "%s%s%s", f[H_RUN_DIR][0] == '/' ? "" : d->root,
			 f[H_RUN_DIR][0] == '/' ? "" : "/", f[H_RUN_DIR]);
		snprintf(rel, sizeof(rel), "%s/results.csv", p);
		if (!file_ok(rel))
			continue;
		/* another nightly config of this host (another suite, a VM) is
		 * another history; runs without the fact are this one's */
		if (d->config_id && *mm_meta_get(p, "nightly_config", cfg, sizeof(cfg)) &&
		    strcmp(cfg, d->config_id))
			continue;
		for (k = 0; k < d->nadd; k++)
			if (!strcmp(hist_rel(d->root, d->add[k], rel, sizeof(rel)), f[H_RUN_DIR]))
				break;
		if (k < d->nadd)
			continue;	/* tonight's, added below */
		rows[n++] = &t.rows[i];
	}
	qsort(rows, n, sizeof(*rows), hrow_cmp);
	for (i = 0; i < n && !rc; i++) {
		char **f = rows[i]->f;

		snprintf(p, sizeof(p), "%s%s%s", f[H_RUN_DIR][0] == '/' ? "" : d->root,
			 f[H_RUN_DIR][0] == '/' ? "" : "/", f[H_RUN_DIR]);
		rc = add_drun(d, p, f[H_RUN_DIR], f[H_DATE], f[H_KERNEL], false);
	}
	free(rows);
	tab_free(&t);
	if (rc)
		return die_usage("out of memory"), -1;
	hist_date_fmt(time(NULL), now, sizeof(now));
	for (k = 0; k < d->nadd; k++) {
		char kern[256];
		bool re = d->rerun && !strcmp(d->add[k], d->rerun);

		snprintf(p, sizeof(p), "%s/results.csv", d->add[k]);
		if (!file_ok(p)) {
			fprintf(stderr, "%s: --add-run %s: no results.csv\n", hist_prog, d->add[k]);
			continue;
		}
		mm_meta_get(d->add[k], "kernel_release", kern, sizeof(kern));
		if (add_drun(d, d->add[k], hist_rel(d->root, d->add[k], rel, sizeof(rel)),
			     d->night_date ? d->night_date : now, *kern ? kern : "unknown", re))
			return die_usage("out of memory"), -1;
	}
	/* nights: runs sharing a date; the window keeps the last ones */
	for (k = 0, n = 0; k < d->nruns; k++) {
		d->runs[k].night = k && !strcmp(d->runs[k].date, d->runs[k - 1].date) ?
				   d->runs[k - 1].night : (int)n++;
	}
	d->nnights = (int)n;
	if (d->window > 0 && d->nnights > d->window) {
		int first = d->nnights - d->window, drop = 0;

		while (drop < d->nruns && d->runs[drop].night < first)
			drop++;
		for (k = 0; k < drop; k++) {
			free(d->runs[k].dir);
			free(d->runs[k].rel);
			free(d->runs[k].date);
			free(d->runs[k].kernel);
		}
		memmove(d->runs, d->runs + drop, (d->nruns - drop) * sizeof(*d->runs));
		d->nruns -= drop;
		for (k = 0; k < d->nruns; k++)
			d->runs[k].night -= first;
		d->nnights = d->window;
	}
	return 0;
}

static struct dline *find_line(struct detect *d, const struct rs_line *l)
{
	struct dline *x;
	int i;

	for (i = 0; i < d->nlines; i++) {
		x = &d->lines[i];
		if (!strcmp(x->workload, l->workload) && !strcmp(x->kase, l->kase) &&
		    !strcmp(x->metric, l->metric))
			return x;
	}
	if (d->nlines == d->caplines) {
		int cap = d->caplines ? 2 * d->caplines : 64;
		struct dline *n = realloc(d->lines, cap * sizeof(*n));

		if (!n)
			return NULL;
		d->lines = n;
		d->caplines = cap;
	}
	x = &d->lines[d->nlines];
	*x = (struct dline){
		.workload = keep_str(d, l->workload), .kase = keep_str(d, l->kase),
		.metric = keep_str(d, l->metric), .unit = keep_str(d, l->unit),
		.better = l->better == MM_HIGHER ? 1 : -1,
		.v = malloc(d->nruns * sizeof(double)), .wcov = malloc(d->nruns * sizeof(double)),
	};
	if (!x->workload || !x->kase || !x->metric || !x->unit || !x->v || !x->wcov)
		return NULL;
	for (i = 0; i < d->nruns; i++)
		x->v[i] = x->wcov[i] = NAN;
	d->nlines++;
	return x;
}

/* One run's mean of every judged line: harmonic for rates, as mmcompare. */
int load_run(struct detect *d, int run)
{
	struct drun *r = &d->runs[run];
	struct rs_set s;
	char p[PATH_MAX];
	const char *b;
	size_t i, k;
	int rc = 0;

	snprintf(p, sizeof(p), "%s/results.csv", r->dir);
	rs_init(&s, RS_PER_ARG);
	if (rs_add_arg(&s, p) || rs_finish(&s)) {
		fprintf(stderr, "%s: %s\n", hist_prog, s.err);
		rs_free(&s);
		return -1;
	}
	if (s.nruns && (b = rs_meta_get(&s.runs[0], "nightly_host_busy_pct"))) {
		if (mm_parse_real(b, &r->busy))
			r->busy = NAN;
	}
	for (i = 0; i < s.nlines && !rc; i++) {
		const struct rs_line *l = s.sorted[i];
		const struct rs_vals *vv = l->nvals ? &l->vals[0] : NULL;
		struct dline *x;
		bool pos = true;
		double sum = 0, inv = 0, mn, mx, m;

		if (l->better == MM_INFO || !vv || !vv->n ||
		    !judge_metric(&d->jo, l->workload, l->metric))
			continue;
		x = find_line(d, l);
		if (!x) {
			rc = die_usage("out of memory");
			break;
		}
		x->timed |= l->timed;
		mn = mx = vv->v[0];
		for (k = 0; k < vv->n; k++) {
			sum += vv->v[k];
			pos &= vv->v[k] > 0;
			if (pos)
				inv += 1 / vv->v[k];
			mn = vv->v[k] < mn ? vv->v[k] : mn;
			mx = vv->v[k] > mx ? vv->v[k] : mx;
		}
		m = sum / vv->n;
		if (l->better == MM_HIGHER && pos) {
			x->v[run] = vv->n / inv;
			x->nhmean++;
		} else {
			x->v[run] = m;
		}
		x->wcov[run] = vv->n > 1 && m != 0 ?
			       100 * gsl_stats_sd(vv->v, 1, vv->n) / fabs(m) : NAN;
		x->npresent++;
		x->nexact += vv->n >= 3 && mn == mx;
	}
	rs_free(&s);
	return rc;
}

int load_ledger(struct detect *d)
{
	struct tab t;
	size_t i;
	int k;

	if (!d->ledger)
		return 0;
	if (led_load(&t, d->ledger)) {
		fprintf(stderr, "%s: %s\n", hist_prog, t.err);
		tab_free(&t);
		return -1;
	}
	d->open = calloc(t.nrows + 1, sizeof(*d->open));
	for (i = 0; d->open && i < t.nrows; i++) {
		char **f = t.rows[i].f;
		struct lrow *o = &d->open[d->nopen];

		if (strcmp(f[L_STATE], "open") || strcmp(f[L_HOST], d->host) ||
		    strcmp(f[L_BASELINE], LEDGER_HISTORY))
			continue;
		*o = (struct lrow){ .workload = strdup(f[L_WORKLOAD]), .kase = strdup(f[L_CASE]),
				    .metric = strdup(f[L_METRIC]), .first_run = strdup(f[L_FIRST_RUN]) };
		d->nopen++;
		if (!o->workload || !o->kase || !o->metric || !o->first_run)
			break;
	}
	k = d->open && i == t.nrows ? 0 : -1;
	tab_free(&t);
	if (k)
		fprintf(stderr, "%s: out of memory\n", hist_prog);
	return k;
}
