// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict view: what a reader of a patch comparison looks for first.
 *
 * Per workload and case: the workload's evidence metrics (the ones its
 * experiment's claim rests on, declared in the run's metrics.csv) with
 * base, new, change, verdict, raw and adjusted p and the confidence
 * interval of the difference; then the other metrics that changed
 * significantly; then one line counting what is not shown (unchanged,
 * not judged, emulated times, zero on every side). `mmcompare --all`
 * prints every line instead.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "verdict.h"

#define NCELL 16
#define CELL_LEN 96

int vd_width(void)
{
	struct winsize ws;
	const char *e = getenv("COLUMNS");
	long w;
	char *end;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col < 60 ? 60 : ws.ws_col;
	if (e && *e) {
		w = strtol(e, &end, 10);
		if (!*end && w >= 60 && w <= 1000)
			return (int)w;
	}
	return 100;
}

/* ------------------------------------------------------------ meta */

/*
 * S in W columns. A value too long is cut; if the fact's values part at
 * byte @at (fact_differs_at) beyond what a plain cut shows, it shows the
 * part from a few bytes before @at: two long command lines that differ
 * late do not print the same prefix.
 */
static void put_cut(FILE *f, const char *s, int w, size_t at)
{
	size_t n = strlen(s), from = at > 10 ? at - 10 : 0;

	if (n <= (size_t)w)
		fprintf(f, "  %-*s", w, s);
	else if (at < (size_t)w - 3 || from >= n)
		fprintf(f, "  %.*s...", w - 3, s);
	else if (n - from <= (size_t)w - 3)
		fprintf(f, "  ...%-*s", w - 3, s + from);
	else
		fprintf(f, "  ...%.*s...", w - 6, s + from);
}

/* The first byte at which a fact's values are not all the same. */
static size_t fact_differs_at(const struct cmp_fact *x, int nsides)
{
	size_t k;
	int j;

	for (k = 0; x->val[0][k]; k++)
		for (j = 1; j < nsides; j++)
			if (x->val[j][k] != x->val[0][k])
				return k;
	return k;
}

/*
 * The rows of the facts table a view shows: every row in --all; in the
 * one-screen view every fact that changes the answer and the first
 * VD_META_ROWS others, never the per-run timings.
 */
#define VD_META_ROWS 8

static void meta_shown(const struct cmp_meta *m, bool all, bool *shown)
{
	int i, others = 0;

	for (i = 0; i < m->n; i++) {
		const struct cmp_fact *x = &m->f[i];

		shown[i] = all || x->critical ||
			   (!x->per_run && others++ < VD_META_ROWS);
	}
}

void vd_meta_text(const struct rs_set *s, const struct cmp_meta *m, FILE *f, bool force,
		  bool all, int width)
{
	int i, j, kw = 4, w[RS_MAX_SIDES], cap, left = 0, timings = 0;
	size_t at;
	bool *shown;

	if (!m->n)
		return;
	shown = calloc(m->n, sizeof(*shown));
	if (!shown) {
		fprintf(f, "Meta facts that differ: %d (out of memory to list them)\n\n", m->n);
		return;
	}
	meta_shown(m, all, shown);
	for (i = 0; i < m->n; i++) {
		if (!shown[i]) {
			left++;
			timings += m->f[i].per_run;
		} else if ((int)strlen(m->f[i].key) > kw) {
			kw = strlen(m->f[i].key);
		}
	}
	if (left == m->n) {
		fprintf(f, "Meta facts that differ: %d, only the VM lab's timings of each run "
			"(--all lists them)\n\n", timings);
		goto out;
	}
	/* the values share what the key and the note leave of the line */
	cap = (width - 2 - kw - (m->ncritical ? 24 : 0)) / s->nsides - 2;
	if (cap < 12)
		cap = 12;
	for (j = 0; j < s->nsides; j++) {
		w[j] = strlen(s->sides[j].name);
		for (i = 0; i < m->n; i++)
			if (shown[i] && (int)strlen(m->f[i].val[j]) > w[j])
				w[j] = strlen(m->f[i].val[j]);
		if (w[j] > cap)
			w[j] = cap;
	}
	fprintf(f, "Meta facts that differ (\"a | b\": runs of one side differ; cut to fit, "
		"whole in --markdown):\n");
	fprintf(f, "  %-*s", kw, "fact");
	for (j = 0; j < s->nsides; j++)
		put_cut(f, s->sides[j].name, w[j], 0);
	fputc('\n', f);
	for (i = 0; i < m->n; i++) {
		if (!shown[i])
			continue;
		at = fact_differs_at(&m->f[i], s->nsides);
		fprintf(f, "  %-*s", kw, m->f[i].key);
		for (j = 0; j < s->nsides; j++)
			put_cut(f, m->f[i].val[j], w[j], at);
		if (m->f[i].critical)
			fprintf(f, "  <- changes the answer%s", force ? " (--force)" : "");
		fputc('\n', f);
	}
	if (left > timings && timings)
		fprintf(f, "  and %d more (%d of them the VM lab's timings of each run): "
			"--all lists them\n", left, timings);
	else if (left > timings)
		fprintf(f, "  and %d more: --all lists them\n", left);
	else if (left)
		fprintf(f, "  and the VM lab's timings of each run (%d): --all lists them\n",
			left);
	fputc('\n', f);
out:
	free(shown);
}

