// SPDX-License-Identifier: GPL-2.0
/*
 * Result files. Every row is formatted with libcsv's quoting and appended
 * with a single write() to a file opened O_APPEND, so a kill at any moment
 * leaves every finished row intact and never a torn one; the driver calls
 * mm_csv_sync() after each iteration so rows also survive a panic.
 * A row is on disk whole or not at all: a short write (a full file system
 * takes what fits) is cut back to the end of the previous row. The first
 * failed write or sync of a process is kept (mm_csv_error()): the driver
 * fails the case with it, so no case passes whose rows are not on disk.
 * With --mirror, each line also goes to a second file (a serial port in
 * the VM lab) as "@@MM <file> <line>".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "precision.h"


#define MM_MAX_FILES 8
static struct {
	char name[32];
	int fd;
	pid_t pid;
} files[MM_MAX_FILES];

/*
 * The first failed write or sync of a result file in this process, and
 * every file that failed: a file that lost a row takes no later rows, so
 * what it holds has no gap in the middle.
 */
static struct {
	pid_t pid;
	int err;
	char what[160];
	char failed[MM_MAX_FILES][32];
	int nfailed;
} werr;

static int note_error(const char *name, const char *op, int err)
{
	if (werr.pid != getpid()) {
		memset(&werr, 0, sizeof(werr));
		werr.pid = getpid();
	}
	if (!werr.err) {
		werr.err = err;
		snprintf(werr.what, sizeof(werr.what), "cannot %s %s: %s", op, name,
			 strerror(err));
	}
	if (werr.nfailed < MM_MAX_FILES)
		snprintf(werr.failed[werr.nfailed++], sizeof(werr.failed[0]), "%s", name);
	return -err;
}

static bool has_failed(const char *name)
{
	if (werr.pid != getpid())
		return false;
	for (int i = 0; i < werr.nfailed; i++)
		if (!strcmp(werr.failed[i], name))
			return true;
	return false;
}

int mm_csv_error(char *buf, size_t len)
{
	if (werr.pid != getpid() || !werr.err)
		return 0;
	if (buf && len)
		snprintf(buf, len, "%s", werr.what);
	return -werr.err;
}

/*
 * Append buf whole or not at all. A short write leaves part of the row:
 * the rest is tried once more (the kernel then says why it failed), and on
 * failure the file is cut back to where the row began, so a reader never
 * meets a torn row. Only one process appends to a result file at a time.
 */
static int write_whole(int fd, const char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;
	int e = 0;

	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		e = n < 0 ? errno : EIO;
		break;
	}
	if (done == len)
		return 0;
	if (done > 0) {
		off_t end = lseek(fd, 0, SEEK_CUR);
		struct stat st;

		if (end >= (off_t)done && fstat(fd, &st) == 0 && st.st_size == end &&
		    ftruncate(fd, end - (off_t)done) < 0)
			e = errno;
	}
	return -e;
}

/* One fd per file and process: children reopen rather than share. */
static int file_fd(const char *name, const char *header)
{
	char path[4200];
	bool created = true;
	struct stat st;
	int i, fd, ret;

	for (i = 0; i < MM_MAX_FILES; i++) {
		if (files[i].fd > 0 && files[i].pid == getpid() &&
		    strcmp(files[i].name, name) == 0)
			return files[i].fd;
	}
	snprintf(path, sizeof(path), "%s/%s", mm_run.dir, name);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		created = false;
		fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return note_error(name, "open", errno);
	if (header && fstat(fd, &st) == 0 && st.st_size == 0) {
		char h[512];
		int hl = snprintf(h, sizeof(h), "%s\n", header);

		ret = write_whole(fd, h, (size_t)hl);
		if (ret < 0) {
			/* No header: leave no file rather than an empty one. */
			if (created)
				unlink(path);
			close(fd);
			return note_error(name, "write", -ret);
		}
		if (mm_run.mirror_fd >= 0) {
			h[hl - 1] = '\0';
			mm_mirror_line(name, h);
		}
	}
	for (i = 0; i < MM_MAX_FILES; i++) {
		if (files[i].fd <= 0 || files[i].pid != getpid()) {
			snprintf(files[i].name, sizeof(files[i].name), "%s", name);
			files[i].fd = fd;
			files[i].pid = getpid();
			return fd;
		}
	}
	return fd;	/* table full: works, but leaks one fd */
}

