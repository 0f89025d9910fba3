/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparison of every line of a result set against the base side (side 0),
 * and of the runs' meta facts. Shared by mmcompare and mmplot.
 */
#ifndef MMC_COMPARE_H
#define MMC_COMPARE_H

#include "resultset.h"
#include "stats.h"

/* Below this many iterations on a side, no significance is claimed. */
#define CMP_MIN_N 3

enum cmp_verdict {
	CMP_BASE,	/* the base side itself */
	CMP_BETTER,	/* significantly better */
	CMP_WORSE,	/* significantly worse */
	CMP_SAME,	/* no significant difference */
	CMP_INFO,	/* better=info: shown, not judged */
	CMP_TOO_FEW,	/* fewer than CMP_MIN_N iterations on a side */
	CMP_MISSING,	/* the line is absent on this side or on the base */
	CMP_EMULATED,	/* a time from a QEMU TCG guest: shown, not judged */
	CMP_ONE_RUN,	/* a time from one run per side: its iterations share the
			 * machine's state, so they cannot judge it (unless
			 * cmp_opts.iterations_as_samples) */
	CMP_OVERFLOW,	/* finite values whose statistics overflow a double */
};

/* Which variance decided a NEW cell's test. */
enum cmp_by {
	CMP_BY_NONE,		/* not tested */
	CMP_BY_EXACT,		/* no variance on either side */
	CMP_BY_ITERATIONS,	/* one run per side: its iterations as samples */
	CMP_BY_RUNS,		/* a side with k >= 2 runs: the run as the unit */
};

/* How p-values are corrected for the many metrics one comparison judges. */
enum cmp_correction {
	CMP_BH,		/* Benjamini-Hochberg: false discovery rate (default) */
	CMP_NONE,	/* raw p against alpha */
};

struct cmp_opts {
	double alpha;
	enum cmp_correction correction;
	bool judge_emulated;	/* judge times from TCG guests too */
	/* the old way: every iteration an independent sample, whatever the
	 * runs (times of one run per side judged too) */
	bool iterations_as_samples;
};

struct cmp_cell {
	bool present;
	struct st_summary sum;
	struct st_runs runs;	/* this side's runs (the run as the unit) */
	bool pct_ok;
	double pct;	/* % change vs base; positive = better (info: raw) */
	struct st_welch w;
	double diff;		/* mean - base mean (the absolute change) */
	enum cmp_by by;		/* which variance decided the test */
	enum st_var var_base, var_new;	/* where each side's variance came from */
	/* judged cells: the smallest change the test that decides finds with
	 * 80% power (bench/results/mdc.h) at cmp.mdc_level, with the variance that
	 * decided; 0 when exact. mdc_pct: in % of the base's tested mean. */
	double mdc, mdc_pct;
	bool mdc_ok, mdc_pct_ok;
	bool overflow;		/* a statistic overflowed: nothing claimed */
	bool exact;		/* no variance on either side, n >= CMP_MIN_N: the
				 * change (or its absence) is certain, p = 0 */
	bool emulated;		/* timed, and this side or the base ran under TCG */
	bool judged;		/* counted in the verdict and the FDR family */
	double p_adj;		/* corrected p (valid when p_ok) */
	bool p_ok;		/* p and p_adj are set (Welch or exact) */
	bool significant;
	enum cmp_verdict verdict;
};

struct cmp_row {
	struct rs_line *line;
	bool hmean;
	bool partial;		/* absent on at least one side */
	struct cmp_cell *cell;	/* [nsides] */
};

struct cmp {
	struct rs_set *set;
	double alpha;
	struct cmp_opts opts;
	bool emulated[RS_MAX_SIDES];	/* the side ran in a TCG guest */
	size_t nfamily;		/* judged cells the correction ran over */
	/* the raw level a test needs to be significant: alpha without
	 * correction; with Benjamini-Hochberg, R significant of m,
	 * alpha * (R + 1) / m (at most alpha): what one more would need */
	double mdc_level;
	int nsides;
	struct cmp_row *rows;	/* in rs_set.sorted order */
	size_t nrows;
	struct cmp_cell *cells;
	struct big_buf rows_mem, cells_mem;	/* rows, cells */
	/* judged cells (evidence counted apart too), emulated cells */
	size_t nbetter, nworse, ntoofew, npartial, nsame;
	size_t ev_better, ev_worse, ev_same, ev_toofew;
	size_t nemulated;
	size_t nonerun, ev_onerun;	/* times of one run per side, not judged */
	size_t noverflow;		/* lines whose statistics overflowed */
	size_t nby[CMP_BY_RUNS + 1];	/* judged cells by what decided */
	size_t nmissing_new;	/* judged lines on BASE absent on a NEW side */
};

/* Default options: Benjamini-Hochberg at alpha, emulated times not judged. */
int cmp_build(struct cmp *c, struct rs_set *s, double alpha);
int cmp_build_opts(struct cmp *c, struct rs_set *s, const struct cmp_opts *o);
/* The correction's name for output: "Benjamini-Hochberg" or "none". */
const char *cmp_correction_str(enum cmp_correction c);
void cmp_free(struct cmp *c);
const char *cmp_verdict_str(enum cmp_verdict v);
/* "exact", "iterations", "runs"; "" when not tested. */
const char *cmp_by_str(enum cmp_by b);
/* "runs", "within", "borrowed", "iterations"; "" for none. */
const char *cmp_var_str(enum st_var v);
const char *cmp_mean_name(const struct cmp_row *r);

struct cmp_fact {
	const char *key;
	char *val[RS_MAX_SIDES];	/* "a", "(absent)", or "a | b" if runs differ */
	bool critical;			/* a difference that changes the answer */
	bool per_run;			/* differs on every run by nature (a timing) */
};

struct cmp_meta {
	struct cmp_fact *f;
	int n;
	int ncritical;
};

/* Facts that differ between or within sides. Returns 0 or -1 (no memory). */
int cmp_meta(const struct rs_set *s, struct cmp_meta *m);
void cmp_meta_free(struct cmp_meta *m);

#endif /* MMC_COMPARE_H */