/* ------------------------------------------------------------ numbers */

/* A unit and the divisor that brings a row's values to it. */
struct scale {
	double div;
	const char *unit;
};

/* Times in the unit that keeps the row's largest value below 1000. */
static struct scale pick_scale(const char *unit, double maxabs)
{
	static const struct { const char *u; double ns; } t[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	int i, from = -1, to = 0;

	for (i = 0; i < 4; i++)
		if (!strcmp(unit, t[i].u))
			from = i;
	if (from < 0)
		return (struct scale){ 1, unit };
	maxabs *= t[from].ns;
	for (to = 0; to < 3 && maxabs >= 1000 * t[to].ns; to++)
		;
	return (struct scale){ t[to].ns / t[from].ns, t[to].u };
}

/* 1,661,434 */
static void thousands(double v, char *buf, size_t len)
{
	char d[32];
	int n, i, o = 0;

	n = snprintf(d, sizeof(d), "%.0f", fabs(v));
	if (v < 0)
		buf[o++] = '-';
	for (i = 0; i < n && o + 2 < (int)len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
}

static const char *fmt_num(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (v == 0)
		snprintf(buf, len, "0");
	else if (!isfinite(v))
		snprintf(buf, len, "%g", v);
	else if (a >= 1e15)
		snprintf(buf, len, "%.3e", v);
	else if (a >= 1e4)
		thousands(v, buf, len);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else if (a >= 0.001)
		snprintf(buf, len, "%.4f", v);
	else
		snprintf(buf, len, "%.3g", v);	/* 0.0001, 0.000123, 1e-07 */
	return buf;
}

static const char *fmt_p(double p, char *buf, size_t len)
{
	if (p == 0)
		snprintf(buf, len, "0");
	else if (p < 0.0001)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.4f", p);
	return buf;
}

/*
 * Print text, wrapped at blanks to width columns (0: one line); lines after
 * the first are indented two more than the text's own indent.
 */
void vd_wrap(FILE *f, const char *text, int width)
{
	const char *p = text, *brk;
	int col, ind = (int)strspn(text, " "), lead = 0;

	while (width > 0 && lead + (int)strlen(p) > width) {
		for (brk = NULL, col = 0; p[col] && lead + col <= width; col++)
			if (p[col] == ' ' && col > 0 && p[col - 1] != ' ')
				brk = p + col;
		if (!brk)
			break;
		fprintf(f, "%*s%.*s\n", lead, "", (int)(brk - p), p);
		p = brk + 1;
		lead = ind + 2;
	}
	fprintf(f, "%*s%s\n", lead, "", p);
}

/* ------------------------------------------------------------ rows */

/* A table of one workload: rows of cells, or lines of text. */
struct vrow {
	bool text;
	char line[512];		/* text */
	char cell[NCELL][CELL_LEN];
	/* value cells with their (scaled) unit, for a table without the
	 * unit column: "1.67 s" */
	char with_unit[NCELL][CELL_LEN];
};

struct vtab {
	struct vrow *r;
	int n, cap;
	int ncols;
	int ci_col;		/* the CI column, or -1 */
	int by_col[NCELL];	/* the variance columns (one per NEW side) */
	int nby;
};

static struct vrow *vt_add(struct vtab *t)
{
	struct vrow *r;

	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 32;

		r = realloc(t->r, cap * sizeof(*r));
		if (!r)
			return NULL;
		t->r = r;
		t->cap = cap;
	}
	r = &t->r[t->n++];
	memset(r, 0, sizeof(*r));
	return r;
}

static void vt_text(struct vtab *t, const char *fmt, const char *a, const char *b)
{
	struct vrow *r = vt_add(t);

	if (!r)
		return;
	r->text = true;
	snprintf(r->line, sizeof(r->line), fmt, a, b);
}

static const char *verdict_word(const struct cmp_cell *c)
{
	switch (c->verdict) {
	case CMP_BETTER: return "better";
	case CMP_WORSE: return "worse";
	case CMP_SAME: return "same";
	case CMP_TOO_FEW: return "n<3";
	case CMP_EMULATED: return "emulated";
	case CMP_INFO: return "not judged";
	case CMP_MISSING: return "missing";
	case CMP_ONE_RUN: return "not judged (1 run)";
	case CMP_OVERFLOW: return "overflow";
	default: return "";
	}
}

/*
 * The verdict word; an unchanged metric also says the smallest change the
 * comparison could have detected ("same, mdc 4.1%": 80% power at the level
 * that decides, from the variance that decided): "no change" then reads as
 * "no change larger than that", not as "no change at all".
 */
static void fmt_verdict(const struct cmp_cell *c, const char *unit, struct scale sc, char *buf,
			size_t len)
{
	char v[48];

	if (c->verdict != CMP_SAME || !c->mdc_ok || c->exact) {
		snprintf(buf, len, "%s", verdict_word(c));
		return;
	}
	if (c->mdc_pct_ok)	/* two digits: 4.1%, 26%, 240% */
		snprintf(buf, len, c->mdc_pct < 99.5 ? "same, mdc %.2g%%" : "same, mdc %.0f%%",
			 c->mdc_pct);
	else
		snprintf(buf, len, "same, mdc %s%s", fmt_num(c->mdc / sc.div, v, sizeof(v)),
			 !strcmp(unit, "pct") ? " pts" : "");
}

/*
 * What decided, with the runs of BASE and NEW: "runs 3/3" (the spread of
 * the runs' means), "iters 1/1" (the iterations of one run per side, or
 * every iteration with --iterations-as-samples); nothing for exact (the p
 * column says so) or untested.
 */
static void fmt_by(const struct cmp_cell *b, const struct cmp_cell *c, char *buf, size_t len)
{
	if (!c->judged || c->by == CMP_BY_NONE || c->by == CMP_BY_EXACT)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%s %zu/%zu", c->by == CMP_BY_RUNS ? "runs" : "iters",
			 b->runs.k, c->runs.k);
}

