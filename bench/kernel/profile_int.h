/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inside of --profile, shared by its two halves: profile.c records
 * (options, checks, perf control, the case's windows) and profile_report.c
 * reads (symbols, `perf script`, kallsyms, the rows). Nothing else
 * includes this header; the driver's interface is profile.h.
 */
#ifndef MMBENCH_PROFILE_INT_H
#define MMBENCH_PROFILE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

#define TOP_SYMBOLS 200		/* rows per iteration, then "[other]" */
#define READY_TIMEOUT_MS 300000	/* perf's setup in a loaded TCG guest */
#define ACK_TIMEOUT_MS 60000
#define STOP_TIMEOUT_S 300	/* perf's last writes and build-ids */
#define MAX_FRAMES 256

enum pstat { ST_OK, ST_SKIPPED, ST_CAPPED, ST_INCOMPLETE, ST_LOST };
extern const char *const stat_name[];

struct piter {
	int iteration;
	enum pstat status;
	char reason[256];
	uint64_t t0, t1;	/* first window's begin, last window's end */
	bool windowed;		/* at least one window was closed */
	long long total, idle;
	long long *self, *child; /* per symbol id, nalloc long */
	int nalloc;
};

struct window {
	int it;			/* index into pf.it */
	uint64_t t0, t1;
};

struct sym {
	char *key;		/* "symbol\0dso" */
	size_t klen;
	unsigned long hash;
};

struct pf_state {
	/* options (driver) */
	bool on, callgraph;
	int freq;
	unsigned long long cap;
	char kallsyms[PATH_MAX];
	/* run-level facts (driver, first use) */
	bool prepared;
	char perf[PATH_MAX];
	char perf_version[128];
	bool zstd;
	char event[16];
	char event_why[300];
	char paranoid[16];
	char skip_why[512];	/* perf cannot profile on this system */
	/* per case (child) */
	bool in_case, running, open;
	enum pstat case_status;	/* why iterations are not profiled */
	char case_why[256];
	pid_t perf_pid;
	int perf_status;	/* waitpid status once reaped */
	double perf_cpu_s;	/* perf record's user + system time */
	bool reaped;
	int ctl_fd, ack_fd;
	int pending;		/* commands whose ack has not come */
	char name[200];		/* <workload>-<pid> */
	char tmp[4400], final[4400], log[4400];
	uint64_t open_t0;
	int open_it;
	struct piter *it;
	int nit, capit;
	struct window *w;
	int nw, capw;
	int ndiscarded;		/* windows thrown away (mm_measure_discard) */
	/* symbols of the case */
	struct sym *syms;
	int nsyms, capsyms;
	int *htab;		/* open addressing: symbol id + 1, 0 empty */
	int hcap;
};

/* The profile of this run and of its case: one, in profile.c. */
extern struct pf_state pf;

/* profile_report.c */
/* Read the case's perf.data: each sample into its iteration's window. */
int pf_perf_script(char *why, size_t len, long long *outside);
/* The kallsyms of the case's hit symbols next to the raw data. */
int pf_write_kallsyms(char *out, size_t outlen);
void pf_write_function_hashes(void);
/* An iteration's rows of profile.csv, then its profile_iterations.csv row. */
int pf_symbol_rows(struct mm_ctx *ctx, struct piter *p);
int pf_iteration_row(struct mm_ctx *ctx, struct piter *p, const char *perf_data);

/* profile.c */
/* The last lines of perf's log, for a reason. */
void pf_perf_log_tail(char *buf, size_t len);
/* The raw data home over the VM lab's results channel. */
void pf_mirror_raw(const char *path, const char *name);

#endif
