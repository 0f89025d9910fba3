// SPDX-License-Identifier: GPL-2.0
/*
 * CSV through libcsv: every reader and writer of the project. See csvio.h.
 */
#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "csvio.h"
#include "results.h"

/* history.csv grows by one line a night: this is decades of them. */
#define TAB_MAX_BYTES (256L << 20)

static int seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* ------------------------------------------------------------ reading */

struct tab_parse {
	struct tab *t;
	char **fields;
	int n, cap;
	long line;		/* physical line being fed to the parser */
	bool header_done, failed, oom;
	const char *const *cols;
};

static void tp_field(void *s, size_t len, void *data)
{
	struct tab_parse *p = data;
	char *f;

	if (p->failed)
		return;
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		char **nf = realloc(p->fields, cap * sizeof(*nf));

		if (!nf)
			goto oom;
		p->fields = nf;
		p->cap = cap;
	}
	f = malloc(len + 1);
	if (!f)
		goto oom;
	memcpy(f, s ? s : "", len);
	f[len] = '\0';
	p->fields[p->n++] = f;
	return;
oom:
	p->failed = p->oom = true;
}

static void drop_fields(struct tab_parse *p)
{
	while (p->n > 0)
		free(p->fields[--p->n]);
}

static int check_header(struct tab_parse *p)
{
	struct tab *t = p->t;
	int i;

	if (!p->cols)
		return 0;
	for (i = 0; p->cols[i]; i++)
		if (i >= p->n || strcmp(p->fields[i], p->cols[i]))
			break;
	if (!p->cols[i] && i == p->n)
		return 0;
	if (!p->cols[i])
		return seterr(t->err, sizeof(t->err), "%s:%ld: header: unexpected column %d '%s'",
			      t->path, p->line, i + 1, p->fields[i]);
	return seterr(t->err, sizeof(t->err), "%s:%ld: header: column %d is '%s', expected '%s'",
		      t->path, p->line, i + 1, i < p->n ? p->fields[i] : "(missing)",
		      p->cols[i]);
}

static void tp_row(int c, void *data)
{
	struct tab_parse *p = data;
	struct tab *t = p->t;
	struct tab_row *r;

	(void)c;
	if (p->failed)
		goto out;
	if (!p->header_done) {
		p->header_done = true;
		if (check_header(p)) {
			p->failed = true;
			goto out;
		}
		t->hdr = p->fields;
		t->ncols = p->n;
		p->fields = NULL;
		p->n = p->cap = 0;
		return;
	}
	if (p->n != t->ncols) {
		seterr(t->err, sizeof(t->err), "%s:%ld: %d fields, the header has %d",
		       t->path, p->line, p->n, t->ncols);
		p->failed = true;
		goto out;
	}
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct tab_row *nr = realloc(t->rows, cap * sizeof(*nr));

		if (!nr) {
			p->failed = p->oom = true;
			goto out;
		}
		t->rows = nr;
		t->cap = cap;
	}
	r = &t->rows[t->nrows++];
	r->f = p->fields;
	r->n = p->n;
	r->line = p->line;
	p->fields = NULL;
	p->n = p->cap = 0;
	return;
out:
	drop_fields(p);
}

static int read_all(struct tab *t, const char *path, bool missing_ok, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t off = 0;
	int fd;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && missing_ok)
			return 0;
		return seterr(t->err, sizeof(t->err), "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > TAB_MAX_BYTES) {
		close(fd);
		return seterr(t->err, sizeof(t->err), "%s: not a regular file of at most %ld MiB",
			      path, TAB_MAX_BYTES >> 20);
	}
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		close(fd);
		return seterr(t->err, sizeof(t->err), "%s: out of memory", path);
	}
	while (off < (size_t)st.st_size && (n = read(fd, *buf + off, st.st_size - off)) > 0)
		off += n;
	close(fd);
	*len = off;
	return 0;
}

