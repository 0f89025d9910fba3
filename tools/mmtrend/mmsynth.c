// SPDX-License-Identifier: GPL-2.0
/*
 * mmsynth: write a synthetic mmbench run directory (schema 1: results.csv,
 * warmup.csv, cases.csv, meta.csv) whose values are drawn from normal
 * distributions (GSL's Ziggurat generator) with the given means and
 * standard deviations. The nightly tests build histories from it, with a
 * regression injected by shifting a mean: the test knows the truth without
 * a file of expected answers.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "csvio.h"
#include "results.h"
#include "exitcodes.h"

#define MAX_LINES 256
#define MAX_META 64

struct sline {
	char workload[64], kase[256], metric[64], unit[32], better[8];
	double mean, sd;
};

struct synth {
	const char *out, *label, *host, *kernel, *stamp;
	long iters;
	unsigned long seed;
	struct sline line[MAX_LINES];
	int nline;
	char *meta[MAX_META];
	int nmeta;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmsynth -o DIR --label L --host H --kernel K --stamp YYYYmmdd-HHMMSS\n"
		"               [-i N] [--seed S] [--meta KEY=VALUE]...\n"
		"               --line 'WORKLOAD CASE METRIC UNIT BETTER MEAN SD'...\n"
		"Writes a run directory whose values are MEAN + SD * N(0,1), N iterations\n"
		"(default 5) per line; run_id is STAMP-HOST.\n");
}

static int parse_line(struct synth *s, const char *arg)
{
	struct sline *l = &s->line[s->nline];
	enum mm_better b;
	char extra;

	if (s->nline == MAX_LINES)
		return -1;
	if (sscanf(arg, "%63s %255s %63s %31s %7s %lf %lf %c", l->workload, l->kase, l->metric,
		   l->unit, l->better, &l->mean, &l->sd, &extra) != 7 || l->sd < 0 ||
	    mm_better_parse(l->better, &b))
		return -1;
	s->nline++;
	return 0;
}

static int parse_opts(int argc, char **argv, struct synth *s)
{
	static const struct option lo[] = {
		{ "label", required_argument, NULL, 'l' }, { "host", required_argument, NULL, 'H' },
		{ "kernel", required_argument, NULL, 'k' }, { "stamp", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' }, { "line", required_argument, NULL, 'L' },
		{ "meta", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	s->iters = 5;
	while ((c = getopt_long(argc, argv, "o:i:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': s->out = optarg; break;
		case 'i': s->iters = strtol(optarg, NULL, 10); break;
		case 'l': s->label = optarg; break;
		case 'H': s->host = optarg; break;
		case 'k': s->kernel = optarg; break;
		case 't': s->stamp = optarg; break;
		case 's': s->seed = strtoul(optarg, NULL, 10); break;
		case 'L':
			if (parse_line(s, optarg)) {
				fprintf(stderr, "mmsynth: --line '%s': want 'WORKLOAD CASE METRIC "
					"UNIT lower|higher|info MEAN SD'\n", optarg);
				return -1;
			}
			break;
		case 'm':
			if (s->nmeta == MAX_META || !strchr(optarg, '='))
				return -1;
			s->meta[s->nmeta++] = optarg;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (!s->out || !s->label || !s->host || !s->kernel || !s->stamp || !s->nline ||
	    s->iters < 1 || optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

static int put(FILE *f, const char *const *fields, int n)
{
	char *l = tab_line(fields, n);
	int rc = l && fputs(l, f) >= 0 ? 0 : -1;

	free(l);
	return rc;
}

static FILE *open_in(const struct synth *s, const char *name, const char *hdr)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", s->out, name);
	f = fopen(p, "wx");
	if (!f)
		fprintf(stderr, "mmsynth: %s: %s\n", p, strerror(errno));
	else
		fputs(hdr, f);
	return f;
}

static int write_results(const struct synth *s, const char *run_id, gsl_rng *r)
{
	FILE *f = open_in(s, "results.csv",
			  MM_RESULTS_HEADER "\n");
	char it[16], val[64];
	long i;
	int k, rc = 0;

	if (!f)
		return -1;
	for (k = 0; k < s->nline; k++) {
		const struct sline *l = &s->line[k];

		for (i = 0; i < s->iters; i++) {
			const char *row[] = { MM_SCHEMA_STR, run_id, s->label, s->kernel, l->workload, l->kase,
					      it, l->metric, val, l->unit, l->better };

			snprintf(it, sizeof(it), "%ld", i);
			snprintf(val, sizeof(val), "%.12g", l->mean + gsl_ran_gaussian_ziggurat(r, l->sd));
			rc |= put(f, row, 11);
		}
	}
	return fclose(f) || rc ? -1 : 0;
}

static int write_cases(const struct synth *s, const char *run_id)
{
	FILE *f = open_in(s, "cases.csv",
			  MM_CASES_HEADER "\n");
	FILE *w = open_in(s, "warmup.csv",
			  MM_RESULTS_HEADER "\n");
	int k, j, rc = 0;

	for (k = 0; f && k < s->nline; k++) {
		/* the columns after duration_s (iterations, precision) empty */
		const char *row[MM_CASE_NCOLS] = { MM_SCHEMA_STR, run_id, s->label, s->kernel,
						   s->line[k].workload, s->line[k].kase, "pass",
						   "", "0", "1.000" };

		for (j = 0; j < k; j++)
			if (!strcmp(s->line[j].workload, s->line[k].workload) &&
			    !strcmp(s->line[j].kase, s->line[k].kase))
				break;
		if (j == k)
			rc |= put(f, row, MM_CASE_NCOLS);
	}
	rc |= !f || fclose(f) ? -1 : 0;
	rc |= !w || fclose(w) ? -1 : 0;
	return rc;
}

