// SPDX-License-Identifier: GPL-2.0
/*
 * Line-by-line comparison against the base side, and meta-fact checks.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "mdc.h"

const char *cmp_verdict_str(enum cmp_verdict v)
{
	static const char *const names[] = {
		[CMP_BASE] = "base", [CMP_BETTER] = "better", [CMP_WORSE] = "worse",
		[CMP_SAME] = "same", [CMP_INFO] = "info", [CMP_TOO_FEW] = "too_few",
		[CMP_MISSING] = "missing", [CMP_EMULATED] = "emulated",
		[CMP_ONE_RUN] = "one_run", [CMP_OVERFLOW] = "overflow",
	};

	return names[v];
}

const char *cmp_by_str(enum cmp_by b)
{
	static const char *const names[] = {
		[CMP_BY_NONE] = "", [CMP_BY_EXACT] = "exact",
		[CMP_BY_ITERATIONS] = "iterations", [CMP_BY_RUNS] = "runs",
	};

	return names[b];
}

const char *cmp_var_str(enum st_var v)
{
	static const char *const names[] = {
		[ST_VAR_NONE] = "", [ST_VAR_ITER] = "iterations", [ST_VAR_RUNS] = "runs",
		[ST_VAR_WITHIN] = "within", [ST_VAR_BORROWED] = "borrowed",
	};

	return names[v];
}

const char *cmp_mean_name(const struct cmp_row *r)
{
	return r->hmean ? "Hmean" : "Amean";
}

/*
 * Rates (better=higher: loops/s, pages/s) are averaged harmonically, as
 * mmtests does: the harmonic mean of rates over equal work is the rate of
 * the total. It needs every value on every side above zero.
 */
static bool use_hmean(const struct rs_line *l, int nsides)
{
	int i;

	if (l->better != MM_HIGHER)
		return false;
	for (i = 0; i < nsides && i < l->nvals; i++)
		for (size_t k = 0; k < l->vals[i].n; k++)
			if (!(l->vals[i].v[k] > 0))
				return false;
	return true;
}

/*
 * % change of x against base b, oriented so that positive is better. A
 * base of 0 has none (the absolute change is shown); a change that does
 * not fit a double (values near its range) overflowed.
 */
static void pct_change(enum mm_better better, double b, double x, struct cmp_cell *c)
{
	if (b == 0) {
		c->pct_ok = x == 0;
		c->pct = 0;
		return;
	}
	c->pct = (better == MM_LOWER ? b - x : x - b) / fabs(b) * 100.0;
	c->pct_ok = isfinite(c->pct);
	if (!c->pct_ok) {
		c->pct = 0;
		c->overflow = true;
	}
}

static bool is_better(enum mm_better better, const struct cmp_cell *c)
{
	if (c->pct_ok && c->pct != 0)
		return c->pct > 0;
	return better == MM_LOWER ? c->diff < 0 : c->diff > 0;
}

/* Every value of the side the same (counts under the VM lab often are). */
static bool no_variance(const struct st_summary *s)
{
	return s->n >= CMP_MIN_N && s->min == s->max;
}

/* A statistic of the side did not fit a double (finite values near its range). */
static bool side_overflow(const struct cmp_cell *x)
{
	const struct st_runs *r = &x->runs;

	return (x->sum.n >= 2 && !x->sum.sd_ok) || !isfinite(x->sum.amean) ||
	       !isfinite(r->mean) || (r->k >= 2 && !r->means_ok) ||
	       (r->n > r->k && !r->within_ok);
}

/*
 * Everything but the significance, which needs the whole family of judged
 * cells (apply_correction()). A change between two sides without any
 * variance is certain: exact, p = 0; no change between them, p = 1.
 *
 * The test: with a side of k >= 2 runs, the run as the unit
 * (st_welch_runs()); with one run per side, the iterations as samples,
 * which judges counts only: a time from one run per side is not judged
 * (its iterations share the machine's state of that run), unless
 * iterations_as_samples, which also pools every side's iterations as
 * independent samples as mmcompare did before runs were the unit.
 */
