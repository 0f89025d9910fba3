/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV through libcsv, for every reader and writer of the project (the
 * result-set reader of resultset*.c has its own fast path for results.csv
 * of millions of rows, on the same libcsv).
 *
 *  - mm_csv_read(): a file streamed row by row, constant memory, every row
 *    checked against a schema header (results.h) before the caller sees it;
 *    errors name FILE:LINE. `mmbench summary`, tools/selfbench/overhead.
 *  - mm_csv_record(): one record held in memory (the settings journal).
 *  - tab_load(): a whole small file as a table with columns by name
 *    (history.csv, the regressions ledger, meta.csv).
 *  - mm_csv_line(), tab_line(), csvo_*(): one row formatted, quoted by
 *    libcsv where needed, by one rule (mm_csv_needs_quotes()).
 *  - meta.csv lookup (mm_meta_get()) and mkdir -p (mm_mkdir_p()).
 *
 * The nightly job's files are shared between a nightly run, its signal handler, a
 * nightly on another host writing to the same results root, and readers
 * (mmtrend, a user's spreadsheet). So:
 *  - a row is formatted in memory and appended with one write() on an
 *    O_APPEND descriptor, then fsync'd: a kill never leaves half a row;
 *  - writers take an flock on FILE.lock, so an append from another host
 *    cannot slip between the read and the rename of a rewrite;
 *  - a rewrite goes to a temporary file that is fsync'd and renamed over
 *    the original: readers see the old or the new file, never a mix;
 *  - a reader ignores (and reports) a last line without its newline: the
 *    trace of a crash on a file system that tore a write.
 */
#ifndef MMBENCH_CSVIO_H
#define MMBENCH_CSVIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct tab_row {
	char **f;
	int n;
	long line;		/* 1-based line of the row in the file */
};

struct tab {
	char *path;
	char **hdr;
	int ncols;
	struct tab_row *rows;
	size_t nrows, cap;
	bool torn;		/* the last line had no newline: not in rows */
	long torn_line;
	char err[1024];
};

/*
 * Read PATH. cols: the header it must have (NULL: any). missing_ok: a file
 * that does not exist is an empty table. Every row must have ncols fields.
 * Returns 0, or -1 with t->err naming the file, the line and the problem.
 */
int tab_load(struct tab *t, const char *path, const char *const *cols, bool missing_ok);
void tab_free(struct tab *t);
/* Column index of NAME, -1 if absent. */
int tab_col(const struct tab *t, const char *name);
const char *tab_get(const struct tab *t, const struct tab_row *r, const char *name);

/*
 * A field needs quotes when it holds a comma, a quote or a line break, or
 * starts or ends with a blank (libcsv trims unquoted surrounding blanks).
 */
bool mm_csv_needs_quotes(const char *s);
/*
 * fields[0..n) as one CSV line with its newline into buf; a NULL field is
 * empty. Returns the length, or -ENOSPC when it does not fit.
 */
int mm_csv_line(char *buf, size_t len, const char *const *fields, int n);
/* The same, malloc'd; NULL on failure. */
char *tab_line(const char *const *fields, int n);

/* A row written field by field to a stream. */
struct csvo {
	FILE *f;
	int col;
};

void csvo_str(struct csvo *o, const char *s);
/* A number with 12 significant digits, or an empty field when !ok. */
void csvo_num(struct csvo *o, double v, bool ok);
void csvo_int(struct csvo *o, long long v);
void csvo_end(struct csvo *o);

/* ---- streaming reader */

#define MM_CSV_MAXF 64		/* fields kept per row (more are counted) */

struct mm_csv_in {
	/* set by the caller */
	const char *prog;	/* names a torn last line on stderr */
	const char *header;	/* the exact header the file must have */
	size_t max_field;	/* longest field accepted (bytes) */
	/* each data row, its fields checked against the header; report a bad
	 * row with mm_csv_bad() */
	void (*row)(struct mm_csv_in *in, void *arg);
	void *arg;
	/* control bytes of the fields turned into '?' (mm_text_printable):
	 * for readers that show the text; a reader that must refuse them
	 * (the settings journal) leaves it false and looks */
	bool printable;
	/* while reading */
	char path[4200];
	long line;		/* physical line being parsed */
	long rows;		/* rows so far, the header included */
	int nf;			/* fields of the row (all, not only those kept) */
	int ncols;		/* fields of the header */
	char *f[MM_CSV_MAXF];	/* the fields, NUL-terminated */
	size_t flen[MM_CSV_MAXF];
	bool toolong;
	char *buf;
	size_t len, cap;
	bool oom;
	/* the first error */
	char err[600];
	long err_line;
};

/*
 * Read DIR/NAME (dir NULL: NAME is the path) through in->row, one
 * physical line at a time so that an error names its line. The header must
 * be in->header exactly; every row must have its number of fields, no
 * field longer than in->max_field, no NUL byte. A last line without its
 * newline (a write torn by a crash) is named on stderr and left out.
 * Returns 0; -errno when the file cannot be read; 1 when it is malformed
 * (in->err and in->err_line say how and where).
 */
int mm_csv_read(struct mm_csv_in *in, const char *dir, const char *name);
/*
 * One record held in memory (a line without its newline; a journal's) into
 * in->f[] and in->nf, with in->max_field as for mm_csv_read() (in->toolong
 * says a field was cut). 0, or -1 when it is not CSV (in->oom: no memory).
 */
int mm_csv_record(struct mm_csv_in *in, const char *line, size_t len);
void mm_csv_free(struct mm_csv_in *in);
/* Field COL of the current row ("" beyond the row). */
const char *mm_csv_get(const struct mm_csv_in *in, int col);
/* Record the first error of the file at the current line. */
void mm_csv_bad(struct mm_csv_in *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* flock(LOCK_EX) on PATH.lock, waiting at most timeout_s. Returns the fd. */
int tab_lock(const char *path, int timeout_s, char *err, size_t errlen);
void tab_unlock(int fd);
/* mkdir -p PATH; 0 or -1 with errno. */
int mm_mkdir_p(const char *path);
/* KEY's value in DIR/meta.csv into buf ("" when absent); returns buf. */
const char *mm_meta_get(const char *dir, const char *key, char *buf, size_t len);

/*
 * Append one line to PATH (caller holds the lock): writes hdr_line first
 * when the file is new or empty, cuts a torn last line (reported through
 * warn), one write(), fsync.
 */
int tab_append(const char *path, const char *hdr_line, const char *line, char *err,
	       size_t errlen, char *warn, size_t warnlen);
/* Replace PATH with hdr + rows (caller holds the lock), atomically. */
int tab_rewrite(const char *path, const char *const *hdr, int ncols,
		const struct tab_row *const *rows, size_t nrows, char *err, size_t errlen);

#endif /* MMBENCH_CSVIO_H */
