// SPDX-License-Identifier: GPL-2.0
/*
 * mmcompare: compare mmbench results of a base kernel with one or more
 * patched kernels, and say which differences are real.
 *
 * Each line (workload, case, metric) gets n, mean (harmonic for rates),
 * stddev, CoV, min, median, max per side, the % change oriented so that
 * positive is better, and Welch's t-test against the base. Output: a text
 * table in the mmtests layout for patch emails, CSV, or markdown
 * (mmcompare.h names the file of each).
 */
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exitcodes.h"
#include "mmcompare.h"
#include "numbers.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmcompare [options] BASE NEW [NEW2...]\n"
		"  BASE, NEW: a run directory, a results.csv, or a directory of runs;\n"
		"  runs with the same label are pooled (BASE is the first label).\n"
		"options:\n"
		"  --csv                 one CSV row per line and side, every statistic\n"
		"  --markdown            the verdict, then markdown tables of every line\n"
		"  --all                 text: every line of every workload (default: the\n"
		"                        verdict: evidence metrics, other significant\n"
		"                        changes, a count of the rest)\n"
		"  --brief               with --all: only the mean rows\n"
		"  --alpha A             significance level / false discovery rate (0.05)\n"
		"  --correction C        bh (Benjamini-Hochberg, default) or none (raw p)\n"
		"  --judge-emulated      judge times measured in QEMU TCG guests too\n"
		"  --iterations-as-samples  every iteration an independent sample, as\n"
		"                        before runs were the unit: judges times of one run\n"
		"                        per side (iterations share the machine's state:\n"
		"                        p values come out too small)\n"
		"  --force               compare even if meta facts that change the\n"
		"                        answer differ (they are listed either way)\n"
		"  --fail-on-regression  exit 3 if a judged metric is significantly worse\n"
		"  --per-arg             one side per argument instead of per label\n"
		"  --labels              print the sides' labels, one per line, and exit\n"
		"exit: 0 ok, 2 usage or bad input, 3 regression (--fail-on-regression)\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "text", no_argument, NULL, 't' },
		{ "brief", no_argument, NULL, 'b' },
		{ "all", no_argument, NULL, 'A' },
		{ "correction", required_argument, NULL, 'C' },
		{ "judge-emulated", no_argument, NULL, 'E' },
		{ "iterations-as-samples", no_argument, NULL, 'I' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "fail-on-regression", no_argument, NULL, 'r' },
		{ "per-arg", no_argument, NULL, 'p' },
		{ "labels", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .alpha = 0.05, .correction = CMP_BH };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o->fmt = FMT_CSV; break;
		case 'm': o->fmt = FMT_MARKDOWN; break;
		case 't': o->fmt = FMT_TEXT; break;
		case 'b': o->brief = o->all = true; break;
		case 'A': o->all = true; break;
		case 'E': o->judge_emulated = true; break;
		case 'I': o->iterations_as_samples = true; break;
		case 'C':
			if (!strcmp(optarg, "bh"))
				o->correction = CMP_BH;
			else if (!strcmp(optarg, "none"))
				o->correction = CMP_NONE;
			else {
				fprintf(stderr, "mmcompare: --correction '%s': want bh or none\n",
					optarg);
				return -1;
			}
			break;
		case 'a': if (mm_parse_alpha("mmcompare", optarg, &o->alpha)) return -1; break;
		case 'f': o->force = true; break;
		case 'r': o->fail_on_regression = true; break;
		case 'p': o->per_arg = true; break;
		case 'l': o->labels = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "mmcompare: need BASE and at least one NEW\n");
		usage(stderr);
		return -1;
	}
	o->argv0 = argv[0];
	o->args = argv + optind;
	o->nargs = argc - optind;
	return 0;
}

/* ------------------------------------------------------------ main */

/*
 * MMCOMPARE_TIMING=1: when each phase ended, in seconds since the start,
 * on stderr (make bench-compare shows where the time goes).
 */
static double timing_t0 = -1;

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void timing(const char *phase)
{
	if (timing_t0 >= 0)
		fprintf(stderr, "mmcompare: timing: %s %.3f\n", phase, mono_s() - timing_t0);
}

static int load(struct rs_set *s, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (rs_add_arg(s, argv[i])) {
			fprintf(stderr, "mmcompare: %s\n", s->err);
			return -1;
		}
	}
	if (rs_finish(s)) {
		fprintf(stderr, "mmcompare: %s\n", s->err);
		return -1;
	}
	timing("read");
	for (char *p = s->warn, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		fprintf(stderr, "mmcompare: warning: %.*s\n", (int)(nl - p), p);
	if (s->nsides < 2) {
		fprintf(stderr, "mmcompare: only one label (%s) in the input: nothing to compare; "
			"give runs with different labels, or --per-arg\n",
			s->nsides ? s->sides[0].name : "none");
		return -1;
	}
	return 0;
}