static int write_meta(const struct synth *s, const char *run_id)
{
	FILE *f = open_in(s, "meta.csv", MM_META_HEADER "\n");
	char start[32];
	struct tm tm = { 0 };
	int k, rc = 0;

	if (!f)
		return -1;
	if (strptime(s->stamp, "%Y%m%d-%H%M%S", &tm))
		strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(start, sizeof(start), "unknown");
	{
		const char *kv[][2] = {
			{ "schema", MM_SCHEMA_STR }, { "run_id", run_id }, { "label", s->label },
			{ "start_time", start }, { "host", s->host },
			{ "kernel_release", s->kernel }, { "cpus", "2" }, { "numa_nodes", "1" },
			{ "thp_enabled", "madvise" }, { "vm", "none" }, { "swap_total_kb", "0" },
			{ "mmbench_version", "mmsynth" },
		};
		for (k = 0; k < (int)(sizeof(kv) / sizeof(kv[0])); k++)
			rc |= put(f, kv[k], 2);
	}
	for (k = 0; k < s->nmeta; k++) {
		char *eq = strchr(s->meta[k], '=');
		const char *kv[2] = { s->meta[k], eq + 1 };

		*eq = '\0';
		rc |= put(f, kv, 2);
	}
	return fclose(f) || rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct synth s = { .out = NULL };
	char run_id[256];
	gsl_rng *r;
	int rc;

	if (parse_opts(argc, argv, &s))
		return MM_USAGE;
	if (mm_mkdir_p(s.out)) {
		fprintf(stderr, "mmsynth: %s: %s\n", s.out, strerror(errno));
		return 1;
	}
	snprintf(run_id, sizeof(run_id), "%s-%s", s.stamp, s.host);
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return 1;
	gsl_rng_set(r, s.seed);
	rc = write_meta(&s, run_id) || write_cases(&s, run_id) || write_results(&s, run_id, r);
	gsl_rng_free(r);
	return rc ? 1 : 0;
}
