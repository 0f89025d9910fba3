// SPDX-License-Identifier: GPL-2.0
/*
 * mmcompare: compare mmbench results of a base kernel with one or more
 * patched kernels, and say which differences are real.
 *
 * Each line (workload, case, metric) gets n, mean (harmonic for rates),
 * stddev, CoV, min, median, max per side, the % change oriented so that
 * positive is better, and Welch's t-test against the base. Output: a text
 * table in the mmtests layout for patch emails, CSV, or markdown.
 */
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bigmem.h"
#include "compare.h"
#include "csvio.h"
#include "profdiff.h"
#include "verdict.h"

#define EXIT_USAGE 2
#define EXIT_REGRESSION 3

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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmcompare [options] BASE NEW [NEW2...]\n"
		"  BASE, NEW: a run directory, a results.csv, or a directory of runs;\n"
		"  runs with the same label are pooled (BASE is the first label).\n"
		"options:\n"
		"  --csv                 one CSV row per line and side, every statistic\n"
		"  --markdown            the verdict, then markdown tables of every line\n"
		"  --all                 text: every line of every workload (default: the\n"
		"                        verdict: evidence metrics, other significant\n"
		"                        changes, a count of the rest)\n"
		"  --brief               with --all: only the mean rows\n"
		"  --alpha A             significance level / false discovery rate (0.05)\n"
		"  --correction C        bh (Benjamini-Hochberg, default) or none (raw p)\n"
		"  --judge-emulated      judge times measured in QEMU TCG guests too\n"
		"  --iterations-as-samples  every iteration an independent sample, as\n"
		"                        before runs were the unit: judges times of one run\n"
		"                        per side (iterations share the machine's state:\n"
		"                        p values come out too small)\n"
		"  --force               compare even if meta facts that change the\n"
		"                        answer differ (they are listed either way)\n"
		"  --fail-on-regression  exit 3 if a judged metric is significantly worse\n"
		"  --per-arg             one side per argument instead of per label\n"
		"  --labels              print the sides' labels, one per line, and exit\n"
		"exit: 0 ok, 2 usage or bad input, 3 regression (--fail-on-regression)\n");
}

/* A decimal number (the result files' rule: mm_decimal_real()) in (0, 1). */
static int parse_alpha(const char *s, double *alpha)
{
	*alpha = mm_decimal_real(s) ? strtod(s, NULL) : NAN;
	if (!(*alpha > 0 && *alpha < 1)) {
		fprintf(stderr, "mmcompare: --alpha '%s': want a decimal number between 0 and 1 "
			"(such as 0.05)\n", s);
		return -1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "text", no_argument, NULL, 't' },
		{ "brief", no_argument, NULL, 'b' },
		{ "all", no_argument, NULL, 'A' },
		{ "correction", required_argument, NULL, 'C' },
		{ "judge-emulated", no_argument, NULL, 'E' },
		{ "iterations-as-samples", no_argument, NULL, 'I' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "fail-on-regression", no_argument, NULL, 'r' },
		{ "per-arg", no_argument, NULL, 'p' },
		{ "labels", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .alpha = 0.05, .correction = CMP_BH };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o->fmt = FMT_CSV; break;
		case 'm': o->fmt = FMT_MARKDOWN; break;
		case 't': o->fmt = FMT_TEXT; break;
		case 'b': o->brief = o->all = true; break;
		case 'A': o->all = true; break;
		case 'E': o->judge_emulated = true; break;
		case 'I': o->iterations_as_samples = true; break;
		case 'C':
			if (!strcmp(optarg, "bh"))
				o->correction = CMP_BH;
			else if (!strcmp(optarg, "none"))
				o->correction = CMP_NONE;
			else {
				fprintf(stderr, "mmcompare: --correction '%s': want bh or none\n",
					optarg);
				return -1;
			}
			break;
		case 'a': if (parse_alpha(optarg, &o->alpha)) return -1; break;
		case 'f': o->force = true; break;
		case 'r': o->fail_on_regression = true; break;
		case 'p': o->per_arg = true; break;
		case 'l': o->labels = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "mmcompare: need BASE and at least one NEW\n");
		usage(stderr);
		return -1;
	}
	o->argv0 = argv[0];
	o->args = argv + optind;
	o->nargs = argc - optind;
	return 0;
}

/* ------------------------------------------------------------ formatting */

