// SPDX-License-Identifier: GPL-2.0
/*
 * Result-set reader: libcsv parsing and validation of the schema-1 files,
 * pooling of values per (workload, case, metric) and side. See resultset.h.
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

#include "resultset.h"

/* ------------------------------------------------------------ strings */

struct str_ent {
	uint64_t h;
	char *s;
	size_t len;
	int order;		/* first appearance among all strings */
};

struct rs_strtab {
	struct str_ent *e;
	size_t cap, n;
};

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

static int strtab_grow(struct rs_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
	struct str_ent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (!t->e[i].s)
			continue;
		for (j = t->e[i].h & (cap - 1); e[j].s; j = (j + 1) & (cap - 1))
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

/*
 * The one stable copy of p[0..n) and, in *order, when it was first seen;
 * NULL when out of memory.
 */
static const char *intern_order(struct rs_set *s, const char *p, size_t n, int *order)
{
	struct rs_strtab *t = s->strs;
	uint64_t h = hash_bytes(p, n);
	size_t i;

	if (2 * (t->n + 1) > t->cap && strtab_grow(t))
		return NULL;
	for (i = h & (t->cap - 1); t->e[i].s; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].h == h && t->e[i].len == n && !memcmp(t->e[i].s, p, n)) {
			*order = t->e[i].order;
			return t->e[i].s;
		}
	}
	t->e[i].s = malloc(n + 1);
	if (!t->e[i].s)
		return NULL;
	memcpy(t->e[i].s, p, n);
	t->e[i].s[n] = '\0';
	t->e[i].h = h;
	t->e[i].len = n;
	t->e[i].order = *order = s->norder++;
	t->n++;
	return t->e[i].s;
}

static const char *intern(struct rs_set *s, const char *p, size_t n)
{
	int order;

	return intern_order(s, p, n, &order);
}

static void strtab_free(struct rs_strtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->e[i].s);
	free(t->e);
	free(t);
}

/* ------------------------------------------- index keyed by 4 pointers */

/*
 * Open addressing over (hash, index) pairs: 16 bytes a slot, so the index
 * of a million lines stays small. The keys live in the items themselves;
 * the caller's eq() tells whether item idx has key k.
 */
struct hash_ent {
	uint64_t h;		/* 0: empty */
	size_t idx;
};

struct rs_hash {
	struct hash_ent *e;	/* = mem.p */
	struct big_buf mem;
	size_t cap, n;
};

typedef bool (*hash_eq_fn)(const struct rs_set *s, size_t idx, const void *const k[4]);

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t hash_key(const void *const k[4])
{
	uint64_t h = 0;
	int i;

	for (i = 0; i < 4; i++)
		h = mix64(h ^ (uint64_t)(uintptr_t)k[i]) + i;
	return h ? h : 1;
}

/* Room for n entries at a load of at most 1/2. */
static int hash_reserve(struct rs_hash *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 1024, i, j;
	struct big_buf mem = { 0 };
	struct hash_ent *e;

	while (2 * n > cap)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	if (big_reserve(&mem, cap * sizeof(*e)))
		return -1;
	e = mem.p;
	for (i = 0; i < t->cap; i++) {
		if (!t->e[i].h)
			continue;
		for (j = t->e[i].h & (cap - 1); e[j].h; j = (j + 1) & (cap - 1))
			;
		e[j] = t->e[i];
	}
	big_release(&t->mem);
	t->mem = mem;
	t->e = e;
	t->cap = cap;
	return 0;
}

/*
 * Find key k; when absent insert it with index *idx. Returns 1 found (idx
 * set), 0 inserted, -1 out of memory.
 */
static int hash_get(const struct rs_set *s, struct rs_hash *t, const void *const k[4],
		    hash_eq_fn eq, size_t *idx)
{
	uint64_t h = hash_key(k);
	size_t i;

	if (hash_reserve(t, t->n + 1))
		return -1;
	for (i = h & (t->cap - 1); t->e[i].h; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].h == h && eq(s, t->e[i].idx, k)) {
			*idx = t->e[i].idx;
			return 1;
		}
	}
	t->e[i].h = h;
	t->e[i].idx = *idx;
	t->n++;
	return 0;
}

static void hash_free(struct rs_hash *t)
{
	if (t)
		big_release(&t->mem);
	free(t);
}

/* ------------------------------------------------------------ set */

static void note_free(struct rs_case_note *n)
{
	free(n->label);
	free(n->workload);
	free(n->kase);
	free(n->status);
	free(n->reason);
	memset(n, 0, sizeof(*n));
}

