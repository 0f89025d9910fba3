/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nightly job's records in a results root (schema 1):
 *
 * history.csv: one row per nightly run, appended when the run ends (or by
 * the next start when the run was killed with SIGKILL):
 *   schema, date (UTC start, YYYY-MM-DDTHH:MM:SSZ), host, label, kernel,
 *   run_dir (relative to the results root; empty when no run directory was
 *   made), status (ok; not_measured: a case the host disturbed measured
 *   nothing, the rest of the run is good; failed, skipped, refused),
 *   duration_s,
 *   worse_vs_baseline, worse_vs_previous (significantly worse lines; empty
 *   when not compared), reason.
 *
 * regressions.csv: the ledger of regressions against a baseline, one row
 * per (host, baseline, workload, case, metric) streak:
 *   schema, host, baseline, workload, case, metric, state (open, resolved,
 *   superseded), first_date, first_run, first_kernel, last_good_run,
 *   latest_date, latest_run, change_pct, p_value, resolved_run.
 * Two kinds of rows. baseline = a label or run: a line of exact evidence
 * (no spread on either side) worse than the baseline; it opens on the first
 * run worse than the baseline, stays open while runs remain worse, and is
 * resolved by the first run of that host that measures the line and is not
 * worse. baseline = "history": a confirmed change point for the worse in
 * the line's history (tools/mmtrend/mmchange); first_run and last_good_run
 * bracket it, p_value is the permutation test's; resolved when the change
 * point is gone or a confirmed change for the better followed it.
 */
#ifndef MMT_HISTORY_H
#define MMT_HISTORY_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <time.h>

#include "csvio.h"

enum hist_col {
	H_SCHEMA, H_DATE, H_HOST, H_LABEL, H_KERNEL, H_RUN_DIR, H_STATUS, H_DURATION,
	H_WORSE_BASE, H_WORSE_PREV, H_REASON, H_NCOLS,
};

enum led_col {
	L_SCHEMA, L_HOST, L_BASELINE, L_WORKLOAD, L_CASE, L_METRIC, L_STATE, L_FIRST_DATE,
	L_FIRST_RUN, L_FIRST_KERNEL, L_LAST_GOOD, L_LATEST_DATE, L_LATEST_RUN, L_CHANGE,
	L_P, L_RESOLVED_RUN, L_NCOLS,
};

/* The baseline column of a regression found in the history's change points
 * (tools/mmtrend/mmchange), not against a baseline. */
#define LEDGER_HISTORY "history"

extern const char *const hist_cols[H_NCOLS + 1];
extern const char *const led_cols[L_NCOLS + 1];

/* Load and validate history.csv; a missing file is an empty history. */
int hist_load(struct tab *t, const char *path);
/* A run whose values count: ok, or not_measured (the rest of the run). */
bool hist_measured(const char *status);
/* Validate one history row; err gets "column: problem". */
int hist_check(const char *const *f, char *err, size_t len);
int led_load(struct tab *t, const char *path);

/* "YYYY-MM-DDTHH:MM:SSZ" to seconds since the epoch. */
bool hist_date_parse(const char *s, time_t *out);
void hist_date_fmt(time_t t, char *buf, size_t len);

/*
 * PATH as the history records run directories: relative to ROOT when it
 * lies under it, without "./" and trailing slashes. Returns buf.
 */
const char *hist_rel(const char *root, const char *path, char *buf, size_t len);
/* The directory that holds PATH (the results root of a history.csv). */
void hist_root(const char *history, char *buf, size_t len);

/*
 * The command-line frame of the history tools (mmhistory, mmchange):
 * hist_prog names the tool in messages; hist_usage_error prints
 * "PROG: MESSAGE" on stderr and returns 2; hist_dispatch runs the command
 * argv[1] names from the table (NULL-terminated), after -h/--help and a
 * check that at least MIN_ARGC arguments were given.
 */
extern const char *hist_prog;
int hist_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct hist_command {
	const char *name;
	int (*fn)(int argc, char **argv);
};
int hist_dispatch(const struct hist_command *cmds, int argc, char **argv, int min_argc,
		  void (*usage)(FILE *f));

#endif /* MMT_HISTORY_H */
