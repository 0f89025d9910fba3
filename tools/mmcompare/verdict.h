/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict view of a comparison: per workload and case, the evidence
 * metrics first, then the other metrics that changed significantly, then
 * one line counting the rest. Values are scaled for reading (ns -> us, ms,
 * s; large counts with thousands separators). mmcompare's default text
 * output and the head of its markdown (report.md) are made here.
 */
#ifndef MMC_VERDICT_H
#define MMC_VERDICT_H

#include <stdio.h>

#include "compare.h"

/* Columns of the terminal on stdout; COLUMNS, else 100 when not a tty. */
int vd_width(void);
/*
 * Meta facts that differ, each value cut to fit @width columns; unless
 * @all, only those that change the answer and a few others (never the
 * VM lab's per-run timings), with a line counting the rest.
 */
void vd_meta_text(const struct rs_set *s, const struct cmp_meta *m, FILE *f, bool force,
		  bool all, int width);
/* The headline blocks of every workload. */
void vd_text(const struct cmp *c, FILE *f);
/* The verdict summary: evidence, other judged metrics, emulated, n<3. */
void vd_summary_text(const struct cmp *c, size_t bad_cases, FILE *f);
/* The verdict summary on one line (markdown). */
void vd_summary_md(const struct cmp *c, FILE *f);
/* "## Verdict" and a headline table per workload (markdown). */
void vd_markdown(const struct cmp *c, FILE *f);
/* Input text as inert markdown; a name for a marker comment. */
void vd_md_text(FILE *f, const char *s);
void vd_md_marker(FILE *f, const char *s);
/*
 * Text wrapped at blanks to width columns (0: one line); lines after the
 * first are indented two more than the text's own indent.
 */
void vd_wrap(FILE *f, const char *text, int width);
/* How the p-values were judged, one sentence (text and markdown intros). */
void vd_method(const struct cmp *c, FILE *f);

#endif /* MMC_VERDICT_H */