static void judge(const struct cmp *cmp, int side, const struct rs_line *l,
		  const struct cmp_cell *base, struct cmp_cell *c)
{
	bool iters = cmp->opts.iterations_as_samples;
	bool by_runs = !iters && (base->runs.k >= 2 || c->runs.k >= 2);
	bool one_run = !iters && !by_runs && l->timed;

	pct_change(l->better, base->sum.mean, c->sum.mean, c);
	c->diff = c->sum.amean - base->sum.amean;
	c->emulated = l->timed && (cmp->emulated[0] || cmp->emulated[side]);
	if (by_runs) {
		st_welch_runs(&base->runs, &c->runs, cmp->alpha, &c->w, &c->var_base,
			      &c->var_new);
	} else if (!one_run) {
		st_welch(&base->sum, &c->sum, cmp->alpha, &c->w);
		if (c->w.ok)
			c->var_base = c->var_new = ST_VAR_ITER;
	}
	c->overflow |= !isfinite(c->diff) || side_overflow(base) || side_overflow(c) ||
		       ((by_runs || (!one_run && base->sum.n >= 2 && c->sum.n >= 2)) &&
			!c->w.ok);
	if (!isfinite(c->diff))
		c->diff = 0;
	if (l->better == MM_INFO) {
		c->verdict = CMP_INFO;
		return;
	}
	if (c->emulated && !cmp->opts.judge_emulated) {
		c->verdict = CMP_EMULATED;
		return;
	}
	if (base->sum.n < CMP_MIN_N || c->sum.n < CMP_MIN_N) {
		c->verdict = CMP_TOO_FEW;
		return;
	}
	if (c->overflow) {
		c->verdict = CMP_OVERFLOW;
		return;
	}
	if (one_run) {
		c->verdict = CMP_ONE_RUN;
		return;
	}
	c->judged = true;
	c->verdict = CMP_SAME;
	if (no_variance(&base->sum) && no_variance(&c->sum)) {
		c->exact = true;
		c->by = CMP_BY_EXACT;
		c->var_base = c->var_new = ST_VAR_NONE;	/* no variance to speak of */
		c->p_ok = true;
		c->w.p = c->p_adj = base->sum.min == c->sum.min ? 1 : 0;
	} else if (c->w.ok && c->w.t_ok) {
		c->by = by_runs ? CMP_BY_RUNS : CMP_BY_ITERATIONS;
		c->p_ok = true;
		c->p_adj = c->w.p;
	}
}

static int p_cmp(const void *a, const void *b)
{
	const struct cmp_cell *x = *(struct cmp_cell *const *)a;
	const struct cmp_cell *y = *(struct cmp_cell *const *)b;

	return x->w.p < y->w.p ? -1 : x->w.p > y->w.p;
}

/*
 * The minimum detectable change of every judged cell (bench/results/mdc.h), at
 * 80% power and at the level its test had to reach: alpha without a
 * correction; with Benjamini-Hochberg, R of m significant, a further line
 * is significant when its p is at most alpha * (R + 1) / m, the level
 * used for every line (at most alpha). Relative to the base's tested
 * mean: the mean of its runs' means with the run as the unit, else its
 * arithmetic mean.
 */
