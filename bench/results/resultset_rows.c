// SPDX-License-Identifier: GPL-2.0
/*
 * Result-set reader: the rows of each schema file, checked field by field
 * (schema version, numbers, the metric name rule, case strings: the
 * library's field checks, resrow.h; a results.csv row by its one reader,
 * mm_resrow_read(), strictly) and
 * pooled: results.csv values into lines per (workload, case, metric) and
 * side, samples.csv into sample sets, meta.csv, metrics.csv, cases.csv
 * and started.csv into the run.
 */
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resrow.h"
#include "resultset_int.h"

/* ------------------------------------------------------------ checks */

/*
 * The field checks and their messages are the library's (resrow.c), the
 * same as `mmbench summary` uses; here each fails the row at FILE:LINE.
 */
static struct mm_field field(const struct csvt *t, int col)
{
	return (struct mm_field){ fld(t, col), fld_len(t, col) };
}

static int chk_fail(struct csvt *t, const struct mm_rowchk *c)
{
	return ct_err(t, "%s", c->err);
}

static int check_schema(struct csvt *t, int col)
{
	struct mm_rowchk c = { 0 };

	return mm_row_schema(&c, field(t, col)) ? chk_fail(t, &c) : 0;
}

static int parse_int(struct csvt *t, int col, const char *what, long *out)
{
	struct mm_rowchk c = { 0 };

	return mm_row_count(&c, field(t, col), what, out) ? chk_fail(t, &c) : 0;
}

static int parse_value(struct csvt *t, int col, const char *what, double *out)
{
	struct mm_rowchk c = { 0 };
	bool nonfinite;

	return mm_row_value(&c, field(t, col), what, out, &nonfinite) ? chk_fail(t, &c) : 0;
}

static int check_case(struct csvt *t, int col)
{
	struct mm_rowchk c = { 0 };

	return mm_row_case(&c, field(t, col)) ? chk_fail(t, &c) : 0;
}

static int check_nonempty(struct csvt *t, int col, const char *what)
{
	struct mm_rowchk c = { 0 };

	return mm_row_nonempty(&c, field(t, col), what) ? chk_fail(t, &c) : 0;
}

/* ------------------------------------------------------------ sides */

static int new_side(struct rs_set *s, const char *label, int arg)
{
	struct rs_side *sd;
	char name[512];
	int i, k = 1;

	if (s->nsides == RS_MAX_SIDES)
		return rs_set_err(s, "more than %d labels to compare", RS_MAX_SIDES);
	if (strlen(label) > sizeof(name) - 8)
		return rs_set_err(s, "label '%.40s...' is %zu characters long, more than %zu",
			       label, strlen(label), sizeof(name) - 8);
	snprintf(name, sizeof(name), "%s", label);
	for (i = 0; i < s->nsides; i++) {
		if (!strcmp(s->sides[i].name, name)) {
			/* only with RS_PER_ARG: same label, another argument */
			snprintf(name, sizeof(name), "%s#%d", label, ++k);
			i = -1;
		}
	}
	sd = &s->sides[s->nsides];
	memset(sd, 0, sizeof(*sd));
	sd->name = strdup(name);
	sd->arg = arg;
	if (!sd->name)
		return rs_set_err(s, "out of memory");
	return s->nsides++;
}

/* The side of LABEL (by label, or with RS_PER_ARG by argument), made if new. */
int rs_side_lookup(struct rs_set *s, const char *label, int arg)
{
	int i;

	for (i = 0; i < s->nsides; i++)
		if ((s->flags & RS_PER_ARG) ? s->sides[i].arg == arg
					    : !strcmp(s->sides[i].name, label))
			return i;
	return new_side(s, label, (s->flags & RS_PER_ARG) ? arg : -1);
}

/*
 * The side a row belongs to. A run has one label; with RS_PER_ARG each
 * argument is its own side whatever the labels say.
 */
