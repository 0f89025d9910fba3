/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbench core API: the contract between the driver (bench/) and the
 * workloads (workloads/). The core knows no workload by name; a workload is
 * a const struct workload listed once in workloads/registry.c (how to
 * add one: workloads/ADDING.md).
 *
 * Execution model: the driver expands list parameters into cases, and runs
 * each case in a forked child (its own process group) under a timeout,
 * with the workload's parameter struct filled for the case (ctx->params).
 * In the child: prepare() once, run() for each warm-up and measured
 * iteration, cleanup() once. run() reports values with mm_emit(); the core
 * writes them to results.csv (measured) or warmup.csv (warm-ups), one
 * flushed row at a time. Knobs are changed only through mm_setting_set(),
 * which journals the original value before the change; the parent restores
 * from the journal after every case, on a signal, and `mmbench restore DIR`
 * does it after a SIGKILL or a panic.
 */
#ifndef MMBENCH_H
#define MMBENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "exitcodes.h"	/* enum mm_status: the exit codes (MM_PASS, ...) */
#include "log.h"
#include "results.h"

/* ---------------------------------------------------------------- params */

/*
 * A workload's parameters are rows of a table (struct workload .params),
 * each naming a field of the workload's own parameter struct. The core
 * checks every value against its row, expands lists into cases, and for
 * each case fills the struct once (ctx->params); the workload reads
 * fields, never strings. The field's C type follows the row's type:
 */
enum mm_ptype {
	MM_P_INT,	/* long long, min/max checked */
	MM_P_DOUBLE,	/* double, min/max checked */
	MM_P_BOOL,	/* bool; accepts 0/1, on/off, yes/no, true/false */
	MM_P_ENUM,	/* int: index of the value in .choices ("a|b|c") */
	MM_P_STRING,	/* const char *: free text (paths, size lists); no ',' */
};

/* The value of a field whose parameter was given as "" (unset). */
#define MM_UNSET_INT LLONG_MIN	/* MM_P_INT */
#define MM_UNSET_ENUM (-1)	/* MM_P_ENUM */
/* MM_P_DOUBLE: NAN; MM_P_BOOL: false; MM_P_STRING: "" */

struct mm_param {
	const char *name;	/* the field's name (MM_PINT() and friends) */
	enum mm_ptype type;
	size_t off;		/* offset of the field in the struct */
	/*
	 * Default as text; may be a list ("0,10,50,100") which expands into
	 * cases. NULL means .def_fn computes it for this machine (for example
	 * the CPU count); "" means "unset" (the workload chooses at run time).
	 */
	const char *def;
	const char *(*def_fn)(char *buf, size_t len);
	double min, max;	/* MM_P_INT/MM_P_DOUBLE; ignored when min > max */
	const char *choices;	/* MM_P_ENUM: "file|anon|shmem" */
	const char *help;
	bool nolist;		/* ',' is part of the value, not a case list */
};

/*
 * The head of a row: name, type and offset of field f of struct type T,
 * e.g. { MM_PINT(struct my_params, size_mb), .def = "64", ... }. The name
 * is the field's name, and a field of another C type than the row's does
 * not compile (_Generic has no match), so a table cannot drift from the
 * struct the workload reads.
 */
#define MM_PFIELD_(T, f, ctype, ptype) .name = #f, .type = ptype,	\
	.off = _Generic(((T *)0)->f, ctype: offsetof(T, f))
#define MM_PINT(T, f)	 MM_PFIELD_(T, f, long long, MM_P_INT)
#define MM_PDOUBLE(T, f) MM_PFIELD_(T, f, double, MM_P_DOUBLE)
#define MM_PBOOL(T, f)	 MM_PFIELD_(T, f, bool, MM_P_BOOL)
#define MM_PENUM(T, f)	 MM_PFIELD_(T, f, int, MM_P_ENUM)
#define MM_PSTRING(T, f) MM_PFIELD_(T, f, const char *, MM_P_STRING)

/* Word number idx of choices "a|b|c" (an MM_P_ENUM value), or "". */
const char *mm_enum_word(const char *choices, int idx, char *buf, size_t len);

#define MM_PARAM_END { .name = NULL }

/*
 * The machine needs a workload can declare (struct workload .needs, an OR
 * of MM_NEED_* bits): the one table of them. A row is X(BIT, word): the
 * bit MM_NEED_BIT, the word `mmbench list` and `mmbench info` show, and
 * the check need_word() in bench/needs.c (a row without its check does
 * not build). In `list` order:
 *   root     running as root
 *   numa2    at least two NUMA nodes with memory
 *   thp      THP built in and not "never"
 *   swap     some swap space
 *   tracefs  tracefs mounted (kprobe events)
 */
#define MM_NEEDS(X)		\
	X(ROOT, root)		\
	X(NUMA2, numa2)		\
	X(THP, thp)		\
	X(SWAP, swap)		\
	X(TRACEFS, tracefs)

enum mm_need_index {
#define MM_NEED_INDEX_(bit, word) MM_NEED_INDEX_##bit,
	MM_NEEDS(MM_NEED_INDEX_)
#undef MM_NEED_INDEX_
	MM_NEED_COUNT
};