static void mdc_all(struct cmp *c, size_t nsig)
{
	double level = c->alpha, ref;
	size_t i, k;

	if (c->opts.correction == CMP_BH && c->nfamily > 0)
		level = fmin(c->alpha, c->alpha * (double)(nsig + 1) / (double)c->nfamily);
	c->mdc_level = level;
	for (i = 0; i < c->nrows; i++) {
		for (k = 1; k < (size_t)c->nsides; k++) {
			struct cmp_cell *cell = &c->rows[i].cell[k];

			if (!cell->judged || !cell->p_ok)
				continue;
			cell->mdc = cell->exact ? 0 : st_mdc(&cell->w, level, MM_MDC_POWER);
			cell->mdc_ok = isfinite(cell->mdc);
			if (!cell->mdc_ok) {
				cell->mdc = 0;
				continue;
			}
			ref = cell->by == CMP_BY_RUNS ? c->rows[i].cell[0].runs.mean :
			      c->rows[i].cell[0].sum.amean;
			cell->mdc_pct = ref != 0 ? 100 * cell->mdc / fabs(ref) : 0;
			cell->mdc_pct_ok = ref != 0 && isfinite(cell->mdc_pct);
			if (!cell->mdc_pct_ok)
				cell->mdc_pct = 0;
		}
	}
}

/*
 * Benjamini-Hochberg over every judged cell with a p: sorted by p, the
 * adjusted p of rank k (1-based) of m is min over j >= k of p_j * m / j,
 * capped at 1. Significant: adjusted p < alpha, which keeps the expected
 * share of false discoveries among the significant cells below alpha.
 */
static int apply_correction(struct cmp *c)
{
	struct cmp_cell **v;
	size_t n = 0, i, k, nsig = 0;
	double run = 1;

	for (i = 0; i < c->nrows; i++)
		for (k = 1; k < (size_t)c->nsides; k++)
			n += c->rows[i].cell[k].judged && c->rows[i].cell[k].p_ok;
	c->nfamily = n;
	if (c->opts.correction == CMP_BH && n > 1) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return -1;
		n = 0;
		for (i = 0; i < c->nrows; i++)
			for (k = 1; k < (size_t)c->nsides; k++)
				if (c->rows[i].cell[k].judged && c->rows[i].cell[k].p_ok)
					v[n++] = &c->rows[i].cell[k];
		qsort(v, n, sizeof(*v), p_cmp);
		for (i = n; i-- > 0;) {
			double adj = v[i]->w.p * (double)n / (double)(i + 1);

			run = adj < run ? adj : run;
			v[i]->p_adj = run;
		}
		free(v);
	}
	for (i = 0; i < c->nrows; i++) {
		for (k = 1; k < (size_t)c->nsides; k++) {
			struct cmp_cell *cell = &c->rows[i].cell[k];

			if (!cell->judged || !cell->p_ok)
				continue;
			cell->significant = cell->p_adj < c->alpha;
			if (cell->significant)
				cell->verdict = is_better(c->rows[i].line->better, cell) ?
						CMP_BETTER : CMP_WORSE;
			nsig += cell->significant;
		}
	}
	mdc_all(c, nsig);
	return 0;
}

const char *cmp_correction_str(enum cmp_correction c)
{
	return c == CMP_BH ? "Benjamini-Hochberg" : "none";
}

static void count(struct cmp *c, const struct cmp_row *r)
{
	int i;

	if (r->partial)
		c->npartial++;
	for (i = 1; i < c->nsides; i++) {
		enum cmp_verdict v = r->cell[i].verdict;

		c->nbetter += v == CMP_BETTER;
		c->nworse += v == CMP_WORSE;
		c->nsame += v == CMP_SAME;
		c->ntoofew += v == CMP_TOO_FEW;
		c->nemulated += v == CMP_EMULATED;
		c->nonerun += v == CMP_ONE_RUN;
		c->noverflow += v == CMP_OVERFLOW;
		if (r->cell[i].judged)
			c->nby[r->cell[i].by]++;
		if (r->line->evidence) {
			c->ev_better += v == CMP_BETTER;
			c->ev_worse += v == CMP_WORSE;
			c->ev_same += v == CMP_SAME;
			c->ev_toofew += v == CMP_TOO_FEW;
			c->ev_onerun += v == CMP_ONE_RUN;
		}
		if (!r->cell[i].present && r->cell[0].present && r->line->better != MM_INFO &&
		    !(r->line->timed && (c->emulated[0] || c->emulated[i]) &&
		      !c->opts.judge_emulated))
			c->nmissing_new++;
	}
}