int mm_csv_sync(void)
{
	int ret = 0;

	for (int i = 0; i < MM_MAX_FILES; i++)
		if (files[i].fd > 0 && files[i].pid == getpid() &&
		    fdatasync(files[i].fd) < 0 && !ret)
			ret = note_error(files[i].name, "sync", errno);
	return ret;
}

int mm_csv_append(const char *name, const char *header, const char *line)
{
	int fd, ret;

	if (has_failed(name))
		return -werr.err;
	fd = file_fd(name, header);
	if (fd < 0)
		return fd;
	ret = write_whole(fd, line, strlen(line));
	if (ret < 0)
		return note_error(name, "write", -ret);
	mm_mirror_line(name, line);
	return 0;
}

int mm_csv_append_fields(const char *name, const char *header,
			 const char *const *fields, int n)
{
	char line[8192];
	int ret = mm_csv_line(line, sizeof(line), fields, n);

	if (ret < 0)
		return note_error(name, "format a row of", -ret);
	return mm_csv_append(name, header, line);
}

static const char schema_str[] = MM_SCHEMA_STR;

void mm_row_ident(const char **f, const struct workload *wl,
		  const struct mm_case *c)
{
	f[MM_COL_SCHEMA] = schema_str;
	f[MM_COL_RUN_ID] = mm_run.run_id;
	f[MM_COL_LABEL] = mm_run.label;
	f[MM_COL_KERNEL] = mm_run.kernel;
	f[MM_COL_WORKLOAD] = wl->name;
	f[MM_COL_CASE] = mm_case_string(c);
}

/* ---- metrics.csv: each (workload, metric) of the run once, with its role */

static struct {
	pid_t pid;
	char **keys;		/* "workload\nmetric" */
	size_t n, cap;
} seen;

static int seen_add(const char *wl, const char *metric)
{
	char **k, *key;

	if (seen.n == seen.cap) {
		k = realloc(seen.keys, (seen.cap * 2 + 64) * sizeof(*k));
		if (!k)
			return -ENOMEM;
		seen.keys = k;
		seen.cap = seen.cap * 2 + 64;
	}
	if (asprintf(&key, "%s\n%s", wl, metric) < 0)
		return -ENOMEM;
	seen.keys[seen.n++] = key;
	return 0;
}

static bool seen_has(const char *wl, const char *metric)
{
	size_t wl_len = strlen(wl);

	for (size_t i = 0; i < seen.n; i++)
		if (!strncmp(seen.keys[i], wl, wl_len) && seen.keys[i][wl_len] == '\n' &&
		    !strcmp(seen.keys[i] + wl_len + 1, metric))
			return true;
	return false;
}

static void seen_row(struct mm_csv_in *in, void *arg)
{
	(void)arg;
	seen_add(mm_csv_get(in, MM_MET_WORKLOAD), mm_csv_get(in, MM_MET_METRIC));
}

/*
 * The metrics an earlier case of this run already listed (a run directory
 * is appended to by one case child after another): read once per process.
 * A metrics.csv that cannot be read costs duplicate rows, never a result.
 */
static void seen_load(void)
{
	struct mm_csv_in in = {
		.prog = "mmbench", .header = MM_METRICS_HEADER, .row = seen_row,
	};

	if (seen.pid == getpid())
		return;
	for (size_t i = 0; i < seen.n; i++)
		free(seen.keys[i]);
	seen.n = 0;
	seen.pid = getpid();
	mm_csv_read(&in, mm_run.dir, "metrics.csv");
	mm_csv_free(&in);
}

static const struct mm_metric *metric_find(const struct workload *wl, const char *metric)
{
	const struct mm_metric *m;

	for (m = wl->metrics; m && m->name; m++)
		if (!strcmp(m->name, metric))
			return m;
	return NULL;
}

