// SPDX-License-Identifier: GPL-2.0
/*
 * mmcompare --markdown (report.md): the verdict (verdict.c), the meta
 * facts, the cases that did not pass, and a table per workload.
 */
#include <stdio.h>
#include <string.h>

#include "mmcompare.h"
#include "verdict.h"

/* ------------------------------------------------------------ markdown */

#define md_str vd_md_text

static void md_meta(const struct rs_set *s, const struct cmp_meta *m, FILE *f)
{
	int i, j;

	fprintf(f, "<!-- mmcompare:meta -->\n## Meta facts that differ\n\n");
	if (!m->n) {
		fprintf(f, "None: the runs agree on every recorded fact.\n\n");
		return;
	}
	fprintf(f, "| fact |");
	for (j = 0; j < s->nsides; j++) {
		fputc(' ', f);
		md_str(f, s->sides[j].name);
		fprintf(f, " |");
	}
	fprintf(f, " changes the answer |\n|---|");
	for (j = 0; j < s->nsides; j++)
		fprintf(f, "---|");
	fprintf(f, "---|\n");
	for (i = 0; i < m->n; i++) {
		fprintf(f, "| %s |", m->f[i].key);
		for (j = 0; j < s->nsides; j++) {
			fputc(' ', f);
			md_str(f, m->f[i].val[j]);
			fprintf(f, " |");
		}
		fprintf(f, " %s |\n", m->f[i].critical ? "**yes**" : "no");
	}
	fprintf(f, "\n");
}

static void md_side_cell(FILE *f, const struct cmp_cell *c)
{
	char v[48], sd[48];

	if (!c->present) {
		fprintf(f, " - |");
		return;
	}
	fprintf(f, " %s", fmt_val(c->sum.mean, v, sizeof(v)));
	if (c->sum.sd_ok)
		fprintf(f, " ± %s", fmt_val(c->sum.sd, sd, sizeof(sd)));
	if (c->runs.k > 1)
		fprintf(f, " (n=%zu, %zu runs) |", c->sum.n, c->runs.k);
	else
		fprintf(f, " (n=%zu) |", c->sum.n);
}

static void md_cmp_cells(FILE *f, const struct cmp_cell *c)
{
	char pct[32], p[32], ci[96];
	bool not_judged = c->verdict == CMP_INFO || c->verdict == CMP_EMULATED ||
			  c->verdict == CMP_ONE_RUN || c->verdict == CMP_OVERFLOW;

	if (c->verdict == CMP_MISSING) {
		fprintf(f, " - | - | - | - | - |");
		return;
	}
	snprintf(pct, sizeof(pct), "%+.2f%%", c->pct);
	if (!c->pct_ok)
		snprintf(pct, sizeof(pct), c->overflow ? "overflow" : "n/a");
	fprintf(f, c->significant ? " **%s** |" : not_judged ? " [%s] |" : " %s |", pct);
	fprintf(f, " %s |", fmt_p(c, p, sizeof(p)));
	if (c->exact)
		fprintf(f, " exact |");
	else if (c->judged && c->p_ok)
		fprintf(f, c->p_adj < 0.0001 ? " %.1e |" : " %.4f |", c->p_adj);
	else
		fprintf(f, " - |");
	fprintf(f, " %s |", fmt_ci(c, ci, sizeof(ci)));
	if (c->mdc_pct_ok)
		fprintf(f, " %.2f%% |", c->mdc_pct);
	else
		fprintf(f, " - |");
}

static void md_table_head(const struct cmp *cmp, FILE *f)
{
	int i;

	fprintf(f, "| line | mean | unit | better |");
	for (i = 0; i < cmp->nsides; i++) {
		fputc(' ', f);
		md_str(f, cmp->set->sides[i].name);
		fprintf(f, " |");
		if (i)
			fprintf(f, " change | p | p adj. | CI%.0f of diff | mdc |",
				100 * (1 - cmp->alpha));
	}
	fprintf(f, " note |\n|---|---|---|---|");
	for (i = 0; i < cmp->nsides; i++)
		fprintf(f, i ? "---:|---:|---:|---:|---|---:|" : "---:|");
	fprintf(f, "---|\n");
}

static void md_workload(const struct cmp *cmp, const struct rs_workload *w, FILE *f)
{
	size_t k;
	int i;

	fprintf(f, "<!-- mmcompare:workload ");
	vd_md_marker(f, w->name);
	fprintf(f, " -->\n## ");
	md_str(f, w->name);
	fprintf(f, ": every line\n\n");
	if (w->nvary) {
		fprintf(f, "Cases vary in:");
		for (i = 0; i < w->nvary; i++)
			fprintf(f, "%s %s", i ? "," : "", w->vary[i]);
		fprintf(f, ". ");
	}
	if (w->fixed) {
		fprintf(f, "Fixed: ");
		md_str(f, w->fixed);
		fprintf(f, ".");
	}
	fprintf(f, "\n\n");
	md_table_head(cmp, f);
	for (k = w->first; k < w->first + w->count; k++) {
		const struct cmp_row *r = &cmp->rows[k];

		fprintf(f, "| ");
		md_str(f, r->line->name);
		fprintf(f, " | %s | ", cmp_mean_name(r));
		md_str(f, r->line->unit);
		fprintf(f, " | %s |", mm_better_str(r->line->better));
		for (i = 0; i < cmp->nsides; i++) {
			md_side_cell(f, &r->cell[i]);
			if (i)
				md_cmp_cells(f, &r->cell[i]);
		}
		fprintf(f, " %s |\n", r->partial ? "on one side only" : row_note(cmp, r));
	}
	fprintf(f, "\n");
}