/*
 * A side's summary and its runs. st_summarize() sorts the values in place,
 * so the runs, which need them in the order they were read, come first;
 * a side of one run has its figures from the summary.
 */
static void side_summary(struct rs_vals *v, bool hmean, double alpha, struct cmp_cell *cell)
{
	struct st_runs *r = &cell->runs;

	if (v->nrun_start)
		st_runs(v->v, v->n, v->run_start, v->nrun_start, r);
	st_summarize(v->v, v->n, hmean, alpha, &cell->sum);
	if (v->nrun_start)
		return;
	*r = (struct st_runs){ .k = 1, .n = v->n, .mean = cell->sum.amean,
			       .inv_n = 1.0 / (double)v->n };
	if (v->n > 1) {
		r->var_within = cell->sum.sd * cell->sum.sd;
		r->within_ok = cell->sum.sd_ok && isfinite(r->var_within);
	}
}

static void build_row(struct cmp *c, struct cmp_row *r)
{
	struct rs_line *l = r->line;
	int i;

	r->hmean = use_hmean(l, c->nsides);
	for (i = 0; i < c->nsides; i++) {
		struct cmp_cell *cell = &r->cell[i];
		size_t n = i < l->nvals ? l->vals[i].n : 0;

		cell->present = n > 0;
		if (!n) {
			r->partial = true;
			cell->verdict = CMP_MISSING;
			continue;
		}
		side_summary(&l->vals[i], r->hmean, c->alpha, cell);
	}
	r->cell[0].verdict = r->cell[0].present ? CMP_BASE : CMP_MISSING;
	r->cell[0].pct_ok = r->cell[0].present;
	for (i = 1; i < c->nsides; i++)
		if (r->cell[i].present && r->cell[0].present)
			judge(c, i, l, &r->cell[0], &r->cell[i]);
		else
			r->cell[i].verdict = CMP_MISSING;
}

struct build_part {
	struct cmp *c;
	size_t from, to;
};

static void *build_rows(void *arg)
{
	struct build_part *p = arg;
	size_t i;

	for (i = p->from; i < p->to; i++)
		build_row(p->c, &p->c->rows[i]);
	return NULL;
}

/* Lines are independent: the second half is summarized on a second thread. */
static void build_all(struct cmp *c)
{
	struct build_part a = { c, 0, c->nrows / 2 }, b = { c, c->nrows / 2, c->nrows };
	bool threaded = c->nrows >= 4096 && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	pthread_t tid;

	if (threaded && pthread_create(&tid, NULL, build_rows, &b))
		threaded = false;
	if (!threaded)
		a.to = c->nrows;
	build_rows(&a);
	if (threaded)
		pthread_join(tid, NULL);
}

/* A side ran in a QEMU TCG guest if any of its runs says vm_accel=tcg. */
static void find_emulated(struct cmp *c)
{
	const char *v;
	int i;

	for (i = 0; i < c->set->nruns; i++) {
		const struct rs_run *r = &c->set->runs[i];

		v = r->side >= 0 ? rs_meta_get(r, "vm_accel") : NULL;
		if (v && !strcmp(v, "tcg"))
			c->emulated[r->side] = true;
	}
}

int cmp_build(struct cmp *c, struct rs_set *s, double alpha)
{
	struct cmp_opts o = { .alpha = alpha, .correction = CMP_BH };

	return cmp_build_opts(c, s, &o);
}

