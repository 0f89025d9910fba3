// SPDX-License-Identifier: GPL-2.0
/*
 * Result-set reader (resultset.h): the set, its errors and notes, and
 * rs_finish(): sorting the lines, grouping them by workload, display
 * names, and the runs' metrics.csv declarations. The other parts:
 * resultset_index.c (strings, index), resultset_csv.c (the CSV fast path),
 * resultset_rows.c (each schema file's rows checked and pooled),
 * resultset_load.c (finding runs, reading them on threads, merging).
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

#include "casekeys.h"
#include "resultset_int.h"

/* ------------------------------------------------------------ set */

void rs_note_free(struct rs_case_note *n)
{
	free(n->label);
	free(n->workload);
	free(n->kase);
	free(n->status);
	free(n->reason);
	memset(n, 0, sizeof(*n));
}

void rs_free_progress(struct rs_run *r)
{
	int i;

	for (i = 0; i < r->nstarted; i++)
		rs_note_free(&r->started[i]);
	for (i = 0; i < r->nended; i++)
		rs_note_free(&r->ended[i]);
	free(r->started);
	free(r->ended);
	r->started = NULL;
	r->ended = NULL;
	r->nstarted = r->nended = 0;
}

void rs_init(struct rs_set *s, unsigned flags)
{
	memset(s, 0, sizeof(*s));
	s->flags = flags;
	s->strs = calloc(1, sizeof(*s->strs));
	s->line_idx = calloc(1, sizeof(*s->line_idx));
	s->sample_idx = calloc(1, sizeof(*s->sample_idx));
}

void rs_free(struct rs_set *s)
{
	size_t i;
	int j;

	for (i = 0; i < s->nlines; i++)
		free(s->lines[i].name);
	big_release(&s->lines_mem);
	free(s->sorted);
	for (j = 0; j < s->nwls; j++) {
		for (int k = 0; k < s->wls[j].nvary; k++)
			free(s->wls[j].vary[k]);
		free(s->wls[j].vary);
		free(s->wls[j].fixed);
	}
	free(s->wls);
	free(s->samples);
	arena_free(&s->vals_mem);
	for (j = 0; j < s->nruns; j++) {
		free(s->runs[j].path);
		free(s->runs[j].run_id);
		free(s->runs[j].label);
		for (int k = 0; k < s->runs[j].nmeta; k++) {
			free(s->runs[j].meta[k].key);
			free(s->runs[j].meta[k].value);
		}
		free(s->runs[j].meta);
		for (int k = 0; k < s->runs[j].ndecls; k++) {
			free(s->runs[j].decls[k].workload);
			free(s->runs[j].decls[k].metric);
			free(s->runs[j].decls[k].claim);
		}
		free(s->runs[j].decls);
		for (int k = 0; k < s->runs[j].nnotes; k++)
			rs_note_free(&s->runs[j].notes[k]);
		free(s->runs[j].notes);
		rs_free_progress(&s->runs[j]);
	}
	free(s->runs);
	for (j = 0; j < s->npending; j++)
		free(s->pending[j].path);
	free(s->pending);
	for (j = 0; j < s->nsides; j++)
		free(s->sides[j].name);
	rs_strtab_free(s->strs);
	rs_hash_free(s->line_idx);
	rs_hash_free(s->sample_idx);
	memset(s, 0, sizeof(*s));
}

int rs_set_err(struct rs_set *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -1;
}