/* The change of c against base b: relative, or absolute when b is 0. */
static void fmt_change(const struct cmp_cell *b, const struct cmp_cell *c, const char *unit,
		       struct scale sc, char *buf, size_t len)
{
	double bm = b->sum.mean, m = c->sum.mean;
	char v[48];

	if (c->overflow && !c->pct_ok)
		snprintf(buf, len, "overflow");
	else if (bm == m)
		snprintf(buf, len, "0");
	else if (bm != 0 && isfinite((m - bm) / fabs(bm)))
		snprintf(buf, len, "%+.2f%%", (m - bm) / fabs(bm) * 100);
	else
		snprintf(buf, len, "%s%s %s", m > bm ? "+" : "",
			 fmt_num((m - bm) / sc.div, v, sizeof(v)),
			 !strcmp(unit, "pct") ? "pts" : "abs");
}

static void fill_row(const struct cmp *c, const struct cmp_row *r, const char *prefix,
		     struct vrow *v)
{
	const struct cmp_cell *b = &r->cell[0];
	double maxabs = 0;
	struct scale sc;
	char ci[2][40];
	int i, k = 0;

	for (i = 0; i < c->nsides; i++)
		if (r->cell[i].present)
			maxabs = fmax(maxabs, fabs(r->cell[i].sum.mean));
	sc = pick_scale(r->line->unit, maxabs);
	snprintf(v->cell[k++], CELL_LEN, "%s%s", prefix, r->line->metric);
	snprintf(v->cell[k++], CELL_LEN, "%s", sc.unit);
	for (i = 0; i < c->nsides && k + 7 < NCELL; i++) {
		const struct cmp_cell *x = &r->cell[i];

		if (!x->present)
			snprintf(v->cell[k], CELL_LEN, "-");
		else
			fmt_num(x->sum.mean / sc.div, v->cell[k], CELL_LEN);
		if (x->present && sc.div != 1) {
			char num[CELL_LEN];

			memcpy(num, v->cell[k], sizeof(num));
			snprintf(v->with_unit[k], CELL_LEN, "%.60s %s", num, sc.unit);
		}
		k++;
		if (!i)
			continue;
		if (x->present && b->present)
			fmt_change(b, x, r->line->unit, sc, v->cell[k], CELL_LEN);
		k++;
		fmt_verdict(x, r->line->unit, sc, v->cell[k++], CELL_LEN);
		if (x->present && b->present)
			fmt_by(b, x, v->cell[k], CELL_LEN);
		k++;
		if (x->exact)
			snprintf(v->cell[k], CELL_LEN, "exact");
		else if (x->w.ok && x->w.t_ok)
			fmt_p(x->w.p, v->cell[k], CELL_LEN);
		k++;
		if (c->opts.correction == CMP_BH) {
			if (x->judged && x->p_ok && !x->exact)
				fmt_p(x->p_adj, v->cell[k], CELL_LEN);
			k++;
		}
		if (c->nsides == 2) {
			if (x->w.ok && !x->exact)
				snprintf(v->cell[k], CELL_LEN, "[%s, %s]",
					 fmt_num(x->w.ci_lo / sc.div, ci[0], sizeof(ci[0])),
					 fmt_num(x->w.ci_hi / sc.div, ci[1], sizeof(ci[1])));
			k++;
		}
	}
}

