/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's log: every line goes to stderr, to RUN_DIR/run.log and, with
 * --mirror, to the mirror channel. The lowest layer of the core: it uses
 * nothing else of bench/, so anything may log.
 */
#ifndef MMBENCH_LOG_H
#define MMBENCH_LOG_H

struct mm_ctx;

/* Print "WORKLOAD: msg" (no errno) and return MM_FAIL. */
int mm_fail(struct mm_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record a skip reason; returns MM_SKIP so "return mm_skip(...)" works. */
int mm_skip(struct mm_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "WORKLOAD: msg" to stderr (run.log). */
void mm_log(struct mm_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "WORKLOAD: msg: strerror(errno)" to stderr; returns MM_FAIL. */
int mm_err(struct mm_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A line of the driver's log: stderr plus DIR/run.log plus mirror. */
void mm_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last mm_err()/mm_fail() message of this process (cases.csv). */
extern char mm_last_error[512];

/*
 * The mirror (--mirror; a serial port in the VM lab): each line of a run
 * file also goes there as "@@MM <file> <line>". mm_mirror_error(): the
 * errno of the first line it did not take (in any process of the run), 0
 * when none.
 */
int mm_mirror_open(const char *path);
void mm_mirror_line(const char *name, const char *line);
int mm_mirror_error(void);

#endif /* MMBENCH_LOG_H */
