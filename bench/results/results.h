/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result schema, defined once: the files of a run directory, their
 * columns in order, the schema version every row carries, and the rules a
 * value must follow. The driver writes by it (csvout.c, driver.c,
 * profile.c); every reader checks by it: `mmbench summary`, the result-set
 * reader of mmcompare, mmplot and mmtrend (resultset*.c), the nightly
 * tools and the generators of synthetic runs (a results.csv row through
 * its one reader, resrow.h). A reader finds a column by
 * its name in the header (mm_schema_col()), never by a position of its own.
 *
 * A new column goes at the end of its file's header; renaming or removing
 * one, or changing what a value means, is a new MM_SCHEMA_VERSION.
 */
#ifndef MMBENCH_RESULTS_H
#define MMBENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#define MM_SCHEMA_VERSION 1
#define MM_SCHEMA_STR "1"

/* The identity every row of a run's per-case files starts with. */
#define MM_KEY_COLUMNS "schema,run_id,label,kernel,workload,case"

/* results.csv (and warmup.csv): one row per metric and iteration. */
#define MM_RESULTS_HEADER MM_KEY_COLUMNS ",iteration,metric,value,unit,better"
/*
 * cases.csv: one row per case that ended. Its last five columns (the
 * measured iterations and the precision they reached, bench/SCHEMA.md)
 * came later: a file with only the first ten (MM_CASES_HEADER_10) is
 * still read (mm_schema_earlier()).
 */
#define MM_CASES_HEADER_10 MM_KEY_COLUMNS ",status,reason,signal,duration_s"
#define MM_CASES_HEADER MM_CASES_HEADER_10 \
	",iterations,precision_target_pct,precision_pct,precision_metric,stopped_by"
/* started.csv: one row per case, on disk before the case runs. */
#define MM_STARTED_HEADER MM_KEY_COLUMNS ",start_time"
/* samples.csv: raw per-event samples (latency CDFs). */
#define MM_SAMPLES_HEADER MM_KEY_COLUMNS ",iteration,task,class,value_ns"
/* metrics.csv: each (workload, metric) of the run once, with its role. */
#define MM_METRICS_HEADER "schema,workload,metric,unit,better,role,timed,claim"
/* meta.csv: the facts of the run (sysinfo.c), then mm_note()s. */
#define MM_META_HEADER "key,value"
/*
 * profile.csv: one row per symbol and iteration (and one "[other]" row).
 * "profile" names the case's profile (<workload>-<pid>), unique in the run
 * directory, so a case run twice into one directory keeps its iterations
 * apart.
 */
#define MM_PROFILE_HEADER MM_KEY_COLUMNS ",profile,iteration,event," \
	"symbol,dso,self_pct,children_pct,samples,total_samples"
/*
 * profile_iterations.csv: one row per measured iteration, written after
 * that iteration's profile.csv rows (and synced): an iteration's symbol
 * rows count only once this row says "ok".
 */
#define MM_PROFILE_ITER_HEADER MM_KEY_COLUMNS ",profile,iteration,event," \
	"freq_hz,callgraph,status,reason,start_s,end_s,total_samples," \
	"idle_samples,perf_data"

/*
 * Column positions in the files mmbench writes, for the writers, which
 * fill a row in header order. tests/core/unit.c checks each against the
 * header through mm_schema_col(). Readers use mm_schema_col() on the
 * header they read.
 */
enum mm_key_col { MM_COL_SCHEMA, MM_COL_RUN_ID, MM_COL_LABEL, MM_COL_KERNEL,
		  MM_COL_WORKLOAD, MM_COL_CASE, MM_NKEY };
enum mm_results_col { MM_RES_ITERATION = MM_NKEY, MM_RES_METRIC, MM_RES_VALUE,
		      MM_RES_UNIT, MM_RES_BETTER, MM_RES_NCOLS };
enum mm_cases_col { MM_CASE_STATUS = MM_NKEY, MM_CASE_REASON, MM_CASE_SIGNAL,
		    MM_CASE_DURATION, MM_CASE_ITERATIONS, MM_CASE_PREC_TARGET,
		    MM_CASE_PREC_PCT, MM_CASE_PREC_METRIC, MM_CASE_STOPPED_BY,
		    MM_CASE_NCOLS };
