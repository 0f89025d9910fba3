// SPDX-License-Identifier: GPL-2.0
/*
 * Result-set reader: finding the runs an argument names, reading them
 * (several at once on threads, each into a shard of its own) and merging
 * the shards into the set in argument order, so the result does not depend
 * on which thread finished first.
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

#include "resultset_int.h"

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int load_run(struct rs_set *s, const char *results)
{
	char path[4096], *slash;
	int run = rs_new_run(s, results);

	if (run < 0)
		return -1;
	if (rs_parse_file(s, RS_RESULTS, results, run))
		return -1;
	snprintf(path, sizeof(path), "%s", results);
	slash = strrchr(path, '/');
	slash = slash ? slash + 1 : path;
	snprintf(slash, sizeof(path) - (slash - path), "meta.csv");
	if (is_file(path)) {
		if (rs_parse_file(s, RS_META, path, run))
			return -1;
	} else {
		rs_add_warn(s, "%s: no meta.csv next to it: its facts are not checked", results);
	}
	snprintf(slash, sizeof(path) - (slash - path), "samples.csv");
	if ((s->flags & RS_SAMPLES) && is_file(path) && rs_parse_file(s, RS_SAMPLES_FILE, path, run))
		return -1;
	snprintf(slash, sizeof(path) - (slash - path), "cases.csv");
	if (is_file(path) && rs_parse_file(s, RS_CASES, path, run))
		return -1;
	snprintf(slash, sizeof(path) - (slash - path), "started.csv");
	if (is_file(path) && rs_parse_file(s, RS_STARTED, path, run))
		return -1;
	snprintf(slash, sizeof(path) - (slash - path), "metrics.csv");
	if (is_file(path) && rs_parse_file(s, RS_METRICS, path, run))
		return -1;
	if (rs_note_unfinished(s, &s->runs[run]))
		return -1;
	if (!s->runs[run].nrows)
		rs_add_warn(s, "%s: no measured rows", results);
	return 0;
}

/*
 * The same results.csv reached twice (BASE NEW NEW, a label directory and
 * a run in it, ./N and N, a symlink) would pool its rows twice: refused.
 */
static int add_pending(struct rs_set *s, const char *path)
{
	struct rs_pending *p;
	struct stat st;
	int i;

	if (stat(path, &st))
		return rs_set_err(s, "%s: %s", path, strerror(errno));
	for (i = 0; i < s->npending; i++)
		if (s->pending[i].dev == (unsigned long long)st.st_dev &&
		    s->pending[i].ino == (unsigned long long)st.st_ino)
			return rs_set_err(s, "%s and %s are the same file: its rows would be counted "
				       "twice", s->pending[i].path, path);
	p = realloc(s->pending, (s->npending + 1) * sizeof(*p));
	if (!p)
		return rs_set_err(s, "out of memory");
	s->pending = p;
	p[s->npending].arg = s->cur_arg;
	p[s->npending].dev = st.st_dev;
	p[s->npending].ino = st.st_ino;
	p[s->npending].path = strdup(path);
	if (!p[s->npending].path)
		return rs_set_err(s, "out of memory");
	s->npending++;
	return 0;
}

static int subdir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* A label directory: every subdirectory holding a results.csv is a run. */
static int load_label_dir(struct rs_set *s, const char *dir)
{
	struct dirent **ents;
	char path[4096];
	int n, i, found = 0, rc = 0;

	n = scandir(dir, &ents, subdir_filter, alphasort);
	if (n < 0)
		return rs_set_err(s, "%s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/results.csv", dir, ents[i]->d_name);
		if (!rc && is_file(path)) {
			found++;
			rc = add_pending(s, path);
		}
		free(ents[i]);
	}
	free(ents);
	if (!rc && !found)
		rc = rs_set_err(s, "%s: no results.csv in it or in its subdirectories", dir);
	return rc;
}

int rs_add_arg(struct rs_set *s, const char *arg)
{
	char path[4096];
	struct stat st;
	int rc;

	if (stat(arg, &st))
		return rs_set_err(s, "%s: %s", arg, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		rc = add_pending(s, arg);
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/results.csv", arg);
		rc = is_file(path) ? add_pending(s, path) : load_label_dir(s, arg);
	} else {
		rc = rs_set_err(s, "%s: not a file or directory", arg);
	}
	s->cur_arg++;
	return rc;
}

/* ------------------------------------------------------------ merging */

/*
 * Append src's values to dst; when dst is empty, take src's array (the
 * shard's arena joins the set's before its lines are merged).
 */