static int metric_declare(const struct workload *wl, const char *metric,
			  const char *unit, enum mm_better better, enum mm_role role,
			  bool timed, const char *claim)
{
	const char *f[MM_MET_NCOLS];
	int ret;

	seen_load();
	if (seen_has(wl->name, metric))
		return 0;
	f[MM_MET_SCHEMA] = schema_str;
	f[MM_MET_WORKLOAD] = wl->name;
	f[MM_MET_METRIC] = metric;
	f[MM_MET_UNIT] = unit;
	f[MM_MET_BETTER] = mm_better_str(better);
	f[MM_MET_ROLE] = role == MM_EVIDENCE ? "evidence" : "context";
	f[MM_MET_TIMED] = timed ? "1" : "0";
	f[MM_MET_CLAIM] = claim ? claim : "";
	ret = mm_csv_append_fields("metrics.csv", MM_METRICS_HEADER, f, MM_MET_NCOLS);
	if (ret == 0)
		ret = seen_add(wl->name, metric);
	return ret;
}

int mm_emit(struct mm_ctx *ctx, const char *metric, double value,
	    const char *unit, enum mm_better better)
{
	return mm_emit_role(ctx, metric, value, unit, better, MM_CONTEXT, NULL);
}

int mm_emit_role(struct mm_ctx *ctx, const char *metric, double value,
		 const char *unit, enum mm_better better, enum mm_role role,
		 const char *claim)
{
	const struct mm_metric *m = metric_find(ctx->wl, metric);
	bool timed = mm_unit_timed(unit);
	char iter[16], val[64];
	const char *f[MM_RES_NCOLS];
	int ret;

	if (!mm_metric_name_ok(metric)) {
		/* a row no reader would take fails the case, not the reader */
		mm_logf("%s: metric '%.60s' breaks the metric name rule "
			"([A-Za-z0-9_.:], 1 to 200): not written", ctx->wl->name, metric);
		if (werr.pid != getpid()) {
			memset(&werr, 0, sizeof(werr));
			werr.pid = getpid();
		}
		if (!werr.err) {
			werr.err = EINVAL;
			snprintf(werr.what, sizeof(werr.what), "metric '%.60s' breaks the "
				 "metric name rule", metric);
		}
		return -EINVAL;
	}
	if (m) {
		better = m->better;
		role = m->role;
		timed |= m->timed;
		claim = m->claim;
	}
	ret = metric_declare(ctx->wl, metric, unit, better, role, timed, claim);
	if (ret)
		return ret;
	if (!ctx->warmup && mm_prec_watched(role, better, timed, mm_run.emulated))
		mm_prec_add(metric, value);
	snprintf(iter, sizeof(iter), "%d", ctx->iteration);
	snprintf(val, sizeof(val), "%.12g", value);
	mm_row_ident(f, ctx->wl, ctx->c);
	f[MM_RES_ITERATION] = iter;
	f[MM_RES_METRIC] = metric;
	f[MM_RES_VALUE] = val;
	f[MM_RES_UNIT] = unit;
	f[MM_RES_BETTER] = mm_better_str(better);
	return mm_csv_append_fields(ctx->warmup ? "warmup.csv" : "results.csv",
				    MM_RESULTS_HEADER, f, MM_RES_NCOLS);
}

int mm_sample(struct mm_ctx *ctx, int task, const char *cls, uint64_t ns)
{
	char iter[16], t[16], v[32];
	const char *f[MM_SAMP_NCOLS];

	if (ctx->warmup)
		return 0;
	snprintf(iter, sizeof(iter), "%d", ctx->iteration);
	snprintf(t, sizeof(t), "%d", task);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)ns);
	mm_row_ident(f, ctx->wl, ctx->c);
	f[MM_SAMP_ITERATION] = iter;
	f[MM_SAMP_TASK] = t;
	f[MM_SAMP_CLASS] = cls;
	f[MM_SAMP_VALUE_NS] = v;
	return mm_csv_append_fields("samples.csv", MM_SAMPLES_HEADER, f, MM_SAMP_NCOLS);
}

int mm_note(struct mm_ctx *ctx, const char *key, const char *fmt, ...)
{
	char k[160], v[1024];
	const char *f[2] = { k, v };
	va_list ap;

	(void)ctx;
	snprintf(k, sizeof(k), "note_%s", key);
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return mm_csv_append_fields("meta.csv", MM_META_HEADER, f, 2);
}
