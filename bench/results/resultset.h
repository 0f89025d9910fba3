/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Result-set reader shared by mmcompare, mmplot and mmtrend (the core's
 * results library; the parts are listed in resultset.c).
 *
 * Reads mmbench result directories (the schema of results.h: results.csv,
 * meta.csv, metrics.csv, cases.csv, started.csv and, for mmplot,
 * samples.csv) with libcsv, validates every row, and pools the
 * measured values into lines keyed by (workload, case, metric), one value
 * array per side. A side is one label: all runs that carry the same label
 * are pooled, which is how iterations from several boots of one kernel add
 * up. warmup.csv is never read: warm-up iterations run with cold caches and
 * an unsettled page allocator and must not enter the statistics.
 *
 * Every error names the file and line and leaves the set in a state that
 * rs_free() cleans up; nothing here exits or aborts on bad input.
 */
#ifndef MMBENCH_RESULTSET_H
#define MMBENCH_RESULTSET_H

#include <stdbool.h>
#include <stddef.h>

#include "bigmem.h"
#include "results.h"	/* enum mm_better */
#include "numbers.h"	/* mm_decimal_real: the decimal rule of every number */

#define RS_MAX_SIDES 16


/* rs_init() flags */
#define RS_PER_ARG	(1u << 0)	/* one side per argument, not per label */
#define RS_SAMPLES	(1u << 1)	/* also read samples.csv */

/* Which schema file a buffer holds (rs_parse_buf). */
enum rs_kind { RS_RESULTS, RS_META, RS_SAMPLES_FILE, RS_CASES, RS_STARTED, RS_METRICS,
	       RS_NKINDS };

/*
 * The values of one line on one side. A side pools its runs (results.csv
 * files); each run's values are contiguous, in the order the runs were
 * read, and run_start[] says where runs 2, 3, ... begin (the run as the
 * unit of a comparison: tools/mmcompare/README.md). Samples keep none.
 */
struct rs_vals {
	double *v;
	size_t n, cap;
	size_t *run_start;	/* [nrun_start]: index in v of each later run's first value */
	unsigned nrun_start;
	int last_run;		/* while reading: run + 1 that gave v[n - 1] */
};

/* One (workload, case, metric) with its values on every side. */
struct rs_line {
	const char *workload, *kase, *metric, *unit;
	enum mm_better better;
	int wl_order, case_order, metric_order;
	const char *file;	/* where it was first seen, for conflicts */
	long lineno;
	struct rs_vals *vals;	/* [nvals], index = side */
	int nvals;
	char *name;		/* display name, set by rs_finish() */
	/* set by rs_finish() from the runs' metrics.csv (rs_decl) */
	bool evidence;		/* the workload's experiment evidence */
	bool timed;		/* derived from clock time */
	const char *claim;	/* evidence: the claim it tests, or NULL */
	size_t next_hint;	/* the line that followed this one last time + 1 */
	int it_run;		/* while reading: run + 1 of it_last */
	long it_last;		/* the last iteration that run gave it */
};

struct rs_kv {
	char *key, *value;
};

/*
 * A metrics.csv row: how the workload declared one of its metrics. A
 * metric is evidence, or timed, if any run says so. Runs written before
 * metrics.csv existed have none: there a metric is timed by its unit (ns,
 * us, ms, s, or a rate per second), and calls_per_UNIT:FUNC rows from
 * --probe are evidence, judged lower (they were better=info then).
 */
struct rs_decl {
	char *workload, *metric, *claim;	/* claim may be NULL */
	bool evidence, timed;
};

/*
 * A case of a run that did not pass: its cases.csv row (fail, skip,
 * timeout), or, status "died", a case started.csv has and cases.csv not
 * (mmbench or the machine died while it ran).
 */
struct rs_case_note {
	char *label, *workload, *kase, *status, *reason;
};