static void head_row(const struct cmp *c, struct vtab *t, const char *title)
{
	struct vrow *v = vt_add(t);
	int i, k = 0;

	if (!v)
		return;
	snprintf(v->cell[k++], CELL_LEN, "%s", title);
	snprintf(v->cell[k++], CELL_LEN, "unit");
	for (i = 0; i < c->nsides && k + 7 < NCELL; i++) {
		snprintf(v->cell[k++], CELL_LEN, "%s", c->set->sides[i].name);
		if (!i)
			continue;
		snprintf(v->cell[k++], CELL_LEN, "change");
		snprintf(v->cell[k++], CELL_LEN, "verdict");
		t->by_col[t->nby++] = k;
		snprintf(v->cell[k++], CELL_LEN, "variance");
		snprintf(v->cell[k++], CELL_LEN, "p");
		if (c->opts.correction == CMP_BH)
			snprintf(v->cell[k++], CELL_LEN, "p(BH)");
		if (c->nsides == 2) {
			t->ci_col = k;
			snprintf(v->cell[k++], CELL_LEN, "CI%.0f of diff", 100 * (1 - c->alpha));
		}
	}
	t->ncols = k;
}

/* ------------------------------------------------------------ grouping */

/* Every present value 0 on every side: nothing to see. */
static bool all_zero(const struct cmp *c, const struct cmp_row *r)
{
	int i;

	for (i = 0; i < c->nsides; i++)
		if (r->cell[i].present && (r->cell[i].sum.min != 0 || r->cell[i].sum.max != 0))
			return false;
	return true;
}

static bool changed(const struct cmp *c, const struct cmp_row *r)
{
	int i;

	for (i = 1; i < c->nsides; i++)
		if (r->cell[i].verdict == CMP_BETTER || r->cell[i].verdict == CMP_WORSE)
			return true;
	return false;
}

/* What a hidden row counts as: the first NEW side's verdict decides. */
enum hidden { H_SAME, H_INFO, H_EMULATED, H_ONERUN, H_OVERFLOW, H_TOOFEW, H_ZERO, H_PARTIAL,
	      H_N };

static enum hidden hidden_kind(const struct cmp *c, const struct cmp_row *r)
{
	if (r->partial)
		return H_PARTIAL;
	if (all_zero(c, r))
		return H_ZERO;
	switch (r->cell[1].verdict) {
	case CMP_INFO: return H_INFO;
	case CMP_EMULATED: return H_EMULATED;
	case CMP_ONE_RUN: return H_ONERUN;
	case CMP_OVERFLOW: return H_OVERFLOW;
	case CMP_TOO_FEW: return H_TOOFEW;
	default: return H_SAME;
	}
}

