// SPDX-License-Identifier: GPL-2.0
/*
 * `mmbench summary DIR`: the short table run.sh prints at the end of a run:
 * for every judged metric (better != info), the mean, standard deviation
 * and CoV over the measured iterations; then the case outcomes, every case
 * that did not pass with its reason, and a case that started but never
 * ended (started.csv has its row, cases.csv none: mmbench or the machine
 * died while it ran). Comparing two runs is tools/mmcompare's job; this
 * only shows what one run got.
 *
 * Each file is checked before anything is printed (mm_csv_read(), by the
 * schema of results.h): its header must be the schema's, every row must
 * have the header's number of fields, a status one of the four; a NUL
 * byte or a field too long to hold is an error. A results.csv row is read
 * by the results library's one reader of such rows (resrow.h, the same as
 * the result-set reader of mmcompare uses), leniently: a direction
 * lower/higher/info, then a value a decimal number, are checked; a value
 * written as nan or inf (or past a double) is counted and left out. The first error is
 * printed as FILE:LINE: what, and the exit status is 2. An unterminated
 * last line (a write torn by a crash) is not a row: it is named and left out.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rstat.h>

#include "casekeys.h"
#include "core.h"
#include "mdc.h"
#include "resrow.h"
#include "driver.h"

struct row_acc {
	char key[2400];		/* workload \t case \t metric */
	char *wl, *kase, *metric;	/* its parts */
	char unit[32];
	char better[8];
	/*
	 * GSL's running statistics: mean and variance updated per value
	 * (Welford's method), so values of 1e9 with a spread of 0.1 keep
	 * their spread; a sum of squares minus N times the squared mean
	 * cancelled it to rounding noise.
	 */
	gsl_rstat_workspace *rs;
};

/*
 * The columns read, found by name in the schema's headers (workload and
 * case lead every per-case file: MM_KEY_COLUMNS).
 */
static struct {
	int wl, kase;					/* every file (results.csv: resrow.h) */
	int status, reason;				/* cases.csv */
	int start;					/* started.csv */
} col;

struct reader {
	struct mm_csv_in in;
	/* results.csv */
	struct row_acc *acc;
	int nacc, cap;
	int bad;
	/* cases.csv: "workload\tcase" of every row, and the lines to print
	 * for the cases that did not pass; started.csv: "workload\tcase\t
	 * start_time" */
	long npass, nfail, nskip, ntimeout;
	char **ended, **started, **notpass;
	int nended, nstarted, nnotpass;
};

/* Append a copy of s to *v; false when out of memory. */
static bool push_str(char ***v, int *n, const char *s)
{
	char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));

	if (!nv)
		return false;
	*v = nv;
	nv[*n] = strdup(s);
	return nv[*n] && ++*n;
}

