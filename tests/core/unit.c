// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the core, built with ASan+UBSan: parameter parsing and
 * validation, case expansion and canonical case strings, the CSV row
 * writer (libcsv quoting, read back with libcsv), the grammar of numbers
 * and --alpha (bench/results/numbers.c), percentiles, and the
 * settings journal's bookkeeping on a scratch "knob" file. Prints
 * PASS:/FAIL: lines for tests/run.
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "driver.h"
#include "params.h"
#include "precision.h"
#include "resrow.h"

static int fails;

#define CHECK(name, cond) do {						\
	if (cond)							\
		printf("PASS: %s\n", name);				\
	else {								\
		printf("FAIL: %s - %s (line %d)\n", name, #cond, __LINE__); \
		fails++;						\
	}								\
} while (0)

static const char *def_three(char *buf, size_t len)
{
	snprintf(buf, len, "3");
	return buf;
}

struct tp {
	long long zeta;
	int alpha;
	double mid;
	bool flag;
	long long auto_;	/* "auto" is a C keyword: a row written out */
	const char *sizes;
};

static const struct mm_param tparams[] = {
	{ MM_PINT(struct tp, zeta), .def = "1,2", .min = 1, .max = 10,
	  .help = "z" },
	{ MM_PENUM(struct tp, alpha), .def = "a", .choices = "a|bb|c",
	  .help = "a" },
	{ MM_PDOUBLE(struct tp, mid), .def = "0.5", .min = 0, .max = 1,
	  .help = "m" },
	{ MM_PBOOL(struct tp, flag), .def = "off", .help = "f" },
	{ .name = "auto", .type = MM_P_INT, .off = offsetof(struct tp, auto_),
	  .def_fn = def_three, .min = 1, .max = 9, .help = "computed default" },
	{ MM_PSTRING(struct tp, sizes), .def = "64K,2M", .nolist = true,
	  .help = "one value with commas" },
	MM_PARAM_END,
};

static int trun(struct mm_ctx *ctx)
{
	(void)ctx;
	return MM_PASS;
}

static const struct workload twl = { .name = "twl", .desc = "test",
				     .params = tparams,
				     .params_size = sizeof(struct tp),
				     .run = trun };

static int set_expand(struct mm_plist *pl, const char *kv, char *err, size_t n)
{
	mm_plist_init(pl, &twl);
	if (kv && mm_plist_set(pl, kv, err, n) < 0)
		return -1;
	return mm_plist_expand(pl, err, n);
}