static int vals_move(struct rs_set *s, struct rs_vals *dst, struct rs_vals *src)
{
	unsigned k = 0;
	size_t i;

	if (!dst->n) {
		*dst = *src;
		*src = (struct rs_vals){ 0 };
		dst->last_run = 0;	/* values read later are another run's */
		return 0;
	}
	/* src's runs follow dst's, each one still a run of its own */
	for (i = 0; i < src->n; i++) {
		bool starts = !i || (k < src->nrun_start && src->run_start[k] == i);

		k += i && starts;
		if ((starts && rs_vals_new_run(s, dst)) || rs_vals_push(s, dst, src->v[i]))
			return -1;
	}
	dst->last_run = 0;
	return 0;
}

/* Shard strings mapped onto s's: the last one seen of each field. */
struct str_memo {
	const char *from, *to;
	int order;
};

static const char *memo_intern(struct rs_set *s, struct str_memo *m, const char *p,
			       int *order)
{
	if (p != m->from) {
		m->to = rs_intern_order(s, p, strlen(p), &m->order);
		if (!m->to)
			return NULL;
		m->from = p;
	}
	*order = m->order;
	return m->to;
}

enum { MEMO_WL, MEMO_CASE, MEMO_METRIC, MEMO_UNIT, MEMO_FILE, MEMO_N };

/* The line of s matching shard line x (made if new, checked if not). */
static struct rs_line *merge_find(struct rs_set *s, const struct rs_line *x,
				  struct str_memo *memo)
{
	const void *k[4] = { NULL, NULL, NULL, NULL };
	const char *unit, *file;
	struct rs_line *l;
	size_t idx = s->nlines;
	int ord[5] = { 0 }, r;

	k[0] = memo_intern(s, &memo[MEMO_WL], x->workload, &ord[0]);
	k[1] = memo_intern(s, &memo[MEMO_CASE], x->kase, &ord[1]);
	k[2] = memo_intern(s, &memo[MEMO_METRIC], x->metric, &ord[2]);
	unit = memo_intern(s, &memo[MEMO_UNIT], x->unit, &ord[3]);
	file = memo_intern(s, &memo[MEMO_FILE], x->file, &ord[4]);
	if (!k[0] || !k[1] || !k[2] || !unit || !file ||
	    (r = rs_hash_get(s, s->line_idx, k, rs_line_eq, &idx)) < 0) {
		rs_set_err(s, "out of memory");
		return NULL;
	}
	if (r == 0) {
		l = rs_new_line(s, k, unit, x->better, file, x->lineno);
		if (l) {
			l->wl_order = ord[0];
			l->case_order = ord[1];
			l->metric_order = ord[2];
		} else {
			rs_set_err(s, "out of memory");
		}
		return l;
	}
	l = &s->lines[idx];
	if (l->unit != unit)
		rs_set_err(s, "%s:%ld: %s/%s: unit '%s' but '%s' at %s:%ld", file, x->lineno,
			l->workload, l->metric, unit, l->unit, l->file, l->lineno);
	else if (l->better != x->better)
		rs_set_err(s, "%s:%ld: %s/%s: better=%s but %s at %s:%ld", file, x->lineno,
			l->workload, l->metric, mm_better_str(x->better),
			mm_better_str(l->better), l->file, l->lineno);
	else
		return l;
	return NULL;
}

static int merge_lines(struct rs_set *s, struct rs_set *sh, int from, int to)
{
	struct str_memo memo[MEMO_N] = { 0 };
	size_t i;

	for (i = 0; i < sh->nlines; i++) {
		struct rs_line *x = &sh->lines[i], *l;

		if (from >= x->nvals || !x->vals[from].n)
			continue;
		l = merge_find(s, x, memo);
		if (!l)
			return -1;
		if (rs_line_sides(s, l, to + 1) || vals_move(s, &l->vals[to], &x->vals[from]))
			return rs_set_err(s, "out of memory");
	}
	return 0;
}

static int merge_samples(struct rs_set *s, struct rs_set *sh, int to)
{
	size_t i;

	for (i = 0; i < sh->nsamples; i++) {
		struct rs_sampleset *x = &sh->samples[i], *ss;

		ss = rs_sampleset_get(s, to, rs_intern(s, x->workload, strlen(x->workload)),
				   rs_intern(s, x->kase, strlen(x->kase)),
				   rs_intern(s, x->klass, strlen(x->klass)));
		if (!ss || vals_move(s, &ss->vals, &x->vals))
			return rs_set_err(s, "out of memory");
	}
	return 0;
}

/*
 * The first shard with rows, merged into a set that holds no lines, no
 * samples and no strings yet, is taken whole: its lines, strings and
 * indexes become the set's, in the same order a merge would give.
 */