/* Feed buf[0..len) line by line, so that errors and rows carry a line. */
static int parse_lines(struct tab_parse *p, struct csv_parser *cp, const char *buf, size_t len)
{
	struct tab *t = p->t;
	size_t off = 0;

	while (off < len && !p->failed) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) + 1 : len - off;

		p->line++;
		if (csv_parse(cp, buf + off, n, tp_field, tp_row, p) != n) {
			seterr(t->err, sizeof(t->err), "%s:%ld: not valid CSV: %s", t->path,
			       p->line, csv_strerror(csv_error(cp)));
			return -1;
		}
		off += n;
	}
	if (!p->failed && csv_fini(cp, tp_field, tp_row, p)) {
		seterr(t->err, sizeof(t->err), "%s:%ld: not valid CSV: %s", t->path, p->line,
		       csv_strerror(csv_error(cp)));
		return -1;
	}
	if (p->oom)
		seterr(t->err, sizeof(t->err), "%s: out of memory", t->path);
	return p->failed ? -1 : 0;
}

int tab_load(struct tab *t, const char *path, const char *const *cols, bool missing_ok)
{
	struct tab_parse p = { .t = t, .cols = cols };
	struct csv_parser cp;
	char *buf;
	size_t len, keep;
	int rc;

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	if (!t->path)
		return seterr(t->err, sizeof(t->err), "out of memory");
	if (read_all(t, path, missing_ok, &buf, &len))
		return -1;
	/* A last line without its newline was never completely written. */
	for (keep = len; keep > 0 && buf[keep - 1] != '\n'; keep--)
		;
	if (keep < len) {
		t->torn = true;
		t->torn_line = 1;
		for (size_t i = 0; i < keep; i++)
			t->torn_line += buf[i] == '\n';
	}
	if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)) {
		free(buf);
		return seterr(t->err, sizeof(t->err), "out of memory");
	}
	rc = parse_lines(&p, &cp, buf, keep);
	csv_free(&cp);
	drop_fields(&p);
	free(p.fields);
	free(buf);
	if (!rc && !p.header_done && cols && keep) {
		rc = seterr(t->err, sizeof(t->err), "%s: no header line", path);
	}
	return rc;
}

void tab_free(struct tab *t)
{
	size_t i;
	int j;

	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->rows[i].n; j++)
			free(t->rows[i].f[j]);
		free(t->rows[i].f);
	}
	for (j = 0; j < t->ncols; j++)
		free(t->hdr[j]);
	free(t->hdr);
	free(t->rows);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

int tab_col(const struct tab *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->hdr[i], name))
			return i;
	return -1;
}

const char *tab_get(const struct tab *t, const struct tab_row *r, const char *name)
{
	int c = tab_col(t, name);

	return c >= 0 && c < r->n ? r->f[c] : NULL;
}

/* ------------------------------------------------------------ streaming */