void rs_add_warn(struct rs_set *s, const char *fmt, ...)
{
	size_t n = strlen(s->warn);
	va_list ap;

	if (n + 2 >= sizeof(s->warn))
		return;
	va_start(ap, fmt);
	vsnprintf(s->warn + n, sizeof(s->warn) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(s->warn);
	s->warn[n] = '\n';
	s->warn[n + 1] = '\0';
}


const char *rs_meta_get(const struct rs_run *r, const char *key)
{
	int i;

	for (i = 0; i < r->nmeta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

bool rs_case_get(const char *kase, const char *key, char *buf, size_t len)
{
	return mm_case_get(kase, key, buf, len);
}

int rs_new_run(struct rs_set *s, const char *path)
{
	struct rs_run *r = realloc(s->runs, (s->nruns + 1) * sizeof(*r));

	if (!r)
		return rs_set_err(s, "out of memory");
	s->runs = r;
	r = &s->runs[s->nruns];
	memset(r, 0, sizeof(*r));
	r->side = -1;
	r->arg = s->cur_arg;
	r->path = strdup(path);
	if (!r->path)
		return rs_set_err(s, "out of memory");
	s->nruns++;
	return s->nruns - 1;
}

/* ------------------------------------------------------------ finish */

static int line_cmp(const void *a, const void *b)
{
	const struct rs_line *x = *(struct rs_line *const *)a;
	const struct rs_line *y = *(struct rs_line *const *)b;

	if (x->wl_order != y->wl_order)
		return x->wl_order < y->wl_order ? -1 : 1;
	if (x->metric_order != y->metric_order)
		return x->metric_order < y->metric_order ? -1 : 1;
	if (x->case_order != y->case_order)
		return x->case_order < y->case_order ? -1 : 1;
	return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return x < y ? -1 : x > y;
}

/* Split the case keys of a workload into varying and fixed ones. */
static int classify_keys(struct rs_workload *w, const char **cases, size_t n)
{
	return mm_case_split(cases, n, &w->vary, &w->nvary, &w->fixed);
}

static int workload_keys(struct rs_set *s, struct rs_workload *w)
{
	const char **cases = malloc(w->count * sizeof(*cases));
	size_t i, n = 0;
	int rc;

	if (!cases)
		return -1;
	for (i = 0; i < w->count; i++)
		cases[i] = s->sorted[w->first + i]->kase;
	qsort(cases, w->count, sizeof(*cases), ptr_cmp);
	for (i = 0; i < w->count; i++)
		if (!n || cases[n - 1] != cases[i])
			cases[n++] = cases[i];
	rc = classify_keys(w, cases, n);
	free(cases);
	return rc;
}

/*
 * The name a line shows in tables, mmtests style: the metric followed by
 * the values of the case keys that vary in this workload, "fault_both-12".
 */
static int line_name(const struct rs_workload *w, struct rs_line *l)
{
	char v[512];
	int i;

	l->name = strdup(l->metric);
	for (i = 0; l->name && i < w->nvary; i++) {
		if (!rs_case_get(l->kase, w->vary[i], v, sizeof(v)))
			strcpy(v, "none");
		if (mm_str_append(&l->name, "-", v, ""))
			return -1;
	}
	return l->name ? 0 : -1;
}

static int group_workloads(struct rs_set *s)
{
	struct rs_workload *w;
	size_t i, j;

	for (i = 0; i < s->nlines; i = j) {
		for (j = i + 1; j < s->nlines; j++)
			if (s->sorted[j]->workload != s->sorted[i]->workload)
				break;
		w = realloc(s->wls, (s->nwls + 1) * sizeof(*w));
		if (!w)
			return -1;
		s->wls = w;
		w = &s->wls[s->nwls++];
		memset(w, 0, sizeof(*w));
		w->name = s->sorted[i]->workload;
		w->first = i;
		w->count = j - i;
		if (workload_keys(s, w))
			return -1;
		for (size_t k = i; k < j; k++)
			if (line_name(w, s->sorted[k]))
				return -1;
	}
	return 0;
}

static int decl_cmp(const void *a, const void *b)
{
	const struct rs_decl *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);

	return c ? c : strcmp(x->metric, y->metric);
}

/*
 * Every run's metrics.csv into one sorted table (a metric is evidence or
 * timed if any run says so), then each line's role from it. The strings of
 * shards were interned in their own tables: compared by value.
 */
static int apply_decls(struct rs_set *s)
{
	struct rs_decl *all = NULL, key = { 0 }, *d;
	size_t n = 0, i, k = 0;
	int r, j;

	for (r = 0; r < s->nruns; r++)
		n += s->runs[r].ndecls;
	if (n && !(all = malloc(n * sizeof(*all))))
		return rs_set_err(s, "out of memory");
	for (r = 0; r < s->nruns; r++)
		for (j = 0; j < s->runs[r].ndecls; j++)
			all[k++] = s->runs[r].decls[j];
	if (n)
		qsort(all, n, sizeof(*all), decl_cmp);
	for (i = 0, k = 0; i < n; i++) {
		if (k && !decl_cmp(&all[k - 1], &all[i])) {
			all[k - 1].evidence |= all[i].evidence;
			all[k - 1].timed |= all[i].timed;
			if (!all[k - 1].claim)
				all[k - 1].claim = all[i].claim;
			continue;
		}
		all[k++] = all[i];
	}
	for (i = 0; i < s->nlines; i++) {
		struct rs_line *l = s->sorted[i];

		key.workload = (char *)l->workload;
		key.metric = (char *)l->metric;
		d = k ? bsearch(&key, all, k, sizeof(*all), decl_cmp) : NULL;
		l->timed = mm_unit_timed(l->unit) || (d && d->timed);
		l->evidence = d ? d->evidence : !strncmp(l->metric, "calls_per_", 10);
		l->claim = d ? d->claim : NULL;
	}
	free(all);
	return 0;
}

/*
 * Two files with one run_id are one run copied: pooled into one side its
 * rows would count twice (refused); on two sides a run would be compared
 * with itself (warned: synthetic runs may reuse ids).
 */
static int check_copies(struct rs_set *s)
{
	const struct rs_run *x, *y;
	char w[600];

	for (int a = 0; a < s->nruns; a++) {
		for (int b = a + 1; b < s->nruns; b++) {
			x = &s->runs[a];
			y = &s->runs[b];
			if (!x->run_id || !y->run_id || strcmp(x->run_id, y->run_id))
				continue;
			if (x->side == y->side)
				return rs_set_err(s, "%s and %s hold the same run (run_id %s): a "
					       "copy would be counted twice", x->path, y->path,
					       x->run_id);
			snprintf(w, sizeof(w), "%s and %s have the same run_id %s: is one a "
				 "copy of the other?", x->path, y->path, x->run_id);
			rs_add_warn(s, "%s", w);
		}
	}
	return 0;
}

int rs_finish_loaded(struct rs_set *s)
{
	size_t i;

	if (check_copies(s))
		return -1;
	if (!s->nlines)
		return rs_set_err(s, "no measured rows in the input");
	s->sorted = malloc(s->nlines * sizeof(*s->sorted));
	if (!s->sorted)
		return rs_set_err(s, "out of memory");
	for (i = 0; i < s->nlines; i++)
		s->sorted[i] = &s->lines[i];
	qsort(s->sorted, s->nlines, sizeof(*s->sorted), line_cmp);
	if (apply_decls(s))
		return -1;
	if (group_workloads(s))
		return rs_set_err(s, "out of memory");
	return 0;
}
