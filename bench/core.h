/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the mmbench core, shared by the files in bench/ only. */
#ifndef MMBENCH_CORE_H
#define MMBENCH_CORE_H

#include <stdio.h>
#include "csvio.h"
#include "mmbench.h"
#include "results.h"

#define MM_MAX_PARAMS 32
#define MM_MAX_VALUES 32
#define MM_MAX_CASES 1024
#define MM_VALUE_LEN 256

struct mm_case {
	const struct workload *wl;
	char val[MM_MAX_PARAMS][MM_VALUE_LEN];
	char str[2048];
};

struct mm_pvals {
	int n;
	char v[MM_MAX_VALUES][MM_VALUE_LEN];
};

/* The parameters given on one command line, and their expansion. */
struct mm_plist {
	const struct workload *wl;
	char *given[MM_MAX_PARAMS];	/* raw text from -p, or NULL */
	struct mm_pvals vals[MM_MAX_PARAMS];
	int ncases;
};

/* Its functions: params.h. */

/* ---- output (csvout.c) */

/* Identity of the run, copied into every row (defined in log.c). */
struct mm_run {
	char dir[4096];
	char run_id[128];
	char label[128];
	char kernel[128];
	char host[128];
	int mirror_fd;		/* -1: no mirror */
	/* meta.csv says vm_accel=tcg: its times are emulated, not judged */
	bool emulated;
};

extern struct mm_run mm_run;

/* The six leading fields of every result row: schema .. case. */
void mm_row_ident(const char **f, const struct workload *wl,
		  const struct mm_case *c);
/* Open-append-write-close one line to DIR/name, creating it with header. */
int mm_csv_append(const char *name, const char *header, const char *line);
int mm_csv_append_fields(const char *name, const char *header,
			 const char *const *fields, int n);
/* fdatasync every result file this process has open; 0 or -errno. */
int mm_csv_sync(void);
/*
 * The first failed write or sync of a result file in this process:
 * -errno and its message ("cannot write results.csv: ..."), or 0.
 */
int mm_csv_error(char *buf, size_t len);

/* ---- settings (settings.c) */

int mm_settings_init(const char *run_dir);
/*
 * Restore every journalled knob not yet restored; returns failures (a
 * journal record that is not valid counts as one). It first waits until
 * no process of a case of the run is left (mm_settings_case_lock()).
 */
int mm_settings_restore(const char *run_dir, bool verbose);
/*
 * In a case child, before it changes anything: hold RUN_DIR/settings.lock
 * for the life of the case's processes (its tasks inherit it), so a
 * restore never runs while one of them can still write a knob.
 */
int mm_settings_case_lock(void);
/* 0 if path is a knob mmbench may write (sysfs, or procfs under
 * /proc/sys), else -errno with the reason in why. */
int mm_setting_path_check(const char *path, char *why, size_t len);
/* Unit tests only: regular files under this directory pass as knobs. */
extern const char *mm_settings_test_root;

/*
 * A test hook: with MMBENCH_STOP_AT=ROLE/POINT[:N] in the environment, a
 * process of that role (driver, case or task) waits for SIGUSR1 the Nth
 * time (default 1) it reaches POINT, after saying so on stderr, so a test
 * can kill the run at exactly that moment. Without the variable it does
 * nothing.
 */
void mm_stop_point(const char *point);
extern const char *mm_stop_role;

/* ---- sysinfo (sysinfo.c) */

int mm_sysinfo_write(const char *path, int argc, char **argv,
		     char **extra, int nextra);
int mm_topology_xml(const char *path);

/* ---- summary.c */

int mm_summary(const char *dir, bool cases_only);

/* ---- field.c: `mmbench field`, result files for shell scripts */

int mm_field(int argc, char **argv);

/* ---- probes (probe.c) */

/* Validate and keep the --probe list; -1 (message printed) if malformed. */
int mm_probe_set(const char *funcs);
/* In the driver after each case: remove the case child's kprobe events. */
void mm_probe_after_case(long pid);
/*
 * After a profiled case, its meta.csv notes for the profile comparison:
 * note_profile_focus, the functions the claim names (--probe's and the
 * workload's default probes, the defaults also under --probe none: a
 * clean profile still knows what the posting names), and
 * note_profile_probes, those whose kprobes were armed while perf sampled.
 */
void mm_probe_profile_notes(struct mm_ctx *ctx);
/*
 * The rows --probe adds to every workload's metric table (probe.c):
 * calls:FUNC (info) and calls_per_UNIT:FUNC (lower, evidence). A workload's
 * own row naming one of these metrics exactly wins (it carries the claim).
 */
extern const struct mm_metric mm_probe_metrics[];

#endif /* MMBENCH_CORE_H */