void mm_csv_bad(struct mm_csv_in *in, const char *fmt, ...)
{
	va_list ap;

	if (in->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(in->err, sizeof(in->err), fmt, ap);
	va_end(ap);
	in->err_line = in->line;
}

const char *mm_csv_get(const struct mm_csv_in *in, int col)
{
	return col >= 0 && col < in->nf && col < MM_CSV_MAXF ? in->f[col] : "";
}

static void in_field(void *s, size_t len, void *data)
{
	struct mm_csv_in *in = data;

	if (in->nf < MM_CSV_MAXF && !in->oom) {
		if (len > in->max_field) {
			in->toolong = true;
			len = in->max_field;
		}
		if (in->len + len + 1 > in->cap) {
			size_t cap = (in->len + len + 1) * 2;
			char *b = realloc(in->buf, cap);

			if (!b) {
				in->oom = true;
				in->nf++;
				return;
			}
			in->buf = b;
			in->cap = cap;
		}
		memcpy(in->buf + in->len, s ? s : "", len);
		in->buf[in->len + len] = '\0';
		if (in->printable)
			mm_text_printable(in->buf + in->len, len);
		/* offsets now, pointers when the row is complete (realloc) */
		in->flen[in->nf] = in->len;
		in->len += len + 1;
	}
	in->nf++;
}

/* The header read equals HEADER. */
static bool in_header_is(const struct mm_csv_in *in, const char *header)
{
	size_t n = strlen(header), off = 0;

	if (in->nf != mm_schema_ncols(header))
		return false;
	for (int i = 0; i < in->nf; i++) {
		size_t l = strlen(in->f[i]);

		if ((i && (off >= n || header[off++] != ',')) || off + l > n ||
		    memcmp(header + off, in->f[i], l))
			return false;
		off += l;
	}
	return off == n;
}

/*
 * The header read is in->header, or an earlier form of it (a file written
 * before the last columns existed): then its rows have that many fields.
 */
static bool in_header_ok(struct mm_csv_in *in)
{
	char *joined;
	size_t len = 1;
	int n;

	if (in_header_is(in, in->header))
		return true;
	if (in->nf >= in->ncols || in->nf > MM_CSV_MAXF)
		return false;
	for (int i = 0; i < in->nf; i++)
		len += strlen(in->f[i]) + 1;
	joined = malloc(len);
	if (!joined)
		return false;
	joined[0] = '\0';
	for (int i = 0; i < in->nf; i++) {
		if (i)
			strcat(joined, ",");
		strcat(joined, in->f[i]);
	}
	n = mm_schema_earlier(in->header, joined);
	free(joined);
	if (n < 0 || n != in->nf)
		return false;
	in->ncols = n;
	return true;
}

static void in_row(int c, void *data)
{
	struct mm_csv_in *in = data;
	int kept = in->nf < MM_CSV_MAXF ? in->nf : MM_CSV_MAXF;

	(void)c;
	in->rows++;
	for (int i = 0; i < kept && !in->oom; i++) {
		size_t off = in->flen[i];

		in->f[i] = in->buf + off;
		in->flen[i] = strlen(in->f[i]);
	}
	if (in->err[0]) {
		/* nothing more from a file with an error */
	} else if (in->oom) {
		mm_csv_bad(in, "out of memory");
	} else if (in->rows == 1) {
		if (!in_header_ok(in))
			mm_csv_bad(in, "not the header of schema %d (%d fields; expected '%s')",
				   MM_SCHEMA_VERSION, in->nf, in->header);
	} else if (in->nf != in->ncols) {
		mm_csv_bad(in, "%d fields, expected %d", in->nf, in->ncols);
	} else if (in->toolong) {
		mm_csv_bad(in, "a field longer than %zu bytes", in->max_field);
	} else {
		in->row(in, in->arg);
	}
	in->nf = 0;
	in->len = 0;
	in->toolong = false;
}

int mm_csv_read(struct mm_csv_in *in, const char *dir, const char *name)
{
	struct csv_parser p;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (dir)
		snprintf(in->path, sizeof(in->path), "%s/%s", dir, name);
	else
		snprintf(in->path, sizeof(in->path), "%s", name);
	f = fopen(in->path, "re");
	if (!f)
		return -errno;
	in->ncols = mm_schema_ncols(in->header);
	in->line = in->rows = 0;
	in->nf = 0;
	in->len = 0;
	in->toolong = in->oom = false;
	in->err[0] = '\0';
	if (!in->max_field)
		in->max_field = 4095;
	csv_init(&p, CSV_STRICT | CSV_STRICT_FINI);
	while (!in->err[0] && (n = getline(&line, &cap, f)) > 0) {
		in->line++;
		if (memchr(line, '\0', (size_t)n)) {
			mm_csv_bad(in, "NUL byte: not a CSV text file");
			break;
		}
		if (line[n - 1] != '\n') {
			/* torn by a crash: named, never parsed as a row */
			fprintf(stderr, "%s: %s:%ld: incomplete last line "
				"(a torn write) left out\n", in->prog, in->path, in->line);
			break;
		}
		if (csv_parse(&p, line, (size_t)n, in_field, in_row, in) != (size_t)n)
			mm_csv_bad(in, "%s", csv_strerror(csv_error(&p)));
	}
	if (ferror(f))
		mm_csv_bad(in, "%s", strerror(errno));
	if (!in->err[0] && csv_fini(&p, in_field, in_row, in) != 0)
		mm_csv_bad(in, "a quoted field never ends");
	if (!in->err[0] && in->rows == 0) {
		in->line = 1;
		mm_csv_bad(in, "empty: not even a header");
	}
	csv_free(&p);
	free(line);
	fclose(f);
	return in->err[0] ? 1 : 0;
}

static void rec_row(int c, void *data)
{
	(void)c;
	(void)data;	/* a record's fields accumulate: no row breaks */
}

int mm_csv_record(struct mm_csv_in *in, const char *line, size_t len)
{
	struct csv_parser p;
	int ret = 0;

	in->nf = 0;
	in->len = 0;
	in->toolong = in->oom = false;
	if (!in->max_field)
		in->max_field = 4095;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
		in->oom = true;
		return -1;
	}
	if (csv_parse(&p, line, len, in_field, rec_row, in) != len ||
	    csv_fini(&p, in_field, rec_row, in) != 0)
		ret = -1;
	csv_free(&p);
	if (in->oom)
		return -1;
	for (int i = 0; i < in->nf && i < MM_CSV_MAXF; i++) {
		in->f[i] = in->buf + in->flen[i];
		in->flen[i] = strlen(in->f[i]);
	}
	return ret;
}