static void test_params(void)
{
	struct mm_plist pl;
	struct mm_case c;
	char err[512];

	CHECK("params: defaults expand", set_expand(&pl, NULL, err, sizeof(err)) == 0);
	CHECK("params: default list gives 2 cases", pl.ncases == 2);
	mm_plist_case(&pl, 1, &c);
	CHECK("params: canonical case is key-sorted",
	      strcmp(mm_case_string(&c),
		     "alpha=a;auto=3;flag=0;mid=0.5;sizes=64K,2M;zeta=2") == 0);
	{
		struct tp t;

		mm_params_fill(&twl, &c, &t);
		CHECK("params: the case fills the typed struct",
		      t.zeta == 2 && t.alpha == 0 && t.mid == 0.5 && !t.flag &&
		      t.auto_ == 3 && !strcmp(t.sizes, "64K,2M"));
	}
	mm_plist_free(&pl);

	CHECK("params: out of range rejected",
	      set_expand(&pl, "zeta=11", err, sizeof(err)) < 0 &&
	      strstr(err, "'zeta'") && strstr(err, "outside"));
	mm_plist_free(&pl);
	CHECK("params: non-integer rejected naming the parameter",
	      set_expand(&pl, "zeta=1,x", err, sizeof(err)) < 0 &&
	      strstr(err, "'zeta'") && strstr(err, "'x'"));
	mm_plist_free(&pl);
	CHECK("params: trailing junk rejected",
	      set_expand(&pl, "mid=0.5s", err, sizeof(err)) < 0 &&
	      strstr(err, "'mid'"));
	mm_plist_free(&pl);
	CHECK("params: bad enum lists the choices",
	      set_expand(&pl, "alpha=d", err, sizeof(err)) < 0 &&
	      strstr(err, "a|bb|c"));
	mm_plist_free(&pl);
	CHECK("params: bad bool rejected",
	      set_expand(&pl, "flag=maybe", err, sizeof(err)) < 0 &&
	      strstr(err, "'flag'"));
	mm_plist_free(&pl);
	CHECK("params: unknown parameter named",
	      set_expand(&pl, "nope=1", err, sizeof(err)) < 0 &&
	      strstr(err, "unknown parameter 'nope'"));
	mm_plist_free(&pl);
	CHECK("params: missing '=' rejected",
	      set_expand(&pl, "zeta", err, sizeof(err)) < 0 &&
	      strstr(err, "key=value"));
	mm_plist_free(&pl);
	CHECK("params: empty list element rejected",
	      set_expand(&pl, "zeta=1,,2", err, sizeof(err)) < 0 && strstr(err, "'zeta'"));
	mm_plist_free(&pl);
	CHECK("params: an empty value is refused, named (unset is a default's: leave it out)",
	      set_expand(&pl, "zeta=", err, sizeof(err)) < 0 &&
	      strstr(err, "parameter 'zeta': empty value"));
	mm_plist_free(&pl);

	/* Lists multiply: 3 x 2 (zeta stays at its default list). */
	mm_plist_init(&pl, &twl);
	mm_plist_set(&pl, "alpha=a,bb,c", err, sizeof(err));
	CHECK("params: lists form the cartesian product",
	      mm_plist_expand(&pl, err, sizeof(err)) == 0 && pl.ncases == 6);
	{
		int distinct = 1;
		struct mm_case c2;

		for (int i = 0; i < pl.ncases; i++)
			for (int j = i + 1; j < pl.ncases; j++) {
				mm_plist_case(&pl, i, &c);
				mm_plist_case(&pl, j, &c2);
				distinct &= strcmp(c.str, c2.str) != 0;
			}
		CHECK("params: every case string distinct", distinct);
	}
	mm_plist_free(&pl);
	mm_plist_init(&pl, &twl);
	mm_plist_set(&pl, "flag=yes", err, sizeof(err));
	mm_plist_set(&pl, "zeta=03", err, sizeof(err));
	mm_plist_expand(&pl, err, sizeof(err));
	mm_plist_case(&pl, 0, &c);
	CHECK("params: values are canonicalised (yes->1, 03->3)",
	      strstr(c.str, "flag=1") && strstr(c.str, "zeta=3"));
	mm_plist_free(&pl);
	/* Decimal only: 010 is ten (not octal 8), 0x3 and " 5" are refused. */
	CHECK("params: 010 is decimal ten",
	      set_expand(&pl, "zeta=010", err, sizeof(err)) == 0 &&
	      (mm_plist_case(&pl, 0, &c), strstr(c.str, "zeta=10")));
	mm_plist_free(&pl);
	CHECK("params: 011 is eleven, out of range (not octal 9)",
	      set_expand(&pl, "zeta=011", err, sizeof(err)) < 0 && strstr(err, "11 is outside"));
	mm_plist_free(&pl);
	{
		static const char *const bad[] = { "zeta=0x3", "zeta= 5", "zeta=+5", "zeta=1e1",
						   "zeta=5 ", "zeta=--1", "mid=0x1p-3", "mid=inf",
						   "mid=nan", "mid= 0.5", "mid=.", "mid=1e", "mid=0.5e+",
						   "zeta=99999999999999999999" };
		bool all = true;

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			all &= set_expand(&pl, bad[i], err, sizeof(err)) < 0 &&
			       strstr(err, strchr(bad[i], '=') + 1) != NULL;
			mm_plist_free(&pl);
		}
		CHECK("params: hex, spaces, signs, inf/nan, overflow refused, naming the value", all);
	}
	CHECK("params: a decimal double with an exponent is accepted",
	      set_expand(&pl, "mid=5e-1", err, sizeof(err)) == 0);
	mm_plist_free(&pl);
}