/* One run: a results.csv and the files next to it. */
struct rs_run {
	char *path;		/* the results.csv */
	char *run_id;		/* of its rows (one per file) */
	char *label;		/* RS_PER_ARG: of its first row */
	int side;		/* -1 until its first row */
	int arg;		/* index of the argument it came from */
	bool has_meta;
	struct rs_kv *meta;
	int nmeta;
	struct rs_decl *decls;	/* metrics.csv */
	int ndecls;
	long nrows;
	struct rs_case_note *notes;	/* in the order of the files */
	int nnotes;
	/* while loading: every started.csv row (reason: its start_time) and
	 * every cases.csv row */
	struct rs_case_note *started, *ended;
	int nstarted, nended;
};

struct rs_side {
	char *name;		/* the label (made unique with --per-arg) */
	int arg;		/* RS_PER_ARG: the argument; else -1 */
	long nrows;
	int nruns;
};

/* Raw samples (e.g. per-fault latencies) of one side, case and class. */
struct rs_sampleset {
	int side;
	const char *workload, *kase, *klass;
	struct rs_vals vals;
};

struct rs_workload {
	const char *name;
	char **vary;		/* case keys whose value differs between cases */
	int nvary;
	char *fixed;		/* "k=v;k=v" of the keys that do not */
	size_t first, count;	/* range in rs_set.sorted */
};

struct rs_strtab;
struct rs_hash;

/* A results.csv named by an argument, read by rs_finish(). */
struct rs_pending {
	char *path;
	int arg;
	unsigned long long dev, ino;	/* the same file named twice is refused */
};

struct rs_set {
	unsigned flags;
	struct rs_side sides[RS_MAX_SIDES];
	int nsides;
	struct rs_run *runs;
	int nruns;
	int cur_arg;		/* argument index while loading */
	struct rs_pending *pending;
	int npending;
	struct rs_line *lines;		/* = lines_mem.p */
	struct big_buf lines_mem;
	size_t nlines, caplines;
	struct rs_line **sorted;	/* after rs_finish() */
	struct rs_workload *wls;
	int nwls;
	struct rs_sampleset *samples;
	size_t nsamples, capsamples;
	struct rs_strtab *strs;
	struct rs_hash *line_idx, *sample_idx;
	struct big_arena vals_mem;	/* every rs_vals.v and rs_line.vals */
	int norder;		/* first-appearance counter */
	char err[1024];
	char warn[4096];	/* non-fatal notes (missing meta.csv ...) */
};

void rs_init(struct rs_set *s, unsigned flags);
void rs_free(struct rs_set *s);
/*
 * A run directory, a results.csv, or a directory of run directories: the
 * runs are found now and read by rs_finish(), several at once on threads.
 */
int rs_add_arg(struct rs_set *s, const char *arg);
/* Parse one schema file from memory into run @run (fuzzing, tests). */
int rs_parse_buf(struct rs_set *s, enum rs_kind kind, const char *name,
		 const void *buf, size_t len, int run);
/* Start a run whose files are read with rs_parse_buf(). */
int rs_new_run(struct rs_set *s, const char *path);
/* Read the runs rs_add_arg() found; sort lines, group them by workload,
 * build display names. */
int rs_finish(struct rs_set *s);

/* How many runs gave values to v (0 when it has none). */
static inline size_t rs_vals_nruns(const struct rs_vals *v)
{
	return v->n ? (size_t)v->nrun_start + 1 : 0;
}
/* Run i's values of v: v->v[*from .. *to). */
static inline void rs_vals_run(const struct rs_vals *v, size_t i, size_t *from, size_t *to)
{
	*from = i ? v->run_start[i - 1] : 0;
	*to = i < v->nrun_start ? v->run_start[i] : v->n;
}
/* The side name a run's notes belong to (its label when it has no rows). */
const char *rs_run_side_name(const struct rs_set *s, const struct rs_run *r,
			     const struct rs_case_note *n);
/* Meta value of a run, NULL if absent. */
const char *rs_meta_get(const struct rs_run *r, const char *key);
/* Value of KEY in a canonical case string into buf; false if absent. */
bool rs_case_get(const char *kase, const char *key, char *buf, size_t len);

#endif /* MMBENCH_RESULTSET_H */