void mm_csv_free(struct mm_csv_in *in)
{
	free(in->buf);
	in->buf = NULL;
	in->len = in->cap = 0;
}

/* ------------------------------------------------------------ writing */

/* libcsv trims unquoted surrounding blanks when reading: quote those too. */
bool mm_csv_needs_quotes(const char *s)
{
	size_t n = strlen(s);

	return strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[0] == '\t' ||
					       s[n - 1] == ' ' || s[n - 1] == '\t'));
}

int mm_csv_line(char *buf, size_t len, const char *const *fields, int n)
{
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		const char *f = fields[i] ? fields[i] : "";
		size_t flen = strlen(f), w;

		if (i) {
			if (off + 1 >= len)
				return -ENOSPC;
			buf[off++] = ',';
		}
		if (mm_csv_needs_quotes(f)) {
			w = csv_write(buf + off, len - off, f, flen);
		} else {
			w = flen;
			if (off + w < len)
				memcpy(buf + off, f, flen);
		}
		if (off + w + 2 > len)
			return -ENOSPC;
		off += w;
	}
	if (off + 2 > len)
		return -ENOSPC;
	buf[off++] = '\n';
	buf[off] = '\0';
	return (int)off;
}

char *tab_line(const char *const *fields, int n)
{
	size_t len = 2;
	char *buf;

	for (int i = 0; i < n; i++)
		len += 2 * strlen(fields[i] ? fields[i] : "") + 3;
	buf = malloc(len);
	if (buf && mm_csv_line(buf, len, fields, n) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void csvo_sep(struct csvo *o)
{
	if (o->col++)
		fputc(',', o->f);
}

void csvo_str(struct csvo *o, const char *s)
{
	csvo_sep(o);
	if (mm_csv_needs_quotes(s))
		csv_fwrite(o->f, s, strlen(s));
	else
		fputs(s, o->f);
}

void csvo_num(struct csvo *o, double v, bool ok)
{
	csvo_sep(o);
	if (ok)
		fprintf(o->f, "%.12g", v);
}

void csvo_int(struct csvo *o, long long v)
{
	csvo_sep(o);
	fprintf(o->f, "%lld", v);
}

void csvo_end(struct csvo *o)
{
	fputc('\n', o->f);
	o->col = 0;
}

int tab_lock(const char *path, int timeout_s, char *err, size_t errlen)
{
	char lp[4200];
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int fd, i;

	snprintf(lp, sizeof(lp), "%s.lock", path);
	fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return seterr(err, errlen, "%s: %s", lp, strerror(errno));
	for (i = 0; i < timeout_s * 20; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		nanosleep(&ts, NULL);
	}
	seterr(err, errlen, "%s: could not lock it within %d s: %s", lp, timeout_s,
	       errno == EWOULDBLOCK ? "another writer holds it" : strerror(errno));
	close(fd);
	return -1;
}

void tab_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

static int write_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= w;
	}
	return 0;
}

