// SPDX-License-Identifier: GPL-2.0
/*
 * `mmbench summary DIR`: the short table run.sh prints at the end of a run:
 * for every judged metric (better != info), the mean, standard deviation
 * and CoV over the measured iterations, and the case outcomes. Comparing
 * two runs is tools/mmcompare's job; this only shows what one run got.
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct row_acc *acc;
	int nacc, cap;
	int bad;
};

static void on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;

	if (r->nf < COLS)
		snprintf(r->f[r->nf], sizeof(r->f[0]), "%.*s", (int)len,
			 (const char *)s);
	r->nf++;
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

static void on_row(int c, void *data)
{
	struct reader *r = data;
	struct row_acc *a;
	char key[2400], *end;
	double v;

	(void)c;
	r->line++;
	if (r->line == 1 || r->nf != COLS || strcmp(r->f[10], "info") == 0)
		goto out;
	v = strtod(r->f[8], &end);
	if (*end || !isfinite(v)) {
		r->bad++;
		goto out;
	}
	snprintf(key, sizeof(key), "%s\t%s\t%s", r->f[4], r->f[5], r->f[7]);
	a = find_acc(r, key);
	if (!a)
		goto out;
	snprintf(a->unit, sizeof(a->unit), "%s", r->f[9]);
	snprintf(a->better, sizeof(a->better), "%s", r->f[10]);
	a->n++;
	a->sum += v;
	a->sumsq += v * v;
out:
	r->nf = 0;
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

int mm_summary(const char *dir)
{
	struct reader *r = calloc(1, sizeof(*r));
	char path[4200], buf[8192];
	struct csv_parser p;
	size_t n;
	FILE *f;

	if (!r)
		return MM_FAIL;
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "mmbench summary: '%s': %s\n", path, strerror(errno));
		free(r);
		return MM_USAGE;
	}
	csv_init(&p, 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		csv_parse(&p, buf, n, on_field, on_row, r);
	csv_fini(&p, on_field, on_row, r);
	csv_free(&p);
	fclose(f);
	printf("%-10s %-28s %14s %-9s %7s %3s  %s\n", "WORKLOAD", "METRIC", "MEAN",
	       "UNIT", "CoV", "N", "CASE");
	for (int i = 0; i < r->nacc; i++)
		print_acc(&r->acc[i]);
	if (r->bad)
		printf("(%d rows with a non-numeric value ignored)\n", r->bad);
	free(r->acc);
	free(r);
	return MM_PASS;
}