static bool adopt_shard(struct rs_set *s, struct rs_set *sh, int from, int to)
{
	struct rs_set tmp;

	if (s->nlines || s->nsamples || s->strs->n || from != to)
		return false;
	tmp = *s;
	s->lines = sh->lines;
	s->lines_mem = sh->lines_mem;
	s->nlines = sh->nlines;
	s->caplines = sh->caplines;
	s->samples = sh->samples;
	s->nsamples = sh->nsamples;
	s->capsamples = sh->capsamples;
	s->strs = sh->strs;
	s->line_idx = sh->line_idx;
	s->sample_idx = sh->sample_idx;
	s->norder = sh->norder;
	sh->lines = tmp.lines;
	sh->lines_mem = tmp.lines_mem;
	sh->nlines = tmp.nlines;
	sh->caplines = tmp.caplines;
	sh->samples = tmp.samples;
	sh->nsamples = tmp.nsamples;
	sh->capsamples = tmp.capsamples;
	sh->strs = tmp.strs;
	sh->line_idx = tmp.line_idx;
	sh->sample_idx = tmp.sample_idx;
	sh->norder = tmp.norder;
	return true;
}

/* Move shard sh, one run read on its own, into s. */
static int merge_shard(struct rs_set *s, struct rs_set *sh)
{
	struct rs_run *x = &sh->runs[0], *r;
	int run, side = -1, from = x->side;
	char *path;

	if (sh->warn[0] && strlen(s->warn) + strlen(sh->warn) < sizeof(s->warn))
		strcat(s->warn, sh->warn);
	run = rs_new_run(s, x->path);
	if (run < 0)
		return -1;
	/* meta, case notes and counts move over; the shard keeps its path */
	r = &s->runs[run];
	path = r->path;
	*r = *x;
	r->path = path;
	r->side = -1;
	*x = (struct rs_run){ .path = x->path, .side = -1 };
	if (from < 0)
		return 0;
	side = rs_side_lookup(s, sh->sides[from].name, r->arg);
	if (side < 0)
		return -1;
	r->side = side;
	s->sides[side].nruns++;
	s->sides[side].nrows += sh->sides[from].nrows;
	arena_splice(&s->vals_mem, &sh->vals_mem);
	if (adopt_shard(s, sh, from, side))
		return 0;
	if (merge_lines(s, sh, from, side) || merge_samples(s, sh, side))
		return -1;
	return 0;
}

/* ------------------------------------------------------------ loading */

struct loader {
	struct rs_set *s;
	struct rs_set *shards;
	int *rc;
	int next;
};

/* Read pending runs, each into its own shard, until none is left. */
static void *load_worker(void *arg)
{
	struct loader *ld = arg;
	int i;

	while ((i = __atomic_fetch_add(&ld->next, 1, __ATOMIC_RELAXED)) < ld->s->npending) {
		ld->shards[i].cur_arg = ld->s->pending[i].arg;
		ld->rc[i] = load_run(&ld->shards[i], ld->s->pending[i].path);
	}
	return NULL;
}

/*
 * Read the pending runs on up to one thread per CPU, then merge them in
 * argument order, so sides, lines and errors come out exactly as if the
 * files had been read one after the other.
 */
int rs_load_pending(struct rs_set *s)
{
	struct loader ld = { .s = s };
	int n = s->npending, i, nthr, started = 1, rc = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t tid[8];

	if (!n)
		return 0;
	ld.shards = calloc(n, sizeof(*ld.shards));
	ld.rc = calloc(n, sizeof(*ld.rc));
	if (!ld.shards || !ld.rc) {
		free(ld.shards);
		free(ld.rc);
		return rs_set_err(s, "out of memory");
	}
	for (i = 0; i < n; i++)
		rs_init(&ld.shards[i], s->flags);
	nthr = n < cpus ? n : cpus < 1 ? 1 : cpus > 8 ? 8 : cpus;
	for (; started < nthr; started++)
		if (pthread_create(&tid[started], NULL, load_worker, &ld))
			break;
	load_worker(&ld);
	for (i = 1; i < started; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < n; i++) {
		if (!rc && ld.rc[i])
			rc = rs_set_err(s, "%s", ld.shards[i].err);
		else if (!rc)
			rc = merge_shard(s, &ld.shards[i]);
		rs_free(&ld.shards[i]);
		free(s->pending[i].path);
	}
	free(ld.shards);
	free(ld.rc);
	free(s->pending);
	s->pending = NULL;
	s->npending = 0;
	return rc;
}

/* Read what rs_add_*() queued, then sort and check the set (resultset.h). */
int rs_finish(struct rs_set *s)
{
	if (rs_load_pending(s))
		return -1;
	return rs_finish_loaded(s);
}