enum mm_need {
#define MM_NEED_BIT_(bit, word) MM_NEED_##bit = 1 << MM_NEED_INDEX_##bit,
	MM_NEEDS(MM_NEED_BIT_)
#undef MM_NEED_BIT_
};

/* One case: every parameter of the workload with a single value. */
struct mm_case;

/* The canonical case string: "k=v;k=v", keys sorted. */
const char *mm_case_string(const struct mm_case *c);

/* ---------------------------------------------------------------- context */

struct mm_ctx {
	const struct workload *wl;
	const struct mm_case *c;
	const char *run_dir;	/* results/<label>/<run_id>/ */
	const char *scratch_dir; /* per-case scratch dir under run_dir, removed after */
	int iteration;		/* 0-based, counted separately for warm-ups */
	bool warmup;		/* rows go to warmup.csv, never results.csv */
	int ncpus;		/* online CPUs */
	int nnodes;		/* NUMA nodes with memory */
	/* the workload's parameter struct, filled for this case (.params) */
	const void *params;
	char skip_reason[256];	/* set by mm_skip() */
	void *priv;		/* the workload's state from prepare() */
};

/* enum mm_better (which way a metric improves): results.h */

/*
 * A workload's metric table (struct workload .metrics). It names the
 * metrics that carry the experiment's claim (MM_EVIDENCE: a comparison
 * shows them first, judged in the direction given here) and the metrics
 * whose value comes from the clock although the unit does not say so (a
 * ratio of two phase times: .timed). A metric not listed is context; its
 * unit tells whether it is timed (ns, us, ms, s, or a rate per second).
 * The core writes every emitted metric's role to the run's metrics.csv,
 * so the compare tools need no knowledge of workloads.
 */
enum mm_role { MM_CONTEXT, MM_EVIDENCE };

struct mm_metric {
	const char *name;	/* the exact metric name mm_emit() is given */
	enum mm_better better;
	enum mm_role role;
	bool timed;		/* derived from clock time (emulated in a TCG guest) */
	const char *claim;	/* evidence: what the patch posting claims, one line */
};

#define MM_METRIC_END { .name = NULL }

/*
 * Append one row for the current iteration. Returns 0 or -errno. A metric
 * in the workload's metric table takes its direction and role from there.
 */
int mm_emit(struct mm_ctx *ctx, const char *metric, double value,
	    const char *unit, enum mm_better better);
/* mm_emit() with the role of a metric the workload's table does not list. */
int mm_emit_role(struct mm_ctx *ctx, const char *metric, double value,
		 const char *unit, enum mm_better better, enum mm_role role,
		 const char *claim);
/*
 * One raw sample (samples.csv; for latency CDFs): task number, class
 * ("base", "huge", ...) and a value in ns. Not written for warm-ups.
 */