static void counts_line(struct vtab *t, const size_t *n)
{
	static const char *const what[H_N] = {
		[H_SAME] = "unchanged", [H_INFO] = "not judged (better=info)",
		[H_EMULATED] = "emulated times (TCG)",
		[H_ONERUN] = "times not judged (1 run per side)",
		[H_OVERFLOW] = "overflowed (not judged)", [H_TOOFEW] = "n<3",
		[H_ZERO] = "zero on every side", [H_PARTIAL] = "on one side only",
	};
	char buf[512];
	int o = 0, i;

	for (i = 0; i < H_N; i++)
		if (n[i])
			o += snprintf(buf + o, sizeof(buf) - o, "%s%zu %s", o ? ", " : "", n[i],
				      what[i]);
	if (o)
		vt_text(t, "    not shown: %s%s", buf, " (--all shows every metric)");
}

static int row_cmp(const void *a, const void *b)
{
	const struct cmp_row *x = *(struct cmp_row *const *)a, *y = *(struct cmp_row *const *)b;

	if (x->line->case_order != y->line->case_order)
		return x->line->case_order < y->line->case_order ? -1 : 1;
	return x->line->metric_order < y->line->metric_order ? -1 :
	       x->line->metric_order > y->line->metric_order;
}

/* "mlock_pct=0, threads=1": the values of the keys that vary. */
static void case_title(const struct rs_workload *w, const char *kase, char *buf, size_t len)
{
	char v[256];
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < w->nvary && o < len; i++) {
		if (!rs_case_get(kase, w->vary[i], v, sizeof(v)))
			snprintf(v, sizeof(v), "(unset)");
		o += snprintf(buf + o, len - o, "%s%s=%s", i ? ", " : "", w->vary[i], v);
	}
}

static void add_row(const struct cmp *c, struct vtab *t, const struct cmp_row *r)
{
	struct vrow *v = vt_add(t);

	if (v)
		fill_row(c, r, "      ", v);
}

/* One case's rows [from, to) of the sorted block into t. */
static void case_block(const struct cmp *c, const struct rs_workload *w,
		       struct cmp_row **rows, size_t from, size_t to, struct vtab *t)
{
	size_t k, n[H_N] = { 0 };
	char title[512];
	bool any = false;

	if (w->nvary) {
		case_title(w, rows[from]->line->kase, title, sizeof(title));
		vt_text(t, "  %s%s", title, "");
	}
	for (k = from; k < to; k++) {
		if (!rows[k]->line->evidence)
			continue;
		if (!any)
			vt_text(t, "    evidence%s%s", "", "");
		any = true;
		add_row(c, t, rows[k]);
	}
	if (!any)
		vt_text(t, "    (no evidence metric declared for this workload)%s%s", "", "");
	any = false;
	for (k = from; k < to; k++) {
		if (rows[k]->line->evidence)
			continue;
		if (!rows[k]->partial && changed(c, rows[k])) {
			if (!any)
				vt_text(t, "    other metrics that changed significantly%s%s", "", "");
			any = true;
			add_row(c, t, rows[k]);
			continue;
		}
		n[hidden_kind(c, rows[k])]++;
	}
	counts_line(t, n);
}

static const char *cell_of(const struct vrow *r, int k, bool no_unit)
{
	return no_unit && r->with_unit[k][0] ? r->with_unit[k] : r->cell[k];
}

/*
 * Columns as wide as their widest cell. When the table is wider than the
 * terminal, the CI column goes first (--all and --csv have it), then the
 * unit column (times then carry their unit in the value: "1.67 s").
 */
