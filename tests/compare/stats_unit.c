// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of mmcompare's statistics and comparison (built with ASan and
 * UBSan, run by test_stats.sh). Prints PASS:/FAIL: lines.
 *
 * Reference values were computed independently of GSL: t and the Welch-
 * Satterthwaite df with exact rational arithmetic (Python fractions), p by
 * integrating the Student t density with mpmath at 40 digits, and the t
 * quantile of the interval by root finding on that integral. Two cases have
 * closed forms checked here directly: df = 1 (Cauchy, p = 1 - 2 atan(t)/pi)
 * and df = 2 (p = 1 - t / sqrt(2 + t^2)).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "compare.h"
#include "stats.h"

static int fails;

__attribute__((format(printf, 3, 4)))
static void check(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS: %s\n", name);
		return;
	}
	printf("FAIL: %s - ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fails++;
}

static bool near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fmax(fabs(want), 1e-300);
}

static void summarize(const double *v, size_t n, bool hmean, struct st_summary *s)
{
	double *c = malloc(n * sizeof(*c));

	memcpy(c, v, n * sizeof(*c));
	st_summarize(c, n, hmean, 0.05, s);
	free(c);
}

struct welch_ref {
	const char *name;
	const double *a, *b;
	size_t na, nb;
	double t, df, p, lo, hi;
};

static void check_welch(const struct welch_ref *r)
{
	struct st_summary a, b;
	struct st_welch w;
	char n[128];

	summarize(r->a, r->na, false, &a);
	summarize(r->b, r->nb, false, &b);
	st_welch(&a, &b, 0.05, &w);
	snprintf(n, sizeof(n), "welch %s: t, df, p, 95%% CI", r->name);
	check(n, w.ok && w.t_ok && w.df_ok && near(w.t, r->t, 1e-12) && near(w.df, r->df, 1e-12) &&
	      near(w.p, r->p, 1e-8) && near(w.ci_lo, r->lo, 1e-8) && near(w.ci_hi, r->hi, 1e-8),
	      "t %.15g df %.15g p %.15g CI [%.15g, %.15g]; want t %.15g df %.15g p %.15g "
	      "CI [%.15g, %.15g]", w.t, w.df, w.p, w.ci_lo, w.ci_hi, r->t, r->df, r->p, r->lo,
	      r->hi);
}