/* The one grammar of numbers and the significance level (numbers.h). */
static void test_numbers(void)
{
	static const char *const good[] = { "0", "-1.5e+3", ".5", "5.", "1E-9", "007" };
	static const char *const bad[] = { "+5", " 5", "5 ", "0x10", "inf", "nan", "1e",
					   "", "-", ".", "1e+", "--1", "1.5.2" };
	static const char *const bad_alpha[] = { "0", "1", "+0.05", "0.05x", "abc", "-0.1",
						 "0x0.1", "nan" };
	bool all = true;
	long long v;
	double a;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		all &= mm_decimal_real(good[i]);
	CHECK("numbers: decimal reals accepted", all);
	all = true;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		all &= !mm_decimal_real(bad[i]);
	CHECK("numbers: a leading '+', blanks, hex, inf/nan, bare signs refused", all);
	CHECK("numbers: decimal integer", mm_parse_decimal("-42", &v) == 0 && v == -42);
	CHECK("numbers: integer refuses '+', a fraction, hex and overflow",
	      mm_parse_decimal("+1", &v) == -EINVAL && mm_parse_decimal("1.0", &v) == -EINVAL &&
	      mm_parse_decimal("0x1", &v) == -EINVAL &&
	      mm_parse_decimal("99999999999999999999", &v) == -ERANGE);
	CHECK("numbers: --alpha 0.05 and 1e-3 accepted",
	      mm_parse_alpha("unit", "0.05", &a) == 0 && a == 0.05 &&
	      mm_parse_alpha("unit", "1e-3", &a) == 0 && a == 1e-3);
	all = true;
	for (size_t i = 0; i < sizeof(bad_alpha) / sizeof(bad_alpha[0]); i++)
		all &= mm_parse_alpha("unit", bad_alpha[i], &a) == -1;
	CHECK("numbers: --alpha outside (0, 1) or not decimal refused", all);
}

struct parsed {
	char f[16][256];
	int nf, rows;
};

static void pf(void *s, size_t len, void *d)
{
	struct parsed *p = d;

	if (p->nf < 16)
		snprintf(p->f[p->nf], sizeof(p->f[0]), "%.*s", (int)len, (char *)s);
	p->nf++;
}

static void pr(int c, void *d)
{
	(void)c;
	((struct parsed *)d)->rows++;
}

static void test_csv(void)
{
	const char *fields[] = { "plain", "with,comma", "with \"quote\"",
				 "two\nlines", " lead", "" };
	struct csv_parser p;
	struct parsed out = { 0 };
	char line[1024];
	int n = mm_csv_line(line, sizeof(line), fields, 6);
	bool same = true;

	CHECK("csv: line formatted", n > 0 && line[n - 1] == '\n');
	csv_init(&p, 0);
	csv_parse(&p, line, (size_t)n, pf, pr, &out);
	csv_fini(&p, pf, pr, &out);
	csv_free(&p);
	for (int i = 0; i < 6; i++)
		same &= strcmp(out.f[i], fields[i]) == 0;
	CHECK("csv: libcsv reads back every field exactly", out.nf == 6 &&
	      out.rows == 1 && same);
	CHECK("csv: plain fields are not quoted", strncmp(line, "plain,", 6) == 0);
	CHECK("csv: overflow reported, not truncated silently",
	      mm_csv_line(line, 10, fields, 6) < 0);
}

