// SPDX-License-Identifier: GPL-2.0
/*
 * The run's log and the mirror. Each process opens RUN_DIR/run.log once
 * (O_APPEND, so the lines of the driver, its case children and their tasks
 * interleave whole) and writes each line with a single write(). The log is
 * not a result: a failed write is not an error of the run, since stderr has
 * every line too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

struct mm_run mm_run = { .mirror_fd = -1 };
char mm_last_error[512];

static struct {
	pid_t pid;
	int fd;
} runlog = { .fd = -1 };

/*
 * The first errno of a failed mirror write, in memory shared with the
 * case children (they write rows too): the driver reads it at the end.
 */
static int *mirror_errno;

int mm_mirror_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_NOFOLLOW |
		      O_CLOEXEC, 0644);
	void *shared;

	if (fd < 0)
		return -errno;
	shared = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (shared == MAP_FAILED) {
		int err = errno;

		close(fd);
		errno = err;
		return -err;
	}
	mirror_errno = shared;
	mm_run.mirror_fd = fd;
	return 0;
}

int mm_mirror_error(void)
{
	return mirror_errno ? __atomic_load_n(mirror_errno, __ATOMIC_RELAXED) : 0;
}

/*
 * A line the mirror did not take is a line the lab's host never sees: the
 * first failure is kept (mm_mirror_error()) and fails the run at its end;
 * the local file has the row either way.
 */
void mm_mirror_line(const char *name, const char *line)
{
	char buf[8400];
	size_t l = strlen(line);
	ssize_t w;
	int n, zero = 0;

	if (mm_run.mirror_fd < 0)
		return;
	while (l && line[l - 1] == '\n')
		l--;
	n = snprintf(buf, sizeof(buf), "@@MM %s %.*s\n", name, (int)l, line);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	w = write(mm_run.mirror_fd, buf, (size_t)n);
	if (w != n)
		__atomic_compare_exchange_n(mirror_errno, &zero, w < 0 ? errno : EIO, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* This process's run.log descriptor: children reopen rather than share. */
static int runlog_fd(void)
{
	char path[4200];

	if (runlog.pid == getpid() && runlog.fd >= 0)
		return runlog.fd;
	snprintf(path, sizeof(path), "%s/run.log", mm_run.dir);
	runlog.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			 0644);
	runlog.pid = getpid();
	return runlog.fd;
}

void mm_logf(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > 0 && buf[strlen(buf) - 1] != '\n' && strlen(buf) + 1 < sizeof(buf))
		strcat(buf, "\n");
	fputs(buf, stderr);
	if (mm_run.dir[0]) {
		int fd = runlog_fd();

		if (fd >= 0 && write(fd, buf, strlen(buf)) < 0) {
			/* stderr already has it */
		}
		mm_mirror_line("run.log", buf);
	}
}

static void vlog(struct mm_ctx *ctx, const char *fmt, va_list ap, int err)
{
	char msg[1536];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err >= 0)
		snprintf(mm_last_error, sizeof(mm_last_error), "%s%s%s", msg,
			 err ? ": " : "", err ? strerror(err) : "");
	if (err > 0)
		mm_logf("%s: %s: %s", ctx->wl->name, msg, strerror(err));
	else
		mm_logf("%s: %s", ctx->wl->name, msg);
}

void mm_log(struct mm_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, fmt, ap, -1);
	va_end(ap);
}

int mm_err(struct mm_ctx *ctx, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, fmt, ap, e);
	va_end(ap);
	return MM_FAIL;
}

int mm_fail(struct mm_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, fmt, ap, 0);
	va_end(ap);
	return MM_FAIL;
}

int mm_skip(struct mm_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->skip_reason, sizeof(ctx->skip_reason), fmt, ap);
	va_end(ap);
	return MM_SKIP;
}