/* Cut a torn last line (no newline): it was never a complete row. */
static int cut_torn(int fd, off_t size, const char *path, char *warn, size_t warnlen)
{
	char c;
	off_t end = size;

	while (end > 0) {
		if (pread(fd, &c, 1, end - 1) != 1)
			return -1;
		if (c == '\n')
			break;
		end--;
	}
	if (end == size)
		return 0;
	if (ftruncate(fd, end))
		return -1;
	snprintf(warn, warnlen, "%s: removed a torn last line (%lld bytes without a newline)",
		 path, (long long)(size - end));
	return 0;
}

int tab_append(const char *path, const char *hdr_line, const char *line, char *err,
	       size_t errlen, char *warn, size_t warnlen)
{
	struct stat st;
	int fd;

	if (warn && warnlen)
		warn[0] = '\0';
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (st.st_size > 0 && cut_torn(fd, st.st_size, path, warn, warnlen))
		goto fail;
	if (fstat(fd, &st) || (st.st_size == 0 && write_all(fd, hdr_line, strlen(hdr_line))))
		goto fail;
	if (write_all(fd, line, strlen(line)) || fsync(fd))
		goto fail;
	close(fd);
	return 0;
fail:
	seterr(err, errlen, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static int fsync_dir(const char *path)
{
	char *d = strdup(path);
	int fd, rc = -1;

	if (!d)
		return -1;
	fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(d);
	return rc;
}

static int write_rows(int fd, const char *const *hdr, int ncols,
		      const struct tab_row *const *rows, size_t nrows)
{
	char *l = tab_line(hdr, ncols);
	size_t i;
	int rc = l ? write_all(fd, l, strlen(l)) : -1;

	free(l);
	for (i = 0; !rc && i < nrows; i++) {
		l = tab_line((const char *const *)rows[i]->f, rows[i]->n);
		rc = l ? write_all(fd, l, strlen(l)) : -1;
		free(l);
	}
	return rc;
}

int tab_rewrite(const char *path, const char *const *hdr, int ncols,
		const struct tab_row *const *rows, size_t nrows, char *err, size_t errlen)
{
	char tmp[4200];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return seterr(err, errlen, "%s: %s", tmp, strerror(errno));
	if (write_rows(fd, hdr, ncols, rows, nrows) || fsync(fd)) {
		seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path)) {
		seterr(err, errlen, "rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	fsync_dir(path);
	return 0;
}

/* mkdir -p: every missing parent, then the directory itself. */
int mm_mkdir_p(const char *path)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s", path);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* KEY's value in DIR/meta.csv, last row wins ("" when absent). */
const char *mm_meta_get(const char *dir, const char *key, char *buf, size_t len)
{
	static const char *const cols[] = { "key", "value", NULL };
	char p[PATH_MAX];
	struct tab m;
	size_t i;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/meta.csv", dir);
	if (!tab_load(&m, p, cols, false))
		for (i = 0; i < m.nrows; i++)
			if (!strcmp(m.rows[i].f[0], key))
				snprintf(buf, len, "%s", m.rows[i].f[1]);
	tab_free(&m);
	return buf;
}