static void free_progress(struct rs_run *r)
{
	int i;

	for (i = 0; i < r->nstarted; i++)
		note_free(&r->started[i]);
	for (i = 0; i < r->nended; i++)
		note_free(&r->ended[i]);
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
			note_free(&s->runs[j].notes[k]);
		free(s->runs[j].notes);
		free_progress(&s->runs[j]);
	}
	free(s->runs);
	for (j = 0; j < s->npending; j++)
		free(s->pending[j].path);
	free(s->pending);
	for (j = 0; j < s->nsides; j++)
		free(s->sides[j].name);
	strtab_free(s->strs);
	hash_free(s->line_idx);
	hash_free(s->sample_idx);
	memset(s, 0, sizeof(*s));
}

__attribute__((format(printf, 2, 3)))
static int set_err(struct rs_set *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -1;
}

__attribute__((format(printf, 2, 3)))
static void add_warn(struct rs_set *s, const char *fmt, ...)
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

const char *rs_better_str(enum rs_better b)
{
	return b == RS_LOWER ? "lower" : b == RS_HIGHER ? "higher" : "info";
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
	size_t kl = strlen(key);
	const char *p = kase, *end;

	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(end - p - kl - 1), p + kl + 1);
			return true;
		}
		p = *end ? end + 1 : end;
	}
	return false;
}

int rs_new_run(struct rs_set *s, const char *path)
{
	struct rs_run *r = realloc(s->runs, (s->nruns + 1) * sizeof(*r));

	if (!r)
		return set_err(s, "out of memory");
	s->runs = r;
	r = &s->runs[s->nruns];
	memset(r, 0, sizeof(*r));
	r->side = -1;
	r->arg = s->cur_arg;
	r->path = strdup(path);
	if (!r->path)
		return set_err(s, "out of memory");
	s->nruns++;
	return s->nruns - 1;
}

/* ------------------------------------------------------------ CSV table */

#define CT_MAXF 32

/* Columns each schema file must have, by name (order is free). */
enum { C_SCHEMA, C_RUN_ID, C_LABEL, C_KERNEL, C_WORKLOAD, C_CASE,
       C_ITERATION, C_METRIC, C_VALUE, C_UNIT, C_BETTER, C_NRES };
enum { S_SCHEMA, S_RUN_ID, S_LABEL, S_KERNEL, S_WORKLOAD, S_CASE,
       S_ITERATION, S_TASK, S_CLASS, S_VALUE_NS, S_NSAMP };
enum { M_KEY, M_VALUE, M_NMETA };
enum { K_SCHEMA, K_RUN_ID, K_LABEL, K_KERNEL, K_WORKLOAD, K_CASE, K_STATUS, K_REASON,
       K_NCASES };
enum { T_SCHEMA, T_RUN_ID, T_LABEL, T_KERNEL, T_WORKLOAD, T_CASE, T_START, T_NSTARTED };
enum { D_SCHEMA, D_WORKLOAD, D_METRIC, D_ROLE, D_TIMED, D_CLAIM, D_NDECL };

static const char *const results_cols[] = {
	"schema", "run_id", "label", "kernel", "workload", "case",
	"iteration", "metric", "value", "unit", "better", NULL,
};
static const char *const samples_cols[] = {
	"schema", "run_id", "label", "kernel", "workload", "case",
	"iteration", "task", "class", "value_ns", NULL,
};
static const char *const meta_cols[] = { "key", "value", NULL };
/* signal and duration_s are not read */
static const char *const cases_cols[] = {
	"schema", "run_id", "label", "kernel", "workload", "case", "status", "reason", NULL,
};
static const char *const started_cols[] = {
	"schema", "run_id", "label", "kernel", "workload", "case", "start_time", NULL,
};

/* unit and better are in results.csv too: not read here */
static const char *const metrics_cols[] = {
	"schema", "workload", "metric", "role", "timed", "claim", NULL,
};

static const char *const *const kind_cols[RS_NKINDS] = {
	[RS_RESULTS] = results_cols,
	[RS_META] = meta_cols,
	[RS_SAMPLES_FILE] = samples_cols,
	[RS_CASES] = cases_cols,
	[RS_STARTED] = started_cols,
	[RS_METRICS] = metrics_cols,
};

struct csvt {
	struct rs_set *s;
	const char *name;
	enum rs_kind kind;
	int run;
	long nl;		/* newlines before the current row */
	long nl_row;		/* newlines inside the current row's fields */
	long lineno;		/* line of the row being checked */
	char *buf;		/* the current row's fields, NUL-separated */
	size_t len, cap;
	size_t off[CT_MAXF], flen[CT_MAXF];
	int nf;
	bool too_many, has_nul, header, failed;
	bool chunk_nul;		/* the input chunk holds a NUL: check fields */
	size_t prev_line;	/* index + 1 of the line of the previous row */
	struct dupset *dups;	/* results: (line, iteration) -> value seen */
	bool restart;		/* a line's iteration went back: check dups */
	bool dupscan;		/* the second pass: only look for duplicates */
	int col[CT_MAXF];	/* schema column -> field index */
	int nfields;		/* fields per row, from the header */
	int (*row)(struct csvt *t);
};