/* Unequal variances, equal n (15/15) and unequal n (10/20); n = 2 vs 10. */
static void test_welch_refs(void)
{
	static const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9,
				     22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	static const double b1[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8,
				     20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	static const double a2[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
	static const double b2[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
				     23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	static const double a3[] = { 100, 110 };
	static const double b3[] = { 90, 92, 95, 91, 93, 94, 96, 90, 92, 97 };
	/* df: 210571408334/8426722753, 35661100/1454093, 8192/7813 exactly */
	const struct welch_ref refs[] = {
		{ "15 vs 15", a1, b1, 15, 15, 2.45535639828601, 210571408334.0 / 8426722753.0,
		  0.021378001462867, 0.349237066192405, 3.98409626714093 },
		{ "10 vs 20", a2, b2, 10, 20, 2.22551203996985, 35661100.0 / 1454093.0,
		  0.0354845308300102, 0.163541349879444, 4.27645865012056 },
		{ "n=2 vs n=10", a3, b3, 2, 10, -2.37170824512628, 8192.0 / 7813.0,
		  0.244677749144068, -69.6691929246748, 45.6691929246748 },
	};

	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		check_welch(&refs[i]);
}

/*
 * n = 2 against a side without spread: the df is exactly n - 1 = 1, and
 * the t distribution with 1 df is the Cauchy: p = 1 - 2 atan(|t|) / pi,
 * quantile tan(pi (q - 1/2)).
 * a = {10, 12}: mean 11, s^2 = 2, se = sqrt(2/2) = 1; b = 20 x 10: t = 9.
 */
static void test_welch_df1(void)
{
	double a[] = { 10, 12 }, b[10], q = tan(M_PI * 0.475);
	struct st_summary sa, sb;
	struct st_welch w;

	for (int i = 0; i < 10; i++)
		b[i] = 20;
	summarize(a, 2, false, &sa);
	summarize(b, 10, false, &sb);
	st_welch(&sa, &sb, 0.05, &w);
	check("welch n=2 vs n=10 without spread: df 1, Cauchy p and CI",
	      near(w.t, 9, 1e-12) && near(w.df, 1, 1e-12) &&
	      near(w.p, 1 - 2 * atan(9) / M_PI, 1e-9) && near(w.ci_lo, 9 - q, 1e-9) &&
	      near(w.ci_hi, 9 + q, 1e-9),
	      "t %g df %g p %.12g CI [%g, %g]", w.t, w.df, w.p, w.ci_lo, w.ci_hi);
}

/*
 * df = 2: a = {1, 2, 3} (s^2 = 1, se^2 = 1/3), b = 3 x 5 without spread:
 * t = 1 / sqrt(1/3) = sqrt(3), p = 1 - t / sqrt(2 + t^2) = 1 - sqrt(3/5),
 * quantile (2q - 1) / sqrt(2 q (1 - q)) at q = 0.975.
 */
static void test_welch_df2(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 3, 3, 3, 3, 3 };
	double q = 0.95 / sqrt(2 * 0.975 * 0.025), se = sqrt(1.0 / 3);
	struct st_summary sa, sb;
	struct st_welch w;

	summarize(a, 3, false, &sa);
	summarize(b, 5, false, &sb);
	st_welch(&sa, &sb, 0.05, &w);
	check("welch df 2 closed form", near(w.t, sqrt(3), 1e-12) && near(w.df, 2, 1e-12) &&
	      near(w.p, 1 - sqrt(0.6), 1e-9) && near(w.ci_lo, 1 - q * se, 1e-9) &&
	      near(w.ci_hi, 1 + q * se, 1e-9),
	      "t %g df %g p %.12g CI [%g, %g]", w.t, w.df, w.p, w.ci_lo, w.ci_hi);
}

static bool finite_welch(const struct st_welch *w)
{
	return isfinite(w->p) && isfinite(w->t) && isfinite(w->ci_lo) && isfinite(w->ci_hi) &&
	       isfinite(w->diff) && isfinite(w->df);
}

/* No spread on either side: the difference is certain, or there is none. */
static void test_zero_variance(void)
{
	double z[] = { 0, 0, 0 }, h[] = { 100, 100, 100 }, f[] = { 5, 5, 5 };
	struct st_summary a, b;
	struct st_welch w;

	summarize(z, 3, false, &a);
	summarize(h, 3, false, &b);
	st_welch(&a, &b, 0.05, &w);
	check("zero variance, different means: p = 0, CI = diff, no NaN",
	      w.ok && w.p == 0 && w.ci_lo == 100 && w.ci_hi == 100 && finite_welch(&w),
	      "p %g CI [%g, %g]", w.p, w.ci_lo, w.ci_hi);
	summarize(f, 3, false, &a);
	summarize(f, 3, false, &b);
	st_welch(&a, &b, 0.05, &w);
	check("zero variance, same means: p = 1, no NaN",
	      w.ok && w.p == 1 && w.ci_lo == 0 && w.ci_hi == 0 && finite_welch(&w),
	      "p %g CI [%g, %g]", w.p, w.ci_lo, w.ci_hi);
	check("zero variance: CoV 0, CI of the mean = mean",
	      a.cov_ok && a.cov == 0 && a.ci_ok && a.ci_lo == 5 && a.ci_hi == 5,
	      "cov %g CI [%g, %g]", a.cov, a.ci_lo, a.ci_hi);
}

/*
 * {10, 12, 15}: Hmean 3 / (1/10 + 1/12 + 1/15) = 12. Reciprocals have mean
 * 1/12 and stddev 1/60; their interval (df 2 closed-form quantile q) is
 * inverted into the interval of the harmonic mean.
 */
static void test_hmean_ci(void)
{
	double v[] = { 10, 12, 15 }, q = 0.95 / sqrt(2 * 0.975 * 0.025);
	double h = q * (1.0 / 60) / sqrt(3);
	struct st_summary s;

	summarize(v, 3, true, &s);
	check("Hmean 95% CI from the reciprocals", s.hmean && near(s.mean, 12, 1e-14) &&
	      s.ci_ok && near(s.ci_lo, 1 / (1.0 / 12 + h), 1e-12) &&
	      near(s.ci_hi, 1 / (1.0 / 12 - h), 1e-12),
	      "mean %g CI [%.15g, %.15g]", s.mean, s.ci_lo, s.ci_hi);
}

/* {1, 2, 4}: Amean 7/3, Hmean 3 / (1 + 1/2 + 1/4) = 12/7, s^2 = 7/3. */
static void test_summary(void)
{
	double v[] = { 4, 1, 2 }, z[] = { 0, 1, 2 };
	struct st_summary s;

	summarize(v, 3, false, &s);
	check("summary Amean, median, min, max, stddev, CoV",
	      !s.hmean && near(s.mean, 7.0 / 3, 1e-15) && s.median == 2 && s.min == 1 &&
	      s.max == 4 && near(s.sd, sqrt(7.0 / 3), 1e-15) &&
	      near(s.cov, 100 * sqrt(7.0 / 3) / (7.0 / 3), 1e-14),
	      "mean %g median %g sd %g cov %g", s.mean, s.median, s.sd, s.cov);
	summarize(v, 3, true, &s);
	check("summary Hmean; no CI when the reciprocals' interval reaches 0",
	      s.hmean && near(s.mean, 12.0 / 7, 1e-15) && near(s.amean, 7.0 / 3, 1e-15) &&
	      !s.ci_ok, "hmean %d mean %g ci_ok %d", s.hmean, s.mean, s.ci_ok);
	test_hmean_ci();
	summarize(z, 3, true, &s);
	check("Hmean falls back to Amean when a value is 0", !s.hmean && s.mean == 1,
	      "hmean %d mean %g", s.hmean, s.mean);
	summarize(v, 1, false, &s);
	check("n = 1: no stddev, CoV or CI claimed", s.n == 1 && !s.sd_ok && !s.cov_ok && !s.ci_ok,
	      "sd_ok %d cov_ok %d ci_ok %d", s.sd_ok, s.cov_ok, s.ci_ok);
}

/* ------------------------------------------------ comparisons via CSV */

static const char header[] = "schema,run_id,label,kernel,workload,case,iteration,metric,"
			     "value,unit,better\n";

/* results.csv text of one label: metric,better,unit and its values. */
static char *csv_side(const char *label, const char *metric, const char *better,
		      const double *v, size_t n)
{
	size_t len = sizeof(header) + n * 128, o;
	char *buf = malloc(len);

	o = snprintf(buf, len, "%s", header);
	for (size_t i = 0; i < n; i++)
		o += snprintf(buf + o, len - o, "1,r,%s,k,w,\"threads=1\",%zu,%s,%.17g,ns,%s\n",
			      label, i, metric, v[i], better);
	return buf;
}

/* Compare one metric: BASE values a[], NEW values b[]; returns NEW's cell. */
static struct cmp_cell one_cmp(const char *better, const double *a, size_t na,
			       const double *b, size_t nb, bool *hmean)
{
	struct cmp_cell cell = { 0 };
	struct rs_set s;
	struct cmp c;
	char *x = csv_side("base", "m", better, a, na), *y = csv_side("new", "m", better, b, nb);

	rs_init(&s, 0);
	if (rs_new_run(&s, "base.csv") < 0 || rs_parse_buf(&s, RS_RESULTS, "base.csv", x,
							    strlen(x), 0) ||
	    rs_new_run(&s, "new.csv") < 0 || rs_parse_buf(&s, RS_RESULTS, "new.csv", y,
							   strlen(y), 1) ||
	    rs_finish(&s) || cmp_build(&c, &s, 0.05)) {
		printf("FAIL: building a comparison - %s\n", s.err);
		fails++;
	} else {
		cell = c.rows[0].cell[1];
		*hmean = c.rows[0].hmean;
		cmp_free(&c);
	}
	rs_free(&s);
	free(x);
	free(y);
	return cell;
}

static void test_orientation(void)
{
	double a[] = { 99, 100, 101 }, b[] = { 89, 90, 91 };
	struct cmp_cell c;
	bool hm;

	c = one_cmp("lower", a, 3, b, 3, &hm);
	check("lower is better: 100 -> 90 is +10% and better",
	      !hm && c.pct_ok && near(c.pct, 10, 1e-12) && c.significant &&
	      c.verdict == CMP_BETTER, "pct %g verdict %s", c.pct, cmp_verdict_str(c.verdict));
	c = one_cmp("higher", a, 3, b, 3, &hm);
	check("higher is better: 100 -> 90 is worse, about -10%, Hmean",
	      hm && c.pct_ok && c.pct < -9.9 && c.pct > -10.1 && c.significant &&
	      c.verdict == CMP_WORSE, "pct %g verdict %s hmean %d", c.pct,
	      cmp_verdict_str(c.verdict), hm);
	c = one_cmp("info", a, 3, b, 3, &hm);
	check("info: raw change -10%, never judged",
	      !hm && near(c.pct, -10, 1e-12) && !c.significant && c.verdict == CMP_INFO,
	      "pct %g verdict %s", c.pct, cmp_verdict_str(c.verdict));
}

static void test_significance(void)
{
	double a[] = { 1000, 1010, 990, 1005, 995 }, b[] = { 1000, 1010, 990, 1005, 995 };
	double two[] = { 1000, 1001 }, far[] = { 10, 11, 12 };
	double z[] = { 0, 0, 0 }, h[] = { 100, 100, 100 };
	struct cmp_cell c;
	bool hm;

	c = one_cmp("lower", a, 5, b, 5, &hm);
	check("identical distributions: not significant, p = 1",
	      !c.significant && c.verdict == CMP_SAME && c.w.p == 1,
	      "p %g verdict %s", c.w.p, cmp_verdict_str(c.verdict));
	c = one_cmp("lower", two, 2, far, 3, &hm);
	check("n = 2 on a side: no significance claimed however large the change",
	      !c.significant && c.verdict == CMP_TOO_FEW, "verdict %s",
	      cmp_verdict_str(c.verdict));
	c = one_cmp("lower", z, 3, h, 3, &hm);
	check("0,0,0 -> 100,100,100 (lower better): significant regression, p = 0",
	      c.significant && c.verdict == CMP_WORSE && c.w.p == 0 && !c.pct_ok,
	      "p %g verdict %s pct_ok %d", c.w.p, cmp_verdict_str(c.verdict), c.pct_ok);
	c = one_cmp("higher", z, 3, h, 3, &hm);
	check("0,0,0 -> 100,100,100 (higher better): significant improvement, Amean",
	      c.significant && c.verdict == CMP_BETTER && !hm, "verdict %s hmean %d",
	      cmp_verdict_str(c.verdict), hm);
}

/*
 * Benjamini-Hochberg against known numbers: four metrics whose raw Welch
 * p are 0.010, 0.030, 0.036 and 0.040 (n = 3 a side, sd 1 each: df 4, t =
 * d / sqrt(2/3), so d comes from the t quantile). BH adjusts rank k of m by
 * p * m / k and then takes the minimum over the ranks above (step-up):
 * 0.04, 0.06 -> 0.04, 0.048 -> 0.04, 0.04, all significant at 0.05.
 * Bonferroni (p * m: 0.04, 0.12, 0.144, 0.16) and Holm (step-down,
 * p * (m - k + 1) and the maximum below: 0.04, 0.09, 0.09, 0.09) call one;
 * BH without the step-up minimum leaves rank 2 at 0.06, not significant.
 */
static void test_benjamini_hochberg(void)
{
	static const double target[] = { 0.010, 0.030, 0.036, 0.040 };
	const char *name[] = { "m1", "m2", "m3", "m4" };
	size_t len = 8192, ox, oy;
	char *x = malloc(len), *y = malloc(len);
	struct rs_set s;
	struct cmp c;

	ox = snprintf(x, len, "%s", header);
	oy = snprintf(y, len, "%s", header);
	for (int m = 0; m < 4; m++) {
		double d = gsl_cdf_tdist_Qinv(target[m] / 2, 4) * sqrt(2.0 / 3);

		for (int i = 0; i < 3; i++) {
			ox += snprintf(x + ox, len - ox, "1,r,base,k,w,\"threads=1\",%d,%s,%.17g,ns,lower\n",
				       i, name[m], 100.0 + i - 1);
			oy += snprintf(y + oy, len - oy, "1,r,new,k,w,\"threads=1\",%d,%s,%.17g,ns,lower\n",
				       i, name[m], 100.0 + d + i - 1);
		}
	}
	rs_init(&s, 0);
	if (rs_new_run(&s, "base.csv") < 0 ||
	    rs_parse_buf(&s, RS_RESULTS, "base.csv", x, strlen(x), 0) ||
	    rs_new_run(&s, "new.csv") < 0 ||
	    rs_parse_buf(&s, RS_RESULTS, "new.csv", y, strlen(y), 1) ||
	    rs_finish(&s) || cmp_build(&c, &s, 0.05)) {
		check("Benjamini-Hochberg: building the comparison", false, "%s", s.err);
	} else {
		check("Benjamini-Hochberg: a family of 4 judged cells", c.nfamily == 4 && c.nrows == 4,
		      "family %zu rows %zu", c.nfamily, c.nrows);
		for (size_t r = 0; r < c.nrows; r++) {
			struct cmp_cell *k = &c.rows[r].cell[1];
			int m = c.rows[r].line->metric[1] - '1';
			char what[160];

			if (m < 0 || m > 3)
				continue;
			snprintf(what, sizeof(what), "Benjamini-Hochberg: raw p %.3f adjusted to 0.040, "
				 "significant at 0.05 (Bonferroni %.3f, Holm %.3f)", target[m],
				 target[m] * 4, m ? 0.09 : 0.04);
			check(what, k->p_ok && near(k->w.p, target[m], 1e-9) &&
			      near(k->p_adj, 0.04, 1e-9) && k->significant && k->verdict == CMP_WORSE,
			      "raw p %.9g adjusted %.9g significant %d", k->w.p, k->p_adj,
			      k->significant);
		}
		cmp_free(&c);
	}
	rs_free(&s);
	free(x);
	free(y);
}

int main(void)
{
	test_welch_refs();
	test_welch_df1();
	test_welch_df2();
	test_zero_variance();
	test_summary();
	test_orientation();
	test_significance();
	test_benjamini_hochberg();
	return fails ? 1 : 0;
}