/* The writers' column positions (results.h enums) match the headers. */
static void test_schema(void)
{
	static const struct { const char *header, *name; int col; } cols[] = {
		{ MM_RESULTS_HEADER, "schema", MM_COL_SCHEMA },
		{ MM_RESULTS_HEADER, "run_id", MM_COL_RUN_ID },
		{ MM_RESULTS_HEADER, "label", MM_COL_LABEL },
		{ MM_RESULTS_HEADER, "kernel", MM_COL_KERNEL },
		{ MM_RESULTS_HEADER, "workload", MM_COL_WORKLOAD },
		{ MM_RESULTS_HEADER, "case", MM_COL_CASE },
		{ MM_RESULTS_HEADER, "iteration", MM_RES_ITERATION },
		{ MM_RESULTS_HEADER, "metric", MM_RES_METRIC },
		{ MM_RESULTS_HEADER, "value", MM_RES_VALUE },
		{ MM_RESULTS_HEADER, "unit", MM_RES_UNIT },
		{ MM_RESULTS_HEADER, "better", MM_RES_BETTER },
		{ MM_CASES_HEADER, "status", MM_CASE_STATUS },
		{ MM_CASES_HEADER, "reason", MM_CASE_REASON },
		{ MM_CASES_HEADER, "signal", MM_CASE_SIGNAL },
		{ MM_CASES_HEADER, "duration_s", MM_CASE_DURATION },
		{ MM_CASES_HEADER, "iterations", MM_CASE_ITERATIONS },
		{ MM_CASES_HEADER, "precision_target_pct", MM_CASE_PREC_TARGET },
		{ MM_CASES_HEADER, "precision_pct", MM_CASE_PREC_PCT },
		{ MM_CASES_HEADER, "precision_metric", MM_CASE_PREC_METRIC },
		{ MM_CASES_HEADER, "stopped_by", MM_CASE_STOPPED_BY },
		{ MM_STARTED_HEADER, "start_time", MM_START_TIME },
		{ MM_SAMPLES_HEADER, "iteration", MM_SAMP_ITERATION },
		{ MM_SAMPLES_HEADER, "task", MM_SAMP_TASK },
		{ MM_SAMPLES_HEADER, "class", MM_SAMP_CLASS },
		{ MM_SAMPLES_HEADER, "value_ns", MM_SAMP_VALUE_NS },
		{ MM_METRICS_HEADER, "schema", MM_MET_SCHEMA },
		{ MM_METRICS_HEADER, "workload", MM_MET_WORKLOAD },
		{ MM_METRICS_HEADER, "metric", MM_MET_METRIC },
		{ MM_METRICS_HEADER, "unit", MM_MET_UNIT },
		{ MM_METRICS_HEADER, "better", MM_MET_BETTER },
		{ MM_METRICS_HEADER, "role", MM_MET_ROLE },
		{ MM_METRICS_HEADER, "timed", MM_MET_TIMED },
		{ MM_METRICS_HEADER, "claim", MM_MET_CLAIM },
	};
	bool ok = true;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		ok &= mm_schema_col(cols[i].header, cols[i].name) == cols[i].col;
	CHECK("schema: every column position matches its header", ok);
	CHECK("schema: column counts", mm_schema_ncols(MM_RESULTS_HEADER) == MM_RES_NCOLS &&
	      mm_schema_ncols(MM_CASES_HEADER) == MM_CASE_NCOLS &&
	      mm_schema_ncols(MM_STARTED_HEADER) == MM_START_NCOLS &&
	      mm_schema_ncols(MM_SAMPLES_HEADER) == MM_SAMP_NCOLS &&
	      mm_schema_ncols(MM_METRICS_HEADER) == MM_MET_NCOLS);
	CHECK("schema: absent column is -1", mm_schema_col(MM_RESULTS_HEADER, "valu") == -1);
	CHECK("schema: warmup.csv is results.csv's schema",
	      mm_schema_header("warmup.csv") == mm_schema_header("results.csv"));
	CHECK("schema: the metric name rule",
	      mm_metric_name_ok("mthp_64kB_anon_fault_alloc") &&
	      mm_metric_name_ok("calls_per_page_out:f.isra.0") && !mm_metric_name_ok("") &&
	      !mm_metric_name_ok("a b") && !mm_metric_name_ok("a,b") &&
	      mm_metric_name_okn("ab,", 2));
	CHECK("schema: timed units", mm_unit_timed("ns") && mm_unit_timed("loops/s") &&
	      !mm_unit_timed("count") && !mm_unit_timed("/s"));
}

/* A results.csv row into r (comma-separated, no quoting), read with flags. */
static int resrow(const char *line, unsigned flags, struct mm_resrow *r, char *err, size_t len)
{
	static char buf[512];
	struct mm_rowchk c = { .flags = flags };
	char *p = buf;
	int rc;

	snprintf(buf, sizeof(buf), "%s", line);
	for (int i = 0; i < MM_RES_NCOLS; i++) {
		r->f[i] = (struct mm_field){ strsep(&p, ","), 0 };
		r->f[i].p = r->f[i].p ? r->f[i].p : "";
		r->f[i].n = strlen(r->f[i].p);
	}
	rc = mm_resrow_read(&c, r);
	snprintf(err, len, "%s", rc ? c.err : "");
	return rc;
}

