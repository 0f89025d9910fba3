/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmcompare's parts: the options main() parsed (mmcompare.c), and the
 * outputs made from a comparison (compare.h): the text views (cmptext.c),
 * the kernel profiles under them (cmpprof.c), CSV (cmpcsv.c), markdown
 * (cmpmd.c), and what those share (cmpfmt.c).
 */
#ifndef MMC_MMCOMPARE_H
#define MMC_MMCOMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"

enum format { FMT_TEXT, FMT_CSV, FMT_MARKDOWN };

struct opts {
	enum format fmt;
	bool all, brief, force, fail_on_regression, per_arg, labels;
	bool judge_emulated, iterations_as_samples;
	enum cmp_correction correction;
	double alpha;
	/* the inputs, for the mmprofile command the text views print */
	const char *argv0;
	char *const *args;
	int nargs;
};

/* cmpfmt.c: values as mmtests prints them */
bool fast_fix2(double v, char *buf, size_t len);
const char *fmt_val(double v, char *buf, size_t len);
int val_width(double v);
const char *fmt_p(const struct cmp_cell *c, char *buf, size_t len);
const char *fmt_ci(const struct cmp_cell *c, char *buf, size_t len);
bool any_verdict(const struct cmp *cmp, const struct cmp_row *r, enum cmp_verdict v);
const char *row_note(const struct cmp *cmp, const struct cmp_row *r);
/* cmpfmt.c: items [0, n) formatted by fn, [mid, n) on a second thread */
typedef void (*range_fn)(const void *arg, size_t from, size_t to, FILE *f);
void print_halves(range_fn fn, const void *arg, size_t n, size_t mid, FILE *out);
/*
 * cmpfmt.c: case outcomes from the runs' cases.csv and started.csv: the
 * cases that failed, timed out or died are listed (a patch that crashes a
 * case shows up next to its numbers, not only as lines missing on one
 * side); skipped ones are counted per side.
 */
struct skip_count {
	const char *side;
	long n;
};
size_t case_notes(const struct rs_set *s, struct skip_count *skips, int *nskips);
const struct rs_case_note *next_bad_note(const struct rs_set *s, int *run, int *k,
					 const struct rs_run **r);

/* cmptext.c */
void print_meta_text(const struct rs_set *s, const struct cmp_meta *m, FILE *f, bool force);
void print_text(const struct cmp *cmp, const struct cmp_meta *m, const struct opts *o,
		FILE *f);
/* cmpprof.c: the kernel profiles of runs made with --profile */
void print_profiles(const struct rs_set *s, const struct opts *o, FILE *f);
/* cmpcsv.c: compare.csv */
void print_csv(const struct cmp *cmp, FILE *f);
/* cmpmd.c */
void print_markdown(const struct cmp *cmp, const struct cmp_meta *m, FILE *f);

#endif /* MMC_MMCOMPARE_H */