static int row_side(struct csvt *t, int label_col)
{
	struct rs_set *s = t->s;
	struct rs_run *r = &s->runs[t->run];
	const char *label = fld(t, label_col);
	char b[64];
	int i;

	if (check_nonempty(t, label_col, "label"))
		return -1;
	if (r->side >= 0) {
		/* with --per-arg the side is named after the argument: compare
		 * with the label of the run's first row */
		if (strcmp(r->label ? r->label : s->sides[r->side].name, label))
			return ct_err(t, "label '%s' differs from the run's label '%s'",
				      ct_show(t, label_col, b, sizeof(b)),
				      r->label ? r->label : s->sides[r->side].name);
		return r->side;
	}
	i = rs_side_lookup(s, label, r->arg);
	if (i < 0) {
		t->failed = true;
		return -1;
	}
	r->side = i;
	s->sides[i].nruns++;
	if ((s->flags & RS_PER_ARG) && !(r->label = strdup(label)))
		return ct_err(t, "out of memory");
	return i;
}

/* ------------------------------------------------------------ results */

static int dup_grow(struct dupset *d)
{
	size_t cap = d->mask ? (d->mask + 1) * 2 : 1024, i, j;
	struct dup_ent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (i = 0; d->mask && i <= d->mask; i++) {
		if (!d->e[i].key)
			continue;
		for (j = mix64(d->e[i].key) & (cap - 1); e[j].key; j = (j + 1) & (cap - 1))
			;
		e[j] = d->e[i];
	}
	free(d->e);
	d->e = e;
	d->mask = cap - 1;
	return 0;
}

/* The line number of an equal earlier row, 0 if none (-1: no memory). */
static long dup_check(struct dupset *d, size_t line, long iter, double v, long lineno)
{
	uint64_t key = ((uint64_t)(line + 1) << 32) | (uint32_t)iter;
	size_t j;

	if ((d->n + 1) * 2 > d->mask + 1 && dup_grow(d))
		return -1;
	for (j = mix64(key) & d->mask; d->e[j].key; j = (j + 1) & d->mask) {
		if (d->e[j].key != key)
			continue;
		if (memcmp(&d->e[j].v, &v, sizeof(v)) == 0)
			return d->e[j].lineno;
		d->e[j].v = v;	/* a rerun into the same directory */
		d->e[j].lineno = lineno;
		return 0;
	}
	d->e[j] = (struct dup_ent){ key, v, lineno };
	d->n++;
	return 0;
}

/*
 * Value arrays live in the set's arena: they are never freed one by one,
 * and an array that fills up is copied to one twice its size.
 */