int mm_sample(struct mm_ctx *ctx, int task, const char *cls, uint64_t ns);
/* Extra key,value facts for this run's meta.csv (case-specific notes). */
int mm_note(struct mm_ctx *ctx, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ---------------------------------------------------------------- workload */

struct workload {
	const char *name;
	const char *desc;		/* one line */
	const struct mm_param *params;	/* terminated by MM_PARAM_END */
	size_t params_size;		/* sizeof the struct the rows fill */
	const struct mm_metric *metrics; /* MM_METRIC_END; evidence first */
	unsigned int needs;		/* enum mm_need bits, for `list` */
	/* what still runs where `needs` is not met ("trigger=compact runs
	 * on one node"), for `list` and `info`; optional */
	const char *needs_except;
	/*
	 * Decide whether this case can run here. Return MM_PASS, or MM_SKIP
	 * with the reason via mm_skip(), or MM_FAIL for invalid parameters
	 * (message printed). Runs in the child before prepare(). Optional.
	 */
	int (*probe)(struct mm_ctx *ctx);
	int (*prepare)(struct mm_ctx *ctx);	/* optional; sets ctx->priv */
	int (*run)(struct mm_ctx *ctx);		/* one iteration */
	void (*cleanup)(struct mm_ctx *ctx);	/* optional */
};

extern const struct workload *const mm_workloads[];
const struct workload *mm_workload_find(const char *name);

/* ---------------------------------------------------------------- timing */

static inline uint64_t mm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
 * Emit the standard rows of a phase: NAME_time (ns, lower), NAME_minflt,
 * NAME_majflt, NAME_utime, NAME_stime (info) and NAME_vm_COUNTER (info)
 * for each counter present on this kernel.
 */
int mm_phase_emit(struct mm_ctx *ctx, const struct mm_phase *p,
		  enum mm_better time_better);

/* ---------------------------------------------------------------- settings */

/*
 * Change a sysfs/procfs knob for this run. The original value is appended
 * to the run's journal (fsync'd) before the write; the driver restores it.
 * THP-style "a [b] c" files are saved as the bracketed word.
 */
int mm_setting_set(const char *path, const char *value);
/* Read a knob's current value (bracketed word for THP files). */
int mm_setting_get(const char *path, char *buf, size_t len);
/* Write a one-shot trigger (drop_caches, compact_memory): no journal. */
int mm_trigger(const char *path, const char *value);

/* ---------------------------------------------------------------- tasks */

/*
 * A team of N tasks (processes or threads) run by the core: each task is
 * pinned round-robin to a PU with hwloc, waits on one start barrier that
 * releases all tasks at once, and sees ->stop become nonzero at the
 * deadline (duration_ns after the common start; 0: no deadline). Each task
 * gets a slot of slot_size bytes of shared memory for its results.
 */
struct mm_team;

struct mm_task {
	int id;
	int ntasks;
	struct mm_team *team;
	void *slot;			/* shared with the coordinator */
	void *arg;
	/* the team's stop flag in shared memory: read it with mm_task_stop() */
	const volatile int *stop;
};

struct mm_team_opts {
	int ntasks;
	bool threads;			/* false: fork processes */
	bool pin;			/* pin round-robin with hwloc */
	size_t slot_size;		/* bytes of shared result space per task */
	uint64_t duration_ns;		/* stop deadline after the start */
	int (*fn)(struct mm_task *t);
	void *arg;
};

/*
 * Run the team to completion. Returns MM_PASS when every task returned
 * MM_PASS, else the first failure. *teamp keeps the slots readable
 * (mm_team_slot) until mm_team_free().
 */
int mm_team_run(struct mm_ctx *ctx, const struct mm_team_opts *o,
		struct mm_team **teamp);
void *mm_team_slot(struct mm_team *t, int id);
void mm_team_free(struct mm_team *t);
/*
 * Called by each task exactly once, when ready (also after a setup error,
 * or the others wait forever); returns the common start time (ns).
 */
uint64_t mm_task_start(struct mm_task *t);
/* Start and end time of the whole team run (from the barrier). */
uint64_t mm_team_start_ns(const struct mm_team *t);
uint64_t mm_team_end_ns(const struct mm_team *t);

/*
 * Nonzero once the deadline has passed: one load of the shared flag the
 * coordinator raises, no call, so a task can test it in its inner loop.
 */
static inline int mm_task_stop(const struct mm_task *t)
{
	return __atomic_load_n(t->stop, __ATOMIC_RELAXED);
}

/* Pin the calling thread to PU number idx % PUs (hwloc). */
int mm_pin_self(int idx);

/* ---------------------------------------------------------------- measure */

/*
 * Mark the measured phase of an iteration. Core services that must cover
 * exactly that phase (kernel function call counts from `--probe`) start in
 * mm_measure_begin() and stop in mm_measure_end(), which also emits their
 * rows: calls:FUNC (info) and calls_per_UNIT:FUNC = calls / units (lower,
 * evidence: kernel work per unit).
 * units/unit_name: the workload's unit of work (migrated pages, faults).
 */
void mm_measure_begin(struct mm_ctx *ctx);
void mm_measure_end(struct mm_ctx *ctx, double units, const char *unit_name);
/*
 * Close the measured phase and throw away what the core services gathered
 * in it (call counts, profile samples): nothing is emitted. For a workload
 * that finds the attempt disturbed and runs it again; the retry's
 * mm_measure_begin() starts from zero.
 */
void mm_measure_discard(struct mm_ctx *ctx);
/*
 * Functions this workload counts even without --probe (comma list, added
 * to the user's); call from prepare(). Skipped with a note where tracefs,
 * kprobe events, root or the symbol are missing.
 */
void mm_probe_default(struct mm_ctx *ctx, const char *funcs);

/*
 * The tracefs mount point for this case's own trace instances or events:
 * the one mounted, else a private mount the core makes (and removes after
 * the case, as for --probe). 0, or -1 with the reason in why.
 */
int mm_tracefs(char *dir, size_t len, char *why, size_t whylen);

/* ---------------------------------------------------------------- system */

int mm_ncpus(void);
int mm_nnodes_with_memory(void);
/* MemAvailable from /proc/meminfo in KiB; -1 on error. */
long long mm_mem_available_kb(void);
/* A /proc/meminfo field in KiB; -1 if absent. */
long long mm_meminfo_kb(const char *field);
/* Read a whole small file into buf (NUL-terminated, trailing \n cut). */
int mm_read_file(const char *path, char *buf, size_t len);
/* Swap total in KiB (from /proc/meminfo). */
long long mm_swap_total_kb(void);
/* THP "enabled" mode: "always", "madvise", "never", or "" if absent. */
const char *mm_thp_mode(char *buf, size_t len);
bool mm_is_root(void);
/* Sum a field ("Referenced:", "AnonHugePages:") over smaps entries that
 * overlap [addr, addr+len); KiB, or -1 on error. */
long long mm_smaps_kb(const void *addr, size_t len, const char *field);
/* Percentile (0..100) of a sorted array of n values. */
double mm_percentile(const double *sorted, size_t n, double pct);
void mm_sort_doubles(double *v, size_t n);

#endif /* MMBENCH_H */
