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
 * and df = 2 (p = 1 - t / sqrt(2 + t^2), quantile (2q - 1) / sqrt(2q(1 - q))).
 * The run as the unit (st_runs, st_welch_runs, st_mdc) the same way: the
 * variances by hand, t, df, p, the interval and the MDC from mpmath.
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

/* results.csv text of one run of a label: metric, better, unit, values. */
static char *csv_run(const char *run_id, const char *label, const char *metric,
		     const char *better, const char *unit, const double *v, size_t n)
{
	size_t len = sizeof(header) + n * 128, o;
	char *buf = malloc(len);

	o = snprintf(buf, len, "%s", header);
	for (size_t i = 0; i < n; i++)
		o += snprintf(buf + o, len - o, "1,%s,%s,k,w,\"threads=1\",%zu,%s,%.17g,%s,%s\n",
			      run_id, label, i, metric, v[i], unit, better);
	return buf;
}

/* Comparisons build on these: unit count (not a time) unless said. */
static const char *cmp_unit = "count";

/*
 * Compare one metric: BASE runs a[0..ka), NEW runs b[0..kb), each run n
 * values; returns NEW's cell (and the comparison's MDC level).
 */
static struct cmp_cell runs_cmp(const struct cmp_opts *o, const char *better,
				const double *const *a, size_t ka, const double *const *b,
				size_t kb, size_t n, bool *hmean, double *level)
{
	struct cmp_cell cell = { 0 };
	struct rs_set s;
	struct cmp c;
	char id[32], *x;
	size_t i;
	int run, bad = 0;

	rs_init(&s, 0);
	for (i = 0; i < ka + kb && !bad; i++) {
		snprintf(id, sizeof(id), "r%zu", i);
		x = csv_run(id, i < ka ? "base" : "new", "m", better, cmp_unit,
			    i < ka ? a[i] : b[i - ka], n);
		run = rs_new_run(&s, id);
		bad = run < 0 || rs_parse_buf(&s, RS_RESULTS, id, x, strlen(x), run);
		free(x);
	}
	if (bad || rs_finish(&s) || cmp_build_opts(&c, &s, o)) {
		printf("FAIL: building a comparison - %s\n", s.err);
		fails++;
	} else {
		cell = c.rows[0].cell[1];
		*hmean = c.rows[0].hmean;
		if (level)
			*level = c.mdc_level;
		cmp_free(&c);
	}
	rs_free(&s);
	return cell;
}

static const struct cmp_opts bh05 = { .alpha = 0.05, .correction = CMP_BH };

