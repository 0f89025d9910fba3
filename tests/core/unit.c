// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the core, built with ASan+UBSan: parameter parsing and
 * validation, case expansion and canonical case strings, the CSV row
 * writer (libcsv quoting, read back with libcsv), percentiles, and the
 * settings journal's bookkeeping on a scratch "knob" file. Prints
 * PASS:/FAIL: lines for tests/run.
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "params.h"

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

int main(void)
{
	test_params();
	test_csv();
	test_schema();
	test_percentile();
	test_journal();
	return fails ? 1 : 0;
}