/* The one reader of a results.csv row: what each flag tolerates. */
static void test_resrow(void)
{
	const unsigned set = MM_ROW_KEYS | MM_ROW_OLD_CALLS, sum = MM_ROW_NONFINITE | MM_ROW_SHOW40;
	/* a direction 70 bytes long */
	const char *longb = "1,r,l,k,w,,0,m,1,1,"
			    "0123456789012345678901234567890123456789012345678901234567890123456789";
	struct mm_resrow r;
	char e[700];

	CHECK("resrow: a good row", !resrow("1,r,l,k,w,n=1,3,m,2.5,ns,lower", set, &r, e,
					    sizeof(e)) && r.iteration == 3 && r.value == 2.5 &&
	      r.better == MM_LOWER && !r.nonfinite);
	CHECK("resrow: nan refused by the result set",
	      resrow("1,r,l,k,w,n=1,0,m,nan,ns,lower", set, &r, e, sizeof(e)) &&
	      !strcmp(e, "value 'nan' is not a decimal number"));
	CHECK("resrow: a value past a double refused by the result set",
	      resrow("1,r,l,k,w,n=1,0,m,1e999,ns,lower", set, &r, e, sizeof(e)) &&
	      !strcmp(e, "value '1e999' is not a finite number"));
	CHECK("resrow: nan and 1e999 counted, not refused, by summary",
	      !resrow("1,r,l,k,w,n=1,0,m,-nan,ns,lower", sum, &r, e, sizeof(e)) && r.nonfinite &&
	      !resrow("1,r,l,k,w,n=1,0,m,1e999,ns,lower", sum, &r, e, sizeof(e)) && r.nonfinite);
	CHECK("resrow: the identity checked only with MM_ROW_KEYS",
	      resrow("2,r,l,k,,x,y,m@,1,ns,info", set, &r, e, sizeof(e)) &&
	      !strcmp(e, "schema version '2', this tool reads version 1") &&
	      !resrow("2,r,l,k,,x,y,m@,1,ns,info", sum, &r, e, sizeof(e)));
	CHECK("resrow: summary checks better before the value, the result set after",
	      resrow("1,r,l,k,w,,0,m,x,ns,up", sum, &r, e, sizeof(e)) &&
	      !strcmp(e, "better 'up' is not lower, higher or info") &&
	      resrow("1,r,l,k,w,,0,m,x,ns,up", set, &r, e, sizeof(e)) &&
	      !strcmp(e, "value 'x' is not a decimal number"));
	CHECK("resrow: old calls_per_ info rows are lower only with MM_ROW_OLD_CALLS",
	      !resrow("1,r,l,k,w,,0,calls_per_x,1,1,info", set, &r, e, sizeof(e)) &&
	      r.better == MM_LOWER &&
	      !resrow("1,r,l,k,w,,0,calls_per_x,1,1,info", sum, &r, e, sizeof(e)) &&
	      r.better == MM_INFO);
	CHECK("resrow: a bad field shown cut at 40 bytes, or at 60 with '...'",
	      resrow(longb, sum, &r, e, sizeof(e)) &&
	      !strcmp(e, "better '0123456789012345678901234567890123456789' is not lower, "
		      "higher or info") &&
	      resrow(longb, set, &r, e, sizeof(e)) &&
	      !strcmp(e, "better '012345678901234567890123456789012345678901234567890123456789...' "
		      "is not lower, higher or info"));
}

static void test_percentile(void)
{
	double v[] = { 5, 1, 4, 2, 3 };

	mm_sort_doubles(v, 5);
	CHECK("stats: sorted", v[0] == 1 && v[4] == 5);
	CHECK("stats: p50 of 1..5 is 3", mm_percentile(v, 5, 50) == 3);
	CHECK("stats: p90 interpolates (4.6)",
	      fabs(mm_percentile(v, 5, 90) - 4.6) < 1e-12);
	CHECK("stats: p100 is the max", mm_percentile(v, 5, 100) == 5);
}

static int slurp(const char *path, char *buf, size_t len)
{
	return mm_read_file(path, buf, len);
}

/* The journal's bookkeeping on a plain file standing in for a knob. */
static void test_journal(void)
{
	char dir[] = "/tmp/mmbench-unit-XXXXXX", knob[256], buf[256], j[300];
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK("journal: mkdtemp", 0);
		return;
	}
	snprintf(knob, sizeof(knob), "%s/knob", dir);
	snprintf(j, sizeof(j), "%s/settings.journal", dir);
	f = fopen(knob, "w");
	fputs("always [madvise] never\n", f);
	fclose(f);
	/* Only sysfs and /proc/sys are knobs: a plain file is refused ... */
	mm_settings_init(dir);
	CHECK("journal: a plain file is no knob", mm_setting_set(knob, "always") == -EPERM);
	/* ... except in the unit tests' own directory. */
	mm_settings_test_root = dir;
	CHECK("journal: first set", mm_setting_set(knob, "always") == 0);
	slurp(knob, buf, sizeof(buf));
	CHECK("journal: knob changed", strcmp(buf, "always") == 0);
	CHECK("journal: second set keeps the first original",
	      mm_setting_set(knob, "never") == 0);
	CHECK("journal: restore succeeds", mm_settings_restore(dir, false) == 0);
	slurp(knob, buf, sizeof(buf));
	CHECK("journal: original (bracketed word) restored",
	      strcmp(buf, "madvise") == 0);
	/* A torn last line (kill mid-write) must not break the journal. */
	f = fopen(knob, "w");
	fputs("x\n", f);
	fclose(f);
	mm_setting_set(knob, "y");
	f = fopen(j, "a");
	fputs("save,/nonexistent/kno", f);
	fclose(f);
	CHECK("journal: restore with a torn last line",
	      mm_settings_restore(dir, false) == 0);
	slurp(knob, buf, sizeof(buf));
	CHECK("journal: torn journal still restores", strcmp(buf, "x") == 0);
	CHECK("journal: nothing left to restore", mm_settings_restore(dir, false) == 0);
	CHECK("journal: a missing knob is an error, not a crash",
	      mm_setting_set("/nonexistent/knob", "1") < 0);
	mm_settings_test_root = NULL;
	unlink(knob);
	unlink(j);
	rmdir(dir);
}