/*
 * Values as mmtests prints them, two decimals; four below 1 (ratios,
 * rates per ns) so that a change there stays visible; %.4g when tiny or huge.
 */
/*
 * "%.2f" without printf when the result cannot differ: |v| < 1e9 and v * 100
 * not within 1e-4 of a rounding tie (printf rounds the exact binary value,
 * the product carries an error below 1e-5 there). Tables of 100,000 lines
 * spend most of their printing time in printf otherwise.
 */
static bool fast_fix2(double v, char *buf, size_t len)
{
	double r = fabs(v) * 100;
	unsigned long long n;
	char d[24];
	int o = 0, k = 0;

	if (!(r < 1e11) || len < 24 || fabs(r - floor(r) - 0.5) < 1e-4)
		return false;
	n = (unsigned long long)(r + 0.5);
	if (signbit(v))
		buf[o++] = '-';
	do {
		d[k++] = '0' + n % 10;
		n /= 10;
	} while (n || k < 3);
	while (k > 2)
		buf[o++] = d[--k];
	buf[o++] = '.';
	buf[o++] = d[1];
	buf[o++] = d[0];
	buf[o] = '\0';
	return true;
}

static const char *fmt_val(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (v == 0 || (a >= 1 && a < 1e15)) {
		if (!fast_fix2(v, buf, len))
			snprintf(buf, len, "%.2f", v);
	}
	else if (a >= 0.01 && a < 1)
		snprintf(buf, len, "%.4f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* Width fmt_val() will need, without formatting (tables are large). */
static int val_width(double v)
{
	double a = fabs(v) + 0.005;
	int w = 4 + (v < 0);

	if (v != 0 && fabs(v) < 1)
		return fabs(v) >= 0.01 ? 6 + (v < 0) : 11;
	if (fabs(v) >= 1e15)
		return 11;
	for (; a >= 10; a /= 10)
		w++;
	return w;
}

static const char *fmt_p(const struct cmp_cell *c, char *buf, size_t len)
{
	if (!c->w.ok)
		snprintf(buf, len, "-");
	else if (c->w.p == 0)
		snprintf(buf, len, "0");
	else if (c->w.p < 0.0001)
		snprintf(buf, len, "%.1e", c->w.p);
	else
		snprintf(buf, len, "%.4f", c->w.p);
	return buf;
}

static const char *fmt_ci(const struct cmp_cell *c, char *buf, size_t len)
{
	char lo[32], hi[32];

	if (!c->w.ok)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%s, %s]", fmt_val(c->w.ci_lo, lo, sizeof(lo)),
			 fmt_val(c->w.ci_hi, hi, sizeof(hi)));
	return buf;
}

static bool any_verdict(const struct cmp *cmp, const struct cmp_row *r, enum cmp_verdict v)
{
	int i;

	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].verdict == v)
			return true;
	return false;
}

/*
 * The note after a line: why it is not judged, or what decided it (exact,
 * the runs, the iterations of one run per side).
 */
static const char *row_note(const struct cmp *cmp, const struct cmp_row *r)
{
	bool ev = r->line->evidence;
	int i;

	if (r->line->better == MM_INFO)
		return "info: not judged";
	if (any_verdict(cmp, r, CMP_TOO_FEW))
		return "n<3: no significance claimed";
	if (any_verdict(cmp, r, CMP_EMULATED))
		return "emulated (TCG): not judged";
	if (any_verdict(cmp, r, CMP_OVERFLOW))
		return "overflow: values beyond what a double holds in a statistic, not judged";
	if (any_verdict(cmp, r, CMP_ONE_RUN))
		return "one run per side: not judged (--runs N, or --iterations-as-samples)";
	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].exact)
			return ev ? "evidence; exact" : "exact";
	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].by == CMP_BY_RUNS)
			return ev ? "evidence; runs" : "runs";
	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].by == CMP_BY_ITERATIONS)
			return ev ? "evidence; iterations" : "iterations";
	return ev ? "evidence" : "";
}

/* ------------------------------------------------------------ meta */

