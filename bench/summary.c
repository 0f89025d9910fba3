// SPDX-License-Identifier: GPL-2.0
/*
 * `mmbench summary DIR`: the short table run.sh prints at the end of a run:
 * for every judged metric (better != info), the mean, standard deviation
 * and CoV over the measured iterations; then the case outcomes, every case
 * that did not pass with its reason, and a case that started but never
 * ended (started.csv has its row, cases.csv none: mmbench or the machine
 * died while it ran). Comparing two runs is tools/mmcompare's job; this
 * only shows what one run got.
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

#define COLS 11

struct row_acc {
	char key[2400];		/* workload \t case \t metric */
	char unit[32];
	char better[8];
	int n;
	double sum, sumsq;
};

struct reader {
	char f[COLS][2048];
	int nf;
	long line;
	void (*row)(struct reader *r);	/* each data row with COLS fields or fewer */
	/* results.csv */
	struct row_acc *acc;
	int nacc, cap;
	int bad;
	/* cases.csv: "workload\tcase" of every row; started.csv: the same
	 * followed by "\tstart_time" */
	long npass, nfail, nskip, ntimeout;
	char **ended, **started;
	int nended, nstarted;
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

static void on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;

	if (r->nf < COLS)
		snprintf(r->f[r->nf], sizeof(r->f[0]), "%.*s", (int)len,
			 (const char *)s);
	r->nf++;
}

static void on_row(int c, void *data)
{
	struct reader *r = data;

	(void)c;
	r->line++;
	if (r->line > 1 && r->nf <= COLS)
		r->row(r);
	r->nf = 0;
}

/* Feed DIR/name to r->row. 0, or -errno when it cannot be read. */
static int read_csv(const char *dir, const char *name, struct reader *r,
		    void (*row)(struct reader *r))
{
	char path[4200], buf[8192];
	struct csv_parser p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	r->row = row;
	r->line = 0;
	r->nf = 0;
	csv_init(&p, 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		csv_parse(&p, buf, n, on_field, on_row, r);
	csv_fini(&p, on_field, on_row, r);
	csv_free(&p);
	fclose(f);
	return 0;
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
	snprintf(r->acc[r->nacc].key, sizeof(r->acc[0].key), "%s", key);
	return &r->acc[r->nacc++];
}

static void results_row(struct reader *r)
{
	struct row_acc *a;
	char key[2400], *end;
	double v;

	if (r->nf != COLS || strcmp(r->f[10], "info") == 0)
		return;
	v = strtod(r->f[8], &end);
	if (*end || !isfinite(v)) {
		r->bad++;
		return;
	}
	snprintf(key, sizeof(key), "%s\t%s\t%s", r->f[4], r->f[5], r->f[7]);
	a = find_acc(r, key);
	if (!a)
		return;
	snprintf(a->unit, sizeof(a->unit), "%s", r->f[9]);
	snprintf(a->better, sizeof(a->better), "%s", r->f[10]);
	a->n++;
	a->sum += v;
	a->sumsq += v * v;
}

static void print_acc(const struct row_acc *a)
{
	char key[2400], *wl, *cs, *metric;
	double mean = a->sum / a->n, var = 0;

	snprintf(key, sizeof(key), "%s", a->key);
	wl = strtok(key, "\t");
	cs = strtok(NULL, "\t");
	metric = strtok(NULL, "\t");
	if (a->n > 1)
		var = (a->sumsq - a->n * mean * mean) / (a->n - 1);
	printf("%-10s %-28s %14.4g %-9s %6.2f%% %3d  %s\n", wl ? wl : "",
	       metric ? metric : "", mean, a->unit,
	       mean != 0 && var > 0 ? 100.0 * sqrt(var) / fabs(mean) : 0.0,
	       a->n, cs ? cs : "");
}

/* cases.csv: schema,run_id,label,kernel,workload,case,status,reason,... */
static void cases_row(struct reader *r)
{
	const char *st = r->f[6];
	char key[4200];

	if (r->nf < 8)
		return;
	snprintf(key, sizeof(key), "%s\t%s", r->f[4], r->f[5]);
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
	printf("%-7s %s [%s]: %s\n", st, r->f[4], r->f[5], r->f[7]);
}

/* started.csv: schema,run_id,label,kernel,workload,case,start_time */
static void started_row(struct reader *r)
{
	char row[6300];

	if (r->nf < 7)
		return;
	snprintf(row, sizeof(row), "%s\t%s\t%s", r->f[4], r->f[5], r->f[6]);
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

static void print_cases(const char *dir, struct reader *r)
{
	int ret, unfinished = 0;

	printf("\n");
	ret = read_csv(dir, "cases.csv", r, cases_row);
	if (ret < 0 && ret != -ENOENT)
		fprintf(stderr, "mmbench summary: '%s/cases.csv': %s\n", dir, strerror(-ret));
	/* runs before started.csv existed have none: nothing to check */
	if (read_csv(dir, "started.csv", r, started_row) == 0)
		unfinished = print_unfinished(r);
	printf("cases: %ld pass, %ld fail, %ld skip, %ld timeout", r->npass, r->nfail,
	       r->nskip, r->ntimeout);
	if (unfinished)
		printf(", %d unfinished", unfinished);
	printf("\n");
	free_strs(r->ended, r->nended);
	free_strs(r->started, r->nstarted);
}

static bool has_file(const char *dir, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

int mm_summary(const char *dir)
{
	struct reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return MM_FAIL;
	ret = read_csv(dir, "results.csv", r, results_row);
	/* a run whose every case was skipped or died has no results.csv */
	if (ret < 0 && (ret != -ENOENT || (!has_file(dir, "cases.csv") &&
					   !has_file(dir, "started.csv")))) {
		fprintf(stderr, "mmbench summary: '%s/results.csv': %s\n", dir, strerror(-ret));
		free(r);
		return MM_USAGE;
	}
	if (ret == 0) {
		printf("%-10s %-28s %14s %-9s %7s %3s  %s\n", "WORKLOAD", "METRIC", "MEAN",
		       "UNIT", "CoV", "N", "CASE");
		for (int i = 0; i < r->nacc; i++)
			print_acc(&r->acc[i]);
		if (r->bad)
			printf("(%d rows with a non-numeric value ignored)\n", r->bad);
	} else {
		printf("no results.csv: no case measured anything\n");
	}
	print_cases(dir, r);
	free(r->acc);
	free(r);
	return MM_PASS;
}