/* ---------------------------------------------------------------- precision */

static void test_halfwidth(void)
{
	double flat[] = { 5, 5, 5 }, three[] = { 1, 2, 3 }, zero[] = { -1, 1 }, m;
	/* t(0.975, 2) = 4.302652729749464: 100 * 4.3027 * 1 / sqrt(3) / 2 */
	double want = 100 * 4.302652729749464 / sqrt(3) / 2;

	CHECK("precision: no spread is a half-width of 0", mm_halfwidth_pct(flat, 3, &m) == 0 &&
	      m == 5);
	CHECK("precision: t(0.975, n-1) * s / sqrt(n) / |mean|",
	      fabs(mm_halfwidth_pct(three, 3, NULL) - want) < 1e-9);
	CHECK("precision: one value has none", isnan(mm_halfwidth_pct(three, 1, NULL)));
	CHECK("precision: spread around a mean of 0 is unbounded",
	      isinf(mm_halfwidth_pct(zero, 2, NULL)));
	CHECK("precision: watched = judged timed evidence, not emulated",
	      mm_prec_watched(MM_EVIDENCE, MM_LOWER, true, false) &&
	      mm_prec_watched(MM_EVIDENCE, MM_HIGHER, true, false) &&
	      !mm_prec_watched(MM_CONTEXT, MM_LOWER, true, false) &&
	      !mm_prec_watched(MM_EVIDENCE, MM_INFO, true, false) &&
	      !mm_prec_watched(MM_EVIDENCE, MM_LOWER, false, false) &&
	      !mm_prec_watched(MM_EVIDENCE, MM_LOWER, true, true));
	CHECK("schema: cases.csv's ten-column header is an earlier form",
	      mm_schema_earlier(MM_CASES_HEADER, MM_CASES_HEADER_10) == 10 &&
	      mm_schema_earlier(MM_CASES_HEADER, "schema,run_id") == -1 &&
	      mm_schema_earlier(MM_RESULTS_HEADER, MM_CASES_HEADER_10) == -1);
}

/*
 * Test workloads for the precision rule, run as cases (forked, written to
 * a scratch run directory): one whose only evidence is a count (it varies),
 * one whose timed evidence never varies, one whose timed evidence always
 * does.
 */
struct pp {
	long long k;
};

static const struct mm_param pparams[] = {
	{ MM_PINT(struct pp, k), .def = "1", .min = 0, .max = 9, .help = "k" },
	MM_PARAM_END,
};

static const struct mm_metric pmetrics[] = {
	{ .name = "calls_per_page", .better = MM_LOWER, .role = MM_EVIDENCE },
	{ .name = "t", .better = MM_LOWER, .role = MM_EVIDENCE },
	{ .name = "t_context", .better = MM_LOWER, .role = MM_CONTEXT },
	MM_METRIC_END,
};

static int run_counts(struct mm_ctx *ctx)
{
	mm_emit(ctx, "calls_per_page", 1 + ctx->iteration % 2, "calls");
	mm_emit(ctx, "t_context", 100 + ctx->iteration, "ns");
	return MM_PASS;
}

static int run_flat(struct mm_ctx *ctx)
{
	return mm_emit(ctx, "t", 100, "ns") ? MM_FAIL : MM_PASS;
}

static int run_noisy(struct mm_ctx *ctx)
{
	return mm_emit(ctx, "t", ctx->iteration % 2 ? 100 : 200, "ns") ?
	       MM_FAIL : MM_PASS;
}

/* An emit of a metric in no row of the table: a programming error. */
static int run_unlisted(struct mm_ctx *ctx)
{
	mm_emit(ctx, "t", 100, "ns");
	return mm_emit(ctx, "t_unlisted", 1, "count") == -EINVAL ? MM_PASS : MM_FAIL;
}