static void print_meta_text(const struct rs_set *s, const struct cmp_meta *m, FILE *f,
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

/* ------------------------------------------------------------ two halves */

typedef void (*range_fn)(const void *arg, size_t from, size_t to, FILE *f);

struct half {
	range_fn fn;
	const void *arg;
	size_t from, to;
	struct big_buf buf;
	size_t len;
	bool ok;
};

static void *half_run(void *p)
{
	struct half *h = p;
	FILE *f = big_memstream(&h->buf, &h->len);

	if (f) {
		setvbuf(f, NULL, _IOFBF, 1 << 16);
		h->fn(h->arg, h->from, h->to, f);
		h->ok = !ferror(f);
		h->ok &= !fclose(f);
	}
	return NULL;
}

/*
 * Format items [0, n) with fn. Large tables take as long to print as to
 * compute: with a second CPU, items [mid, n) are formatted into memory on
 * a second thread and written after the first half, in order.
 */
static void print_halves(range_fn fn, const void *arg, size_t n, size_t mid, FILE *out)
{
	struct half h = { .fn = fn, .arg = arg, .from = mid, .to = n };
	bool threaded = mid > 0 && mid < n && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	pthread_t tid;

	if (threaded && pthread_create(&tid, NULL, half_run, &h))
		threaded = false;
	fn(arg, 0, threaded ? mid : n, out);
	if (!threaded)
		return;
	pthread_join(tid, NULL);
	if (h.ok)
		fwrite(h.buf.p, 1, h.len, out);
	else
		fn(arg, mid, n, out);
	big_release(&h.buf);
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

/*
 * Case outcomes from the runs' cases.csv and started.csv: the cases that
 * failed, timed out or died are listed (a patch that crashes a case shows
 * up next to its numbers, not only as lines missing on one side); skipped
 * ones are counted per side.
 */
struct skip_count {
	const char *side;
	long n;
};

static size_t case_notes(const struct rs_set *s, struct skip_count *skips, int *nskips)
{
	size_t bad = 0;
	int i, k, j;

	*nskips = 0;
	for (i = 0; i < s->nruns; i++) {
		const struct rs_run *r = &s->runs[i];

		for (k = 0; k < r->nnotes; k++) {
			const char *side = rs_run_side_name(s, r, &r->notes[k]);

			if (strcmp(r->notes[k].status, "skip")) {
				bad++;
				continue;
			}
			for (j = 0; j < *nskips && strcmp(skips[j].side, side); j++)
				;
			if (j == *nskips) {
				if (j == 2 * RS_MAX_SIDES)
					continue;
				skips[(*nskips)++] = (struct skip_count){ side, 0 };
			}
			skips[j].n++;
		}
	}
	return bad;
}

/* The next note after (*run, *k) that is not a skip; NULL at the end. */
static const struct rs_case_note *next_bad_note(const struct rs_set *s, int *run, int *k,
					       const struct rs_run **r)
{
	for (; *run < s->nruns; (*run)++, *k = -1) {
		*r = &s->runs[*run];
		while (++*k < (*r)->nnotes)
			if (strcmp((*r)->notes[*k].status, "skip"))
				return &(*r)->notes[*k];
	}
	return NULL;
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

/* ------------------------------------------------------------ kernel profiles */

/*
 * Runs made with --profile: per case and NEW side the first lines of the
 * profile difference (profdiff.h, as mmprofile --summary), after the
 * verdict. Shares are shown, never judged: nothing here changes the
 * verdict or the exit status. At most PROF_LINES_MAX case lines, so that
 * the verdict view stays one screen; mmprofile shows everything.
 */
#define PROF_LINES_MAX 8
_Static_assert(RS_MAX_SIDES <= PD_MAX_SIDES, "every side of a comparison has its profiles");

/* The run directory of a run's results.csv. */
static void run_dir(const struct rs_run *r, char *buf, size_t len)
{
	const char *slash = strrchr(r->path, '/');

	if (slash)
		snprintf(buf, len, "%.*s", (int)(slash - r->path), r->path);
	else
		snprintf(buf, len, ".");
}

/*
 * A case as the verdict view names it: the workload and the values of the
 * keys that vary in it; the whole case string when no line of the results
 * has that case.
 */
static void prof_case_name(const struct rs_set *s, const char *wl, const char *cs, char *buf,
			   size_t len)
{
	const struct rs_workload *w = NULL;
	char v[256];
	size_t k, o;
	int i;

	for (i = 0; i < s->nwls && !w; i++)
		if (!strcmp(s->wls[i].name, wl))
			w = &s->wls[i];
	for (k = 0; w && k < w->count && strcmp(s->sorted[w->first + k]->kase, cs); k++)
		;
	if (!w || k == w->count) {
		snprintf(buf, len, "%s [%s]", wl, cs);
		return;
	}
	o = (size_t)snprintf(buf, len, "%s", wl);
	for (i = 0; i < w->nvary && o < len; i++) {
		if (!rs_case_get(cs, w->vary[i], v, sizeof(v)))
			snprintf(v, sizeof(v), "(unset)");
		o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", i ? ", " : " [", w->vary[i], v);
	}
	if (w->nvary && o < len)
		snprintf(buf + o, len - o, "]");
}

/* An argument as a shell word: quoted unless plainly safe. */
static void put_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_./=+,:@%-") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "'\\''" : (char[2]){ *s, 0 }, f);
	fputc('\'', f);
}

/*
 * The mmprofile beside this mmcompare when there is one; a bare name when
 * mmcompare was found in PATH; else where make builds it.
 */
static void put_mmprofile(FILE *f, const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	char p[4200];

	if (!slash) {
		fputs("mmprofile", f);
		return;
	}
	snprintf(p, sizeof(p), "%.*s/mmprofile", (int)(slash - argv0), argv0);
	put_word(f, access(p, X_OK) ? "tools/mmcompare/mmprofile" : p);
}

/*
 * One case and NEW side, "  wl [threads=1] (children %): sym 3.96 -> -
 * (gone); ...", wrapped to width between the symbols.
 */
static void prof_case(FILE *f, const struct rs_set *s, const struct pd_set *p,
		      const struct pd_summary *u, int width)
{
	bool on_base = u->none && !strcmp(u->none, "BASE");
	const struct pd_case *k = on_base ? u->b : u->n;
	bool why = k && k->why[0];
	char head[1200], text[1600], item[1200], vb[32], vn[32];
	int j, col;

	prof_case_name(s, u->wl, u->cs, item, sizeof(item));
	snprintf(head, sizeof(head), "  %s%s%s", item, p->nsides > 2 ? " -> " : "",
		 p->nsides > 2 ? p->sides[u->side].label : "");
	if (u->none) {
		snprintf(text, sizeof(text), "%s: not profiled on %s%s%s%s", head,
			 p->sides[on_base ? 0 : u->side].label, why ? " (" : "",
			 why ? k->why : "", why ? ")" : "");
		vd_wrap(f, text, width);
		return;
	}
	col = fprintf(f, "%s (%s %%):", head, u->children ? "children" : "self");
	for (j = 0; j < u->nl; j++) {
		const char *mark = pd_mark(&u->l[j]);
		int l;

		pd_fmt_share(vb, sizeof(vb), u->l[j].base, u->l[j].in_base);
		pd_fmt_share(vn, sizeof(vn), u->l[j].new, u->l[j].in_new);
		l = snprintf(item, sizeof(item), "%s %s -> %s%s%s%s", u->l[j].sym, vb, vn,
			     *mark ? " (" : "", mark, *mark ? ")" : "");
		if (col + 2 + l > width && col > 4) {
			fprintf(f, "%s\n   ", j ? ";" : "");
			col = 3;
		} else if (j) {
			col += fprintf(f, ";");
		}
		col += fprintf(f, " %s", item);
	}
	fprintf(f, "%s\n", u->nl ? "" : " no symbol");
	if (pd_case_note(item, sizeof(item), u->b, u->n, p->sides[0].label,
			 p->sides[u->side].label)) {
		snprintf(text, sizeof(text), "    note: %s", item);
		vd_wrap(f, text, width);
	}
}

static void print_profiles(const struct rs_set *s, const struct opts *o, FILE *f)
{
	struct pd_summary *u;
	struct pd_set p;
	char dir[4200], line[2048];
	bool any = false;
	int i, n;

	for (i = 0; i < s->nruns && !any; i++) {
		run_dir(&s->runs[i], dir, sizeof(dir));
		any = s->runs[i].side >= 0 && pd_has_profile(dir);
	}
	if (!any)
		return;
	fputc('\n', f);
	/* the sides of the comparison, its runs in them */
	pd_init(&p, "mmcompare");
	for (i = 0; i < s->nsides; i++)
		pd_side_add(&p, s->sides[i].name);
	for (i = 0; i < s->nruns; i++) {
		if (s->runs[i].side < 0)
			continue;
		run_dir(&s->runs[i], dir, sizeof(dir));
		if (pd_add_run(&p, dir, s->runs[i].side) < 0) {
			fprintf(f, "Kernel profiles not shown: %s\n", p.err);
			pd_free(&p);
			return;
		}
	}
	snprintf(line, sizeof(line), "Kernel profiles (--profile), %% of the non-idle samples, "
		 "%s -> %s; shown, not judged:", s->sides[0].name,
		 s->nsides > 2 ? "each NEW" : s->sides[1].name);
	vd_wrap(f, line, vd_width());
	for (i = 1; i < p.nsides; i++)
		if (p.sides[0].event[0] && p.sides[i].event[0] &&
		    strcmp(p.sides[0].event, p.sides[i].event)) {
			snprintf(line, sizeof(line), "  warning: %s sampled %s, %s sampled %s: "
				 "shares of different events", p.sides[0].label, p.sides[0].event,
				 p.sides[i].label, p.sides[i].event);
			vd_wrap(f, line, vd_width());
		}
	u = pd_summaries(&p, &n);
	for (i = 0; i < n && i < PROF_LINES_MAX; i++)
		prof_case(f, s, &p, &u[i], vd_width());
	if (n > PROF_LINES_MAX)
		fprintf(f, "  %d more case%s\n", n - PROF_LINES_MAX,
			p.nsides > 2 ? " lines" : n - PROF_LINES_MAX == 1 ? "" : "s");
	fprintf(f, "  every case and symbol: ");
	put_mmprofile(f, o->argv0);
	if (o->per_arg)
		fprintf(f, " --per-arg");
	for (i = 0; i < o->nargs; i++) {
		fputc(' ', f);
		put_word(f, o->args[i]);
	}
	fputc('\n', f);
	free(u);
	pd_free(&p);
}

static void print_text(const struct cmp *cmp, const struct cmp_meta *m,
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

/* ------------------------------------------------------------ CSV */

static const char *const csv_cols[] = {
	"workload", "case", "metric", "name", "unit", "better", "side", "label", "n",
	"mean_type", "mean", "amean", "stddev", "cov_pct", "min", "median", "max",
	"mean_ci_low", "mean_ci_high", "change_pct", "diff", "diff_ci_low",
	"diff_ci_high", "ci_level", "t", "df", "p_value", "significant", "verdict",
	/* since metrics.csv: appended, so readers by position keep working */
	"role", "timed", "emulated", "exact", "p_adjusted", "correction", "judged",
	"abs_change", "claim", "min_detectable",
	/* since the run became the unit: appended likewise */
	"runs", "decided_by", "variance_base", "variance_new", "mdc_pct", "mdc_level",
	"cov_runs_pct", "cov_within_pct", NULL,
};

/*
 * The run as the unit: this side's runs, what decided the test (NEW rows),
 * the MDC in % of the base and the level it is at, and the side's spread
 * between runs (CoV of the runs' means) and within them (sqrt(MSW) over
 * the mean of the runs' means).
 */
static void csv_runs(struct csvo *o, const struct cmp *cmp, const struct cmp_cell *c,
		     bool cmp_ok)
{
	const struct st_runs *r = &c->runs;
	double m = fabs(r->mean);

	csvo_int(o, r->k);
	csvo_str(o, cmp_ok ? cmp_by_str(c->by) : "");
	csvo_str(o, cmp_ok ? cmp_var_str(c->var_base) : "");
	csvo_str(o, cmp_ok ? cmp_var_str(c->var_new) : "");
	csvo_num(o, c->mdc_pct, cmp_ok && c->mdc_pct_ok);
	csvo_num(o, cmp->mdc_level, cmp_ok && c->mdc_ok);
	csvo_num(o, 100 * sqrt(r->var_means) / m,
		 c->present && r->means_ok && m > 0 && isfinite(100 * sqrt(r->var_means) / m));
	csvo_num(o, 100 * sqrt(r->var_within) / m,
		 c->present && r->within_ok && m > 0 &&
		 isfinite(100 * sqrt(r->var_within) / m));
}

static void csv_cell(struct csvo *o, const struct cmp *cmp, const struct cmp_row *r, int i)
{
	const struct cmp_cell *c = &r->cell[i];
	const struct st_summary *s = &c->sum;
	bool cmp_ok = i > 0 && c->present && r->cell[0].present;

	csvo_int(o, s->n);
	csvo_str(o, c->present ? cmp_mean_name(r) : "");
	csvo_num(o, s->mean, c->present);
	csvo_num(o, s->amean, c->present);
	csvo_num(o, s->sd, s->sd_ok);
	csvo_num(o, s->cov, s->cov_ok);
	csvo_num(o, s->min, c->present);
	csvo_num(o, s->median, c->present);
	csvo_num(o, s->max, c->present);
	csvo_num(o, s->ci_lo, s->ci_ok);
	csvo_num(o, s->ci_hi, s->ci_ok);
	csvo_num(o, c->pct, c->pct_ok && c->present);
	csvo_num(o, c->w.diff, cmp_ok && c->w.ok);
	csvo_num(o, c->w.ci_lo, cmp_ok && c->w.ok);
	csvo_num(o, c->w.ci_hi, cmp_ok && c->w.ok);
	csvo_num(o, 1 - cmp->alpha, true);
	csvo_num(o, c->w.t, cmp_ok && c->w.t_ok);
	csvo_num(o, c->w.df, cmp_ok && c->w.df_ok);
	csvo_num(o, c->w.p, cmp_ok && c->w.ok);
	csvo_int(o, c->significant);
	csvo_str(o, cmp_verdict_str(c->verdict));
	csvo_str(o, r->line->evidence ? "evidence" : "context");
	csvo_int(o, r->line->timed);
	csvo_int(o, c->emulated);
	csvo_int(o, c->exact);
	csvo_num(o, c->p_adj, cmp_ok && c->judged && c->p_ok);
	csvo_str(o, cmp_correction_str(cmp->opts.correction));
	csvo_int(o, c->judged);
	csvo_num(o, c->diff, cmp_ok && !c->overflow);
	csvo_str(o, r->line->claim ? r->line->claim : "");
	csvo_num(o, c->mdc, cmp_ok && c->mdc_ok);
	csv_runs(o, cmp, c, cmp_ok);
}

static void csv_range(const void *arg, size_t from, size_t to, FILE *f)
{
	const struct cmp *cmp = arg;
	struct csvo o = { .f = f };
	size_t k;
	int i;

	for (k = from; k < to; k++) {
		const struct cmp_row *r = &cmp->rows[k];

		for (i = 0; i < cmp->nsides; i++) {
			csvo_str(&o, r->line->workload);
			csvo_str(&o, r->line->kase);
			csvo_str(&o, r->line->metric);
			csvo_str(&o, r->line->name);
			csvo_str(&o, r->line->unit);
			csvo_str(&o, mm_better_str(r->line->better));
			csvo_int(&o, i);
			csvo_str(&o, cmp->set->sides[i].name);
			csv_cell(&o, cmp, r, i);
			csvo_end(&o);
		}
	}
}

static void print_csv(const struct cmp *cmp, FILE *f)
{
	struct csvo o = { .f = f };
	int i;

	for (i = 0; csv_cols[i]; i++)
		csvo_str(&o, csv_cols[i]);
	csvo_end(&o);
	print_halves(csv_range, cmp, cmp->nrows, cmp->nrows >= 20000 ? cmp->nrows / 2 : 0, f);
}

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

static void print_markdown(const struct cmp *cmp, const struct cmp_meta *m, FILE *f)
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

/* ------------------------------------------------------------ main */

/*
 * MMCOMPARE_TIMING=1: when each phase ended, in seconds since the start,
 * on stderr (make bench-compare shows where the time goes).
 */
static double timing_t0 = -1;

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void timing(const char *phase)
{
	if (timing_t0 >= 0)
		fprintf(stderr, "mmcompare: timing: %s %.3f\n", phase, mono_s() - timing_t0);
}

static int load(struct rs_set *s, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (rs_add_arg(s, argv[i])) {
			fprintf(stderr, "mmcompare: %s\n", s->err);
			return -1;
		}
	}
	if (rs_finish(s)) {
		fprintf(stderr, "mmcompare: %s\n", s->err);
		return -1;
	}
	timing("read");
	for (char *p = s->warn, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		fprintf(stderr, "mmcompare: warning: %.*s\n", (int)(nl - p), p);
	if (s->nsides < 2) {
		fprintf(stderr, "mmcompare: only one label (%s) in the input: nothing to compare; "
			"give runs with different labels, or --per-arg\n",
			s->nsides ? s->sides[0].name : "none");
		return -1;
	}
	return 0;
}

/* Refuse (unless --force) when runs differ in facts that change the answer. */
static int check_meta(const struct rs_set *s, const struct cmp_meta *m, const struct opts *o)
{
	if (!m->ncritical)
		return 0;
	if (o->fmt == FMT_CSV || !o->force)
		print_meta_text(s, m, stderr, o->force);
	if (o->force)
		return 0;
	fprintf(stderr, "mmcompare: refusing to compare: %d fact(s) that change the answer "
		"differ (marked above); --force compares anyway\n", m->ncritical);
	return -1;
}

/*
 * Cases that failed, timed out or died on a NEW side while BASE has no
 * such outcome for them: a patch that crashes a case is a regression too,
 * whatever the metrics of the cases that ran say. Listed on f; returns
 * how many.
 */
static size_t new_failures(const struct rs_set *s, FILE *f)
{
	const struct rs_case_note *n, *b;
	const struct rs_run *r, *rb;
	int i, k, j, m;
	size_t count = 0;
	bool on_base;

	for (i = 0, k = -1; (n = next_bad_note(s, &i, &k, &r));) {
		if (r->side <= 0)	/* BASE, or a run without rows */
			continue;
		on_base = false;
		for (j = 0, m = -1; !on_base && (b = next_bad_note(s, &j, &m, &rb));)
			on_base = rb->side == 0 && !strcmp(b->workload, n->workload) &&
				  !strcmp(b->kase, n->kase);
		if (on_base)
			continue;
		fprintf(f, "mmcompare: %s: %s %s [%s]: %s\n", s->sides[r->side].name, n->status,
			n->workload, n->kase, n->reason);
		count++;
	}
	return count;
}

static int run(const struct opts *o, struct rs_set *s)
{
	struct cmp_opts co = { .alpha = o->alpha, .correction = o->correction,
			       .judge_emulated = o->judge_emulated,
			       .iterations_as_samples = o->iterations_as_samples };
	struct cmp_meta m;
	struct cmp c;
	int rc = EXIT_USAGE;

	if (cmp_meta(s, &m)) {
		fprintf(stderr, "mmcompare: out of memory\n");
		return EXIT_USAGE;
	}
	if (check_meta(s, &m, o))
		goto out_meta;
	if (o->iterations_as_samples)
		fprintf(stderr, "mmcompare: warning: --iterations-as-samples: every iteration is "
			"taken as an independent sample, but the iterations of one run share the "
			"machine's state (what the host gives, where memory landed, caches): a "
			"difference between runs reads as a change, and p values come out too "
			"small\n");
	if (cmp_build_opts(&c, s, &co)) {
		fprintf(stderr, "mmcompare: out of memory\n");
		goto out;
	}
	timing("compare");
	if (o->fmt == FMT_CSV)
		print_csv(&c, stdout);
	else if (o->fmt == FMT_MARKDOWN)
		print_markdown(&c, &m, stdout);
	else
		print_text(&c, &m, o, stdout);
	timing("print");
	rc = 0;
	if (o->fail_on_regression && new_failures(s, stderr)) {
		fprintf(stderr, "mmcompare: cases that failed on a NEW side and not on BASE "
			"(listed above)\n");
		rc = EXIT_REGRESSION;
	}
	if (o->fail_on_regression && c.nworse) {
		fprintf(stderr, "mmcompare: %zu significant regression(s)\n", c.nworse);
		rc = EXIT_REGRESSION;
	}
	if (o->fail_on_regression && c.nmissing_new) {
		fprintf(stderr, "mmcompare: %zu judged line(s) of BASE missing on a NEW side "
			"(listed under 'on one side only')\n", c.nmissing_new);
		rc = EXIT_REGRESSION;
	}
out:
	cmp_free(&c);
out_meta:
	cmp_meta_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	struct rs_set s;
	struct opts o;
	int rc = EXIT_USAGE, i;

	if (getenv("MMCOMPARE_TIMING") && strcmp(getenv("MMCOMPARE_TIMING"), "0"))
		timing_t0 = mono_s();
	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	gsl_set_error_handler_off();
	rs_init(&s, o.per_arg ? RS_PER_ARG : 0);
	if (!load(&s, argc - optind, argv + optind)) {
		if (o.labels) {
			for (i = 0; i < s.nsides; i++)
				printf("%s\n", s.sides[i].name);
			rc = 0;
		} else {
			rc = run(&o, &s);
		}
	}
	rs_free(&s);
	timing("free");
	if (fflush(stdout) || ferror(stdout)) {
		perror("mmcompare: stdout");
		rc = EXIT_USAGE;
	}
	return rc;
}
