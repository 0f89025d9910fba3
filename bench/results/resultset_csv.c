// SPDX-License-Identifier: GPL-2.0
/*
 * Result-set reader: the CSV fast path. libcsv parses 1 MiB chunks
 * straight into one row buffer; the header's column names are mapped onto
 * the columns the schema (results.h) gives each file, in any order; every
 * row is checked for its field count, NUL bytes and line breaks before
 * its kind's row function (resultset_rows.c) sees it. Errors name
 * FILE:LINE.
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

/*
 * The columns the reader needs from each file: the first n of its header
 * in results.h, or those at the positions col[] lists. The C_, S_, M_, K_,
 * T_ and D_ enums (resultset_int.h) index this list; the file may hold
 * them in any order, and more.
 */
struct kind_cols {
	const char *header;
	int n;
	const signed char *col;	/* NULL: 0 .. n-1 */
};

/* unit and better are in results.csv too: not read here */
static const signed char metrics_read[] = { MM_MET_SCHEMA, MM_MET_WORKLOAD, MM_MET_METRIC,
					    MM_MET_ROLE, MM_MET_TIMED, MM_MET_CLAIM };

static const struct kind_cols kind_cols[RS_NKINDS] = {
	[RS_RESULTS] = { MM_RESULTS_HEADER, C_NRES, NULL },
	[RS_META] = { MM_META_HEADER, M_NMETA, NULL },
	[RS_SAMPLES_FILE] = { MM_SAMPLES_HEADER, S_NSAMP, NULL },
	/* signal and duration_s are not read */
	[RS_CASES] = { MM_CASES_HEADER, K_NCASES, NULL },
	[RS_STARTED] = { MM_STARTED_HEADER, T_NSTARTED, NULL },
	[RS_METRICS] = { MM_METRICS_HEADER, D_NDECL, metrics_read },
};

_Static_assert((int)C_NRES == (int)MM_RES_NCOLS && (int)C_METRIC == (int)MM_RES_METRIC &&
	       (int)C_BETTER == (int)MM_RES_BETTER, "results.csv columns");
_Static_assert((int)S_NSAMP == (int)MM_SAMP_NCOLS && (int)S_VALUE_NS == (int)MM_SAMP_VALUE_NS,
	       "samples.csv columns");
_Static_assert((int)K_NCASES == (int)MM_CASE_SIGNAL && (int)K_REASON == (int)MM_CASE_REASON,
	       "cases.csv columns");
_Static_assert((int)T_NSTARTED == (int)MM_START_NCOLS, "started.csv columns");
_Static_assert((int)D_NDECL == sizeof(metrics_read), "metrics.csv columns");

int ct_err(struct csvt *t, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failed = true;
	return rs_set_err(t->s, "%s:%ld: %s", t->name, t->lineno, msg);
}

/* A field, quoted for an error message: short and printable. */
const char *ct_show(const struct csvt *t, int col, char *out, size_t len)
{
	static const struct mm_rowchk c = { 0 };

	return mm_row_show(&c, (struct mm_field){ fld(t, col), fld_len(t, col) }, out, len);
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
			rs_set_err(t->s, "%s: out of memory", t->name);
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
	const struct kind_cols *kc = &kind_cols[t->kind];
	char missing[512] = "", want[64];
	int i, j;

	for (i = 0; i < kc->n; i++) {
		mm_schema_colname(kc->header, kc->col ? kc->col[i] : i, want, sizeof(want));
		t->col[i] = -1;
		for (j = 0; j < t->nf; j++) {
			if (strcmp(t->buf + t->off[j], want))
				continue;
			if (t->col[i] >= 0)
				return ct_err(t, "header names column '%s' twice", want);
			t->col[i] = j;
		}
		if (t->col[i] < 0 && strlen(missing) + strlen(want) + 3 < sizeof(missing))
			strcat(strcat(missing, missing[0] ? ", " : ""), want);
	}
	if (missing[0]) {
		if (t->nf > 0 && !strcmp(t->buf, MM_SCHEMA_STR))
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
	/* line breaks inside quoted fields counted, and no control byte left
	 * to reach a view (NULs are refused) */
	t->nl_row += mm_text_printable(t->buf, t->len);
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

/* ------------------------------------------------------------ reading */

static int ct_open(struct csvt *t, struct csv_parser *p, struct rs_set *s,
		   enum rs_kind kind, const char *name, int run)
{
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->name = name;
	t->kind = kind;
	t->run = run;
	t->row = rs_kind_row[kind];
	/*
	 * Strict: a stray quote or an unterminated quoted field is an error,
	 * not data. REPALL_NL reports every line end so line numbers hold.
	 */
	if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL))
		return rs_set_err(s, "%s: out of memory", name);
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
		rc = rs_set_err(t->s, "%s: empty file (no header line)", t->name);
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
		return rs_set_err(s, "%s: bad parse request", name);
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

int rs_parse_file(struct rs_set *s, enum rs_kind kind, const char *path, int run)
{
	bool restart = false;

	if (parse_file_pass(s, kind, path, run, false, &restart))
		return -1;
	return restart ? parse_file_pass(s, kind, path, run, true, &restart) : 0;
}

static int parse_file_pass(struct rs_set *s, enum rs_kind kind, const char *path, int run,
			   bool dupscan, bool *restart)
{
	const char *name = rs_intern(s, path, strlen(path));
	size_t len = 1 << 20;
	struct csv_parser p;
	struct csvt t;
	char *buf;
	ssize_t n;
	int fd, rc = 0;

	if (!name)
		return rs_set_err(s, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rs_set_err(s, "%s: %s", path, strerror(errno));
	buf = malloc(len);
	if (!buf || ct_open(&t, &p, s, kind, name, run)) {
		free(buf);
		close(fd);
		return buf ? -1 : rs_set_err(s, "out of memory");
	}
	t.dupscan = dupscan;
	while (!rc && (n = read(fd, buf, len)) != 0) {
		if (n < 0)
			rc = rs_set_err(s, "%s: %s", path, strerror(errno));
		else
			rc = ct_feed(&t, &p, buf, n);
	}
	free(buf);
	close(fd);
	rc = ct_close(&t, &p, rc);
	*restart = t.restart;
	return rc;
}