static void print_tab(const struct vtab *t, FILE *f, int width)
{
	bool skip[NCELL] = { false }, no_unit = false;
	int w[NCELL], i, k, last, total, pass;

	/* a variance column with nothing to say (every line exact or not
	 * judged) takes no room */
	for (k = 0; k < t->nby; k++) {
		skip[t->by_col[k]] = true;
		for (i = 1; i < t->n; i++)
			if (!t->r[i].text && t->r[i].cell[t->by_col[k]][0])
				skip[t->by_col[k]] = false;
	}
	for (pass = 0; pass < 4; pass++) {
		memset(w, 0, sizeof(w));
		for (i = 0; i < t->n; i++)
			for (k = 0; k < t->ncols && !t->r[i].text; k++)
				if (!skip[k] && (int)strlen(cell_of(&t->r[i], k, no_unit)) > w[k])
					w[k] = strlen(cell_of(&t->r[i], k, no_unit));
		for (k = 0, total = 0; k < t->ncols; k++)
			total += skip[k] ? 0 : w[k] + 2;
		if (total - 2 <= width)
			break;
		if (pass == 0 && t->ci_col > 0)
			skip[t->ci_col] = true;
		else if (!no_unit)
			skip[1] = no_unit = true;
		else	/* the method line above says what the variance was */
			for (k = 0; k < t->nby; k++)
				skip[t->by_col[k]] = true;
	}
	for (i = 0; i < t->n; i++) {
		const struct vrow *r = &t->r[i];

		if (r->text) {
			vd_wrap(f, r->line, width);
			continue;
		}
		/* the name and unit left-aligned, numbers right-aligned; no
		 * trailing blanks for the empty cells at the end */
		for (last = t->ncols; last > 2 && (skip[last - 1] || !r->cell[last - 1][0]); last--)
			;
		fprintf(f, "%-*s", w[0], r->cell[0]);
		if (!skip[1])
			fprintf(f, "  %-*s", w[1], r->cell[1]);
		for (k = 2; k < last; k++)
			if (!skip[k])
				fprintf(f, "  %*s", w[k], cell_of(r, k, no_unit));
		fputc('\n', f);
	}
}

/* Rows of workload w in case order, metric order within a case. */
static struct cmp_row **workload_rows(const struct cmp *c, const struct rs_workload *w)
{
	struct cmp_row **rows = malloc((w->count ? w->count : 1) * sizeof(*rows));
	size_t k;

	if (!rows)
		return NULL;
	for (k = 0; k < w->count; k++)
		rows[k] = &c->rows[w->first + k];
	qsort(rows, w->count, sizeof(*rows), row_cmp);
	return rows;
}

static void workload_text(const struct cmp *c, const struct rs_workload *w, FILE *f)
{
	struct vtab t = { .ci_col = -1 };
	struct cmp_row **rows = workload_rows(c, w);
	size_t k, from;

	if (!rows) {
		fprintf(f, "%s: out of memory\n", w->name);
		return;
	}
	fprintf(f, "%s", w->name);
	if (w->fixed && *w->fixed)
		fprintf(f, "  [%s]", w->fixed);
	fputc('\n', f);
	head_row(c, &t, "");
	for (from = 0, k = 1; k <= w->count; k++) {
		if (k < w->count && rows[k]->line->kase == rows[from]->line->kase)
			continue;
		case_block(c, w, rows, from, k, &t);
		from = k;
	}
	print_tab(&t, f, vd_width());
	fputc('\n', f);
	free(t.r);
	free(rows);
}

void vd_text(const struct cmp *c, FILE *f)
{
	int i;

	for (i = 0; i < c->set->nwls; i++)
		workload_text(c, &c->set->wls[i], f);
}

/* The runs of each side, "3 and 3" (at most a few sides named). */
static int runs_list(const struct cmp *c, char *b, size_t len)
{
	int i, o = 0;

	for (i = 0; i < c->nsides && o < (int)len; i++)
		o += snprintf(b + o, len - o, "%s%d", !i ? "" : i + 1 == c->nsides ? " and " : ", ",
			      c->set->sides[i].nruns);
	return o;
}

/*
 * What the tests' samples were: the runs (the run as the unit), the
 * iterations of one run per side (counts only), or every iteration
 * (--iterations-as-samples, whose warning is on stderr).
 */