/* Refuse (unless --force) when runs differ in facts that change the answer. */
static int check_meta(const struct rs_set *s, const struct cmp_meta *m, const struct opts *o)
{
	if (!m->ncritical)
		return 0;
	if (o->fmt == FMT_CSV || !o->force)
		print_meta_text(s, m, stderr, o->force);
	if (o->force)
		return 0;
	fprintf(stderr, "mmcompare: refusing to compare: %d fact(s) that change the answer "
		"differ (marked above); --force compares anyway\n", m->ncritical);
	return -1;
}

/*
 * Cases that failed, timed out or died on a NEW side while BASE has no
 * such outcome for them: a patch that crashes a case is a regression too,
 * whatever the metrics of the cases that ran say. Listed on f; returns
 * how many.
 */
static size_t new_failures(const struct rs_set *s, FILE *f)
{
	const struct rs_case_note *n, *b;
	const struct rs_run *r, *rb;
	int i, k, j, m;
	size_t count = 0;
	bool on_base;

	for (i = 0, k = -1; (n = next_bad_note(s, &i, &k, &r));) {
		if (r->side <= 0)	/* BASE, or a run without rows */
			continue;
		on_base = false;
		for (j = 0, m = -1; !on_base && (b = next_bad_note(s, &j, &m, &rb));)
			on_base = rb->side == 0 && !strcmp(b->workload, n->workload) &&
				  !strcmp(b->kase, n->kase);
		if (on_base)
			continue;
		fprintf(f, "mmcompare: %s: %s %s [%s]: %s\n", s->sides[r->side].name, n->status,
			n->workload, n->kase, n->reason);
		count++;
	}
	return count;
}

static int run(const struct opts *o, struct rs_set *s)
{
	struct cmp_opts co = { .alpha = o->alpha, .correction = o->correction,
			       .judge_emulated = o->judge_emulated,
			       .iterations_as_samples = o->iterations_as_samples };
	struct cmp_meta m;
	struct cmp c;
	int rc = MM_USAGE;

	if (cmp_meta(s, &m)) {
		fprintf(stderr, "mmcompare: out of memory\n");
		return MM_USAGE;
	}
	if (check_meta(s, &m, o))
		goto out_meta;
	if (o->iterations_as_samples)
		fprintf(stderr, "mmcompare: warning: --iterations-as-samples: every iteration is "
			"taken as an independent sample, but the iterations of one run share the "
			"machine's state (what the host gives, where memory landed, caches): a "
			"difference between runs reads as a change, and p values come out too "
			"small\n");
	if (cmp_build_opts(&c, s, &co)) {
		fprintf(stderr, "mmcompare: out of memory\n");
		goto out;
	}
	timing("compare");
	if (o->fmt == FMT_CSV)
		print_csv(&c, stdout);
	else if (o->fmt == FMT_MARKDOWN)
		print_markdown(&c, &m, stdout);
	else
		print_text(&c, &m, o, stdout);
	timing("print");
	rc = 0;
	if (o->fail_on_regression && new_failures(s, stderr)) {
		fprintf(stderr, "mmcompare: cases that failed on a NEW side and not on BASE "
			"(listed above)\n");
		rc = MM_WORSE;
	}
	if (o->fail_on_regression && c.nworse) {
		fprintf(stderr, "mmcompare: %zu significant regression(s)\n", c.nworse);
		rc = MM_WORSE;
	}
	if (o->fail_on_regression && c.nmissing_new) {
		fprintf(stderr, "mmcompare: %zu judged line(s) of BASE missing on a NEW side "
			"(listed under 'on one side only')\n", c.nmissing_new);
		rc = MM_WORSE;
	}
out:
	cmp_free(&c);
out_meta:
	cmp_meta_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	struct rs_set s;
	struct opts o;
	int rc = MM_USAGE, i;

	if (getenv("MMCOMPARE_TIMING") && strcmp(getenv("MMCOMPARE_TIMING"), "0"))
		timing_t0 = mono_s();
	if (parse_opts(argc, argv, &o))
		return MM_USAGE;
	gsl_set_error_handler_off();
	rs_init(&s, o.per_arg ? RS_PER_ARG : 0);
	if (!load(&s, argc - optind, argv + optind)) {
		if (o.labels) {
			for (i = 0; i < s.nsides; i++)
				printf("%s\n", s.sides[i].name);
			rc = 0;
		} else {
			rc = run(&o, &s);
		}
	}
	rs_free(&s);
	timing("free");
	if (fflush(stdout) || ferror(stdout)) {
		perror("mmcompare: stdout");
		rc = MM_USAGE;
	}
	return rc;
}
