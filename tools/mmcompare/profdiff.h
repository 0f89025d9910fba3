/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel profiles of mmbench runs (--profile) and their difference,
 * shared by mmprofile (every line, text, markdown, TSV, chart) and
 * mmcompare's text views (the first lines per case).
 *
 * A set holds sides; a side pools the runs of one label (or one argument,
 * or whatever side the caller names), per case the sums of each symbol's
 * share over the profiled iterations, and the hashes of its kernel's
 * function names (profile/kernel_functions.fnv32). Each run's
 * profile_iterations.csv says which iterations were profiled; profile.csv
 * rows count only for an iteration whose row there says "ok" (the commit
 * row, written after the iteration's symbol rows), and a last line without
 * its newline (a torn write) is left out, named on stderr.
 *
 * Everything lives in struct pd_set; pd_free() releases it, whatever an
 * error left behind. Errors (a file that cannot be read or is malformed,
 * too many sides) return -1 with pd_set.err saying which file and what is
 * wrong, without the program's name. Out of memory exits.
 */
#ifndef MMC_PROFDIFF_H
#define MMC_PROFDIFF_H

#include <stdbool.h>
#include <stddef.h>

#define PD_MAX_SIDES 16
/* Fields of the profile files are shorter than this (bytes, with the NUL). */
#define PD_FIELD_MAX 2048
/* Lines of the difference in a summary (mmprofile --summary, mmcompare). */
#define PD_SUMMARY_LINES 3
/* A share that vanished below this (percent) is not "gone", just small. */
#define PD_VANISH_MIN 0.5

/* The columns read, found by name in the headers of results.h. */
struct pd_cols {
	int label, wl, kase, prof, iter, event;		/* both files */
	int sym, dso, self, child;			/* profile.csv */
	int freq, cg, status, reason;			/* profile_iterations.csv */
};

struct pd_sym {
	char *sym, *dso;
	double self, child;	/* sums of shares over profiled iterations */
	bool present;
};

struct pd_case {
	char *wl, *cs;
	int n_ok, n_other;
	char why[300];		/* the first reason of an unprofiled iteration */
	char event[32];
	int freq;
	int cg;			/* 1 every iteration had call graphs, 0 none, 2 mixed */
	/* the functions the posting names (meta.csv's note_profile_focus:
	 * --probe's and the workload's default probes, armed or not) */
	char **focus;
	int nfocus;
	/* the functions kprobes were armed on while perf sampled (meta.csv's
	 * note_profile_probes): their cost is in those functions' shares */
	char armed[256];
	struct pd_sym *s;
	int ns, caps;
};

struct pd_side {
	char label[256];
	char event[32];
	struct pd_case *k;
	int nk, capk;
	int nruns;
	/* hashes of the kernel's function names (profile/kernel_functions.fnv32
	 * of its runs); nfn 0: unknown, every function counts as present */
	unsigned int *fn;
	size_t nfn;
};

struct pd_set {
	const char *prog;	/* names a torn last line on stderr */
	struct pd_cols col;
	struct pd_side sides[PD_MAX_SIDES];
	int nsides;
	char err[4800];		/* why the last call failed */
};

void pd_init(struct pd_set *p, const char *prog);
void pd_free(struct pd_set *p);

/* A run directory: it has profile_iterations.csv, results.csv or meta.csv. */
bool pd_is_run(const char *dir);
/* A run directory with profile data: profile_iterations.csv or profile.csv. */
bool pd_has_profile(const char *dir);

/* A new, empty side named label: its index, or -1 (too many sides). */
int pd_side_add(struct pd_set *p, const char *label);
/*
 * One run directory into side `side`, or with side < 0 into the side of
 * its label (meta.csv's, else its profile rows', else the directory),
 * made when new. 0, or -1 with p->err set.
 */
int pd_add_run(struct pd_set *p, const char *dir, int side);
/* An argument: a run directory, a file in one, or a directory of runs. */
int pd_add_arg(struct pd_set *p, const char *arg, int side);

/* One symbol of a case's difference between a BASE and a NEW side. */
struct pd_line {
	const char *sym, *dso;
	double base, new, base_self, new_self;
	bool in_base, in_new;
	bool fn_base, fn_new;	/* the function exists in that side's kernel */
	bool focus;		/* a focus function, or by its name one of its callees */
	int cat;		/* 0 stopped or started running, 1 both, 2 one kernel only */
};

const struct pd_case *pd_find_case(const struct pd_side *s, const char *wl, const char *cs);
const struct pd_sym *pd_find_sym(const struct pd_case *k, const char *sym, const char *dso);
/* The mean share of a over k's profiled iterations (children or self). */
double pd_share(const struct pd_case *k, const struct pd_sym *a, bool children);
/*
 * With a software clock, the interrupt-enable point (mm_irq_on_point)
 * with the largest mean self share of k, when that share (*share) is at
 * least MM_IRQ_POINT_PCT; else NULL.
 */
const struct pd_sym *pd_irq_point(const struct pd_case *k, double *share);
/*
 * The notes of a case for a summary, "; " between them: "63.08 -> 64.31%
 * of the samples at pvm_irq_enable, where interrupts come back on: ..."
 * when pd_irq_point flags either side; "kprobes armed while sampling on
 * BASE (lru_add_drain): ..." when a side had probes armed. false (and "")
 * when there is none. bl and nl name the sides.
 */
bool pd_case_note(char *buf, size_t len, const struct pd_case *b, const struct pd_case *n,
		  const char *bl, const char *nl);
/* "kprobes on F were armed while perf sampled: ..." for k, or "". */
void pd_armed_note(char *buf, size_t len, const struct pd_case *k);
/* Both cases profiled with call graphs in every iteration: children shares. */
bool pd_both_callgraph(const struct pd_case *b, const struct pd_case *n);
/*
 * The lines to show for one case: every focus function in either profile
 * and, where they hold at least PD_VANISH_MIN, their callees by name;
 * every function that stopped or started running (share
 * >= PD_VANISH_MIN), each side's top `top` symbols and the `top` largest
 * changes; first the focus functions, then those that stopped or
 * started, then the rest by the size of the change, last the functions
 * only one kernel has. malloc'd, *nout lines; they point into the sides.
 */
struct pd_line *pd_diff(const struct pd_side *sb, const struct pd_case *b,
			const struct pd_side *sn, const struct pd_case *n, bool children,
			int top, int *nout);
/* "gone", "new", "base-fn", "new-fn" or "", after "focus, " on a focus line. */
const char *pd_mark(const struct pd_line *l);
/* "7.02" for a share in percent; "-" for no row at all. */
void pd_fmt_share(char *buf, size_t len, double v, bool present);

/* The cases of all sides, in first-seen order (malloc'd, *n). */
struct pd_caseref {
	const char *wl, *cs;
};

struct pd_caseref *pd_cases(const struct pd_set *p, int *n);

/*
 * The summary of the difference: per case and NEW side, the first
 * PD_SUMMARY_LINES lines of the difference (of the top 10), or why there
 * are none (`none`: "BASE" or "this side" has no profile of the case).
 */
struct pd_summary {
	const char *wl, *cs;
	int side;			/* the NEW side */
	const struct pd_case *b, *n;	/* NULL: no such case on that side */
	const char *none;		/* NULL when there are lines */
	bool children;
	struct pd_line l[PD_SUMMARY_LINES];
	int nl;
};

/* malloc'd, *n entries (cases in pd_cases() order, then NEW sides). */
struct pd_summary *pd_summaries(const struct pd_set *p, int *n);

#endif /* MMC_PROFDIFF_H */