/* Families: an exact row wins, then --probe's rows, then the first family. */
static const struct mm_metric fmetrics[] = {
	{ .name = "f_exact", .better = MM_HIGHER, .role = MM_CONTEXT },
	{ .name = "f_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "f_x*", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "*", .better = MM_LOWER, .role = MM_CONTEXT },
	MM_METRIC_END,
};

static int run_family(struct mm_ctx *ctx)
{
	int ret = mm_emit(ctx, "f_exact", 1, "count") | mm_emit(ctx, "f_x", 1, "count") |
		  mm_emit(ctx, "calls_per_page:fn", 1, "calls/page") |
		  mm_emit(ctx, "g", 1, "count");

	return ret ? MM_FAIL : MM_PASS;
}

#define PWL(id, fn) { .name = id, .desc = "test", .params = pparams,		\
		      .params_size = sizeof(struct pp), .metrics = pmetrics, .run = fn }
static const struct workload pwl_counts = PWL("pcounts", run_counts);
static const struct workload pwl_flat = PWL("pflat", run_flat);
static const struct workload pwl_noisy = PWL("pnoisy", run_noisy);
static const struct workload pwl_unlisted = PWL("punlisted", run_unlisted);
static const struct workload pwl_family = { .name = "pfamily", .desc = "test",
	.params = pparams, .params_size = sizeof(struct pp), .metrics = fmetrics,
	.run = run_family };

/* A workload's rows of results.csv, and its cases.csv record. */
struct rowcount {
	const char *wl;
	int n;
	char stop[32], iters[16], status[16], reason[256];
	char better[256];	/* "metric=better;" of each row */
};

static void res_row(struct mm_csv_in *in, void *arg)
{
	struct rowcount *c = arg;

	size_t len = strlen(c->better);

	if (strcmp(mm_csv_get(in, MM_COL_WORKLOAD), c->wl))
		return;
	c->n++;
	snprintf(c->better + len, sizeof(c->better) - len, "%s=%s;",
		 mm_csv_get(in, MM_RES_METRIC), mm_csv_get(in, MM_RES_BETTER));
}

static void case_row(struct mm_csv_in *in, void *arg)
{
	struct rowcount *c = arg;

	if (strcmp(mm_csv_get(in, MM_COL_WORKLOAD), c->wl))
		return;
	snprintf(c->stop, sizeof(c->stop), "%s", mm_csv_get(in, MM_CASE_STOPPED_BY));
	snprintf(c->iters, sizeof(c->iters), "%s", mm_csv_get(in, MM_CASE_ITERATIONS));
	snprintf(c->status, sizeof(c->status), "%s", mm_csv_get(in, MM_CASE_STATUS));
	snprintf(c->reason, sizeof(c->reason), "%s", mm_csv_get(in, MM_CASE_REASON));
}

/* Run wl once under o; its results.csv rows and its cases.csv record. */
static int run_pcase(const char *dir, const struct workload *wl, const struct mm_opts *o,
		     struct mm_case_outcome *oc, struct rowcount *c)
{
	struct mm_plist pl;
	struct mm_case cs;
	char err[256];
	int ret;

	mm_plist_init(&pl, wl);
	if (mm_plist_expand(&pl, err, sizeof(err)) < 0)
		return -1;
	mm_plist_case(&pl, 0, &cs);
	ret = mm_run_case(wl, &cs, o, oc);
	mm_plist_free(&pl);
	memset(c, 0, sizeof(*c));
	c->wl = wl->name;
	{
		struct mm_csv_in in = { .prog = "unit", .header = MM_RESULTS_HEADER,
					.row = res_row, .arg = c };

		mm_csv_read(&in, dir, "results.csv");
		mm_csv_free(&in);
	}
	{
		struct mm_csv_in in = { .prog = "unit", .header = MM_CASES_HEADER,
					.row = case_row, .arg = c };

		mm_csv_read(&in, dir, "cases.csv");
		mm_csv_free(&in);
	}
	return ret;
}