int cmp_build_opts(struct cmp *c, struct rs_set *s, const struct cmp_opts *o)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->set = s;
	c->opts = *o;
	c->alpha = o->alpha;
	c->nsides = s->nsides;
	c->nrows = s->nlines;
	/* a cell is some 200 bytes: a million lines want huge pages */
	if (big_reserve(&c->rows_mem, s->nlines * sizeof(*c->rows)) ||
	    big_reserve(&c->cells_mem, s->nlines * (size_t)s->nsides * sizeof(*c->cells)))
		return -1;
	c->rows = c->rows_mem.p;
	c->cells = c->cells_mem.p;
	for (i = 0; i < c->nrows; i++) {
		c->rows[i].line = s->sorted[i];
		c->rows[i].cell = &c->cells[i * s->nsides];
	}
	find_emulated(c);
	build_all(c);
	if (apply_correction(c))
		return -1;
	for (i = 0; i < c->nrows; i++)
		count(c, &c->rows[i]);
	return 0;
}

void cmp_free(struct cmp *c)
{
	big_release(&c->rows_mem);
	big_release(&c->cells_mem);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------ meta facts */

/* Facts that are expected to differ from run to run: never listed. */
static bool fact_ignored(const char *key)
{
	return !strcmp(key, "run_id") || !strcmp(key, "start_time") ||
	       !strcmp(key, "label");
}

/*
 * Facts that differ on every run by nature: the VM lab's timings of this
 * run (when QEMU started, how long boot and each stage took). Listed, but
 * left out of the one-screen view.
 */
static bool fact_per_run(const char *key)
{
	static const char *const keys[] = {
		"vm_qemu_start_epoch_s", "vm_boot_s", "vm_guest_uptime_at_init_s",
		"vm_start_s", "vm_first_row_s", "vm_exit_s", "vm_total_s", NULL,
	};
	int i;

	for (i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/*
 * Facts that change what a benchmark measures: the CPUs and NUMA layout
 * the tasks run on, the THP policy (huge or base page faults, khugepaged
 * and compaction activity), automatic NUMA balancing (its hinting faults
 * land in timed phases), swap (reclaim of anonymous memory exists or not),
 * and whether the kernel ran in a VM and how it was accelerated.
 */
static bool fact_critical(const char *key)
{
	static const char *const keys[] = {
		"cpus", "cpu_model", "numa_nodes", "node_mem_mb", "thp_enabled",
		"thp_defrag", "thp_shmem_enabled", "numa_balancing", "vm",
		"vm_accel", "swap_total_kb", NULL,
	};
	size_t n = strlen(key);
	int i;

	for (i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return !strncmp(key, "mthp_", 5) && n > 13 && !strcmp(key + n - 8, "_enabled");
}

/*
 * Node sizes move by a few MB between kernels (memmap, reserved memory):
 * the same node ids with sizes within 5% are the same layout.
 */
static bool same_nodes(const char *a, const char *b)
{
	long ia, ib;
	double ma, mb;
	int na, nb;

	while (*a || *b) {
		if (sscanf(a, "%ld:%lf%n", &ia, &ma, &na) != 2 ||
		    sscanf(b, "%ld:%lf%n", &ib, &mb, &nb) != 2)
			return !strcmp(a, b);
		if (ia != ib || fabs(ma - mb) > 0.05 * fmax(ma, mb))
			return false;
		a += na + (a[na] == ';');
		b += nb + (b[nb] == ';');
	}
	return true;
}

static bool fact_equiv(const char *key, const char *a, const char *b)
{
	if (!strcmp(a, b))
		return true;
	if (!strcmp(key, "node_mem_mb"))
		return same_nodes(a, b);
	if (!strcmp(key, "swap_total_kb"))	/* swap or no swap */
		return (atoll(a) > 0) == (atoll(b) > 0);
	return false;
}

/* Is v one of the " | "-separated values in list? */
static bool has_value(const char *list, const char *v)
{
	size_t n = strlen(v);
	const char *p = list, *end;

	for (;;) {
		end = strstr(p, " | ");
		if ((end ? (size_t)(end - p) : strlen(p)) == n && !strncmp(p, v, n))
			return true;
		if (!end)
			return false;
		p = end + 3;
	}
}

static int add_value(char **dst, const char *v)
{
	size_t n;
	char *r;

	if (!*dst)
		return (*dst = strdup(v)) ? 0 : -1;
	if (has_value(*dst, v))
		return 0;
	n = strlen(*dst);
	r = realloc(*dst, n + strlen(v) + 4);
	if (!r)
		return -1;
	sprintf(r + n, " | %s", v);
	*dst = r;
	return 0;
}

/* Every value of KEY in runs with a meta.csv, per side. */
static int fact_values(const struct rs_set *s, struct cmp_fact *f)
{
	const char *v;
	int i;

	for (i = 0; i < s->nruns; i++) {
		const struct rs_run *r = &s->runs[i];

		if (!r->has_meta || r->side < 0)
			continue;
		v = rs_meta_get(r, f->key);
		if (add_value(&f->val[r->side], v ? v : "(absent)"))
			return -1;
	}
	return 0;
}

/* Does the fact differ, and does the difference change the answer? */
static bool fact_differs(const struct rs_set *s, struct cmp_fact *f)
{
	const char *vi, *vj;
	bool differs = false;
	int ri, rj;

	for (ri = 0; ri < s->nruns; ri++) {
		if (!s->runs[ri].has_meta || s->runs[ri].side < 0)
			continue;
		vi = rs_meta_get(&s->runs[ri], f->key);
		for (rj = ri + 1; rj < s->nruns; rj++) {
			if (!s->runs[rj].has_meta || s->runs[rj].side < 0)
				continue;
			vj = rs_meta_get(&s->runs[rj], f->key);
			if (!vi || !vj) {
				differs |= vi != vj;
				continue;	/* unknown on one side: listed only */
			}
			if (strcmp(vi, vj))
				differs = true;
			if (fact_critical(f->key) && !fact_equiv(f->key, vi, vj))
				f->critical = true;
		}
	}
	return differs;
}

static bool key_seen(const struct rs_set *s, int run, int k)
{
	const char *key = s->runs[run].meta[k].key;
	int i;

	for (i = 0; i < run; i++)
		if (s->runs[i].has_meta && s->runs[i].side >= 0 &&
		    rs_meta_get(&s->runs[i], key))
			return true;
	return false;
}

static int meta_key(const struct rs_set *s, struct cmp_meta *m, const char *key)
{
	struct cmp_fact f = { .key = key, .per_run = fact_per_run(key) }, *nf;
	int i;

	if (fact_ignored(key) || !fact_differs(s, &f))
		return 0;
	if (fact_values(s, &f))
		goto nomem;
	for (i = 0; i < s->nsides; i++)
		if (!f.val[i] && !(f.val[i] = strdup("(no meta.csv)")))
			goto nomem;
	nf = realloc(m->f, (m->n + 1) * sizeof(*nf));
	if (!nf)
		goto nomem;
	m->f = nf;
	m->f[m->n++] = f;
	m->ncritical += f.critical;
	return 0;
nomem:
	for (i = 0; i < RS_MAX_SIDES; i++)
		free(f.val[i]);
	return -1;
}

int cmp_meta(const struct rs_set *s, struct cmp_meta *m)
{
	int i, k;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < s->nruns; i++) {
		if (!s->runs[i].has_meta || s->runs[i].side < 0)
			continue;
		for (k = 0; k < s->runs[i].nmeta; k++)
			if (!key_seen(s, i, k) && meta_key(s, m, s->runs[i].meta[k].key))
				return -1;
	}
	return 0;
}

void cmp_meta_free(struct cmp_meta *m)
{
	int i, j;

	for (i = 0; i < m->n; i++)
		for (j = 0; j < RS_MAX_SIDES; j++)
			free(m->f[i].val[j]);
	free(m->f);
	memset(m, 0, sizeof(*m));
}