int rs_vals_push(struct rs_set *s, struct rs_vals *v, double x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		double *n = arena_realloc(&s->vals_mem, v->v, v->n * sizeof(*n),
					  cap * sizeof(*n));

		if (!n)
			return -1;
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

int rs_vals_new_run(struct rs_set *s, struct rs_vals *v)
{
	unsigned n = v->nrun_start;

	if (!v->n)
		return 0;
	/* room for 4, then the array doubles when full (at each power of two) */
	if (!n || (n >= 4 && !(n & (n - 1)))) {
		size_t *p = arena_realloc(&s->vals_mem, v->run_start, n * sizeof(*p),
					  (n ? 2 * (size_t)n : 4) * sizeof(*p));

		if (!p)
			return -1;
		v->run_start = p;
	}
	v->run_start[v->nrun_start++] = v->n;
	return 0;
}

/* Room for sides [0, n) in l->vals (from the arena, like the values). */
int rs_line_sides(struct rs_set *s, struct rs_line *l, int n)
{
	struct rs_vals *nv;

	if (n <= l->nvals)
		return 0;
	nv = arena_realloc(&s->vals_mem, l->vals, l->nvals * sizeof(*nv), n * sizeof(*nv));
	if (!nv)
		return -1;
	l->vals = nv;
	l->nvals = n;
	return 0;
}

bool rs_line_eq(const struct rs_set *s, size_t idx, const void *const k[4])
{
	const struct rs_line *l = &s->lines[idx];

	return l->workload == k[0] && l->kase == k[1] && l->metric == k[2];
}

struct rs_line *rs_new_line(struct rs_set *s, const void *const k[4], const char *unit,
			    enum mm_better better, const char *file, long lineno)
{
	struct rs_line *l;

	if (s->nlines == s->caplines) {
		if (big_reserve(&s->lines_mem, (s->nlines + 1) * sizeof(*l)))
			return NULL;
		s->lines = s->lines_mem.p;
		s->caplines = s->lines_mem.cap / sizeof(*l);
	}
	l = &s->lines[s->nlines++];
	memset(l, 0, sizeof(*l));
	l->workload = k[0];
	l->kase = k[1];
	l->metric = k[2];
	l->unit = unit;
	l->better = better;
	l->file = file;
	l->lineno = lineno;
	return l;
}

static struct rs_line *lookup_line(struct csvt *t, enum mm_better better)
{
	struct rs_set *s = t->s;
	const void *k[4];
	struct rs_line *l;
	const char *unit;
	size_t idx = s->nlines;
	int r, ord[3];

	k[0] = rs_intern_order(s, fld(t, C_WORKLOAD), fld_len(t, C_WORKLOAD), &ord[0]);
	k[1] = rs_intern_order(s, fld(t, C_CASE), fld_len(t, C_CASE), &ord[1]);
	k[2] = rs_intern_order(s, fld(t, C_METRIC), fld_len(t, C_METRIC), &ord[2]);
	k[3] = NULL;
	if (!k[0] || !k[1] || !k[2])
		return NULL;
	r = rs_hash_get(s, s->line_idx, k, rs_line_eq, &idx);
	if (r < 0)
		return NULL;
	if (r == 1)
		return &s->lines[idx];
	unit = rs_intern(s, fld(t, C_UNIT), fld_len(t, C_UNIT));
	l = unit ? rs_new_line(s, k, unit, better, t->name, t->lineno) : NULL;
	if (!l)
		return NULL;
	l->wl_order = ord[0];
	l->case_order = ord[1];
	l->metric_order = ord[2];
	return l;
}

static bool line_matches(const struct csvt *t, const struct rs_line *l)
{
	return !strcmp(l->metric, fld(t, C_METRIC)) && !strcmp(l->kase, fld(t, C_CASE)) &&
	       !strcmp(l->workload, fld(t, C_WORKLOAD));
}

/*
 * The line of the current row. Rows come in the same order in every
 * iteration and every run (case by case, metric by metric), so the line
 * that followed the previous row's line last time is tried first; the
 * string table and the index are only needed when that guess fails.
 */
static struct rs_line *find_line(struct csvt *t, enum mm_better better)
{
	struct rs_set *s = t->s;
	size_t hint = t->prev_line ? s->lines[t->prev_line - 1].next_hint : 0;
	struct rs_line *l;

	if (hint && line_matches(t, &s->lines[hint - 1]))
		l = &s->lines[hint - 1];
	else
		l = lookup_line(t, better);
	if (!l)
		return NULL;
	if (t->prev_line)
		s->lines[t->prev_line - 1].next_hint = l - s->lines + 1;
	t->prev_line = l - s->lines + 1;
	return l;
}

static int line_add(struct csvt *t, struct rs_line *l, int side, double v)
{
	struct rs_vals *x;

	/* room for BASE and one NEW at once: the common comparison */
	if (rs_line_sides(t->s, l, side + 1 < 2 ? 2 : side + 1))
		return ct_err(t, "out of memory");
	x = &l->vals[side];
	/* a run's values are contiguous: another run's value starts a run */
	if ((x->last_run != t->run + 1 && rs_vals_new_run(t->s, x)) ||
	    rs_vals_push(t->s, x, v))
		return ct_err(t, "out of memory");
	x->last_run = t->run + 1;
	return 0;
}

/* The same metric must keep its unit and direction everywhere. */
static int line_agrees(struct csvt *t, const struct rs_line *l, enum mm_better better)
{
	const char *unit = fld(t, C_UNIT);

	if (strcmp(l->unit, unit))
		return ct_err(t, "%s/%s: unit '%s' but '%s' at %s:%ld", l->workload,
			      l->metric, unit, l->unit, l->file, l->lineno);
	if (l->better != better)
		return ct_err(t, "%s/%s: better=%s but %s at %s:%ld", l->workload,
			      l->metric, mm_better_str(better), mm_better_str(l->better),
			      l->file, l->lineno);
	return 0;
}

/* Every row of a results.csv carries its run's run_id: two runs in one
 * file (concatenated) are refused. */
static int row_run_id(struct csvt *t)
{
	struct rs_run *r = &t->s->runs[t->run];
	const char *id = fld(t, C_RUN_ID);
	char b[64];

	if (check_nonempty(t, C_RUN_ID, "run_id"))
		return -1;
	if (!r->run_id) {
		r->run_id = strdup(id);
		return r->run_id ? 0 : ct_err(t, "out of memory");
	}
	if (strcmp(r->run_id, id))
		return ct_err(t, "run_id '%s' differs from the file's run_id '%s': two runs in "
			      "one results.csv", ct_show(t, C_RUN_ID, b, sizeof(b)), r->run_id);
	return 0;
}

static int results_row(struct csvt *t)
{
	/* every check of its fields; runs from before metrics.csv had
	 * --probe's calls per unit as info */
	struct mm_rowchk c = { .flags = MM_ROW_KEYS | MM_ROW_OLD_CALLS };
	struct mm_resrow row;
	enum mm_better better;
	struct rs_line *l;
	long iter, dup;
	double v;
	int side, i;

	for (i = 0; i < C_NRES; i++)
		row.f[i] = field(t, i);
	if (mm_resrow_read(&c, &row))
		return chk_fail(t, &c);
	iter = row.iteration;
	v = row.value;
	better = row.better;
	side = row_side(t, C_LABEL);
	if (side < 0 || row_run_id(t))
		return -1;
	l = find_line(t, better);
	if (!l)
		return ct_err(t, "out of memory");
	if (t->dupscan) {
		if (!t->dups && !(t->dups = calloc(1, sizeof(*t->dups))))
			return ct_err(t, "out of memory");
		dup = dup_check(t->dups, l - t->s->lines, iter, v, t->lineno);
		if (dup < 0)
			return ct_err(t, "out of memory");
		if (dup)
			return ct_err(t, "the same row as line %ld (%s/%s iteration %ld): a row "
				      "counted twice would double its weight", dup, l->workload,
				      l->metric, iter);
		return 0;
	}
	if (l->it_run == t->run + 1 && iter <= l->it_last)
		t->restart = true;
	l->it_run = t->run + 1;
	l->it_last = iter;
	if (line_agrees(t, l, better) || line_add(t, l, side, v))
		return -1;
	t->s->runs[t->run].nrows++;
	t->s->sides[side].nrows++;
	return 0;
}

/* ------------------------------------------------------------ meta, samples */

static int meta_row(struct csvt *t)
{
	struct rs_run *r = &t->s->runs[t->run];
	const char *key = fld(t, M_KEY);
	struct rs_kv *kv;
	int i;

	if (check_nonempty(t, M_KEY, "key"))
		return -1;
	if (!strcmp(key, "schema") && check_schema(t, M_VALUE))
		return -1;
	for (i = 0; i < r->nmeta; i++)
		if (!strcmp(r->meta[i].key, key))
			break;
	if (i == r->nmeta) {
		kv = realloc(r->meta, (r->nmeta + 1) * sizeof(*kv));
		if (!kv)
			return ct_err(t, "out of memory");
		r->meta = kv;
		r->meta[i].key = strdup(key);
		r->meta[i].value = NULL;
		r->nmeta++;
		if (!r->meta[i].key)
			return ct_err(t, "out of memory");
	}
	/* a later row overrides an earlier one, as --meta does */
	free(r->meta[i].value);
	r->meta[i].value = strdup(fld(t, M_VALUE));
	if (!r->meta[i].value)
		return ct_err(t, "out of memory");
	r->has_meta = true;
	return 0;
}

static bool sampleset_eq(const struct rs_set *s, size_t idx, const void *const k[4])
{
	const struct rs_sampleset *ss = &s->samples[idx];

	return ss->workload == k[0] && ss->kase == k[1] && ss->klass == k[2] &&
	       (uintptr_t)k[3] == (uintptr_t)ss->side + 1;
}

/* The sample set of (side, workload, case, class), interned strings; made if new. */
struct rs_sampleset *rs_sampleset_get(struct rs_set *s, int side, const char *wl,
				      const char *kase, const char *klass)
{
	const void *k[4] = { wl, kase, klass, (void *)(uintptr_t)(side + 1) };
	struct rs_sampleset *ss;
	size_t idx = s->nsamples;
	int r;

	if (!wl || !kase || !klass)
		return NULL;
	r = rs_hash_get(s, s->sample_idx, k, sampleset_eq, &idx);
	if (r < 0)
		return NULL;
	if (r == 1)
		return &s->samples[idx];
	if (s->nsamples == s->capsamples) {
		size_t cap = s->capsamples ? s->capsamples * 2 : 64;

		ss = realloc(s->samples, cap * sizeof(*ss));
		if (!ss)
			return NULL;
		s->samples = ss;
		s->capsamples = cap;
	}
	ss = &s->samples[s->nsamples++];
	memset(ss, 0, sizeof(*ss));
	ss->side = side;
	ss->workload = wl;
	ss->kase = kase;
	ss->klass = klass;
	return ss;
}

static struct rs_sampleset *find_sampleset(struct csvt *t, int side)
{
	struct rs_set *s = t->s;

	return rs_sampleset_get(s, side, rs_intern(s, fld(t, S_WORKLOAD), fld_len(t, S_WORKLOAD)),
			     rs_intern(s, fld(t, S_CASE), fld_len(t, S_CASE)),
			     rs_intern(s, fld(t, S_CLASS), fld_len(t, S_CLASS)));
}

static int samples_row(struct csvt *t)
{
	struct rs_sampleset *ss;
	long iter, task;
	double v;
	int side;

	if (check_schema(t, S_SCHEMA) || check_nonempty(t, S_WORKLOAD, "workload") ||
	    check_case(t, S_CASE) || parse_int(t, S_ITERATION, "iteration", &iter) ||
	    parse_int(t, S_TASK, "task", &task) || check_nonempty(t, S_CLASS, "class") ||
	    parse_value(t, S_VALUE_NS, "value_ns", &v))
		return -1;
	side = row_side(t, S_LABEL);
	if (side < 0)
		return -1;
	ss = find_sampleset(t, side);
	if (!ss || rs_vals_push(t->s, &ss->vals, v))
		return ct_err(t, "out of memory");
	return 0;
}

/* ------------------------------------------------------------ files */

/* ------------------------------------------------------------ case outcomes */

static int note_set(struct rs_case_note *n, const char *label, const char *wl,
		    const char *kase, const char *status, const char *reason)
{
	rs_note_free(n);
	n->label = strdup(label);
	n->workload = strdup(wl);
	n->kase = strdup(kase);
	n->status = strdup(status);
	n->reason = strdup(reason);
	return n->label && n->workload && n->kase && n->status && n->reason ? 0 : -1;
}

static struct rs_case_note *push_note(struct rs_case_note **v, int *n)
{
	struct rs_case_note *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	*v = nv;
	memset(&nv[*n], 0, sizeof(*nv));
	return &nv[(*n)++];
}

static int add_note(struct rs_run *r, const char *label, const char *wl, const char *kase,
		    const char *status, const char *reason)
{
	struct rs_case_note *n = push_note(&r->notes, &r->nnotes);

	return n ? note_set(n, label, wl, kase, status, reason) : -1;
}

/* cases.csv: every case's outcome; the ones that did not pass are kept. */
static int cases_row(struct csvt *t)
{
	struct rs_run *r = &t->s->runs[t->run];
	static const char *const known[] = { "pass", "fail", "skip", "timeout", NULL };
	const char *st = fld(t, K_STATUS);
	struct rs_case_note *n;
	char b[64];
	int i;

	if (check_schema(t, K_SCHEMA) || check_nonempty(t, K_WORKLOAD, "workload") ||
	    check_case(t, K_CASE))
		return -1;
	for (i = 0; known[i] && strcmp(st, known[i]); i++)
		;
	if (!known[i])
		return ct_err(t, "status '%s' is not pass, fail, skip or timeout",
			      ct_show(t, K_STATUS, b, sizeof(b)));
	n = push_note(&r->ended, &r->nended);
	if (!n || note_set(n, fld(t, K_LABEL), fld(t, K_WORKLOAD), fld(t, K_CASE), st,
			   fld(t, K_REASON)))
		return ct_err(t, "out of memory");
	if (i && add_note(r, n->label, n->workload, n->kase, n->status, n->reason))
		return ct_err(t, "out of memory");
	return 0;
}

/* metrics.csv: each metric's role, once per run. */
static int metrics_row(struct csvt *t)
{
	struct rs_run *r = &t->s->runs[t->run];
	const char *role = fld(t, D_ROLE), *timed = fld(t, D_TIMED);
	struct rs_decl *d;
	char b[64];

	if (check_schema(t, D_SCHEMA) || check_nonempty(t, D_WORKLOAD, "workload") ||
	    check_nonempty(t, D_METRIC, "metric"))
		return -1;
	if (strcmp(role, "evidence") && strcmp(role, "context"))
		return ct_err(t, "role '%s' is not evidence or context",
			      ct_show(t, D_ROLE, b, sizeof(b)));
	if (strcmp(timed, "0") && strcmp(timed, "1"))
		return ct_err(t, "timed '%s' is not 0 or 1", ct_show(t, D_TIMED, b, sizeof(b)));
	d = realloc(r->decls, (r->ndecls + 1) * sizeof(*d));
	if (!d)
		return ct_err(t, "out of memory");
	r->decls = d;
	d = &d[r->ndecls];
	/* the run's own copies: a shard's string table does not outlive it */
	d->workload = strdup(fld(t, D_WORKLOAD));
	d->metric = strdup(fld(t, D_METRIC));
	d->claim = fld_len(t, D_CLAIM) ? strdup(fld(t, D_CLAIM)) : NULL;
	d->evidence = !strcmp(role, "evidence");
	d->timed = !strcmp(timed, "1");
	r->ndecls++;
	if (!d->workload || !d->metric || (fld_len(t, D_CLAIM) && !d->claim))
		return ct_err(t, "out of memory");
	return 0;
}

/* started.csv: a row before each case ran. */
static int started_row(struct csvt *t)
{
	struct rs_run *r = &t->s->runs[t->run];
	struct rs_case_note *n;

	if (check_schema(t, T_SCHEMA) || check_nonempty(t, T_WORKLOAD, "workload") ||
	    check_case(t, T_CASE) || check_nonempty(t, T_START, "start_time"))
		return -1;
	n = push_note(&r->started, &r->nstarted);
	if (!n || note_set(n, fld(t, T_LABEL), fld(t, T_WORKLOAD), fld(t, T_CASE), "died",
			   fld(t, T_START)))
		return ct_err(t, "out of memory");
	return 0;
}

/*
 * Every case has its started.csv row before it runs and its cases.csv row
 * after. Each cases.csv row takes the latest started row of its case still
 * unmatched; a started row left over is a case that never ended (a run
 * directory reused after a crash keeps the crashed case's row first).
 */
int rs_note_unfinished(struct rs_set *s, struct rs_run *r)
{
	bool *matched = calloc(r->nstarted + 1, sizeof(*matched));
	char why[300];
	int i, j, rc = 0;

	if (!matched)
		return rs_set_err(s, "out of memory");
	for (i = 0; i < r->nended; i++) {
		for (j = r->nstarted - 1; j >= 0; j--) {
			if (!matched[j] && !strcmp(r->started[j].kase, r->ended[i].kase) &&
			    !strcmp(r->started[j].workload, r->ended[i].workload)) {
				matched[j] = true;
				break;
			}
		}
	}
	for (j = 0; j < r->nstarted && !rc; j++) {
		const struct rs_case_note *l = &r->started[j];

		if (matched[j])
			continue;
		snprintf(why, sizeof(why), "started %s and never ended: mmbench or the machine "
			 "died while it ran", l->reason);
		if (add_note(r, l->label, l->workload, l->kase, "died", why))
			rc = rs_set_err(s, "out of memory");
	}
	free(matched);
	rs_free_progress(r);
	return rc;
}

const char *rs_run_side_name(const struct rs_set *s, const struct rs_run *r,
			     const struct rs_case_note *n)
{
	return r->side >= 0 ? s->sides[r->side].name : n->label;
}

int (*const rs_kind_row[RS_NKINDS])(struct csvt *) = {
	[RS_RESULTS] = results_row,
	[RS_META] = meta_row,
	[RS_SAMPLES_FILE] = samples_row,
	[RS_CASES] = cases_row,
	[RS_STARTED] = started_row,
	[RS_METRICS] = metrics_row,
};