static void method_variance(const struct cmp *c, char *b, size_t len)
{
	char r[256];
	int i, many = 0, one = 0;

	for (i = 0; i < c->nsides; i++) {
		many += c->set->sides[i].nruns >= 2;
		one += c->set->sides[i].nruns <= 1;
	}
	runs_list(c, r, sizeof(r));
	if (c->opts.iterations_as_samples)
		snprintf(b, len, "every iteration a sample (--iterations-as-samples, runs %s: a "
			 "run's iterations share the machine's state, p comes out too small)", r);
	else if (many)
		snprintf(b, len, "the run as the unit (runs %s%s)", r,
			 !one ? "" : c->nsides == 2 ? "; the side of one run takes the other's "
			 "spread of runs" : "; a side of one run takes BASE's spread of runs, "
			 "against BASE of one run only its counts are judged");
	else
		snprintf(b, len, "one run per side, so counts by their iterations and times not "
			 "at all (a run's iterations share the machine's state: --runs N, or "
			 "--iterations-as-samples)");
}

static void method(const struct cmp *c, FILE *f, int width)
{
	char b[1536], v[768];
	int i, n = 0, o;

	method_variance(c, v, sizeof(v));
	if (c->opts.correction == CMP_BH)
		snprintf(b, sizeof(b), "Judged: Welch's t-test, %s; false discovery rate %g over "
			 "%zu comparisons (Benjamini-Hochberg; p(BH): adjusted p).", v, c->alpha,
			 c->nfamily);
	else
		snprintf(b, sizeof(b), "Judged: Welch's t-test, %s; raw p < %g, no correction "
			 "for the %zu comparisons.", v, c->alpha, c->nfamily);
	vd_wrap(f, b, width);
	snprintf(b, sizeof(b), "exact: no variance on either side (n >= %d), a certain "
		 "change. mdc: the smallest change found with 80%% power at p < %.3g (the "
		 "level that decides) from the variance that decided.", CMP_MIN_N,
		 c->mdc_level);
	vd_wrap(f, b, width);
	for (i = 0; i < c->nsides; i++)
		n += c->emulated[i];
	if (!n)
		return;
	o = snprintf(b, sizeof(b), "Ran under QEMU TCG:");
	for (i = 0, n = 0; i < c->nsides && o < (int)sizeof(b); i++)
		if (c->emulated[i])
			o += snprintf(b + o, sizeof(b) - o, "%s %s", n++ ? "," : "",
				      c->set->sides[i].name);
	if (o < (int)sizeof(b))
		snprintf(b + o, sizeof(b) - o, c->opts.judge_emulated ?
			 ": times are emulated, judged anyway (--judge-emulated)." :
			 ": times there are emulated, shown but not judged (--judge-emulated "
			 "judges them); counts are judged.");
	vd_wrap(f, b, width);
}

void vd_method(const struct cmp *c, FILE *f)
{
	method(c, f, vd_width());
}

static void summary(const struct cmp *c, size_t bad_cases, FILE *f, int width)
{
	char b[1024];
	int o;

	o = snprintf(b, sizeof(b), "Verdict: evidence %zu better, %zu worse, %zu unchanged",
		     c->ev_better, c->ev_worse, c->ev_same);
	if (c->ev_toofew)
		o += snprintf(b + o, sizeof(b) - o, ", %zu n<3", c->ev_toofew);
	o += snprintf(b + o, sizeof(b) - o, "; other judged metrics %zu better, %zu worse, "
		      "%zu unchanged", c->nbetter - c->ev_better, c->nworse - c->ev_worse,
		      c->nsame - c->ev_same);
	if (c->ntoofew - c->ev_toofew)
		o += snprintf(b + o, sizeof(b) - o, ", %zu n<3", c->ntoofew - c->ev_toofew);
	if (c->nonerun)
		o += snprintf(b + o, sizeof(b) - o, "; %zu times not judged (one run per side%s)",
			      c->nonerun, c->ev_onerun ? ", evidence among them" : "");
	if (c->noverflow)
		o += snprintf(b + o, sizeof(b) - o, "; %zu lines overflowed (not judged)",
			      c->noverflow);
	if (c->nemulated)
		o += snprintf(b + o, sizeof(b) - o, "; %zu emulated times not judged",
			      c->nemulated);
	if (c->npartial)
		o += snprintf(b + o, sizeof(b) - o, "; %zu lines on one side only", c->npartial);
	if (bad_cases)
		o += snprintf(b + o, sizeof(b) - o, "; %zu case(s) failed, timed out or died "
			      "(listed above)", bad_cases);
	snprintf(b + o, sizeof(b) - o, ".");
	vd_wrap(f, b, width);
}