enum mm_started_col { MM_START_TIME = MM_NKEY, MM_START_NCOLS };
enum mm_samples_col { MM_SAMP_ITERATION = MM_NKEY, MM_SAMP_TASK, MM_SAMP_CLASS,
		      MM_SAMP_VALUE_NS, MM_SAMP_NCOLS };
enum mm_metrics_col { MM_MET_SCHEMA, MM_MET_WORKLOAD, MM_MET_METRIC, MM_MET_UNIT,
		      MM_MET_BETTER, MM_MET_ROLE, MM_MET_TIMED, MM_MET_CLAIM,
		      MM_MET_NCOLS };

/* A schema file: its name in a run directory and its header. */
struct mm_schema_file {
	const char *name;
	const char *header;
};

/* Every file of the schema, ending with { NULL, NULL }. */
extern const struct mm_schema_file mm_schema_files[];
/* The header of a schema file by name ("warmup.csv" too), or NULL. */
const char *mm_schema_header(const char *file);
/*
 * A file header that is an earlier form of the schema's header (the same
 * columns, fewer at the end, as a file written before the later columns
 * existed has): its number of columns, or -1. Readers that require a
 * header (mm_csv_read()) take such a file; its rows have that many fields.
 */
int mm_schema_earlier(const char *header, const char *file_header);
/* The 0-based position of column NAME in a header line; -1 if absent. */
int mm_schema_col(const char *header, const char *name);
/* The name of column COL of a header line into buf ("" if none). */
const char *mm_schema_colname(const char *header, int col, char *buf, size_t len);
/* The number of columns of a header line. */
int mm_schema_ncols(const char *header);

/*
 * The metric name rule: 1 to MM_METRIC_MAX of [A-Za-z0-9_.:]
 * (mthp_64kB_anon_fault_alloc, calls_per_page_out:f.isra.0). The writer
 * refuses a name outside it; the readers reject one.
 */
#define MM_METRIC_MAX 200
bool mm_metric_name_ok(const char *metric);
/* The same for a name that is not NUL-terminated. */
bool mm_metric_name_okn(const char *metric, unsigned long len);

/*
 * "better": which way a metric improves; info is never judged. The one
 * enum of the driver, the readers and the tools, and its one parser.
 */
enum mm_better { MM_LOWER, MM_HIGHER, MM_INFO };
#define MM_BETTER_WORDS "lower, higher or info"
/* "lower", "higher" or "info" into *b: 0, else -1 with *b unchanged. */
int mm_better_parse(const char *s, enum mm_better *b);
/* The word of b, as results.csv writes it. */
const char *mm_better_str(enum mm_better b);
/*
 * Units that say a value comes from the clock: times (ns, us, ms, s) and
 * rates per second. A timed metric of an emulated (TCG) guest is not judged.
 */
bool mm_unit_timed(const char *unit);

/*
 * profile/kernel_functions.fnv32 holds, per kernel function name, its
 * FNV-1a 32-bit hash (4 bytes, little-endian, sorted): written by --profile,
 * read by the profile comparison. One definition for both.
 */
unsigned int mm_fnv32(const char *s);

/*
 * A kernel function where interrupts are turned back on (pvm_irq_enable,
 * native_irq_enable, _raw_spin_unlock_irqrestore, ...). A sampling clock
 * that is itself an interrupt (the software cpu-clock and task-clock)
 * cannot stop code that runs with interrupts off: its samples there land
 * where they are turned back on, so a large share at such a point is the
 * time of code the profile does not show. Said beside a profile (--profile
 * at the end of a case, and the profile comparison) when one such function
 * holds at least MM_IRQ_POINT_PCT percent of a case's samples.
 */
bool mm_irq_on_point(const char *sym);
/* The event is a software clock (cpu-clock, task-clock). */
bool mm_soft_clock(const char *event);
/*
 * Every control byte of s[0..n) but NUL (0x01-0x1f, 0x7f: terminal escapes,
 * line breaks, tabs) replaced by '?'. The readers behind the comparison
 * views (the result set's, profdiff's) call it on every field, so no text
 * from a file reaches a terminal, a report or a TSV line as anything but
 * printable text. Returns how many of them were line breaks.
 */
size_t mm_text_printable(char *s, size_t n);
#define MM_IRQ_POINT_PCT 20.0

#endif /* MMBENCH_RESULTS_H */