static void md_partial(const struct cmp *cmp, FILE *f)
{
	size_t k;
	int i;

	if (!cmp->npartial)
		return;
	fprintf(f, "Present on one side only:\n\n");
	for (k = 0; k < cmp->nrows; k++) {
		const struct cmp_row *r = &cmp->rows[k];

		if (!r->partial)
			continue;
		fprintf(f, "- ");
		md_str(f, r->line->workload);
		fprintf(f, " ");
		md_str(f, r->line->name);
		fprintf(f, " (");
		md_str(f, r->line->kase);
		fprintf(f, "): missing in");
		for (i = 0; i < cmp->nsides; i++) {
			if (r->cell[i].present)
				continue;
			fprintf(f, " ");
			md_str(f, cmp->set->sides[i].name);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static void md_intro(const struct cmp *cmp, FILE *f)
{
	const struct rs_set *s = cmp->set;
	int i, j;

	fprintf(f, "# mmcompare:");
	for (i = 0; i < s->nsides; i++) {
		fprintf(f, "%s ", i ? " vs" : "");
		md_str(f, s->sides[i].name);
	}
	fprintf(f, "\n\nInputs:\n\n");
	for (i = 0; i < s->nsides; i++) {
		fprintf(f, "- ");
		md_str(f, s->sides[i].name);
		fprintf(f, " (%s):", i ? "NEW" : "BASE");
		for (j = 0; j < s->nruns; j++)
			if (s->runs[j].side == i)
			{
				fputc(' ', f);
				md_str(f, s->runs[j].path);
			}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

/* Before the full tables: how to read them. */
static void md_legend(const struct cmp *cmp, FILE *f)
{
	fprintf(f, "Full tables: change vs BASE (");
	md_str(f, cmp->set->sides[0].name);
	fprintf(f, "), positive = better. **Bold**: significant (adjusted p < %g, n >= %d "
		"on both sides, correction: %s); [x%%]: not judged (better=info, a time "
		"emulated under TCG, a time from one run per side, or an overflow). CI: %.0f%% "
		"confidence interval of NEW - BASE (of the arithmetic means; with the run as "
		"the unit, of the means of the runs' means). mdc: the smallest change the test "
		"finds with 80%% power at p < %.3g, in %% of the base. The note says what decided "
		"(exact, runs, iterations). Hmean: harmonic mean (rates). Values are mean ± "
		"stddev (n).\n\n",
		cmp->alpha, CMP_MIN_N, cmp_correction_str(cmp->opts.correction),
		100 * (1 - cmp->alpha), cmp->mdc_level);
}

static void md_cases(const struct rs_set *s, FILE *f)
{
	struct skip_count skips[2 * RS_MAX_SIDES];
	const struct rs_case_note *n;
	const struct rs_run *r;
	int i, k, nskips;
	size_t bad = case_notes(s, skips, &nskips);

	if (!bad && !nskips)
		return;
	fprintf(f, "<!-- mmcompare:cases -->\n## Cases that did not pass\n\n");
	if (bad) {
		fprintf(f, "| side | status | workload | case | reason |\n|---|---|---|---|---|\n");
		for (i = 0, k = -1; (n = next_bad_note(s, &i, &k, &r));) {
			const char *em = strcmp(n->status, "died") ? "" : "**";

			fprintf(f, "| ");
			md_str(f, rs_run_side_name(s, r, n));
			fprintf(f, " | %s%s%s | ", em, n->status, em);
			md_str(f, n->workload);
			fprintf(f, " | ");
			md_str(f, n->kase);
			fprintf(f, " | ");
			md_str(f, n->reason);
			fprintf(f, " |\n");
		}
		fprintf(f, "\n");
	}
	if (nskips) {
		fprintf(f, "Skipped:");
		for (i = 0; i < nskips; i++) {
			fprintf(f, "%s ", i ? "," : "");
			md_str(f, skips[i].side);
			fprintf(f, " %ld", skips[i].n);
		}
		fprintf(f, " (the reasons are in each run's cases.csv).\n\n");
	}
}

void print_markdown(const struct cmp *cmp, const struct cmp_meta *m, FILE *f)
{
	int i;

	md_intro(cmp, f);
	vd_markdown(cmp, f);
	md_meta(cmp->set, m, f);
	md_cases(cmp->set, f);
	md_legend(cmp, f);
	for (i = 0; i < cmp->set->nwls; i++)
		md_workload(cmp, &cmp->set->wls[i], f);
	fprintf(f, "<!-- mmcompare:summary -->\n## Summary\n\n");
	md_partial(cmp, f);
	vd_summary_md(cmp, f);
}