static int ct_err(struct csvt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int ct_err(struct csvt *t, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failed = true;
	return set_err(t->s, "%s:%ld: %s", t->name, t->lineno, msg);
}

static const char *fld(const struct csvt *t, int col)
{
	return t->buf + t->off[t->col[col]];
}

static size_t fld_len(const struct csvt *t, int col)
{
	return t->flen[t->col[col]];
}

/* A field, quoted for an error message: short and printable. */
static const char *show(const struct csvt *t, int col, char *out, size_t len)
{
	const char *p = fld(t, col);
	size_t n = fld_len(t, col), i, o = 0;

	for (i = 0; i < n && o + 4 < len; i++)
		out[o++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	if (i < n && o + 4 <= len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

static void ct_field(void *p, size_t n, void *data)
{
	struct csvt *t = data;

	if (t->failed)
		return;
	if (t->nf == CT_MAXF) {
		t->too_many = true;
		return;
	}
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *b = realloc(t->buf, cap);

		if (!b) {
			t->failed = true;
			set_err(t->s, "%s: out of memory", t->name);
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
	if (n)
		memcpy(t->buf + t->len, p, n);
	t->buf[t->len + n] = '\0';
	if (t->chunk_nul && n && memchr(p, '\0', n))
		t->has_nul = true;
	t->off[t->nf] = t->len;
	t->flen[t->nf] = n;
	t->len += n + 1;
	t->nf++;
}

/* Map the header's column names onto the schema's columns. */
static int ct_header(struct csvt *t)
{
	const char *const *want = kind_cols[t->kind];
	char missing[512] = "";
	int i, j;

	for (i = 0; want[i]; i++) {
		t->col[i] = -1;
		for (j = 0; j < t->nf; j++) {
			if (strcmp(t->buf + t->off[j], want[i]))
				continue;
			if (t->col[i] >= 0)
				return ct_err(t, "header names column '%s' twice", want[i]);
			t->col[i] = j;
		}
		if (t->col[i] < 0 && strlen(missing) + strlen(want[i]) + 3 < sizeof(missing))
			strcat(strcat(missing, missing[0] ? ", " : ""), want[i]);
	}
	if (missing[0]) {
		if (t->nf > 0 && !strcmp(t->buf, RS_SCHEMA))
			return ct_err(t, "no header line (the first line is data); missing columns: %s",
				      missing);
		return ct_err(t, "header is missing column(s): %s", missing);
	}
	t->nfields = t->nf;
	t->header = true;
	return 0;
}

static void ct_row_reset(struct csvt *t)
{
	t->nf = 0;
	t->len = 0;
	t->nl_row = 0;
	t->too_many = false;
	t->has_nul = false;
}

static void ct_row(int c, void *data)
{
	struct csvt *t = data;

	if (t->failed)
		return;
	if (t->nf == 0 && !t->too_many) {
		/* a blank line, or the LF of a CRLF pair */
		if (c == '\n')
			t->nl++;
		return;
	}
	t->lineno = t->nl + 1;
	/* line breaks inside quoted fields */
	for (const char *q = t->buf; (q = memchr(q, '\n', t->buf + t->len - q)); q++)
		t->nl_row++;
	if (c == -1)
		ct_err(t, "last line is truncated (no newline at end of file)");
	else if (t->too_many)
		ct_err(t, "more than %d fields", CT_MAXF);
	else if (t->has_nul)
		ct_err(t, "a field contains a NUL byte");
	else if (!t->header)
		ct_header(t);
	else if (t->nf != t->nfields)
		ct_err(t, "%d field(s), the header has %d", t->nf, t->nfields);
	else
		t->row(t);
	t->nl += t->nl_row + (c == '\n');
	ct_row_reset(t);
}

/* ------------------------------------------------------------ checks */

static int check_schema(struct csvt *t, int col)
{
	char b[64];

	if (strcmp(fld(t, col), RS_SCHEMA))
		return ct_err(t, "schema version '%s', this tool reads version %s",
			      show(t, col, b, sizeof(b)), RS_SCHEMA);
	return 0;
}

static int parse_int(struct csvt *t, int col, const char *what, long *out)
{
	const char *p = fld(t, col);
	char *end, b[64];

	errno = 0;
	*out = strtol(p, &end, 10);
	if (!*p || *end || errno || *out < 0)
		return ct_err(t, "%s '%s' is not a non-negative integer", what,
			      show(t, col, b, sizeof(b)));
	return 0;
}

/*
 * [-+]digits[.digits][e[-+]digits] or [-+].digits...: what the core's %.12g
 * writes. strtod() alone would also take leading blanks, hex (0x10,
 * 0x1p3), inf and nan.
 */
static bool is_decimal(const char *p)
{
	bool digits = false;

	if (*p == '-' || *p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits = true;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits = true;
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

static int parse_value(struct csvt *t, int col, const char *what, double *out)
{
	const char *p = fld(t, col);
	char *end, b[64];

	if (!is_decimal(p))
		return ct_err(t, "%s '%s' is not a decimal number", what,
			      show(t, col, b, sizeof(b)));
	*out = strtod(p, &end);
	if (!*p || *end || end == p)
		return ct_err(t, "%s '%s' is not a number", what, show(t, col, b, sizeof(b)));
	if (!isfinite(*out))
		return ct_err(t, "%s '%s' is not a finite number", what,
			      show(t, col, b, sizeof(b)));
	return 0;
}

static int check_metric(struct csvt *t)
{
	const char *p = fld(t, C_METRIC);
	char b[64];

	if (!*p)
		return ct_err(t, "metric is empty");
	if (strlen(p) > RS_METRIC_MAX)
		return ct_err(t, "metric '%s' is longer than %d characters",
			      show(t, C_METRIC, b, sizeof(b)), RS_METRIC_MAX);
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == ':'))
			return ct_err(t, "metric '%s' has characters outside [A-Za-z0-9_.:]",
				      show(t, C_METRIC, b, sizeof(b)));
	return 0;
}

/* "k=v;k=v": every part names a key. An empty case is a workload without
 * parameters. */
static int check_case(struct csvt *t, int col)
{
	const char *p = fld(t, col), *end;
	char b[64];

	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if (!memchr(p, '=', end - p) || *p == '=')
			return ct_err(t, "case '%s' is not of the form k=v;k=v",
				      show(t, col, b, sizeof(b)));
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_better(struct csvt *t, enum rs_better *b)
{
	const char *p = fld(t, C_BETTER);
	char sb[64];

	if (!strcmp(p, "lower"))
		*b = RS_LOWER;
	else if (!strcmp(p, "higher"))
		*b = RS_HIGHER;
	else if (!strcmp(p, "info"))
		*b = RS_INFO;
	else
		return ct_err(t, "better '%s' is not lower, higher or info",
			      show(t, C_BETTER, sb, sizeof(sb)));
	return 0;
}

static int check_nonempty(struct csvt *t, int col, const char *what)
{
	if (!fld_len(t, col))
		return ct_err(t, "%s is empty", what);
	return 0;
}

/* ------------------------------------------------------------ sides */

static int new_side(struct rs_set *s, const char *label, int arg)
{
	struct rs_side *sd;
	char name[512];
	int i, k = 1;

	if (s->nsides == RS_MAX_SIDES)
		return set_err(s, "more than %d labels to compare", RS_MAX_SIDES);
	if (strlen(label) > sizeof(name) - 8)
		return set_err(s, "label '%.40s...' is %zu characters long, more than %zu",
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
		return set_err(s, "out of memory");
	return s->nsides++;
}

/* The side of LABEL (by label, or with RS_PER_ARG by argument), made if new. */
static int side_lookup(struct rs_set *s, const char *label, int arg)
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
				      show(t, label_col, b, sizeof(b)),
				      r->label ? r->label : s->sides[r->side].name);
		return r->side;
	}
	i = side_lookup(s, label, r->arg);
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

/*
 * Rows seen in one results.csv, to refuse the same row twice (a file
 * concatenated with itself, a row pasted twice): pooled twice it would
 * double n and make a change "significant". A directory reused with
 * `mmbench -o` legitimately holds a case twice, numbered from 0 again,
 * with other values: only a row equal in every field is a duplicate.
 * The core writes a line's iterations in increasing order, so the first
 * pass only notes whether some line's iteration went back; only then is
 * the file read a second time with every (line, iteration) and value in
 * this table (large files pay nothing for the check).
 */
struct dup_ent {
	uint64_t key;		/* line index + 1 << 32 | iteration; 0: empty */
	double v;
	long lineno;
};

struct dupset {
	struct dup_ent *e;
	size_t n, mask;
};

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
static int vals_push(struct rs_set *s, struct rs_vals *v, double x)
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

/* Room for sides [0, n) in l->vals (from the arena, like the values). */
static int line_sides(struct rs_set *s, struct rs_line *l, int n)
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

static bool line_eq(const struct rs_set *s, size_t idx, const void *const k[4])
{
	const struct rs_line *l = &s->lines[idx];

	return l->workload == k[0] && l->kase == k[1] && l->metric == k[2];
}

static struct rs_line *new_line(struct rs_set *s, const void *const k[4], const char *unit,
				enum rs_better better, const char *file, long lineno)
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

static struct rs_line *lookup_line(struct csvt *t, enum rs_better better)
{
	struct rs_set *s = t->s;
	const void *k[4];
	struct rs_line *l;
	const char *unit;
	size_t idx = s->nlines;
	int r, ord[3];

	k[0] = intern_order(s, fld(t, C_WORKLOAD), fld_len(t, C_WORKLOAD), &ord[0]);
	k[1] = intern_order(s, fld(t, C_CASE), fld_len(t, C_CASE), &ord[1]);
	k[2] = intern_order(s, fld(t, C_METRIC), fld_len(t, C_METRIC), &ord[2]);
	k[3] = NULL;
	if (!k[0] || !k[1] || !k[2])
		return NULL;
	r = hash_get(s, s->line_idx, k, line_eq, &idx);
	if (r < 0)
		return NULL;
	if (r == 1)
		return &s->lines[idx];
	unit = intern(s, fld(t, C_UNIT), fld_len(t, C_UNIT));
	l = unit ? new_line(s, k, unit, better, t->name, t->lineno) : NULL;
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
static struct rs_line *find_line(struct csvt *t, enum rs_better better)
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
	/* room for BASE and one NEW at once: the common comparison */
	if (line_sides(t->s, l, side + 1 < 2 ? 2 : side + 1) ||
	    vals_push(t->s, &l->vals[side], v))
		return ct_err(t, "out of memory");
	return 0;
}

/* The same metric must keep its unit and direction everywhere. */
static int line_agrees(struct csvt *t, const struct rs_line *l, enum rs_better better)
{
	const char *unit = fld(t, C_UNIT);

	if (strcmp(l->unit, unit))
		return ct_err(t, "%s/%s: unit '%s' but '%s' at %s:%ld", l->workload,
			      l->metric, unit, l->unit, l->file, l->lineno);
	if (l->better != better)
		return ct_err(t, "%s/%s: better=%s but %s at %s:%ld", l->workload,
			      l->metric, rs_better_str(better), rs_better_str(l->better),
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
			      "one results.csv", show(t, C_RUN_ID, b, sizeof(b)), r->run_id);
	return 0;
}

static int results_row(struct csvt *t)
{
	enum rs_better better = RS_INFO;
	struct rs_line *l;
	long iter, dup;
	double v;
	int side;

	if (check_schema(t, C_SCHEMA) || check_nonempty(t, C_WORKLOAD, "workload") ||
	    check_case(t, C_CASE) || parse_int(t, C_ITERATION, "iteration", &iter) ||
	    check_metric(t) || parse_value(t, C_VALUE, "value", &v) ||
	    parse_better(t, &better))
		return -1;
	/* runs from before metrics.csv: --probe calls per unit were info */
	if (better == RS_INFO && !strncmp(fld(t, C_METRIC), "calls_per_", 10))
		better = RS_LOWER;
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
static struct rs_sampleset *sampleset_get(struct rs_set *s, int side, const char *wl,
					  const char *kase, const char *klass)
{
	const void *k[4] = { wl, kase, klass, (void *)(uintptr_t)(side + 1) };
	struct rs_sampleset *ss;
	size_t idx = s->nsamples;
	int r;

	if (!wl || !kase || !klass)
		return NULL;
	r = hash_get(s, s->sample_idx, k, sampleset_eq, &idx);
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

	return sampleset_get(s, side, intern(s, fld(t, S_WORKLOAD), fld_len(t, S_WORKLOAD)),
			     intern(s, fld(t, S_CASE), fld_len(t, S_CASE)),
			     intern(s, fld(t, S_CLASS), fld_len(t, S_CLASS)));
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
	if (!ss || vals_push(t->s, &ss->vals, v))
		return ct_err(t, "out of memory");
	return 0;
}

/* ------------------------------------------------------------ files */

/* ------------------------------------------------------------ case outcomes */

static int note_set(struct rs_case_note *n, const char *label, const char *wl,
		    const char *kase, const char *status, const char *reason)
{
	note_free(n);
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
			      show(t, K_STATUS, b, sizeof(b)));
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
			      show(t, D_ROLE, b, sizeof(b)));
	if (strcmp(timed, "0") && strcmp(timed, "1"))
		return ct_err(t, "timed '%s' is not 0 or 1", show(t, D_TIMED, b, sizeof(b)));
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
static int note_unfinished(struct rs_set *s, struct rs_run *r)
{
	bool *matched = calloc(r->nstarted + 1, sizeof(*matched));
	char why[300];
	int i, j, rc = 0;

	if (!matched)
		return set_err(s, "out of memory");
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
			rc = set_err(s, "out of memory");
	}
	free(matched);
	free_progress(r);
	return rc;
}

const char *rs_run_side_name(const struct rs_set *s, const struct rs_run *r,
			     const struct rs_case_note *n)
{
	return r->side >= 0 ? s->sides[r->side].name : n->label;
}

static int (*const kind_row[RS_NKINDS])(struct csvt *) = {
	[RS_RESULTS] = results_row,
	[RS_META] = meta_row,
	[RS_SAMPLES_FILE] = samples_row,
	[RS_CASES] = cases_row,
	[RS_STARTED] = started_row,
	[RS_METRICS] = metrics_row,
};

static int ct_open(struct csvt *t, struct csv_parser *p, struct rs_set *s,
		   enum rs_kind kind, const char *name, int run)
{
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->name = name;
	t->kind = kind;
	t->run = run;
	t->row = kind_row[kind];
	/*
	 * Strict: a stray quote or an unterminated quoted field is an error,
	 * not data. REPALL_NL reports every line end so line numbers hold.
	 */
	if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL))
		return set_err(s, "%s: out of memory", name);
	return 0;
}

static int ct_feed(struct csvt *t, struct csv_parser *p, const void *buf, size_t len)
{
	size_t done;

	t->chunk_nul = memchr(buf, '\0', len) != NULL;
	done = csv_parse(p, buf, len, ct_field, ct_row, t);

	if (t->failed)
		return -1;
	if (done != len) {
		t->lineno = t->nl + 1;
		return ct_err(t, "CSV syntax error (%s)", csv_strerror(csv_error(p)));
	}
	return 0;
}

static int ct_close(struct csvt *t, struct csv_parser *p, int rc)
{
	if (!rc && csv_fini(p, ct_field, ct_row, t) && !t->failed) {
		t->lineno = t->nl + 1;
		rc = ct_err(t, "unterminated quoted field at end of file");
	}
	if (!rc && t->failed)
		rc = -1;
	if (!rc && !t->header)
		rc = set_err(t->s, "%s: empty file (no header line)", t->name);
	csv_free(p);
	free(t->buf);
	if (t->dups)
		free(t->dups->e);
	free(t->dups);
	return rc;
}

int rs_parse_buf(struct rs_set *s, enum rs_kind kind, const char *name,
		 const void *buf, size_t len, int run)
{
	struct csv_parser p;
	struct csvt t;
	bool restart;

	if (kind >= RS_NKINDS || run < 0 || run >= s->nruns)
		return set_err(s, "%s: bad parse request", name);
	if (ct_open(&t, &p, s, kind, name, run))
		return -1;
	if (ct_close(&t, &p, ct_feed(&t, &p, buf, len)))
		return -1;
	restart = t.restart;
	if (!restart || ct_open(&t, &p, s, kind, name, run))
		return restart ? -1 : 0;
	t.dupscan = true;
	return ct_close(&t, &p, ct_feed(&t, &p, buf, len));
}

static int parse_file_pass(struct rs_set *s, enum rs_kind kind, const char *path, int run,
			   bool dupscan, bool *restart);

static int parse_file(struct rs_set *s, enum rs_kind kind, const char *path, int run)
{
	bool restart = false;

	if (parse_file_pass(s, kind, path, run, false, &restart))
		return -1;
	return restart ? parse_file_pass(s, kind, path, run, true, &restart) : 0;
}

static int parse_file_pass(struct rs_set *s, enum rs_kind kind, const char *path, int run,
			   bool dupscan, bool *restart)
{
	const char *name = intern(s, path, strlen(path));
	size_t len = 1 << 20;
	struct csv_parser p;
	struct csvt t;
	char *buf;
	ssize_t n;
	int fd, rc = 0;

	if (!name)
		return set_err(s, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return set_err(s, "%s: %s", path, strerror(errno));
	buf = malloc(len);
	if (!buf || ct_open(&t, &p, s, kind, name, run)) {
		free(buf);
		close(fd);
		return buf ? -1 : set_err(s, "out of memory");
	}
	t.dupscan = dupscan;
	while (!rc && (n = read(fd, buf, len)) != 0) {
		if (n < 0)
			rc = set_err(s, "%s: %s", path, strerror(errno));
		else
			rc = ct_feed(&t, &p, buf, n);
	}
	free(buf);
	close(fd);
	rc = ct_close(&t, &p, rc);
	*restart = t.restart;
	return rc;
}

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
	if (parse_file(s, RS_RESULTS, results, run))
		return -1;
	snprintf(path, sizeof(path), "%s", results);
	slash = strrchr(path, '/');
	slash = slash ? slash + 1 : path;
	snprintf(slash, sizeof(path) - (slash - path), "meta.csv");
	if (is_file(path)) {
		if (parse_file(s, RS_META, path, run))
			return -1;
	} else {
		add_warn(s, "%s: no meta.csv next to it: its facts are not checked", results);
	}
	snprintf(slash, sizeof(path) - (slash - path), "samples.csv");
	if ((s->flags & RS_SAMPLES) && is_file(path) && parse_file(s, RS_SAMPLES_FILE, path, run))
		return -1;
	snprintf(slash, sizeof(path) - (slash - path), "cases.csv");
	if (is_file(path) && parse_file(s, RS_CASES, path, run))
		return -1;
	snprintf(slash, sizeof(path) - (slash - path), "started.csv");
	if (is_file(path) && parse_file(s, RS_STARTED, path, run))
		return -1;
	snprintf(slash, sizeof(path) - (slash - path), "metrics.csv");
	if (is_file(path) && parse_file(s, RS_METRICS, path, run))
		return -1;
	if (note_unfinished(s, &s->runs[run]))
		return -1;
	if (!s->runs[run].nrows)
		add_warn(s, "%s: no measured rows", results);
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
		return set_err(s, "%s: %s", path, strerror(errno));
	for (i = 0; i < s->npending; i++)
		if (s->pending[i].dev == (unsigned long long)st.st_dev &&
		    s->pending[i].ino == (unsigned long long)st.st_ino)
			return set_err(s, "%s and %s are the same file: its rows would be counted "
				       "twice", s->pending[i].path, path);
	p = realloc(s->pending, (s->npending + 1) * sizeof(*p));
	if (!p)
		return set_err(s, "out of memory");
	s->pending = p;
	p[s->npending].arg = s->cur_arg;
	p[s->npending].dev = st.st_dev;
	p[s->npending].ino = st.st_ino;
	p[s->npending].path = strdup(path);
	if (!p[s->npending].path)
		return set_err(s, "out of memory");
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
		return set_err(s, "%s: %s", dir, strerror(errno));
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
		rc = set_err(s, "%s: no results.csv in it or in its subdirectories", dir);
	return rc;
}

int rs_add_arg(struct rs_set *s, const char *arg)
{
	char path[4096];
	struct stat st;
	int rc;

	if (stat(arg, &st))
		return set_err(s, "%s: %s", arg, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		rc = add_pending(s, arg);
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/results.csv", arg);
		rc = is_file(path) ? add_pending(s, path) : load_label_dir(s, arg);
	} else {
		rc = set_err(s, "%s: not a file or directory", arg);
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
	size_t i;

	if (!dst->n) {
		*dst = *src;
		*src = (struct rs_vals){ 0 };
		return 0;
	}
	for (i = 0; i < src->n; i++)
		if (vals_push(s, dst, src->v[i]))
			return -1;
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
		m->to = intern_order(s, p, strlen(p), &m->order);
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
	    (r = hash_get(s, s->line_idx, k, line_eq, &idx)) < 0) {
		set_err(s, "out of memory");
		return NULL;
	}
	if (r == 0) {
		l = new_line(s, k, unit, x->better, file, x->lineno);
		if (l) {
			l->wl_order = ord[0];
			l->case_order = ord[1];
			l->metric_order = ord[2];
		} else {
			set_err(s, "out of memory");
		}
		return l;
	}
	l = &s->lines[idx];
	if (l->unit != unit)
		set_err(s, "%s:%ld: %s/%s: unit '%s' but '%s' at %s:%ld", file, x->lineno,
			l->workload, l->metric, unit, l->unit, l->file, l->lineno);
	else if (l->better != x->better)
		set_err(s, "%s:%ld: %s/%s: better=%s but %s at %s:%ld", file, x->lineno,
			l->workload, l->metric, rs_better_str(x->better),
			rs_better_str(l->better), l->file, l->lineno);
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
		if (line_sides(s, l, to + 1) || vals_move(s, &l->vals[to], &x->vals[from]))
			return set_err(s, "out of memory");
	}
	return 0;
}

static int merge_samples(struct rs_set *s, struct rs_set *sh, int to)
{
	size_t i;

	for (i = 0; i < sh->nsamples; i++) {
		struct rs_sampleset *x = &sh->samples[i], *ss;

		ss = sampleset_get(s, to, intern(s, x->workload, strlen(x->workload)),
				   intern(s, x->kase, strlen(x->kase)),
				   intern(s, x->klass, strlen(x->klass)));
		if (!ss || vals_move(s, &ss->vals, &x->vals))
			return set_err(s, "out of memory");
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
	side = side_lookup(s, sh->sides[from].name, r->arg);
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
static int rs_load_pending(struct rs_set *s)
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
		return set_err(s, "out of memory");
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
			rc = set_err(s, "%s", ld.shards[i].err);
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

/* The keys of one case string, each as a malloc'd "key" (no value). */
static int case_keys(const char *kase, char ***keys, int *nkeys)
{
	const char *p = kase, *eq, *end;
	char **k;

	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', end - p);
		if (eq) {
			int i;

			for (i = 0; i < *nkeys; i++)
				if (strlen((*keys)[i]) == (size_t)(eq - p) &&
				    !strncmp((*keys)[i], p, eq - p))
					break;
			if (i == *nkeys) {
				k = realloc(*keys, (*nkeys + 1) * sizeof(*k));
				if (!k)
					return -1;
				*keys = k;
				k[*nkeys] = strndup(p, eq - p);
				if (!k[*nkeys])
					return -1;
				(*nkeys)++;
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* Does KEY have the same value (or absence) in every case? */
static bool key_fixed(const char *const *cases, size_t n, const char *key,
		      char *first, size_t len)
{
	char v[512];
	bool have0, have;
	size_t i;

	have0 = rs_case_get(cases[0], key, first, len);
	for (i = 1; i < n; i++) {
		have = rs_case_get(cases[i], key, v, sizeof(v));
		if (have != have0 || (have && strcmp(v, first)))
			return false;
	}
	return true;
}

static int str_append(char **s, const char *sep, const char *a, const char *b)
{
	size_t n = *s ? strlen(*s) : 0;
	char *r = realloc(*s, n + strlen(sep) + strlen(a) + strlen(b) + 1);

	if (!r)
		return -1;
	if (!n)
		r[0] = '\0';
	else
		strcat(r, sep);
	strcat(strcat(r, a), b);
	*s = r;
	return 0;
}

/* Split the case keys of a workload into varying and fixed ones. */
static int classify_keys(struct rs_workload *w, const char **cases, size_t n)
{
	char **keys = NULL, first[512];
	int nkeys = 0, i, rc = 0;
	size_t c;

	for (c = 0; c < n && !rc; c++)
		rc = case_keys(cases[c], &keys, &nkeys);
	w->vary = calloc(nkeys + 1, sizeof(*w->vary));
	if (!w->vary)
		rc = -1;
	for (i = 0; i < nkeys; i++) {
		if (rc) {
			free(keys[i]);
		} else if (key_fixed(cases, n, keys[i], first, sizeof(first))) {
			if (rs_case_get(cases[0], keys[i], first, sizeof(first)))
				rc = str_append(&w->fixed, ";", keys[i], "=") ||
				     str_append(&w->fixed, "", first, "");
			free(keys[i]);
		} else {
			w->vary[w->nvary++] = keys[i];
		}
	}
	free(keys);
	return rc;
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
		if (str_append(&l->name, "-", v, ""))
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

/* Units that say a value comes from the clock: times, rates per second. */
static bool unit_timed(const char *unit)
{
	size_t n = strlen(unit);

	return !strcmp(unit, "ns") || !strcmp(unit, "us") || !strcmp(unit, "ms") ||
	       !strcmp(unit, "s") || (n > 2 && !strcmp(unit + n - 2, "/s"));
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
		return set_err(s, "out of memory");
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
		l->timed = unit_timed(l->unit) || (d && d->timed);
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
				return set_err(s, "%s and %s hold the same run (run_id %s): a "
					       "copy would be counted twice", x->path, y->path,
					       x->run_id);
			snprintf(w, sizeof(w), "%s and %s have the same run_id %s: is one a "
				 "copy of the other?", x->path, y->path, x->run_id);
			add_warn(s, "%s", w);
		}
	}
	return 0;
}

int rs_finish(struct rs_set *s)
{
	size_t i;

	if (rs_load_pending(s))
		return -1;
	if (check_copies(s))
		return -1;
	if (!s->nlines)
		return set_err(s, "no measured rows in the input");
	s->sorted = malloc(s->nlines * sizeof(*s->sorted));
	if (!s->sorted)
		return set_err(s, "out of memory");
	for (i = 0; i < s->nlines; i++)
		s->sorted[i] = &s->lines[i];
	qsort(s->sorted, s->nlines, sizeof(*s->sorted), line_cmp);
	if (apply_decls(s))
		return -1;
	if (group_workloads(s))
		return set_err(s, "out of memory");
	return 0;
}