void vd_summary_text(const struct cmp *c, size_t bad_cases, FILE *f)
{
	summary(c, bad_cases, f, vd_width());
}

void vd_summary_md(const struct cmp *c, FILE *f)
{
	summary(c, 0, f, 0);
}

/* ------------------------------------------------------------ markdown */

/*
 * Text from the inputs in markdown: the characters that could turn it into
 * code, a link, HTML or another table cell are escaped and line breaks
 * become blanks, so a string stays one table cell of plain text. ('_' and
 * '*' stay: metric names are full of '_', and emphasis is harmless.)
 */
void vd_md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r') {
			fputc(' ', f);
			continue;
		}
		if (strchr("\\`[]<>|", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* A name in an HTML comment marker: [A-Za-z0-9._:=+-], others '_'. */
void vd_md_marker(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(isalnum((unsigned char)*s) || strchr("._:=+-", *s) ? *s : '_', f);
}

#define md_str vd_md_text

static void md_row(const struct vtab *t, const struct vrow *r, FILE *f, bool head)
{
	int k;

	fprintf(f, "|");
	for (k = 0; k < t->ncols; k++) {
		const char *s = r->cell[k];

		while (!head && k == 0 && *s == ' ')
			s++;
		fputc(' ', f);
		if (!head && k >= 2 && (!strcmp(r->cell[k], "better") ||
					!strcmp(r->cell[k], "worse"))) {
			fprintf(f, "**%s**", r->cell[k]);
		} else {
			md_str(f, s);
		}
		fprintf(f, " |");
	}
	fputc('\n', f);
	if (head) {
		fprintf(f, "|");
		for (k = 0; k < t->ncols; k++)
			fprintf(f, k < 2 ? "---|" : "---:|");
		fputc('\n', f);
	}
}

static void workload_md(const struct cmp *c, const struct rs_workload *w, FILE *f)
{
	struct vtab t = { .ci_col = -1 };
	struct cmp_row **rows = workload_rows(c, w);
	size_t k, from;
	int i;

	fprintf(f, "<!-- mmcompare:headline ");
	vd_md_marker(f, w->name);
	fprintf(f, " -->\n### ");
	md_str(f, w->name);
	fprintf(f, "\n\n");
	if (!rows)
		return;
	if (w->fixed && *w->fixed) {
		fprintf(f, "Fixed: ");
		md_str(f, w->fixed);
		fprintf(f, ".\n\n");
	}
	head_row(c, &t, "metric");
	for (from = 0, k = 1; k <= w->count; k++) {
		if (k < w->count && rows[k]->line->kase == rows[from]->line->kase)
			continue;
		case_block(c, w, rows, from, k, &t);
		from = k;
	}
	for (i = 1, k = 0; i < t.n; i++)
		k += !t.r[i].text;
	if (!k) {
		fprintf(f, "No evidence metric declared and no other metric changed "
			"significantly (the full table is below).\n\n");
		free(t.r);
		free(rows);
		return;
	}
	/* text lines become italic rows (case titles); the counts stay out */
	md_row(&t, &t.r[0], f, true);
	for (i = 1; i < t.n; i++) {
		const char *s = t.r[i].line;

		if (!t.r[i].text) {
			md_row(&t, &t.r[i], f, false);
			continue;
		}
		while (*s == ' ')
			s++;
		if (!strncmp(s, "not shown:", 10) || !strncmp(s, "(no evidence", 12))
			continue;
		fprintf(f, "| *");
		md_str(f, s);
		fprintf(f, "* |");
		for (int k2 = 1; k2 < t.ncols; k2++)
			fprintf(f, " |");
		fputc('\n', f);
	}
	fputc('\n', f);
	free(t.r);
	free(rows);
}

void vd_markdown(const struct cmp *c, FILE *f)
{
	int i;

	fprintf(f, "<!-- mmcompare:verdict -->\n## Verdict\n\n");
	summary(c, 0, f, 0);
	fputc('\n', f);
	method(c, f, 0);
	fprintf(f, "\nPer workload and case: the evidence metrics first, then the other "
		"metrics that changed significantly; the full tables follow below.\n\n");
	for (i = 0; i < c->set->nwls; i++)
		workload_md(c, &c->set->wls[i], f);
}
