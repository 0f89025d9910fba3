// SPDX-License-Identifier: GPL-2.0
/*
 * mmcompare --csv (compare.csv): one row per line and side, every
 * statistic, in the columns of compare_csv.h (a row of another width
 * stops the program: the table and the writer are one).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "compare_csv.h"
#include "csvio.h"
#include "mmcompare.h"

/* ------------------------------------------------------------ CSV */

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
			assert(o.col == CC_NCOLS);
			csvo_end(&o);
		}
	}
}

void print_csv(const struct cmp *cmp, FILE *f)
{
	struct csvo o = { .f = f };
	int i;

	for (i = 0; i < CC_NCOLS; i++)
		csvo_str(&o, compare_csv_name(i));
	csvo_end(&o);
	print_halves(csv_range, cmp, cmp->nrows, cmp->nrows >= 20000 ? cmp->nrows / 2 : 0, f);
}