static void free_strs(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

#define F(c) mm_csv_get(in, col.c)

/* The key's workload, case and metric, each its own string. */
static bool key_parts(struct row_acc *a)
{
	const char *c = strchr(a->key, '\t'), *m = c ? strchr(c + 1, '\t') : NULL;

	if (!m)
		return false;
	a->wl = strndup(a->key, c - a->key);
	a->kase = strndup(c + 1, m - c - 1);
	a->metric = strdup(m + 1);
	if (a->wl && a->kase && a->metric)
		return true;
	free(a->wl);
	free(a->kase);
	free(a->metric);
	return false;
}

static struct row_acc *find_acc(struct reader *r, const char *key)
{
	for (int i = 0; i < r->nacc; i++)
		if (strcmp(r->acc[i].key, key) == 0)
			return &r->acc[i];
	if (r->nacc == r->cap) {
		int cap = r->cap ? r->cap * 2 : 64;
		struct row_acc *n = realloc(r->acc, (size_t)cap * sizeof(*n));

		if (!n)
			return NULL;
		r->acc = n;
		r->cap = cap;
	}
	memset(&r->acc[r->nacc], 0, sizeof(r->acc[0]));
	r->acc[r->nacc].rs = gsl_rstat_alloc();
	if (!r->acc[r->nacc].rs)
		return NULL;
	snprintf(r->acc[r->nacc].key, sizeof(r->acc[0].key), "%s", key);
	if (!key_parts(&r->acc[r->nacc])) {
		gsl_rstat_free(r->acc[r->nacc].rs);
		return NULL;
	}
	return &r->acc[r->nacc++];
}

/*
 * A results.csv row, read by the library's one reader of such rows
 * (resrow.h), as leniently as a summary of one run can be: only the
 * direction and the value are checked, and a value a workload wrote as
 * nan or inf (or one past a double) is counted and left out, not an error.
 */
static void results_row(struct mm_csv_in *in, void *arg)
{
	struct mm_rowchk c = { .flags = MM_ROW_NONFINITE | MM_ROW_SHOW40 };
	struct reader *r = arg;
	struct mm_resrow row;
	struct row_acc *a;
	char key[2400];

	for (int i = 0; i < MM_RES_NCOLS; i++)
		row.f[i] = (struct mm_field){ mm_csv_get(in, i), strlen(mm_csv_get(in, i)) };
	if (mm_resrow_read(&c, &row)) {
		mm_csv_bad(in, "%s", c.err);
		return;
	}
	if (row.nonfinite) {
		r->bad++;	/* written so by a workload: not a value */
		return;
	}
	if (row.better == MM_INFO)
		return;
	snprintf(key, sizeof(key), "%s\t%s\t%s", row.f[MM_COL_WORKLOAD].p, row.f[MM_COL_CASE].p,
		 row.f[MM_RES_METRIC].p);
	a = find_acc(r, key);
	if (!a)
		return;
	snprintf(a->unit, sizeof(a->unit), "%s", row.f[MM_RES_UNIT].p);
	snprintf(a->better, sizeof(a->better), "%s", row.f[MM_RES_BETTER].p);
	gsl_rstat_add(row.value, a->rs);
}

/*
 * The minimum detectable change, in % of the mean: the smallest difference
 * a comparison of this run's iterations with another run like it (same N,
 * same spread) finds with 80% power at p < 0.05, the project's one MDC
 * (bench/results/mdc.h): (t(0.975, 2N-2) + t(0.8, 2N-2)) * sd * sqrt(2/N). A
 * comparison of runs judges times by the spread between runs, which one
 * run cannot show (tools/mmcompare/README.md). "exact" when no iteration
 * differs (N >= 3: any change shows).
 */
static void fmt_mdc(char *buf, size_t len, int n, double mean, double var, bool same)
{
	double m;

	if (n >= 3 && same) {
		snprintf(buf, len, "exact");
		return;
	}
	m = n >= 2 && mean != 0 && var >= 0 ?
	    mm_mdc_like(sqrt(var), n, 0.05, MM_MDC_POWER) / fabs(mean) : NAN;
	if (!isfinite(m)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%.2f%%", 100.0 * m);
}

/*
 * A percentage for the CoV column: "overflow" when the values, finite in
 * the file, overflow the computation (a mean or variance past DBL_MAX, a
 * spread over a mean near 0); "-" for a spread around a mean of 0; a
 * spread too small for 0.01% in exponent form, so that it does not read
 * as none.
 */
static void fmt_cov(char *buf, size_t len, double mean, double var)
{
	double cov = mean != 0 && var > 0 ? 100.0 * sqrt(var) / fabs(mean) : 0.0;

	if (!isfinite(mean) || !isfinite(var) || !isfinite(cov))
		snprintf(buf, len, "overflow");
	else if (mean == 0 && var > 0)
		snprintf(buf, len, "-");
	else if (cov > 0 && cov < 0.005)
		snprintf(buf, len, "%.1e%%", cov);
	else
		snprintf(buf, len, "%.2f%%", cov);
}

/* One line of the table, @kase the case keys it shows; true when a figure
 * of it overflowed. */
static bool print_acc(const struct row_acc *a, const char *kase)
{
	char mdc[32], cov[32], mean_s[32];
	int n = (int)gsl_rstat_n(a->rs);
	double mean = gsl_rstat_mean(a->rs), var = n > 1 ? gsl_rstat_variance(a->rs) : 0;

	fmt_cov(cov, sizeof(cov), mean, var);
	/* the MDC is at most a few times the CoV: no figure when that overflowed */
	if (!strcmp(cov, "overflow") || (mean != 0 && 100.0 * sqrt(var) / fabs(mean) > 1e300))
		snprintf(mdc, sizeof(mdc), "overflow");
	else
		fmt_mdc(mdc, sizeof(mdc), n, mean, var,
			gsl_rstat_min(a->rs) == gsl_rstat_max(a->rs));
	if (isfinite(mean))
		snprintf(mean_s, sizeof(mean_s), "%.4g", mean);
	else
		snprintf(mean_s, sizeof(mean_s), "overflow");
	printf("%-10s %-28s %14s %-9s %7s %8s %3d%s%s\n", a->wl, a->metric, mean_s, a->unit,
	       cov, mdc, n, *kase ? "  " : "", kase);
	return !strcmp(mdc, "overflow");
}

/* The values of the keys that vary, "k=v;k=v", into buf. */
static void case_vary(const char *kase, char **vary, int nvary, char *buf, size_t len)
{
	size_t o = 0;
	char v[512];

	buf[0] = '\0';
	for (int i = 0; i < nvary && o < len; i++)
		if (mm_case_get(kase, vary[i], v, sizeof(v)))
			o += snprintf(buf + o, len - o, "%s%s=%s", o ? ";" : "", vary[i], v);
}

/*
 * The rows of the workload of acc[w]: first what every one of its cases
 * shares ("Fixed:", as in mmcompare's tables), then each metric with only
 * the case keys that vary. Marks them in @shown; true when a figure
 * overflowed.
 */
static bool print_workload(const struct reader *r, int w, bool *shown)
{
	const char **cases = malloc((size_t)r->nacc * sizeof(*cases));
	char **vary = NULL, *fixed = NULL, kase[2400];
	int i, j, n = 0, nvary = 0;
	bool over = false, split;

	for (i = w; cases && i < r->nacc; i++) {
		if (strcmp(r->acc[i].wl, r->acc[w].wl))
			continue;
		for (j = 0; j < n && strcmp(cases[j], r->acc[i].kase); j++)
			;
		if (j == n)
			cases[n++] = r->acc[i].kase;
	}
	split = cases && !mm_case_split(cases, n, &vary, &nvary, &fixed);
	if (split && fixed)
		printf("%-10s Fixed: %s\n", r->acc[w].wl, fixed);
	for (i = w; i < r->nacc; i++) {
		if (strcmp(r->acc[i].wl, r->acc[w].wl))
			continue;
		shown[i] = true;
		if (split)
			case_vary(r->acc[i].kase, vary, nvary, kase, sizeof(kase));
		over |= print_acc(&r->acc[i], split ? kase : r->acc[i].kase);
	}
	for (i = 0; vary && i < nvary; i++)
		free(vary[i]);
	free(vary);
	free(fixed);
	free(cases);
	return over;
}

/* cases.csv: one row per case that ended */
static void cases_row(struct mm_csv_in *in, void *arg)
{
	struct reader *r = arg;
	const char *st = F(status);
	char key[4200], line[6400];

	if (strcmp(st, "pass") && strcmp(st, "fail") && strcmp(st, "skip") &&
	    strcmp(st, "timeout")) {
		mm_csv_bad(in, "status '%.40s' is not pass, fail, skip or timeout", st);
		return;
	}
	snprintf(key, sizeof(key), "%s\t%s", F(wl), F(kase));
	push_str(&r->ended, &r->nended, key);
	if (!strcmp(st, "pass")) {
		r->npass++;
		return;
	}
	if (!strcmp(st, "skip"))
		r->nskip++;
	else if (!strcmp(st, "timeout"))
		r->ntimeout++;
	else
		r->nfail++;
	snprintf(line, sizeof(line), "%-7s %s [%s]: %s", st, F(wl), F(kase), F(reason));
	push_str(&r->notpass, &r->nnotpass, line);
}

/* started.csv: one row per case, before it runs */
static void started_row(struct mm_csv_in *in, void *arg)
{
	struct reader *r = arg;
	char row[6300];

	snprintf(row, sizeof(row), "%s\t%s\t%s", F(wl), F(kase), F(start));
	push_str(&r->started, &r->nstarted, row);
}

/*
 * Each cases.csv row ends the latest unmatched started.csv row of its case;
 * the started rows left are cases that never ended (a directory reused
 * after a crash keeps the crashed case's row). Returns how many.
 */
static int print_unfinished(struct reader *r)
{
	bool *done = calloc((size_t)r->nstarted + 1, sizeof(*done));
	int left = 0;

	if (!done)
		return 0;
	for (int i = 0; i < r->nended; i++) {
		size_t n = strlen(r->ended[i]);

		for (int j = r->nstarted - 1; j >= 0; j--)
			if (!done[j] && !strncmp(r->started[j], r->ended[i], n) &&
			    r->started[j][n] == '\t') {
				done[j] = true;
				break;
			}
	}
	for (int j = 0; j < r->nstarted; j++) {
		char *wl = r->started[j], *kase = strchr(wl, '\t'), *when;

		when = kase ? strchr(kase + 1, '\t') : NULL;
		if (done[j] || !when)
			continue;
		printf("%-7s %.*s [%.*s]: started %s and never ended: mmbench or the machine "
		       "died while it ran\n", "died", (int)(kase - wl), wl,
		       (int)(when - kase - 1), kase + 1, when + 1);
		left++;
	}
	free(done);
	return left;
}

static void print_cases(struct reader *r, bool have_started)
{
	int unfinished = 0;

	for (int i = 0; i < r->nnotpass; i++)
		printf("%s\n", r->notpass[i]);
	/* runs before started.csv existed have none: nothing to check */
	if (have_started)
		unfinished = print_unfinished(r);
	printf("cases: %ld pass, %ld fail, %ld skip, %ld timeout", r->npass, r->nfail,
	       r->nskip, r->ntimeout);
	if (unfinished)
		printf(", %d unfinished", unfinished);
	printf("\n");
}

static void reader_free(struct reader *r)
{
	free_strs(r->ended, r->nended);
	free_strs(r->started, r->nstarted);
	free_strs(r->notpass, r->nnotpass);
	for (int i = 0; i < r->nacc; i++) {
		gsl_rstat_free(r->acc[i].rs);
		free(r->acc[i].wl);
		free(r->acc[i].kase);
		free(r->acc[i].metric);
	}
	free(r->acc);
	mm_csv_free(&r->in);
	free(r);
}

/* Read one file: 0 read, -ENOENT absent, MM_USAGE reported on stderr. */
static int read_one(const char *dir, const char *name, const char *header,
		    struct reader *r, void (*row)(struct mm_csv_in *in, void *arg))
{
	int ret;

	r->in.prog = "mmbench summary";
	r->in.header = header;
	/* the longest field a row of mmbench can have, and some */
	r->in.max_field = 2047;
	r->in.printable = true;
	r->in.row = row;
	r->in.arg = r;
	ret = mm_csv_read(&r->in, dir, name);
	if (ret == 1) {
		fprintf(stderr, "mmbench summary: %s:%ld: %s\n", r->in.path, r->in.err_line,
			r->in.err);
		return MM_USAGE;
	}
	if (ret < 0 && ret != -ENOENT) {
		fprintf(stderr, "mmbench summary: '%s': %s\n", r->in.path, strerror(-ret));
		return MM_USAGE;
	}
	return ret;
}

/* The judged metrics' table (the whole summary but the case outcomes). */
static void print_table(const struct reader *r, bool have_results)
{
	bool over = false;

	if (!have_results) {
		printf("no results.csv: no case measured anything\n\n");
		return;
	}
	printf("%-10s %-28s %14s %-9s %7s %8s %3s  %s\n", "WORKLOAD", "METRIC", "MEAN",
	       "UNIT", "CoV", "MDC", "N", "CASE");
	bool *shown = calloc((size_t)r->nacc + 1, sizeof(*shown));

	for (int i = 0; shown && i < r->nacc; i++)
		if (!shown[i])
			over |= print_workload(r, i, shown);
	free(shown);
	if (over)
		printf("overflow: the values are finite but their mean or spread is beyond what a double holds\n");
	if (r->bad)
		printf("(%d rows with a value that is not finite ignored)\n", r->bad);
	printf("MDC: the smallest change a comparison with another run like this one (same N, same spread) finds with 80%% power at p < 0.05, from the iterations' spread; a \"no change\" below it means too noisy to tell\n\n");
}

int mm_summary(const char *dir, bool cases_only)
{
	struct reader *r = calloc(1, sizeof(*r));
	int res, cas, sta;

	if (!r)
		return MM_FAIL;
	col.wl = mm_schema_col(MM_RESULTS_HEADER, "workload");
	col.kase = mm_schema_col(MM_RESULTS_HEADER, "case");
	col.status = mm_schema_col(MM_CASES_HEADER, "status");
	col.reason = mm_schema_col(MM_CASES_HEADER, "reason");
	col.start = mm_schema_col(MM_STARTED_HEADER, "start_time");
	res = read_one(dir, "results.csv", MM_RESULTS_HEADER, r, results_row);
	cas = res == MM_USAGE ? 0 : read_one(dir, "cases.csv", MM_CASES_HEADER, r, cases_row);
	sta = res == MM_USAGE || cas == MM_USAGE ? 0 :
	      read_one(dir, "started.csv", MM_STARTED_HEADER, r, started_row);
	if (res == MM_USAGE || cas == MM_USAGE || sta == MM_USAGE) {
		reader_free(r);
		return MM_USAGE;
	}
	/* a run whose every case was skipped or died has no results.csv */
	if (res == -ENOENT && cas == -ENOENT && sta == -ENOENT) {
		fprintf(stderr, "mmbench summary: '%s/results.csv': %s\n", dir,
			strerror(ENOENT));
		reader_free(r);
		return MM_USAGE;
	}
	if (!cases_only)
		print_table(r, res == 0);
	print_cases(r, sta == 0);
	reader_free(r);
	return MM_PASS;
}
