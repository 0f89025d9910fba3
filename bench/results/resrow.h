/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resrow.h: the one reader of a row of results.csv, and the checks of the
 * fields that the other schema files share with it (schema version,
 * case, iteration, a decimal value, a non-empty name). Both readers of
 * results.csv call it: `mmbench summary` (bench/summary.c, one run) and
 * the result-set reader (resultset_rows.c: mmcompare, mmplot, mmtrend).
 * They differ in how strict they are; each difference is a flag below,
 * and each message is written once, here. A message names the field and
 * what is wrong with it; the caller adds FILE:LINE.
 */
#ifndef MMBENCH_RESROW_H
#define MMBENCH_RESROW_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"

enum mm_row_flags {
	/*
	 * The row's identity is checked too, in this order: schema version,
	 * workload, case (k=v;k=v), iteration, metric name; then value,
	 * then better. Without it only better, then value are checked (the
	 * order `mmbench summary` has always used).
	 */
	MM_ROW_KEYS = 1,
	/*
	 * A value a workload wrote as nan or inf, or one past a double, is
	 * not an error: the row is read with nonfinite set (summary counts
	 * such rows and leaves them out). Without it, such a value is an
	 * error.
	 */
	MM_ROW_NONFINITE = 2,
	/* runs from before metrics.csv: --probe's calls_per_* rows said
	 * info, read as lower */
	MM_ROW_OLD_CALLS = 4,
	/*
	 * A bad field is shown in its message as its first 40 bytes, as
	 * they are (summary's fields are made printable when read).
	 * Without it: its first 60 bytes, each outside printable ASCII as
	 * '?', and "..." when cut.
	 */
	MM_ROW_SHOW40 = 8,
};

/* A field of a row: NUL-terminated, and n bytes long (it may hold NULs). */
struct mm_field {
	const char *p;
	size_t n;
};

/* The checker: the flags, and the message of the first error. */
struct mm_rowchk {
	unsigned flags;
	char err[640];
};

/* One results.csv row, fields by schema column (enum mm_results_col). */
struct mm_resrow {
	struct mm_field f[MM_RES_NCOLS];
	long iteration;		/* with MM_ROW_KEYS */
	double value;		/* finite unless nonfinite */
	bool nonfinite;		/* with MM_ROW_NONFINITE */
	enum mm_better better;
};

/*
 * Check row r->f[] and fill in the rest of *r: 0, or -1 with c->err
 * telling the first field that is wrong.
 */
int mm_resrow_read(struct mm_rowchk *c, struct mm_resrow *r);

/* The field checks, each 0 or -1 with c->err written. */
int mm_row_schema(struct mm_rowchk *c, struct mm_field f);
int mm_row_nonempty(struct mm_rowchk *c, struct mm_field f, const char *what);
int mm_row_case(struct mm_rowchk *c, struct mm_field f);
int mm_row_count(struct mm_rowchk *c, struct mm_field f, const char *what, long *out);
int mm_row_metric(struct mm_rowchk *c, struct mm_field f);
int mm_row_better(struct mm_rowchk *c, struct mm_field f, enum mm_better *b);
/* *nonfinite set (and no error) only with MM_ROW_NONFINITE */
int mm_row_value(struct mm_rowchk *c, struct mm_field f, const char *what, double *out,
		 bool *nonfinite);
/* A field as messages show it (by c->flags) into out. */
const char *mm_row_show(const struct mm_rowchk *c, struct mm_field f, char *out, size_t len);

#endif /* MMBENCH_RESROW_H */