static void test_precision_cases(void)
{
	char dir[] = "/tmp/mmbench-unit-XXXXXX";
	struct mm_opts o = { .iterations = 2, .timeout = 60, .precision = 1,
			     .max_iterations = 5, .max_time = 30 };
	struct mm_case_outcome oc;
	struct rowcount c;
	char cmd[300];

	if (!mkdtemp(dir)) {
		CHECK("precision cases: mkdtemp", 0);
		return;
	}
	snprintf(mm_run.dir, sizeof(mm_run.dir), "%s", dir);
	snprintf(mm_run.run_id, sizeof(mm_run.run_id), "unit-run");
	snprintf(mm_run.label, sizeof(mm_run.label), "unit");
	snprintf(mm_run.kernel, sizeof(mm_run.kernel), "k");
	mm_settings_init(dir);

	CHECK("precision: a case whose evidence is counts (varying) stops at the minimum",
	      run_pcase(dir, &pwl_counts, &o, &oc, &c) == MM_PASS && oc.iterations == 2 &&
	      oc.nwatched == 0 && oc.stop == MM_STOP_NOTHING &&
	      !strcmp(c.stop, "nothing-timed") && !strcmp(c.iters, "2") && c.n == 2 * 2);
	CHECK("precision: timed evidence without spread stops at the minimum, 0%",
	      run_pcase(dir, &pwl_flat, &o, &oc, &c) == MM_PASS && oc.iterations == 2 &&
	      oc.pct == 0 && oc.stop == MM_STOP_PRECISION && !strcmp(c.stop, "precision") &&
	      !strcmp(c.iters, "2") && c.n == 2);
	CHECK("precision: timed evidence that cannot reach P stops at --max-iterations",
	      run_pcase(dir, &pwl_noisy, &o, &oc, &c) == MM_PASS && oc.iterations == 5 &&
	      oc.pct > 1 && !strcmp(oc.metric, "t") && oc.stop == MM_STOP_MAX_ITER &&
	      !strcmp(c.stop, "max-iterations") && !strcmp(c.iters, "5") && c.n == 5);
	mm_run.emulated = true;
	CHECK("precision: emulated times are not watched: the minimum",
	      run_pcase(dir, &pwl_noisy, &o, &oc, &c) == MM_PASS && oc.iterations == 2 &&
	      oc.stop == MM_STOP_NOTHING);
	mm_run.emulated = false;
	o.precision = 0;
	o.iterations = 3;
	CHECK("precision: without --precision, -i iterations (fixed), precision recorded",
	      run_pcase(dir, &pwl_noisy, &o, &oc, &c) == MM_PASS && oc.iterations == 3 &&
	      oc.stop == MM_STOP_FIXED && isfinite(oc.pct) && !strcmp(c.stop, "fixed"));
	o.iterations = 1;
	CHECK("emit: a metric in no row of the table fails the case, naming it",
	      run_pcase(dir, &pwl_unlisted, &o, &oc, &c) == MM_FAIL && c.n == 1 &&
	      !strcmp(c.status, "fail") &&
	      strstr(c.reason, "metric 't_unlisted' is in no row of the workload's metric table"));
	CHECK("emit: an exact row, then --probe's rows, then the first family decide",
	      run_pcase(dir, &pwl_family, &o, &oc, &c) == MM_PASS &&
	      !strcmp(c.better, "f_exact=higher;f_x=info;calls_per_page:fn=lower;g=lower;"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("unit: could not remove %s\n", dir);
	mm_run.dir[0] = '\0';
}

/* A cases.csv of ten columns (before the precision columns) is still read. */
static void old_case_row(struct mm_csv_in *in, void *arg)
{
	int *n = arg;

	*n += in->nf == 10 && !strcmp(mm_csv_get(in, MM_CASE_STATUS), "pass") &&
	      !strcmp(mm_csv_get(in, MM_CASE_ITERATIONS), "");
}

static void test_old_cases(void)
{
	char path[] = "/tmp/mmbench-unit-cases-XXXXXX";
	int fd = mkstemp(path), n = 0, ret;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct mm_csv_in in = { .prog = "unit", .header = MM_CASES_HEADER,
				.row = old_case_row, .arg = &n };

	if (!f) {
		CHECK("old cases.csv: mkstemp", 0);
		return;
	}
	fprintf(f, "%s\n1,r,l,k,w,a=1,pass,,0,1.0\n", MM_CASES_HEADER_10);
	fclose(f);
	ret = mm_csv_read(&in, NULL, path);
	CHECK("schema: a cases.csv of the ten first columns is read", ret == 0 && n == 1);
	mm_csv_free(&in);
	f = fopen(path, "w");
	fprintf(f, "%s\n1,r,l,k,w,a=1,pass,,0\n", "schema,run_id,label,kernel,workload,case,"
		"status,reason,signal");
	fclose(f);
	in.row = old_case_row;
	ret = mm_csv_read(&in, NULL, path);
	CHECK("schema: a header cut elsewhere is still refused", ret == 1);
	mm_csv_free(&in);
	unlink(path);
}

int main(void)
{
	test_params();
	test_numbers();
	test_csv();
	test_schema();
	test_resrow();
	test_percentile();
	test_journal();
	test_halfwidth();
	test_old_cases();
	test_precision_cases();
	return fails ? 1 : 0;
}
