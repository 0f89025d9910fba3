/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result-set reader's internals, shared by bench/resultset*.c only.
 */
#ifndef MMBENCH_RESULTSET_INT_H
#define MMBENCH_RESULTSET_INT_H

#include <csv.h>
#include <stdint.h>

#include "results.h"
#include "resultset.h"

/* ---- strings and index (resultset_index.c) */

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

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

const char *rs_intern_order(struct rs_set *s, const char *p, size_t n, int *order);
const char *rs_intern(struct rs_set *s, const char *p, size_t n);
void rs_strtab_free(struct rs_strtab *t);
int rs_hash_get(const struct rs_set *s, struct rs_hash *t, const void *const k[4],
		hash_eq_fn eq, size_t *idx);
void rs_hash_free(struct rs_hash *t);

/* ---- the set (resultset.c) */

void rs_note_free(struct rs_case_note *n);
void rs_free_progress(struct rs_run *r);
int rs_set_err(struct rs_set *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rs_add_warn(struct rs_set *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the CSV fast path (resultset_csv.c) */

#define CT_MAXF 32

/*
 * The columns the reader needs from each schema file, by name (order in
 * the file is free): indexes into the list resultset_csv.c derives from
 * results.h.
 */
enum { C_SCHEMA, C_RUN_ID, C_LABEL, C_KERNEL, C_WORKLOAD, C_CASE,
       C_ITERATION, C_METRIC, C_VALUE, C_UNIT, C_BETTER, C_NRES };
enum { S_SCHEMA, S_RUN_ID, S_LABEL, S_KERNEL, S_WORKLOAD, S_CASE,
       S_ITERATION, S_TASK, S_CLASS, S_VALUE_NS, S_NSAMP };
enum { M_KEY, M_VALUE, M_NMETA };
enum { K_SCHEMA, K_RUN_ID, K_LABEL, K_KERNEL, K_WORKLOAD, K_CASE, K_STATUS, K_REASON,
       K_NCASES };
enum { T_SCHEMA, T_RUN_ID, T_LABEL, T_KERNEL, T_WORKLOAD, T_CASE, T_START, T_NSTARTED };
enum { D_SCHEMA, D_WORKLOAD, D_METRIC, D_ROLE, D_TIMED, D_CLAIM, D_NDECL };

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

static inline const char *fld(const struct csvt *t, int col)
{
	return t->buf + t->off[t->col[col]];
}

static inline size_t fld_len(const struct csvt *t, int col)
{
	return t->flen[t->col[col]];
}

int ct_err(struct csvt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *ct_show(const struct csvt *t, int col, char *out, size_t len);
int rs_parse_file(struct rs_set *s, enum rs_kind kind, const char *path, int run);

/* ---- rows (resultset_rows.c) */

/* The row function of each kind of file. */
extern int (*const rs_kind_row[RS_NKINDS])(struct csvt *);
int rs_side_lookup(struct rs_set *s, const char *label, int arg);
int rs_vals_push(struct rs_set *s, struct rs_vals *v, double x);
/* A new run's values start at v->n (when v has values). */
int rs_vals_new_run(struct rs_set *s, struct rs_vals *v);
int rs_line_sides(struct rs_set *s, struct rs_line *l, int n);
bool rs_line_eq(const struct rs_set *s, size_t idx, const void *const k[4]);
struct rs_line *rs_new_line(struct rs_set *s, const void *const k[4], const char *unit,
			    enum mm_better better, const char *file, long lineno);
struct rs_sampleset *rs_sampleset_get(struct rs_set *s, int side, const char *wl,
				      const char *kase, const char *klass);
int rs_note_unfinished(struct rs_set *s, struct rs_run *r);

/* ---- loading (resultset_load.c) */

int rs_load_pending(struct rs_set *s);
/* rs_finish() once every file is read (resultset.c): copies, order, decls. */
int rs_finish_loaded(struct rs_set *s);

#endif /* MMBENCH_RESULTSET_INT_H */
