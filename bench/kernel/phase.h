/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vmstat deltas service: /proc/vmstat counters, and measured phases
 * (wall time, getrusage and vmstat deltas over a stretch of a workload's
 * iteration). Part of the workload API: mmbench.h includes it after the
 * types it uses (struct mm_ctx); include mmbench.h.
 */
#ifndef MMBENCH_PHASE_H
#define MMBENCH_PHASE_H

#include <stdint.h>
#include <sys/resource.h>

/* /proc/vmstat snapshot of a chosen counter list (NULL-terminated names). */
#define MM_VMSTAT_MAX 64
struct mm_vmstat {
	int n;
	const char *names[MM_VMSTAT_MAX];
	long long val[MM_VMSTAT_MAX];	/* -1: counter absent on this kernel */
};

int mm_vmstat_read(struct mm_vmstat *v, const char *const *names);
/* Read one /proc/vmstat counter; -1 if absent. */
long long mm_vmstat_get(const char *name);

/*
 * A measured phase: wall time (CLOCK_MONOTONIC), getrusage of the calling
 * process (or thread, with RUSAGE_THREAD), and /proc/vmstat deltas.
 */
struct mm_phase {
	const char *name;
	int who;		/* RUSAGE_SELF, RUSAGE_THREAD, RUSAGE_CHILDREN */
	uint64_t t0, t1;
	struct rusage r0, r1;
	struct mm_vmstat v0, v1;
	const char *const *counters;
};

void mm_phase_begin(struct mm_phase *p, const char *name, int who,
		    const char *const *counters);
void mm_phase_end(struct mm_phase *p);
uint64_t mm_phase_ns(const struct mm_phase *p);
long long mm_phase_minflt(const struct mm_phase *p);
long long mm_phase_majflt(const struct mm_phase *p);
/* Delta of one vmstat counter over the phase; -1 if absent. */
long long mm_phase_vmstat(const struct mm_phase *p, const char *name);
/*
 * Emit the standard rows of a phase: NAME_time (ns), NAME_minflt,
 * NAME_majflt, NAME_utime, NAME_stime and NAME_vm_COUNTER for each
 * counter present on this kernel; their directions are the rows of the
 * workload's metric table (a NAME_time row, a family such as "NAME_*").
 */
int mm_phase_emit(struct mm_ctx *ctx, const struct mm_phase *p);

#endif
