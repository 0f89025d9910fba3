// SPDX-License-Identifier: GPL-2.0
/*
 * mmcompare's text views: the meta facts that differ, the full tables in
 * the mmtests layout (--all, --brief), the cases that did not pass, and
 * the default verdict view around them (verdict.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmcompare.h"
#include "verdict.h"

/* ------------------------------------------------------------ meta */

void print_meta_text(const struct rs_set *s, const struct cmp_meta *m, FILE *f,
			    bool force)
{
	int i, j, kw = 4, w[RS_MAX_SIDES];

	if (!m->n)
		return;
	for (j = 0; j < s->nsides; j++)
		w[j] = strlen(s->sides[j].name);
	for (i = 0; i < m->n; i++) {
		if ((int)strlen(m->f[i].key) > kw)
			kw = strlen(m->f[i].key);
		for (j = 0; j < s->nsides; j++)
			if ((int)strlen(m->f[i].val[j]) > w[j])
				w[j] = strlen(m->f[i].val[j]);
	}
	fprintf(f, "Meta facts that differ (\"a | b\": the runs of one side differ):\n");
	fprintf(f, "  %-*s", kw, "fact");
	for (j = 0; j < s->nsides; j++)
		fprintf(f, "  %-*s", w[j], s->sides[j].name);
	fputc('\n', f);
	for (i = 0; i < m->n; i++) {
		fprintf(f, "  %-*s", kw, m->f[i].key);
		for (j = 0; j < s->nsides; j++)
			fprintf(f, "  %-*s", w[j], m->f[i].val[j]);
		if (m->f[i].critical)
			fprintf(f, "  <- changes the answer%s", force ? " (--force)" : "");
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* ------------------------------------------------------------ text */

enum block { B_MEAN, B_STDDEV, B_COV, B_MIN, B_MEDIAN, B_MAX, B_N, B_RUNS, B_P, B_PADJ,
	     B_CI, B_MDC, B_NBLOCKS };

static const char *const block_name[B_NBLOCKS] = {
	[B_STDDEV] = "Stddev", [B_COV] = "CoeffVar", [B_MIN] = "Min",
	[B_MEDIAN] = "Median", [B_MAX] = "Max", [B_N] = "N", [B_RUNS] = "Runs",
	[B_P] = "Pvalue", [B_PADJ] = "Padj", [B_MDC] = "MDC%",
};

#define MARK_W 11	/* " (   1.65%)" */

struct text_ctx {
	const struct cmp *cmp;
	const struct opts *o;
	FILE *f;
	int namew, colw, valw;
	char ci_name[16];
};

static const char *cell_text(const struct cmp_row *r, int i, enum block b, char *buf,
			     size_t len)
{
	const struct cmp_cell *c = &r->cell[i];
	const struct st_summary *s = &c->sum;

	if (!c->present || (i == 0 && (b == B_P || b == B_PADJ || b == B_CI || b == B_MDC)))
		return "-";
	switch (b) {
	case B_MEAN: return fmt_val(s->mean, buf, len);
	case B_STDDEV: return s->sd_ok ? fmt_val(s->sd, buf, len) : "-";
	case B_COV: return s->cov_ok ? fmt_val(s->cov, buf, len) : "-";
	case B_MIN: return fmt_val(s->min, buf, len);
	case B_MEDIAN: return fmt_val(s->median, buf, len);
	case B_MAX: return fmt_val(s->max, buf, len);
	case B_N: snprintf(buf, len, "%zu", s->n); return buf;
	case B_RUNS: snprintf(buf, len, "%zu", c->runs.k); return buf;
	case B_MDC:
		if (!c->mdc_pct_ok)
			return "-";
		return fmt_val(c->mdc_pct, buf, len);
	case B_P: return fmt_p(c, buf, len);
	case B_PADJ:
		if (c->exact)
			return "exact";
		if (!c->judged || !c->p_ok)
			return "-";
		snprintf(buf, len, c->p_adj < 0.0001 ? "%.1e" : "%.4f", c->p_adj);
		return buf;
	case B_CI: return fmt_ci(c, buf, len);
	default: return "-";
	}
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Column widths for one workload's rows. */
static void text_widths(struct text_ctx *t, const struct rs_workload *w)
{
	const struct cmp *cmp = t->cmp;
	int i, vw = 4, ciw = 1;
	size_t k;

	t->namew = 8;
	for (k = w->first; k < w->first + w->count; k++) {
		const struct cmp_row *r = &cmp->rows[k];

		t->namew = max_int(t->namew, strlen(r->line->name));
		for (i = 0; i < cmp->nsides; i++) {
			const struct cmp_cell *c = &r->cell[i];

			if (!c->present)
				continue;
			vw = max_int(vw, val_width(c->sum.mean));
			vw = max_int(vw, max_int(val_width(c->sum.min), val_width(c->sum.max)));
			vw = max_int(vw, val_width(c->sum.sd));
			if (c->w.ok)
				ciw = max_int(ciw, val_width(c->w.ci_lo) + val_width(c->w.ci_hi) + 4);
		}
	}
	t->valw = vw;
	t->colw = max_int(vw + MARK_W, t->o->brief ? 0 : ciw);
	for (i = 0; i < cmp->nsides; i++)
		t->colw = max_int(t->colw, strlen(cmp->set->sides[i].name));
}

/* One output line, built in memory and written once. */
struct lb {
	char b[4096];
	size_t o;
	bool over;
};

/* Append s padded to |w| columns: right-aligned if w > 0, left if w < 0. */
static void lb_put(struct lb *l, const char *s, int w)
{
	size_t n = strlen(s), pad = (size_t)abs(w) > n ? abs(w) - n : 0;

	if (l->o + n + pad + 2 > sizeof(l->b)) {
		l->over = true;
		return;
	}
	if (w > 0) {
		memset(l->b + l->o, ' ', pad);
		l->o += pad;
	}
	memcpy(l->b + l->o, s, n);
	l->o += n;
	if (w < 0) {
		memset(l->b + l->o, ' ', pad);
		l->o += pad;
	}
}

/*
 * " *   1.65%*" significant, " (   1.65%)" not, " [   1.65%]" not judged;
 * "    n/a " when the base mean is 0 and the new one is not.
 */
static void mean_mark(const struct cmp_cell *c, int i, struct lb *l)
{
	char pct[32], v[32];
	const char *open = " (", *close = c->pct_ok ? "%)" : " )";

	if (c->overflow && !c->pct_ok && i > 0) {
		lb_put(l, " [overflow]", 0);
		return;
	}
	if (!c->present || c->verdict == CMP_MISSING) {
		lb_put(l, "", MARK_W);
		return;
	}
	if (i == 0) {
		lb_put(l, " (   0.00%)", 0);
		return;
	}
	if (c->significant) {
		open = " *";
		close = c->pct_ok ? "%*" : " *";
	} else if (c->verdict == CMP_INFO || c->verdict == CMP_EMULATED ||
		   c->verdict == CMP_ONE_RUN || c->verdict == CMP_OVERFLOW) {
		open = " [";
		close = c->pct_ok ? "%]" : " ]";
	}
	if (!c->pct_ok)
		strcpy(pct, "    n/a");
	else if (!fast_fix2(c->pct, v, sizeof(v)))
		snprintf(pct, sizeof(pct), "%7.2f", c->pct);
	else
		snprintf(pct, sizeof(pct), "%7s", v);
	lb_put(l, open, 0);
	lb_put(l, pct, 0);
	lb_put(l, close, 0);
}

static void text_row(struct text_ctx *t, const struct cmp_row *r, enum block b)
{
	const char *label = b == B_MEAN ? cmp_mean_name(r) :
			    b == B_CI ? t->ci_name : block_name[b];
	const char *note = b == B_MEAN ? row_note(t->cmp, r) : "";
	struct lb l = { .o = 0 };
	char buf[96];
	int i;

	lb_put(&l, label, -9);
	lb_put(&l, " ", 0);
	lb_put(&l, r->line->name, -t->namew);
	for (i = 0; i < t->cmp->nsides; i++) {
		lb_put(&l, "  ", 0);
		lb_put(&l, cell_text(r, i, b, buf, sizeof(buf)),
		       b == B_MEAN ? t->colw - MARK_W : t->colw);
		if (b == B_MEAN)
			mean_mark(&r->cell[i], i, &l);
	}
	if (*note) {
		lb_put(&l, "  ", 0);
		lb_put(&l, note, 0);
	}
	if (l.over) {	/* a name longer than a page: print it whole */
		fprintf(t->f, "%-9s %s ...\n", label, r->line->name);
		return;
	}
	l.b[l.o++] = '\n';
	fwrite(l.b, 1, l.o, t->f);
}

static void text_header(struct text_ctx *t, const struct rs_workload *w)
{
	int i;

	fprintf(t->f, "%s", w->name);
	if (w->nvary) {
		fprintf(t->f, " (cases vary in:");
		for (i = 0; i < w->nvary; i++)
			fprintf(t->f, "%s %s", i ? "," : "", w->vary[i]);
		fprintf(t->f, ")");
	}
	if (w->fixed)
		fprintf(t->f, " [%s]", w->fixed);
	fprintf(t->f, "\n%-9s %-*s", "", t->namew, "");
	for (i = 0; i < t->cmp->nsides; i++)
		fprintf(t->f, "  %*s", t->colw, t->cmp->set->sides[i].name);
	fputc('\n', t->f);
}

static void text_workload(struct text_ctx *t, const struct rs_workload *w)
{
	int b, nblocks = t->o->brief ? 1 : B_NBLOCKS;
	size_t k;

	text_widths(t, w);
	text_header(t, w);
	for (b = 0; b < nblocks; b++) {
		for (k = w->first; k < w->first + w->count; k++)
			text_row(t, &t->cmp->rows[k], b);
		if (b + 1 < nblocks)
			fputc('\n', t->f);
	}
	fputc('\n', t->f);
}

static void text_partial(const struct cmp *cmp, FILE *f)
{
	size_t k;
	int i;

	if (!cmp->npartial)
		return;
	fprintf(f, "Present on one side only (%zu):\n", cmp->npartial);
	for (k = 0; k < cmp->nrows; k++) {
		const struct cmp_row *r = &cmp->rows[k];

		if (!r->partial)
			continue;
		fprintf(f, "  %s %s [%s]: missing in", r->line->workload, r->line->name,
			r->line->kase);
		for (i = 0; i < cmp->nsides; i++)
			if (!r->cell[i].present)
				fprintf(f, " %s", cmp->set->sides[i].name);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void text_intro(const struct cmp *cmp, const struct opts *o, FILE *f)
{
	const struct rs_set *s = cmp->set;
	int i;

	fprintf(f, "mmcompare:");
	for (i = 0; i < s->nsides; i++)
		fprintf(f, "%s %s %s (%d run%s, %ld rows)", i ? " vs" : "",
			i ? "NEW" : "BASE", s->sides[i].name, s->sides[i].nruns,
			s->sides[i].nruns == 1 ? "" : "s", s->sides[i].nrows);
	fputc('\n', f);
	vd_method(cmp, f);
	if (o->all) {
		fprintf(f, "%% change vs BASE, positive = better: *x%%* significant, (x%%) not "
			"significant, [x%%] not judged (better=info, a time emulated under "
			"TCG, a time from one run per side, or an overflow). Hmean: harmonic "
			"mean (rates).\n");
		if (!o->brief)
			fprintf(f, "Runs: the side's runs. Pvalue: Welch's t-test vs BASE; Padj: "
				"corrected (%s); CI%.0f: %.0f%% confidence interval of NEW - BASE "
				"(arithmetic means; with the run as the unit, means of the runs' "
				"means); MDC%%: the smallest change found with 80%% power at p < "
				"%.3g, in %% of BASE.\n", cmp_correction_str(cmp->opts.correction),
				100 * (1 - o->alpha), 100 * (1 - o->alpha), cmp->mdc_level);
	}
	fputc('\n', f);
}

static void text_range(const void *arg, size_t from, size_t to, FILE *f)
{
	struct text_ctx t = *(const struct text_ctx *)arg;
	size_t i;

	t.f = f;
	for (i = from; i < to; i++)
		text_workload(&t, &t.cmp->set->wls[i]);
}

/* The workload where half of the rows have been printed. */
static size_t text_mid(const struct cmp *cmp)
{
	size_t i, rows = 0;

	if (cmp->nrows < 20000)
		return 0;
	for (i = 0; i < (size_t)cmp->set->nwls; i++) {
		rows += cmp->set->wls[i].count;
		if (2 * rows >= cmp->nrows)
			return i + 1;
	}
	return 0;
}

/* Returns how many cases failed, timed out or died (for the summary). */
static size_t text_cases(const struct rs_set *s, FILE *f)
{
	struct skip_count skips[2 * RS_MAX_SIDES];
	const struct rs_case_note *n;
	const struct rs_run *r;
	int i, k, nskips, w = 4;
	size_t bad = case_notes(s, skips, &nskips);

	if (!bad && !nskips)
		return 0;
	for (i = 0; i < s->nsides; i++)
		w = max_int(w, strlen(s->sides[i].name));
	fprintf(f, "Cases that did not pass (cases.csv, started.csv):\n");
	for (i = 0, k = -1; (n = next_bad_note(s, &i, &k, &r));)
		fprintf(f, "  %-*s  %-7s  %s [%s]: %s\n", w, rs_run_side_name(s, r, n),
			n->status, n->workload, n->kase, n->reason);
	if (nskips) {
		fprintf(f, "  skipped:");
		for (i = 0; i < nskips; i++)
			fprintf(f, "%s %s %ld", i ? "," : "", skips[i].side, skips[i].n);
		fprintf(f, " (the reasons are in each run's cases.csv)\n");
	}
	fputc('\n', f);
	return bad;
}

void print_text(const struct cmp *cmp, const struct cmp_meta *m,
		       const struct opts *o, FILE *f)
{
	struct text_ctx t = { .cmp = cmp, .o = o, .f = f };
	size_t bad;

	snprintf(t.ci_name, sizeof(t.ci_name), "CI%.0f", 100 * (1 - o->alpha));
	text_intro(cmp, o, f);
	vd_meta_text(cmp->set, m, f, o->force, o->all, vd_width());
	bad = text_cases(cmp->set, f);
	if (o->all) {
		print_halves(text_range, &t, cmp->set->nwls, text_mid(cmp), f);
		text_partial(cmp, f);
	} else {
		vd_text(cmp, f);
	}
	vd_summary_text(cmp, bad, f);
	print_profiles(cmp->set, o, f);
}