/* Compare one metric: BASE values a[], NEW values b[] (one run each). */
static struct cmp_cell one_cmp(const char *better, const double *a, size_t na,
			       const double *b, size_t nb, bool *hmean)
{
	struct cmp_cell cell = { 0 };
	struct rs_set s;
	struct cmp c;
	char *x = csv_run("r", "base", "m", better, cmp_unit, a, na);
	char *y = csv_run("r", "new", "m", better, cmp_unit, b, nb);

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
	/* one run a side: the iterations are the samples here (the BH step
	 * is under test, not the run rule) */
	const struct cmp_opts bh_opts = { .alpha = 0.05, .correction = CMP_BH,
					  .iterations_as_samples = true };
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
	    rs_finish(&s) || cmp_build_opts(&c, &s, &bh_opts)) {
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

/* ------------------------------------------------ the run as the unit */

/* Run j of a side: values v[j][0..n). */
static const double ra1[] = { 10, 11, 12 }, ra2[] = { 20, 21, 22 }, ra3[] = { 15, 16, 17 };
static const double rb1[] = { 30, 31, 32 }, rb2[] = { 22, 23, 24 }, rb3[] = { 26, 27, 28 };
static const double rc1[] = { 10, 12, 14 }, rc2[] = { 11, 12, 13 }, rc3[] = { 12, 12, 12 };
static const double rd1[] = { 40, 41, 42 };

static void runs_of(const double *const *r, size_t k, size_t n, struct st_runs *out)
{
	double v[64];
	size_t starts[16], i;

	for (i = 0; i < k; i++) {
		memcpy(v + i * n, r[i], n * sizeof(double));
		if (i)
			starts[i - 1] = i * n;
	}
	st_runs(v, k * n, starts, k - 1, out);
}

/*
 * st_runs: runs {1, 3} and {2, 4, 6, 8}: means 2 and 5, M = 3.5 (each run
 * weighs 1), S^2 = 4.5; within: 2 (1 df) and 20/3 (3 df), MSW = 22 / 4 =
 * 5.5; sum 1/n_i = 0.75. One run: S^2 not claimed.
 */
static void test_st_runs(void)
{
	double v[] = { 1, 3, 2, 4, 6, 8 };
	size_t starts[] = { 2 };
	struct st_runs r;

	st_runs(v, 6, starts, 1, &r);
	check("st_runs: k, N, mean of the runs' means, S^2, MSW, sum 1/n_i (runs of 2 and 4)",
	      r.k == 2 && r.n == 6 && near(r.mean, 3.5, 1e-15) && r.means_ok &&
	      near(r.var_means, 4.5, 1e-14) && r.within_ok && near(r.var_within, 5.5, 1e-14) &&
	      near(r.inv_n, 0.75, 1e-15),
	      "k %zu n %zu mean %g S2 %g (%d) MSW %g (%d) inv_n %g", r.k, r.n, r.mean,
	      r.var_means, r.means_ok, r.var_within, r.within_ok, r.inv_n);
	st_runs(v, 6, starts, 0, &r);
	/* the same values as one run: mean 4, s^2 = 34 / 5 */
	check("st_runs: one run: no spread of runs' means, MSW = s^2",
	      r.k == 1 && !r.means_ok && r.within_ok && near(r.var_within, 6.8, 1e-14), "k %zu means_ok %d MSW %g", r.k, r.means_ok, r.var_within);
}

static bool near_welch(const struct st_welch *w, double t, double df, double p, double lo,
		       double hi)
{
	return w->ok && w->t_ok && w->df_ok && near(w->t, t, 1e-12) && near(w->df, df, 1e-12) &&
	       near(w->p, p, 1e-8) && near(w->ci_lo, lo, 1e-8) && near(w->ci_hi, hi, 1e-8);
}

/*
 * Three runs a side. BASE means 11, 21, 16 (S^2 = 25), NEW 31, 23, 27
 * (S^2 = 16), each run's own variance 1 (MSW / 9 = 0.11 < S^2 / 3): each
 * side's variance is its runs' S^2 / 3; diff 11, se sqrt(41/3), Welch-
 * Satterthwaite df 3.8161180476730988 (2 each side).
 */
static void test_welch_runs(void)
{
	const double *a[] = { ra1, ra2, ra3 }, *b[] = { rb1, rb2, rb3 }, *c[] = { rc1, rc2, rc3 };
	const double *d[] = { rd1 };
	struct st_runs ra, rb, rc, rd;
	struct st_welch w;
	enum st_var va, vb;
	double m;

	runs_of(a, 3, 3, &ra);
	runs_of(b, 3, 3, &rb);
	runs_of(c, 3, 3, &rc);
	runs_of(d, 1, 3, &rd);
	st_welch_runs(&ra, &rb, 0.05, &w, &va, &vb);
	m = st_mdc(&w, 0.05, 0.8);
	check("welch on runs, 3 vs 3: t, df, p, 95% CI of the means of runs' means, MDC",
	      va == ST_VAR_RUNS && vb == ST_VAR_RUNS && near(w.diff, 11, 1e-15) &&
	      near(w.se, 3.6968455021364724, 1e-14) &&
	      near_welch(&w, 2.9755097944025266, 3.8161180476730988, 0.043420980570498995,
			 0.53788493450648756, 21.462115065493512) &&
	      near(m, 13.96023859190187, 1e-8),
	      "src %d/%d t %.15g df %.15g p %.15g CI [%.15g, %.15g] mdc %.15g", va, vb, w.t,
	      w.df, w.p, w.ci_lo, w.ci_hi, m);
	/*
	 * BASE's runs agree (means 12, 12, 12) better than their iterations
	 * (MSW (8 + 2 + 0) / 6 = 5/3): its variance is MSW * sum(1/n_i) / k^2
	 * = 5/27, df 6;
	 * NEW means 21, 31, 26: S^2 / 3 = 25/3, df 2.
	 */
	{
		static const double f1[] = { 20, 21, 22 }, f2[] = { 30, 31, 32 },
				    f3[] = { 25, 26, 27 };
		const double *f[] = { f1, f2, f3 };
		struct st_runs rf;

		runs_of(f, 3, 3, &rf);
		st_welch_runs(&rc, &rf, 0.05, &w, &va, &vb);
		check("welch on runs: a side whose runs agree better than their iterations "
		      "takes its within-run variance (sigma_b^2 estimated 0)",
		      va == ST_VAR_WITHIN && vb == ST_VAR_RUNS &&
		      near_welch(&w, 4.7967380220493503, 2.0895325872284398, 0.037428313032189686,
				 1.9438684683411123, 26.056131531658888),
		      "src %d/%d t %.15g df %.15g p %.15g CI [%.15g, %.15g]", va, vb, w.t, w.df,
		      w.p, w.ci_lo, w.ci_hi);
	}
	/*
	 * NEW of one run (41, s^2/n = 1/3 < 25): BASE's S^2 = 25 stands for the
	 * variance of its one run's mean; both terms are that one estimate, so
	 * df = k - 1 = 2, the closed forms: se = sqrt(25/3 + 25), t = 2.5
	 * sqrt(3), p = 1 - t / sqrt(2 + t^2); MDC (t(.975,2) + t(.8,2)) se.
	 */
	st_welch_runs(&ra, &rd, 0.05, &w, &va, &vb);
	{
		double se = sqrt(25.0 / 3 + 25), t = 2.5 * sqrt(3), q = 0.95 / sqrt(2 * 0.975 * 0.025);
		double q8 = 0.6 / sqrt(2 * 0.8 * 0.2);

		m = st_mdc(&w, 0.05, 0.8);
		check("welch on runs, 3 vs 1: the one run borrows BASE's spread of runs, df 2, "
		      "closed-form p, CI and MDC",
		      va == ST_VAR_RUNS && vb == ST_VAR_BORROWED && near(w.se, se, 1e-14) &&
		      near(w.df, 2, 1e-14) && near(w.t, t, 1e-13) &&
		      near(w.p, 1 - t / sqrt(2 + t * t), 1e-9) && near(w.ci_lo, 25 - q * se, 1e-9) &&
		      near(w.ci_hi, 25 + q * se, 1e-9) && near(m, (q + q8) * se, 1e-9) &&
		      near(m, 30.965101474461245, 1e-9),
		      "src %d/%d se %g df %.15g t %.15g p %.15g CI [%g, %g] mdc %.15g", va, vb, w.se,
		      w.df, w.t, w.p, w.ci_lo, w.ci_hi, m);
	}
	st_welch_runs(&rd, &rd, 0.05, &w, &va, &vb);
	check("welch on runs: one run a side is no test of runs", !w.ok && va == ST_VAR_NONE,
	      "ok %d src %d", w.ok, va);
	/* the MDC at half power is the interval's half-width (level 0.05) */
	st_welch_runs(&ra, &rb, 0.05, &w, &va, &vb);
	m = st_mdc(&w, 0.05, 0.5);
	check("MDC at 50% power = half the 95% interval (the old mdc, named as such)",
	      near(m, (w.ci_hi - w.ci_lo) / 2, 1e-12), "mdc %.15g half-width %.15g", m,
	      (w.ci_hi - w.ci_lo) / 2);
}

/*
 * Through the comparison: three runs a side of a time. The runs decide
 * (not significant: the A/A of issue 27), --iterations-as-samples pools
 * the iterations (significant: the flaw), one run per side is not judged,
 * and counts of one run per side are judged by their iterations as before.
 */
static void test_runs_compare(void)
{
	static const double a1[] = { 12.0, 12.2, 12.1 }, a2[] = { 15.3, 15.4, 15.5 },
			    a3[] = { 12.4, 12.3, 12.5 };
	static const double b1[] = { 15.2, 15.1, 15.3 }, b2[] = { 15.4, 15.6, 15.5 },
			    b3[] = { 15.1, 15.0, 15.2 };
	const double *a[] = { a1, a2, a3 }, *b[] = { b1, b2, b3 };
	struct cmp_opts it = bh05;
	struct cmp_cell c;
	double level;
	bool hm;

	cmp_unit = "loops/s";
	c = runs_cmp(&bh05, "higher", a, 3, b, 3, 3, &hm, &level);
	check("3 runs a side, runs' means apart, iterations tight: decided by the runs, "
	      "not significant, MDC shown",
	      c.judged && c.by == CMP_BY_RUNS && c.verdict == CMP_SAME && !c.significant &&
	      c.runs.k == 3 && c.mdc_ok && c.mdc_pct_ok && c.mdc_pct > 10,
	      "verdict %s by %s p %g mdc %g%%", cmp_verdict_str(c.verdict), cmp_by_str(c.by),
	      c.w.p, c.mdc_pct);
	it.iterations_as_samples = true;
	c = runs_cmp(&it, "higher", a, 3, b, 3, 3, &hm, NULL);
	check("the same with --iterations-as-samples: the iterations decide, significant",
	      c.judged && c.by == CMP_BY_ITERATIONS && c.significant && c.verdict == CMP_BETTER,
	      "verdict %s by %s p %g", cmp_verdict_str(c.verdict), cmp_by_str(c.by), c.w.p);
	c = runs_cmp(&bh05, "higher", a, 1, b, 1, 3, &hm, NULL);
	check("one run a side: a time is not judged (one_run), no p, no MDC",
	      !c.judged && c.verdict == CMP_ONE_RUN && !c.w.ok && !c.mdc_ok && !c.significant,
	      "verdict %s judged %d", cmp_verdict_str(c.verdict), c.judged);
	cmp_unit = "count";
	c = runs_cmp(&bh05, "higher", a, 1, b, 1, 3, &hm, NULL);
	check("one run a side: a count is judged by its iterations",
	      c.judged && c.by == CMP_BY_ITERATIONS && c.significant,
	      "verdict %s by %s", cmp_verdict_str(c.verdict), cmp_by_str(c.by));
	/* ten runs a side: the reader keeps where each begins (its array grows) */
	{
		const double *a10[] = { a1, a2, a3, a1, a2, a3, a1, a2, a3, a1 };
		const double *b10[] = { b1, b2, b3, b1, b2, b3, b1, b2, b3, b2 };

		c = runs_cmp(&bh05, "higher", a10, 10, b10, 10, 3, &hm, NULL);
		check("ten runs a side: k = 10 on both, decided by the runs, df from 9 and 9",
		      c.runs.k == 10 && c.by == CMP_BY_RUNS && c.w.df_ok && c.w.df > 9 &&
		      c.w.df <= 18, "k %zu by %s df %g", c.runs.k, cmp_by_str(c.by), c.w.df);
	}
	/* the MDC's level: one comparison, nothing significant: alpha * 1 / 1 */
	c = runs_cmp(&bh05, "higher", a, 3, b, 3, 3, &hm, &level);
	check("MDC level with one comparison: alpha", near(level, 0.05, 1e-15), "level %g", level);
}

/*
 * Benjamini-Hochberg's level for the MDC: m = 4 judged metrics, R = 1
 * significant (m1: 0 -> 5 exactly, worse): a further one needs p <= 0.05 *
 * 2 / 4 = 0.025.
 */
static void test_mdc_level(void)
{
	static const char csv[] =
		"schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better\n"
		"1,a,base,k,w,,0,m1,0,count,lower\n1,a,base,k,w,,1,m1,0,count,lower\n"
		"1,a,base,k,w,,2,m1,0,count,lower\n"
		"1,a,base,k,w,,0,m2,10,count,lower\n1,a,base,k,w,,1,m2,11,count,lower\n"
		"1,a,base,k,w,,2,m2,12,count,lower\n"
		"1,a,base,k,w,,0,m3,10,count,lower\n1,a,base,k,w,,1,m3,11,count,lower\n"
		"1,a,base,k,w,,2,m3,12,count,lower\n"
		"1,a,base,k,w,,0,m4,10,count,lower\n1,a,base,k,w,,1,m4,11,count,lower\n"
		"1,a,base,k,w,,2,m4,12,count,lower\n";
	static const char csv2[] =
		"schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better\n"
		"1,b,new,k,w,,0,m1,5,count,lower\n1,b,new,k,w,,1,m1,5,count,lower\n"
		"1,b,new,k,w,,2,m1,5,count,lower\n"
		"1,b,new,k,w,,0,m2,10,count,lower\n1,b,new,k,w,,1,m2,11,count,lower\n"
		"1,b,new,k,w,,2,m2,12,count,lower\n"
		"1,b,new,k,w,,0,m3,10,count,lower\n1,b,new,k,w,,1,m3,11,count,lower\n"
		"1,b,new,k,w,,2,m3,12,count,lower\n"
		"1,b,new,k,w,,0,m4,10,count,lower\n1,b,new,k,w,,1,m4,11,count,lower\n"
		"1,b,new,k,w,,2,m4,12,count,lower\n";
	struct rs_set s;
	struct cmp c;

	rs_init(&s, 0);
	if (rs_new_run(&s, "a") < 0 || rs_parse_buf(&s, RS_RESULTS, "a", csv, strlen(csv), 0) ||
	    rs_new_run(&s, "b") < 0 || rs_parse_buf(&s, RS_RESULTS, "b", csv2, strlen(csv2), 1) ||
	    rs_finish(&s) || cmp_build(&c, &s, 0.05)) {
		check("MDC level under Benjamini-Hochberg", false, "%s", s.err);
		rs_free(&s);
		return;
	}
	/* m2 (sd 1, n 3 a side): se sqrt(2/3), df 4: MDC (t(1-0.0125,4) + t(.8,4)) se */
	for (size_t k = 0; k < c.nrows; k++) {
		const struct cmp_cell *x = &c.rows[k].cell[1];

		if (strcmp(c.rows[k].line->metric, "m2"))
			continue;
		check("MDC level under Benjamini-Hochberg: alpha (R + 1) / m = 0.025, the MDC "
		      "at that level and 80% power (mpmath)",
		      c.nfamily == 4 && c.nworse == 1 && near(c.mdc_level, 0.025, 1e-15) &&
		      x->mdc_ok && near(x->mdc, 3.6222813529407932, 1e-8) &&
		      near(x->mdc_pct, 100 * 3.6222813529407932 / 11, 1e-8),
		      "m %zu R %zu level %g mdc %.15g", c.nfamily, c.nbetter, c.mdc_level, x->mdc);
	}
	cmp_free(&c);
	rs_free(&s);
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
	test_st_runs();
	test_welch_runs();
	test_runs_compare();
	test_mdc_level();
	return fails ? 1 : 0;
}
