/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small CSV files of the nightly job (history.csv, regressions.csv, the
 * meta.csv of a run) read and written through libcsv.
 *
 * These files are shared between a nightly run, its signal handler, a
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
#ifndef MMT_CSVIO_H
#define MMT_CSVIO_H

#include <stdbool.h>
#include <stddef.h>

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
 * One CSV line (with its newline) for fields[0..n), quoted by libcsv where
 * needed; malloc'd, NULL on failure.
 */
char *tab_line(const char *const *fields, int n);

/* flock(LOCK_EX) on PATH.lock, waiting at most timeout_s. Returns the fd. */
int tab_lock(const char *path, int timeout_s, char *err, size_t errlen);
void tab_unlock(int fd);
/* mkdir -p PATH; 0 or -1 with errno. */
int tab_mkdir_p(const char *path);
/* KEY's value in DIR/meta.csv into buf ("" when absent); returns buf. */
const char *tab_meta_get(const char *dir, const char *key, char *buf, size_t len);

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

#endif /* MMT_CSVIO_H */
