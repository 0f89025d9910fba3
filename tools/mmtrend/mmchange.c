// SPDX-License-Identifier: GPL-2.0
/*
 * mmchange: change points in the nightly history (changepoint.h).
 *
 *   detect      every judged metric's history of one host: its change
 *               points, the latest one judged by the nightly's rule, the
 *               noise between runs and the smallest step the rule finds
 *               at that noise (tools/nightly reads it)
 *   edivisive   E-divisive on numbers from stdin (the known-number tests)
 *   simulate    synthetic histories with a known step: nights until the
 *               rule finds it, false alarms and false points (make
 *               bench-alarms)
 *
 * Exit: 0 ok, 2 usage or bad input, 3 (detect) a confirmed change for the
 * worse ends some metric's history.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "changepoint.h"
#include "csvio.h"
#include "history.h"
#include "judge.h"
#include "resultset.h"

#define EXIT_USAGE 2
#define EXIT_WORSE 3

static const char *prog = "mmchange";

#define die_usage hist_usage_error

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmchange COMMAND ARGS\n"
		"  detect ROOT --host H [--history FILE] [--config-id PATH] [--window N]\n"
		"         [--add-run DIR]... [--night-date DATE] [--rerun DIR] [--suspects]\n"
		"         [--ledger LEDGER] [--host-margin PCT] [--max-lines N]\n"
		"         [--judge PATTERNS] [--csv FILE] [--no-detectable] [RULE]\n"
		"                      the change points of every judged metric of host H\n"
		"                      (exit 3: a confirmed change for the worse)\n"
		"  edivisive [--qhat TAU] [--better higher|lower] [RULE] <VALUES\n"
		"                      VALUES: one number per line, or NIGHT VALUE\n"
		"  simulate [--cov PCT] [--ref N] [--nights N] [--steps 'S...'] [--seeds N]\n"
		"         [--runs N] [--no-rerun] [RULE]\n"
		"                      steps of S between-run sd after N flat nights\n"
		"  detectable [--nights 'N...'] [--runs N] [--no-rerun] [RULE]\n"
		"                      the smallest step found within confirm + 1 nights in\n"
		"                      80%% of synthetic histories of N nights\n"
		"RULE: [--alpha A] [--perms R] [--min-size S] [--confirm M] [--min-sd K]\n"
		"      [--min-change PCT]\n"
		"defaults: --alpha 0.05 --perms 199 --min-size 2 --confirm 2 --min-sd 2 --min-ref 10\n"
		"          --tail 8 --t-alpha 0.0003\n");
}

/* ------------------------------------------------------------ options */

static int parse_double(const char *s, const char *what, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (!*s || *end || errno || !(*out >= lo && *out <= hi))
		return die_usage("%s '%s': want a number from %g to %g", what, s, lo, hi);
	return 0;
}

static int parse_int(const char *s, const char *what, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return die_usage("%s '%s': want a whole number from %ld to %ld", what, s, lo, hi);
	*out = (int)v;
	return 0;
}

/* The rule's options: 0 taken, 1 not a rule option, 2 a bad value. */
static int rule_opt(int c, const char *arg, struct cp_rule *r)
{
	switch (c) {
	case 'a': return parse_double(arg, "--alpha", 1e-6, 0.5, &r->cp.alpha) ? 2 : 0;
	case 'R': return parse_int(arg, "--perms", 19, 100000, &r->cp.perms) ? 2 : 0;
	case 'S': return parse_int(arg, "--min-size", 1, 100, &r->cp.min_size) ? 2 : 0;
	case 'M': return parse_int(arg, "--confirm", 1, 100, &r->confirm) ? 2 : 0;
	case 'K': return parse_double(arg, "--min-sd", 0, 100, &r->min_sd) ? 2 : 0;
	case 'C': return parse_double(arg, "--min-change", 0, 1e6, &r->min_pct) ? 2 : 0;
	case 'F': return parse_int(arg, "--min-ref", 1, 10000, &r->min_ref) ? 2 : 0;
	case 'T': return parse_int(arg, "--tail", 0, 10000, &r->tail) ? 2 : 0;
	case 'P': return parse_double(arg, "--t-alpha", 1e-12, 1, &r->t_alpha) ? 2 : 0;
	}
	return 1;
}

#define RULE_LONGOPTS \
	{ "alpha", required_argument, NULL, 'a' }, { "perms", required_argument, NULL, 'R' }, \
	{ "min-size", required_argument, NULL, 'S' }, \
	{ "confirm", required_argument, NULL, 'M' }, \
	{ "min-sd", required_argument, NULL, 'K' }, \
	{ "min-change", required_argument, NULL, 'C' }, \
	{ "min-ref", required_argument, NULL, 'F' }, { "tail", required_argument, NULL, 'T' }, \
	{ "t-alpha", required_argument, NULL, 'P' }

/* ------------------------------------------------------------ edivisive */

static int cmd_edivisive(int argc, char **argv)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "qhat", required_argument, NULL, 'q' },
		{ "better", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 },
	};
	struct cp_rule r = CP_DEFAULT_RULE;
	double *x = NULL, v;
	int *night = NULL, n = 0, cap = 0, c, qtau = -1, better = 0, tau, i;
	char line[256];
	struct cp_verdict vd;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &r);

		if (rc == 2)
			return EXIT_USAGE;
		if (!rc)
			continue;
		if (c == 'q') {
			if (parse_int(optarg, "--qhat", 1, INT_MAX, &qtau))
				return EXIT_USAGE;
		} else if (c == 'b' && (!strcmp(optarg, "higher") || !strcmp(optarg, "lower"))) {
			better = !strcmp(optarg, "higher") ? 1 : -1;
		} else {
			return die_usage("edivisive: bad option (see mmchange --help)");
		}
	}
	if (optind != argc)
		return die_usage("edivisive: the values come on stdin");
	while (fgets(line, sizeof(line), stdin)) {
		char *end, *p = line;
		long nt = n;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '#' || !*p)
			continue;
		v = strtod(p, &end);
		if (end != p && (*end == ' ' || *end == '\t')) {	/* NIGHT VALUE */
			nt = (long)v;
			p = end;
			v = strtod(p, &end);
		}
		while (*end == ' ' || *end == '\t' || *end == '\n')
			end++;
		if (end == p || *end || !isfinite(v)) {
			free(x);
			free(night);
			return die_usage("edivisive: line %d: not a number", n + 1);
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			double *nx = realloc(x, cap * sizeof(*x));
			int *nn = nx ? realloc(night, cap * sizeof(*night)) : NULL;

			if (nx)
				x = nx;
			if (nn)
				night = nn;
			if (!nx || !nn) {
				free(x);
				free(night);
				return die_usage("out of memory");
			}
		}
		night[n] = (int)nt;
		x[n++] = v;
	}
	if (qtau >= 0 && qtau >= n) {
		free(x);
		free(night);
		return die_usage("--qhat %d: want a split inside the %d values", qtau, n);
	}
	if (qtau >= 0)
		printf("qhat %d %.10g\n", qtau, cp_qhat(x, n, qtau));
	if (cp_best_split(x, n, r.cp.min_size, &tau, &v))
		printf("best %d %.10g\n", tau, v);
	if (better) {
		struct cp_series s = { .x = x, .night = night, .n = n, .better = better };

		i = cp_judge(&s, &r, &vd);
	} else {
		vd.ncp = cp_edivisive(x, n, &r.cp, vd.cp, CP_MAX_CHANGES, &vd.last_p);
		i = vd.ncp < 0 ? -1 : 0;
	}
	if (i) {
		free(x);
		free(night);
		return die_usage("out of memory");
	}
	for (i = 0; i < vd.ncp; i++)
		printf("change %d q=%.10g p=%.6g\n", vd.cp[i].at, vd.cp[i].q, vd.cp[i].p);
	printf("not kept p=%.6g\n", vd.last_p);
	if (better && vd.ncp)
		printf("latest %d %s %s: %.6g -> %.6g, %+.4g%%, %.4g sd, %d runs over %d nights after it\n",
		       vd.at, vd.worse ? "worse" : "better", cp_state_str(vd.state), vd.before,
		       vd.after, vd.pct, vd.size_sd, vd.n_after, vd.nights_after);
	free(x);
	free(night);
	return 0;
}

/* ------------------------------------------------------------ simulate */

/*
 * One synthetic history judged night by night as the nightly would: a
 * suspect is re-run once (an independent draw of the same night), and the
 * alert stands only if the rerun holds. Values are mean * (1 + cov z),
 * minus step * sd from night `ref` on (the metric is better higher).
 */
struct sim {
	struct cp_rule r;
	double cov, mean;
	int ref, nights, seeds, runs;
	bool rerun;
	bool skip_flat;		/* judge only the nights after the step */
	double steps[16];
	int nsteps;
};

struct sim_out {
	int found_night;	/* 1-based night after the step; 0 never */
	bool named;		/* the first bad run named exactly */
	int false_alarms;	/* alerts raised on nights before the step */
	int false_points;	/* change points away from the step, at the end */
	int nights_judged;
};

struct hist {
	double *x;
	int *night;
	int n;
	int step_at;		/* index of the first point after the step, -1 */
};

static int sim_judge(const struct sim *sm, struct hist *h, struct cp_verdict *v)
{
	struct cp_series s = { .x = h->x, .night = h->night, .n = h->n, .better = 1 };

	return cp_judge(&s, &sm->r, v);
}

/* One night: its runs appended, judged, a suspect re-run. 1: alert. */
static int sim_night(const struct sim *sm, struct hist *h, int t, double level, gsl_rng *noise,
		     gsl_rng *again, struct cp_verdict *v)
{
	double sd = sm->cov / 100 * sm->mean;
	int k;

	for (k = 0; k < sm->runs; k++) {
		h->night[h->n] = t;
		h->x[h->n++] = level + gsl_ran_gaussian_ziggurat(noise, sd);
	}
	if (sim_judge(sm, h, v))
		return -1;
	if (!sm->rerun)
		return v->state == CPS_CONFIRMED && v->worse;
	if (v->state < CPS_SUSPECT || !v->worse)
		return 0;
	h->night[h->n] = t;
	h->x[h->n++] = level + gsl_ran_gaussian_ziggurat(again, sd);
	if (sim_judge(sm, h, v))
		return -1;
	return cp_rerun_holds(v, h->x[h->n - 1]) ? 1 : 0;
}

static int sim_one(const struct sim *sm, double step, unsigned long seed, struct sim_out *o)
{
	int cap = (sm->ref + sm->nights) * (sm->runs + 1) + 1, t, rc = 0, i;
	gsl_rng *noise = gsl_rng_alloc(gsl_rng_mt19937), *again = gsl_rng_alloc(gsl_rng_mt19937);
	struct hist h = { .x = calloc(cap, sizeof(double)), .night = calloc(cap, sizeof(int)),
			  .step_at = -1 };
	struct cp_verdict v;

	memset(o, 0, sizeof(*o));
	if (!noise || !again || !h.x || !h.night) {
		rc = -1;
		goto out;
	}
	gsl_rng_set(noise, seed);
	gsl_rng_set(again, seed ^ 0x9e3779b97f4a7c15ULL);
	for (t = 0; t < sm->ref + sm->nights; t++) {
		double level = sm->mean - (t >= sm->ref ? step * sm->cov / 100 * sm->mean : 0);
		int a;

		if (t == sm->ref)
			h.step_at = h.n;
		if (sm->skip_flat && t < sm->ref) {
			for (a = 0; a < sm->runs; a++) {
				h.night[h.n] = t;
				h.x[h.n++] = level + gsl_ran_gaussian_ziggurat(noise, sm->cov / 100 * sm->mean);
			}
			continue;
		}
		a = sim_night(sm, &h, t, level, noise, again, &v);
		if (a < 0) {
			rc = -1;
			goto out;
		}
		o->nights_judged++;
		if (a && (t < sm->ref || step == 0)) {
			o->false_alarms++;
		} else if (a && step > 0) {
			o->found_night = t - sm->ref + 1;
			o->named = v.at == h.step_at;
			break;
		}
	}
	for (i = 0; i < v.ncp; i++)
		if (h.step_at < 0 || step == 0 || abs(v.cp[i].at - h.step_at) > 1)
			o->false_points++;
out:
	free(h.x);
	free(h.night);
	if (noise)
		gsl_rng_free(noise);
	if (again)
		gsl_rng_free(again);
	return rc;
}

static int cmd_simulate(int argc, char **argv)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "cov", required_argument, NULL, 'c' },
		{ "ref", required_argument, NULL, 'r' }, { "nights", required_argument, NULL, 'n' },
		{ "steps", required_argument, NULL, 's' }, { "seeds", required_argument, NULL, 'e' },
		{ "runs", required_argument, NULL, 'u' }, { "no-rerun", no_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim sm = { .r = CP_DEFAULT_RULE, .cov = 11, .mean = 100, .ref = 20, .nights = 10,
			  .seeds = 200, .runs = 1, .rerun = true, .steps = { 0, 1, 2, 3 },
			  .nsteps = 4 };
	int c, k, i;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &sm.r);
		char *p, *end;

		if (rc == 2)
			return EXIT_USAGE;
		if (!rc)
			continue;
		switch (c) {
		case 'c': if (parse_double(optarg, "--cov", 0.001, 1000, &sm.cov)) return EXIT_USAGE; break;
		case 'r': if (parse_int(optarg, "--ref", 2, 10000, &sm.ref)) return EXIT_USAGE; break;
		case 'n': if (parse_int(optarg, "--nights", 1, 1000, &sm.nights)) return EXIT_USAGE; break;
		case 'e': if (parse_int(optarg, "--seeds", 1, 1000000, &sm.seeds)) return EXIT_USAGE; break;
		case 'u': if (parse_int(optarg, "--runs", 1, 100, &sm.runs)) return EXIT_USAGE; break;
		case 'x': sm.rerun = false; break;
		case 's':
			for (sm.nsteps = 0, p = optarg; *p && sm.nsteps < 16;) {
				sm.steps[sm.nsteps] = strtod(p, &end);
				if (end == p || !(sm.steps[sm.nsteps] >= 0))
					return die_usage("--steps '%s': want numbers >= 0", optarg);
				sm.nsteps++;
				for (p = end; *p == ' ' || *p == ','; p++)
					;
			}
			break;
		default: return die_usage("simulate: bad option (see mmchange --help)");
		}
	}
	if (optind != argc)
		return die_usage("simulate: no arguments");
	printf("# %d seeds, %d flat nights then a step, %d night(s) after it, %d run(s) a night%s;"
	       " between-run CoV %.4g%%\n", sm.seeds, sm.ref, sm.nights, sm.runs,
	       sm.rerun ? ", a suspect re-run once" : "", sm.cov);
	printf("# rule: alpha %g (%d permutations), min segment %d, tail %d, confirm %d night(s), "
	       "min %.4g sd, min change %.4g%%, min %d nights before\n", sm.r.cp.alpha,
	       sm.r.cp.perms, sm.r.cp.min_size, sm.r.tail, sm.r.confirm, sm.r.min_sd,
	       sm.r.min_pct, sm.r.min_ref);
	printf("step_sd,step_pct,seeds,found_pct,within_1,within_2,within_3,within_5,median_nights,"
	       "named_pct,false_alarm_histories_pct,false_alarms_per_100_nights,"
	       "false_points_per_history\n");
	for (k = 0; k < sm.nsteps; k++) {
		int found = 0, within[6] = { 0 }, named = 0, fah = 0, fa = 0, fp = 0, judged = 0;
		int *nights = calloc(sm.seeds + 1, sizeof(int)), nn = 0;

		if (!nights)
			return die_usage("out of memory");
		for (i = 0; i < sm.seeds; i++) {
			struct sim_out o;

			if (sim_one(&sm, sm.steps[k], 1000003UL * (i + 1), &o)) {
				free(nights);
				return die_usage("out of memory");
			}
			if (o.found_night) {
				found++;
				nights[nn++] = o.found_night;
				for (c = 1; c <= 5; c++)
					within[c] += o.found_night <= c;
				named += o.named;
			}
			fah += o.false_alarms > 0;
			fa += o.false_alarms;
			fp += o.false_points;
			/* nights before the step, or every night of a flat history */
			judged += sm.steps[k] > 0 ? sm.ref : o.nights_judged;
		}
		for (i = 1; i < nn; i++) {	/* median of the nights until found */
			int x = nights[i], j = i;

			for (; j > 0 && nights[j - 1] > x; j--)
				nights[j] = nights[j - 1];
			nights[j] = x;
		}
		printf("%.4g,%.4g,%d,%.1f,%.1f,%.1f,%.1f,%.1f,", sm.steps[k], sm.steps[k] * sm.cov,
		       sm.seeds, 100.0 * found / sm.seeds, 100.0 * within[1] / sm.seeds,
		       100.0 * within[2] / sm.seeds, 100.0 * within[3] / sm.seeds,
		       100.0 * within[5] / sm.seeds);
		if (nn)
			printf("%d,%.1f,", nights[(nn - 1) / 2], 100.0 * named / nn);
		else
			printf(",,");
		printf("%.1f,%.3f,%.3f\n", 100.0 * fah / sm.seeds, judged ? 100.0 * fa / judged : 0,
		       (double)fp / sm.seeds);
		fflush(stdout);
		free(nights);
	}
	return 0;
}

/* ------------------------------------------------------------ detectable */

/*
 * The smallest step (in sd of the runs) the rule finds within `within`
 * nights in at least 80% of synthetic histories shaped like this one:
 * `ref` nights of `runs` run(s) each, normal noise, then the step; a
 * suspect re-run once when `rerun`. Deterministic (fixed seeds), searched
 * on a grid of 0.1 sd. Cached: every metric of a history shares it.
 */
#define DET_SEEDS 100
#define DET_POWER 0.8
#define DET_MAX_SD 12.0

struct det_cache {
	int ref, runs;
	double sd;
};

static struct det_cache det_memo[64];
static int ndet_memo;

static double found_share(const struct sim *sm, double step)
{
	int i, found = 0;
	struct sim_out o;

	for (i = 0; i < DET_SEEDS; i++) {
		if (sim_one(sm, step, 7919UL * (i + 1), &o))
			return -1;
		found += o.found_night > 0;
		/* stop once the answer is known either way */
		if (found >= DET_POWER * DET_SEEDS || (i + 1 - found) > (1 - DET_POWER) * DET_SEEDS)
			break;
	}
	return found >= DET_POWER * DET_SEEDS ? 1 : 0;
}

static double detectable_sd(const struct cp_rule *r, int ref, int runs, bool rerun, int within)
{
	struct sim sm = { .r = *r, .cov = 10, .mean = 100, .ref = ref, .nights = within,
			  .seeds = DET_SEEDS, .runs = runs, .rerun = rerun, .skip_flat = true };
	double lo = 0, hi = DET_MAX_SD, f;
	int i;

	for (i = 0; i < ndet_memo; i++)
		if (det_memo[i].ref == ref && det_memo[i].runs == runs)
			return det_memo[i].sd;
	f = found_share(&sm, hi);
	if (f < 0)
		return NAN;
	if (!f) {
		lo = INFINITY;
	} else {
		while (hi - lo > 0.1 + 1e-9) {
			double mid = round((lo + hi) / 2 * 10) / 10;

			f = found_share(&sm, mid);
			if (f < 0)
				return NAN;
			if (f)
				hi = mid;
			else
				lo = mid;
		}
		lo = hi;
	}
	if (ndet_memo < 64)
		det_memo[ndet_memo++] = (struct det_cache){ .ref = ref, .runs = runs, .sd = lo };
	return lo;
}

/* The smallest detectable step by history length, for the docs and the
 * benchmark: "NIGHTS SD" lines. */
static int cmd_detectable(int argc, char **argv)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "nights", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'u' }, { "no-rerun", no_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	struct cp_rule r = CP_DEFAULT_RULE;
	const char *list = "10 15 20 30 60";
	int c, runs = 1, nn;
	bool rerun = true;
	char *p, *end;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &r);

		if (rc == 2)
			return EXIT_USAGE;
		if (!rc)
			continue;
		if (c == 'n')
			list = optarg;
		else if (c == 'u') {
			if (parse_int(optarg, "--runs", 1, 100, &runs))
				return EXIT_USAGE;
		} else if (c == 'x')
			rerun = false;
		else
			return die_usage("detectable: bad option (see mmchange --help)");
	}
	for (p = (char *)list; *p;) {
		long v = strtol(p, &end, 10);
		double sd;

		if (end == p || v < 2 || v > 10000)
			return die_usage("--nights '%s': want numbers from 2 to 10000", list);
		nn = (int)v;
		sd = nn >= r.min_ref ? detectable_sd(&r, nn, runs, rerun, r.confirm + 1) : NAN;
		if (isfinite(sd))
			printf("%d nights: %.2g sd\n", nn, sd);
		else
			printf("%d nights: %s\n", nn, nn < r.min_ref ? "too few (a change needs --min-ref before it)" :
			       "none up to 12 sd");
		for (p = end; *p == ' ' || *p == ','; p++)
			;
	}
	return 0;
}

/* ------------------------------------------------------------ detect */

struct drun {
	char *dir;		/* to open */
	char *rel;		/* as history.csv names it */
	char *date, *kernel;
	int night;
	bool rerun;
	double busy;		/* nightly_host_busy_pct of its meta.csv, NAN unknown */
};

struct dline {
	const char *workload, *kase, *metric, *unit;	/* interned in names */
	int better;
	bool timed;
	double *v;		/* per run: its mean, NAN when it did not measure it */
	double *wcov;		/* per run: CoV of its iterations, %, NAN */
	int npresent, nexact, nhmean;
};

struct lrow {			/* an open history regression of the ledger */
	char *workload, *kase, *metric, *first_run;
	bool used;
};

struct detect {
	const char *root, *history, *host, *config_id, *night_date, *rerun, *csv, *ledger;
	const char *add[64];
	int nadd;
	int window, max_lines;
	bool detectable, rerun_done;
	bool suspects;		/* before a rerun: would-be alerts are suspects */
	double host_margin;
	struct cp_rule r;
	struct judge_opts jo;
	struct drun *runs;
	int nruns, nnights;
	struct dline *lines;
	int nlines, caplines;
	char **names;		/* every string of the lines, freed at the end */
	size_t nnames, capnames;
	struct lrow *open;
	int nopen;
};

static const char *keep_str(struct detect *d, const char *s)
{
	size_t i;

	for (i = 0; i < d->nnames; i++)
		if (!strcmp(d->names[i], s))
			return d->names[i];
	if (d->nnames == d->capnames) {
		size_t cap = d->capnames ? 2 * d->capnames : 256;
		char **n = realloc(d->names, cap * sizeof(*n));

		if (!n)
			return NULL;
		d->names = n;
		d->capnames = cap;
	}
	d->names[d->nnames] = strdup(s);
	return d->names[d->nnames] ? d->names[d->nnames++] : NULL;
}

static bool file_ok(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static int add_drun(struct detect *d, const char *dir, const char *rel, const char *date,
		    const char *kernel, bool rerun)
{
	struct drun *n = realloc(d->runs, (d->nruns + 1) * sizeof(*n)), *x;

	if (!n)
		return -1;
	d->runs = n;
	x = &d->runs[d->nruns++];
	*x = (struct drun){ .dir = strdup(dir), .rel = strdup(rel), .date = strdup(date),
			    .kernel = strdup(kernel), .rerun = rerun, .busy = NAN };
	return x->dir && x->rel && x->date && x->kernel ? 0 : -1;
}

static int hrow_cmp(const void *a, const void *b)
{
	const struct tab_row *x = *(const struct tab_row *const *)a;
	const struct tab_row *y = *(const struct tab_row *const *)b;
	int c = strcmp(x->f[H_DATE], y->f[H_DATE]);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* This host's measured runs of the history, oldest first, and tonight's. */
static int load_history(struct detect *d)
{
	struct tab t;
	struct tab_row **rows;
	size_t i, n = 0;
	char p[PATH_MAX], rel[PATH_MAX], cfg[PATH_MAX], now[32];
	int k, rc = 0;

	if (hist_load(&t, d->history)) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return -1;
	}
	rows = calloc(t.nrows + 1, sizeof(*rows));
	if (!rows) {
		tab_free(&t);
		return die_usage("out of memory"), -1;
	}
	for (i = 0; i < t.nrows; i++) {
		char **f = t.rows[i].f;

		if (strcmp(f[H_HOST], d->host) || !*f[H_RUN_DIR] ||
		    (strcmp(f[H_STATUS], "ok") && strcmp(f[H_STATUS], "not_measured")))
			continue;
		snprintf(p, sizeof(p), "%s%s%s", f[H_RUN_DIR][0] == '/' ? "" : d->root,
			 f[H_RUN_DIR][0] == '/' ? "" : "/", f[H_RUN_DIR]);
		snprintf(rel, sizeof(rel), "%s/results.csv", p);
		if (!file_ok(rel))
			continue;
		/* another nightly config of this host (another suite, a VM) is
		 * another history; runs without the fact are this one's */
		if (d->config_id && *mm_meta_get(p, "nightly_config", cfg, sizeof(cfg)) &&
		    strcmp(cfg, d->config_id))
			continue;
		for (k = 0; k < d->nadd; k++)
			if (!strcmp(hist_rel(d->root, d->add[k], rel, sizeof(rel)), f[H_RUN_DIR]))
				break;
		if (k < d->nadd)
			continue;	/* tonight's, added below */
		rows[n++] = &t.rows[i];
	}
	qsort(rows, n, sizeof(*rows), hrow_cmp);
	for (i = 0; i < n && !rc; i++) {
		char **f = rows[i]->f;

		snprintf(p, sizeof(p), "%s%s%s", f[H_RUN_DIR][0] == '/' ? "" : d->root,
			 f[H_RUN_DIR][0] == '/' ? "" : "/", f[H_RUN_DIR]);
		rc = add_drun(d, p, f[H_RUN_DIR], f[H_DATE], f[H_KERNEL], false);
	}
	free(rows);
	tab_free(&t);
	if (rc)
		return die_usage("out of memory"), -1;
	hist_date_fmt(time(NULL), now, sizeof(now));
	for (k = 0; k < d->nadd; k++) {
		char kern[256];
		bool re = d->rerun && !strcmp(d->add[k], d->rerun);

		snprintf(p, sizeof(p), "%s/results.csv", d->add[k]);
		if (!file_ok(p)) {
			fprintf(stderr, "%s: --add-run %s: no results.csv\n", prog, d->add[k]);
			continue;
		}
		mm_meta_get(d->add[k], "kernel_release", kern, sizeof(kern));
		if (add_drun(d, d->add[k], hist_rel(d->root, d->add[k], rel, sizeof(rel)),
			     d->night_date ? d->night_date : now, *kern ? kern : "unknown", re))
			return die_usage("out of memory"), -1;
	}
	/* nights: runs sharing a date; the window keeps the last ones */
	for (k = 0, n = 0; k < d->nruns; k++) {
		d->runs[k].night = k && !strcmp(d->runs[k].date, d->runs[k - 1].date) ?
				   d->runs[k - 1].night : (int)n++;
	}
	d->nnights = (int)n;
	if (d->window > 0 && d->nnights > d->window) {
		int first = d->nnights - d->window, drop = 0;

		while (drop < d->nruns && d->runs[drop].night < first)
			drop++;
		for (k = 0; k < drop; k++) {
			free(d->runs[k].dir);
			free(d->runs[k].rel);
			free(d->runs[k].date);
			free(d->runs[k].kernel);
		}
		memmove(d->runs, d->runs + drop, (d->nruns - drop) * sizeof(*d->runs));
		d->nruns -= drop;
		for (k = 0; k < d->nruns; k++)
			d->runs[k].night -= first;
		d->nnights = d->window;
	}
	return 0;
}

static struct dline *find_line(struct detect *d, const struct rs_line *l)
{
	struct dline *x;
	int i;

	for (i = 0; i < d->nlines; i++) {
		x = &d->lines[i];
		if (!strcmp(x->workload, l->workload) && !strcmp(x->kase, l->kase) &&
		    !strcmp(x->metric, l->metric))
			return x;
	}
	if (d->nlines == d->caplines) {
		int cap = d->caplines ? 2 * d->caplines : 64;
		struct dline *n = realloc(d->lines, cap * sizeof(*n));

		if (!n)
			return NULL;
		d->lines = n;
		d->caplines = cap;
	}
	x = &d->lines[d->nlines];
	*x = (struct dline){
		.workload = keep_str(d, l->workload), .kase = keep_str(d, l->kase),
		.metric = keep_str(d, l->metric), .unit = keep_str(d, l->unit),
		.better = l->better == MM_HIGHER ? 1 : -1,
		.v = malloc(d->nruns * sizeof(double)), .wcov = malloc(d->nruns * sizeof(double)),
	};
	if (!x->workload || !x->kase || !x->metric || !x->unit || !x->v || !x->wcov)
		return NULL;
	for (i = 0; i < d->nruns; i++)
		x->v[i] = x->wcov[i] = NAN;
	d->nlines++;
	return x;
}

/* One run's mean of every judged line: harmonic for rates, as mmcompare. */
static int load_run(struct detect *d, int run)
{
	struct drun *r = &d->runs[run];
	struct rs_set s;
	char p[PATH_MAX], *end;
	const char *b;
	size_t i, k;
	int rc = 0;

	snprintf(p, sizeof(p), "%s/results.csv", r->dir);
	rs_init(&s, RS_PER_ARG);
	if (rs_add_arg(&s, p) || rs_finish(&s)) {
		fprintf(stderr, "%s: %s\n", prog, s.err);
		rs_free(&s);
		return -1;
	}
	if (s.nruns && (b = rs_meta_get(&s.runs[0], "nightly_host_busy_pct"))) {
		r->busy = strtod(b, &end);
		if (*end || !isfinite(r->busy))
			r->busy = NAN;
	}
	for (i = 0; i < s.nlines && !rc; i++) {
		const struct rs_line *l = s.sorted[i];
		const struct rs_vals *vv = l->nvals ? &l->vals[0] : NULL;
		struct dline *x;
		bool pos = true;
		double sum = 0, inv = 0, mn, mx, m;

		if (l->better == MM_INFO || !vv || !vv->n ||
		    !judge_metric(&d->jo, l->workload, l->metric))
			continue;
		x = find_line(d, l);
		if (!x) {
			rc = die_usage("out of memory");
			break;
		}
		x->timed |= l->timed;
		mn = mx = vv->v[0];
		for (k = 0; k < vv->n; k++) {
			sum += vv->v[k];
			pos &= vv->v[k] > 0;
			if (pos)
				inv += 1 / vv->v[k];
			mn = vv->v[k] < mn ? vv->v[k] : mn;
			mx = vv->v[k] > mx ? vv->v[k] : mx;
		}
		m = sum / vv->n;
		if (l->better == MM_HIGHER && pos) {
			x->v[run] = vv->n / inv;
			x->nhmean++;
		} else {
			x->v[run] = m;
		}
		x->wcov[run] = vv->n > 1 && m != 0 ?
			       100 * gsl_stats_sd(vv->v, 1, vv->n) / fabs(m) : NAN;
		x->npresent++;
		x->nexact += vv->n >= 3 && mn == mx;
	}
	rs_free(&s);
	return rc;
}

static int load_ledger(struct detect *d)
{
	struct tab t;
	size_t i;
	int k;

	if (!d->ledger)
		return 0;
	if (led_load(&t, d->ledger)) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return -1;
	}
	d->open = calloc(t.nrows + 1, sizeof(*d->open));
	for (i = 0; d->open && i < t.nrows; i++) {
		char **f = t.rows[i].f;
		struct lrow *o = &d->open[d->nopen];

		if (strcmp(f[L_STATE], "open") || strcmp(f[L_HOST], d->host) ||
		    strcmp(f[L_BASELINE], LEDGER_HISTORY))
			continue;
		*o = (struct lrow){ .workload = strdup(f[L_WORKLOAD]), .kase = strdup(f[L_CASE]),
				    .metric = strdup(f[L_METRIC]), .first_run = strdup(f[L_FIRST_RUN]) };
		d->nopen++;
		if (!o->workload || !o->kase || !o->metric || !o->first_run)
			break;
	}
	k = d->open && i == t.nrows ? 0 : -1;
	tab_free(&t);
	if (k)
		fprintf(stderr, "%s: out of memory\n", prog);
	return k;
}

/* ------------------------------------------------------------ judging */

/* One line's history judged: the series, the verdict and what it means. */
struct judged {
	struct dline *l;
	int n;			/* points */
	int *idx;		/* point -> run */
	struct cp_verdict v;
	enum { A_NONE, A_NEW, A_UPDATE, A_SUSPECT } action;
	bool suspect;		/* worse, likely: a rerun would decide */
	struct lrow *row;		/* the open row it updates */
	const struct lrow *resolves;	/* an open row whose change is gone */
	bool alert;		/* a confirmed change for the worse, rerun holding */
	bool host_busier;
	double busy_before, busy_after;
	double within_cov;
	double det_sd;		/* smallest detectable step, sd; NAN not computed */
	bool exact;
	const char *why;	/* why a confirmed-looking change is not an alert */
};

static double median_busy(const struct detect *d, const int *idx, int lo, int hi)
{
	double v[4096];
	int n = 0, i;

	for (i = lo; i < hi && n < 4096; i++)
		if (isfinite(d->runs[idx[i]].busy))
			v[n++] = d->runs[idx[i]].busy;
	if (!n)
		return NAN;
	for (i = 1; i < n; i++) {
		double x = v[i];
		int j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int point_of(const struct judged *j, const struct detect *d, const char *rel)
{
	int i;

	for (i = 0; i < j->n; i++)
		if (!strcmp(d->runs[j->idx[i]].rel, rel))
			return i;
	return -1;
}

static int judge_line(struct detect *d, struct dline *l, struct judged *j)
{
	double *x = malloc((d->nruns + 1) * sizeof(double)), wc = 0;
	int *night = malloc((d->nruns + 1) * sizeof(int)), i, nw = 0, rerun = -1;
	struct cp_series s;

	memset(j, 0, sizeof(*j));
	j->l = l;
	j->det_sd = NAN;
	j->idx = malloc((d->nruns + 1) * sizeof(int));
	if (!x || !night || !j->idx) {
		free(x);
		free(night);
		return -1;
	}
	for (i = 0; i < d->nruns; i++) {
		if (!isfinite(l->v[i]))
			continue;
		if (d->runs[i].rerun)
			rerun = j->n;
		j->idx[j->n] = i;
		night[j->n] = d->runs[i].night;
		x[j->n++] = l->v[i];
		if (isfinite(l->wcov[i])) {
			wc += l->wcov[i];
			nw++;
		}
	}
	j->within_cov = nw ? wc / nw : NAN;
	/* exact evidence (no spread in any run): the comparisons judge it */
	j->exact = l->nexact == l->npresent;
	s = (struct cp_series){ .x = x, .night = night, .n = j->n, .better = l->better };
	if (!j->exact && cp_judge(&s, &d->r, &j->v)) {
		free(x);
		free(night);
		return -1;
	}
	if (j->exact || !j->v.ncp)
		goto out;
	j->busy_before = median_busy(d, j->idx, j->v.seg_start, j->v.at);
	j->busy_after = median_busy(d, j->idx, j->v.at, j->n);
	if (j->v.worse && (j->v.state == CPS_CONFIRMED || j->v.state == CPS_SUSPECT)) {
		/* the host gave the suite less after the change: not the kernel */
		if (d->host_margin > 0 && j->busy_after > j->busy_before + d->host_margin) {
			j->host_busier = true;
			j->why = "the host was busier after it";
		} else if (j->v.state == CPS_SUSPECT) {
			j->suspect = true;
			j->why = d->rerun_done ? "not certain, even with tonight's rerun" :
				 d->suspects ? "suspect: not certain yet; tonight's rerun decides" :
				 "not certain";
		} else if (rerun >= 0 && !cp_rerun_holds(&j->v, x[rerun])) {
			j->why = "tonight's rerun did not reproduce it";
		} else if (rerun < 0 && d->rerun) {
			/* the rerun ran its workload but has no value of it */
			j->why = "tonight's rerun did not measure it";
		} else {
			j->alert = true;
			j->suspect = true;
		}
	}
out:
	free(x);
	free(night);
	return 0;
}

/*
 * The ledger's view of a line: a new regression, or the open one whose
 * first bad run lies within 2 runs of this change (the location of a
 * change can move by a run as nights are added). An open row is resolved
 * when no change point lies within 2 runs of its first bad run any more,
 * or when the latest change is a confirmed one for the better.
 */
static void ledger_action(struct detect *d, struct judged *j)
{
	int i, pos, c;

	for (i = 0; i < d->nopen; i++) {
		struct lrow *o = &d->open[i];

		if (o->used || strcmp(o->workload, j->l->workload) ||
		    strcmp(o->kase, j->l->kase) || strcmp(o->metric, j->l->metric))
			continue;
		pos = point_of(j, d, o->first_run);
		if (pos < 0)
			continue;	/* before the window: left open as it is */
		if (j->suspect && j->action == A_NONE && abs(pos - j->v.at) <= 2) {
			o->used = true;
			j->action = A_UPDATE;
			j->row = o;
			continue;
		}
		for (c = 0; c < j->v.ncp && abs(j->v.cp[c].at - pos) > 2; c++)
			;
		if (!j->resolves && (c == j->v.ncp || (j->v.state == CPS_CONFIRMED && !j->v.worse &&
							  j->v.at > pos + 2))) {
			o->used = true;
			j->resolves = o;
		}
	}
	if (j->action == A_NONE && d->suspects && j->suspect) {
		j->action = A_SUSPECT;
		j->alert = false;
		j->why = "suspect: tonight's rerun decides";
	} else if (j->action == A_NONE && j->alert) {
		j->action = A_NEW;
	}
	if (j->action == A_UPDATE && !j->alert) {
		/* a suspect of an open regression: it is still open */
		j->action = A_NONE;
		j->row->used = false;
	}
}


/* ------------------------------------------------------------ output */

static const char *run_rel(const struct detect *d, const struct judged *j, int point)
{
	return point >= 0 && point < j->n ? d->runs[j->idx[point]].rel : "";
}

static void print_change(const struct detect *d, const struct judged *j, const char *tag)
{
	const struct cp_verdict *v = &j->v;
	const struct drun *first = &d->runs[j->idx[v->at]], *good = &d->runs[j->idx[v->at - 1]];

	printf("  %-6s %s %s [%s]: %+.2f%% (%s %.4g -> %.4g %s; %.2g sd of the runs before it)",
	       tag, j->l->workload, j->l->metric, j->l->kase, v->pct,
	       j->l->nhmean == j->l->npresent ? "Hmean" : "Amean", v->before, v->after, j->l->unit,
	       v->size_sd);
	printf(" since run %s (%.10s, kernel %s); last good run %s (kernel %s); "
	       "%d run(s) over %d night(s) after it, p=%.2g",
	       first->rel, first->date, first->kernel, good->rel, good->kernel, v->n_after,
	       v->nights_after, v->cp[v->ncp - 1].p);
	if (strcmp(first->kernel, good->kernel) == 0)
		printf("; the kernel is the same on both sides");
	if (j->action == A_NEW)
		printf(": NEW");
	else if (j->action == A_UPDATE)
		printf(": open");
	else if (j->why)
		printf(": not an alert: %s", j->why);
	if (j->host_busier)
		printf(" (others used %.0f%% of the CPUs after it, %.0f%% before)", j->busy_after,
		       j->busy_before);
	putchar('\n');
}

/* Changes worth a line: alerts, and changes of the last week. */
static bool recent(const struct judged *j)
{
	return j->v.ncp && j->v.nights_after <= 7;
}

static void fmt_d(char *b, size_t n, double v, const char *f)
{
	if (isfinite(v))
		snprintf(b, n, f, v);
	else
		b[0] = '\0';
}

static int write_csv(const struct detect *d, const struct judged *js, int n, FILE *f)
{
	static const char *const hdr[] = {
		"host", "workload", "case", "metric", "unit", "better", "timed", "runs", "nights",
		"mean", "night_cov_pct", "within_cov_pct", "detectable_sd", "detectable_pct",
		"changes", "change_runs", "state", "direction", "first_run", "first_date",
		"first_kernel", "last_good_run", "last_good_kernel", "before", "after",
		"change_pct", "size_sd", "p_value", "t_p", "runs_after", "nights_after",
		"busy_before", "busy_after", "alert", "why", "ledger", "ledger_run", "resolves",
	};
	char b[24][64], cr[1024], *l;
	int i, k, rc = 0;

	l = tab_line(hdr, 38);
	rc |= !l || fputs(l, f) < 0;
	free(l);
	for (i = 0; i < n; i++) {
		const struct judged *j = &js[i];
		const struct cp_verdict *v = &j->v;
		bool c = v->ncp > 0;
		size_t o = 0;

		cr[0] = '\0';
		for (k = 0; k < v->ncp && o < sizeof(cr) - 1; k++)
			o += snprintf(cr + o, sizeof(cr) - o, "%s%s", k ? " " : "",
				      run_rel(d, j, v->cp[k].at));
		snprintf(b[0], 64, "%d", j->n);
		snprintf(b[1], 64, "%d", j->n ? d->runs[j->idx[j->n - 1]].night -
				      d->runs[j->idx[0]].night + 1 : 0);
		fmt_d(b[2], 64, v->mean, "%.6g");
		fmt_d(b[3], 64, v->mean != 0 ? 100 * v->sd / fabs(v->mean) : NAN, "%.4g");
		fmt_d(b[4], 64, j->within_cov, "%.4g");
		fmt_d(b[5], 64, j->det_sd, "%.2g");
		fmt_d(b[6], 64, j->det_sd * 100 * v->sd / fabs(v->mean), "%.4g");
		snprintf(b[7], 64, "%d", v->ncp);
		fmt_d(b[8], 64, c ? v->before : NAN, "%.6g");
		fmt_d(b[9], 64, c ? v->after : NAN, "%.6g");
		fmt_d(b[10], 64, c ? v->pct : NAN, "%.4g");
		fmt_d(b[11], 64, c ? v->size_sd : NAN, "%.3g");
		fmt_d(b[12], 64, c ? v->cp[v->ncp - 1].p : NAN, "%.3g");
		fmt_d(b[13], 64, c ? v->t_p : NAN, "%.3g");
		snprintf(b[14], 64, "%d", c ? v->n_after : 0);
		snprintf(b[15], 64, "%d", c ? v->nights_after : 0);
		fmt_d(b[16], 64, c ? j->busy_before : NAN, "%.3g");
		fmt_d(b[17], 64, c ? j->busy_after : NAN, "%.3g");
		{
			const char *row[] = {
				d->host, j->l->workload, j->l->kase, j->l->metric, j->l->unit,
				j->l->better > 0 ? "higher" : "lower", j->l->timed ? "1" : "0",
				b[0], b[1], b[2], b[3], b[4], j->exact ? "" : b[5],
				j->exact ? "" : b[6], b[7], cr,
				j->exact ? "exact" : cp_state_str(v->state),
				c ? (v->worse ? "worse" : "better") : "",
				c ? run_rel(d, j, v->at) : "",
				c ? d->runs[j->idx[v->at]].date : "",
				c ? d->runs[j->idx[v->at]].kernel : "",
				c ? run_rel(d, j, v->at - 1) : "",
				c ? d->runs[j->idx[v->at - 1]].kernel : "",
				b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15], b[16], b[17],
				j->alert ? "1" : "0", j->why ? j->why : "",
				j->action == A_NEW ? "new" : j->action == A_UPDATE ? "update" :
				j->action == A_SUSPECT ? "suspect" : "",
				j->row ? j->row->first_run : "",
				j->resolves ? j->resolves->first_run : "",
			};

			l = tab_line(row, 38);
			rc |= !l || fputs(l, f) < 0;
			free(l);
		}
	}
	return rc ? -1 : 0;
}

static void print_summary(const struct detect *d, const struct judged *js, int n)
{
	int i, nexact = 0, ntimed = 0, shown = 0, nnew = 0, within = d->r.confirm + 1;

	for (i = 0; i < n; i++) {
		nexact += js[i].exact;
		ntimed += !js[i].exact;
		nnew += js[i].action == A_NEW;
	}
	printf("history of %s: %d run(s) over %d night(s)", d->host, d->nruns, d->nnights);
	if (d->nruns)
		printf(" (%.10s .. %.10s)", d->runs[0].date, d->runs[d->nruns - 1].date);
	printf(": %d metric(s) with a spread judged by their change points, %d of exact "
	       "evidence judged by the comparisons; %d new regression(s)%s\n", ntimed, nexact,
	       nnew, d->suspects ? " (suspects are re-run first)" : "");
	for (i = 0; i < n; i++) {
		const struct judged *j = &js[i];
		const struct cp_verdict *v = &j->v;

		if (j->exact || !v->ncp)
			continue;
		if (j->alert || j->resolves ||
		    (recent(j) && (v->state == CPS_CONFIRMED || (v->worse && v->state == CPS_SUSPECT)))) {
			if (shown++ < d->max_lines) {
				if (j->resolves)
					printf("  RESOLVED %s %s [%s]: the regression since run %s is gone%s\n",
					       j->l->workload, j->l->metric, j->l->kase,
					       j->resolves->first_run,
					       j->alert || v->state == CPS_CONFIRMED ? "" : "");
				if (j->alert || v->state >= CPS_SUSPECT)
					print_change(d, j, j->alert ? "WORSE" :
						     j->action == A_SUSPECT ? "SUSPECT" :
						     v->worse ? "watch" : "better");
			}
		}
	}
	if (shown > d->max_lines)
		printf("  ... and %d more (changes.csv)\n", shown - d->max_lines);
	if (!d->detectable)
		return;
	printf("smallest step found within %d nights (in %.0f%% of synthetic histories of the "
	       "same length and noise), by metric:\n", within, 100 * DET_POWER);
	for (i = 0, shown = 0; i < n; i++) {
		const struct judged *j = &js[i];
		double cov = j->v.mean != 0 ? 100 * j->v.sd / fabs(j->v.mean) : NAN;

		if (j->exact)
			continue;
		printf("  %s %s [%s]: ", j->l->workload, j->l->metric, j->l->kase);
		if (j->n < 2 || !isfinite(cov) || !isfinite(j->det_sd))
			printf("not known yet: %d night(s), a change needs %d before it\n",
			       j->n ? d->runs[j->idx[j->n - 1]].night - d->runs[j->idx[0]].night + 1 : 0,
			       d->r.min_ref);
		else if (isinf(j->det_sd))
			printf("none: no step up to %.0f sd (CoV %.3g%% from night to night)\n", DET_MAX_SD, cov);
		else if (j->l->better > 0 && j->det_sd * cov >= 100)
			printf("none: a drop would have to be %.3g%% (%.2g sd; CoV %.3g%% from night to "
			       "night, %.3g%% within a run; %d runs)\n", j->det_sd * cov, j->det_sd, cov,
			       j->within_cov, j->n);
		else
			printf("%.3g%% (%.2g sd; CoV %.3g%% from night to night, %.3g%% within a run; %d runs)\n",
			       j->det_sd * cov, j->det_sd, cov, j->within_cov, j->n);
	}
}

/* ------------------------------------------------------------ detect command */

static int detect_opts(int argc, char **argv, struct detect *d)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "host", required_argument, NULL, 'H' },
		{ "history", required_argument, NULL, 'h' },
		{ "config-id", required_argument, NULL, 'c' },
		{ "window", required_argument, NULL, 'w' },
		{ "add-run", required_argument, NULL, 'A' },
		{ "night-date", required_argument, NULL, 'D' },
		{ "rerun", required_argument, NULL, 'r' },
		{ "rerun-done", no_argument, NULL, 'd' },
		{ "suspects", no_argument, NULL, 's' },
		{ "judge", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'o' },
		{ "ledger", required_argument, NULL, 'L' },
		{ "no-detectable", no_argument, NULL, 'N' },
		{ "host-margin", required_argument, NULL, 'm' },
		{ "max-lines", required_argument, NULL, 'x' }, { NULL, 0, NULL, 0 },
	};
	time_t t;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &d->r);

		if (rc == 2)
			return -1;
		if (!rc)
			continue;
		switch (c) {
		case 'H': d->host = optarg; break;
		case 'h': d->history = optarg; break;
		case 'c': d->config_id = optarg; break;
		case 'w': if (parse_int(optarg, "--window", 0, 100000, &d->window)) return -1; break;
		case 'A':
			if (d->nadd == 63)
				return die_usage("detect: too many --add-run"), -1;
			d->add[d->nadd++] = optarg;
			break;
		case 'D':
			if (!hist_date_parse(optarg, &t))
				return die_usage("--night-date '%s': not YYYY-MM-DDTHH:MM:SSZ", optarg), -1;
			d->night_date = optarg;
			break;
		case 'r':
			if (d->nadd == 63)
				return die_usage("detect: too many --add-run"), -1;
			d->rerun = d->add[d->nadd++] = optarg;
			d->rerun_done = true;
			break;
		case 'd': d->rerun_done = true; break;
		case 's': d->suspects = true; break;
		case 'j':
			if (judge_add_patterns(&d->jo, optarg))
				return die_usage("--judge: too many patterns"), -1;
			break;
		case 'o': d->csv = optarg; break;
		case 'L': d->ledger = optarg; break;
		case 'N': d->detectable = false; break;
		case 'm':
			if (parse_double(optarg, "--host-margin", 0, 100, &d->host_margin))
				return -1;
			break;
		case 'x': if (parse_int(optarg, "--max-lines", 0, 100000, &d->max_lines)) return -1; break;
		default: return die_usage("detect: bad option (see mmchange --help)"), -1;
		}
	}
	if (optind != argc - 1 || !d->host)
		return die_usage("detect: need ROOT and --host"), -1;
	d->root = argv[optind];
	return 0;
}

static int cmd_detect(int argc, char **argv)
{
	struct detect d = { .r = CP_DEFAULT_RULE, .window = 60, .max_lines = 30,
			    .detectable = true, .host_margin = 10 };
	char hist[PATH_MAX];
	struct judged *js = NULL;
	int i, rc = EXIT_USAGE, nnew = 0, runs_per_night;
	FILE *f;

	if (detect_opts(argc, argv, &d))
		goto out;
	snprintf(hist, sizeof(hist), "%s/history.csv", d.root);
	if (!d.history)
		d.history = hist;
	if (load_history(&d) || load_ledger(&d))
		goto out;
	for (i = 0; i < d.nruns; i++)
		if (load_run(&d, i))
			goto out;
	js = calloc(d.nlines + 1, sizeof(*js));
	if (!js) {
		die_usage("out of memory");
		goto out;
	}
	runs_per_night = d.nnights ? (int)lround((double)d.nruns / d.nnights) : 1;
	if (runs_per_night < 1)
		runs_per_night = 1;
	for (i = 0; i < d.nlines; i++) {
		struct judged *j = &js[i];

		if (judge_line(&d, &d.lines[i], j)) {
			die_usage("out of memory");
			goto out;
		}
		ledger_action(&d, j);
		nnew += j->action == A_NEW || j->action == A_SUSPECT;
		if (d.detectable && !j->exact && j->n >= 2) {
			int nights = d.runs[j->idx[j->n - 1]].night - d.runs[j->idx[0]].night + 1;

			j->det_sd = nights >= d.r.min_ref ?
				    detectable_sd(&d.r, nights, runs_per_night,
						  d.r.suspect_alpha > 0, d.r.confirm + 1) : NAN;
		}
	}
	print_summary(&d, js, d.nlines);
	rc = nnew ? EXIT_WORSE : 0;
	if (d.csv) {
		f = fopen(d.csv, "w");
		if (!f || write_csv(&d, js, d.nlines, f) || fclose(f)) {
			fprintf(stderr, "%s: %s: %s\n", prog, d.csv, strerror(errno));
			rc = EXIT_USAGE;
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = EXIT_USAGE;
out:
	for (i = 0; js && i < d.nlines; i++)
		free(js[i].idx);
	free(js);
	for (i = 0; i < d.nlines; i++) {
		free(d.lines[i].v);
		free(d.lines[i].wcov);
	}
	free(d.lines);
	for (size_t k = 0; k < d.nnames; k++)
		free(d.names[k]);
	free(d.names);
	for (i = 0; i < d.nruns; i++) {
		free(d.runs[i].dir);
		free(d.runs[i].rel);
		free(d.runs[i].date);
		free(d.runs[i].kernel);
	}
	free(d.runs);
	for (i = 0; i < d.nopen; i++) {
		free(d.open[i].workload);
		free(d.open[i].kase);
		free(d.open[i].metric);
		free(d.open[i].first_run);
	}
	free(d.open);
	judge_free(&d.jo);
	return rc;
}

/* ------------------------------------------------------------ main */

static const struct hist_command commands[] = {
	{ "detect", cmd_detect },
	{ "detectable", cmd_detectable },
	{ "edivisive", cmd_edivisive },
	{ "simulate", cmd_simulate },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	gsl_set_error_handler_off();
	hist_prog = prog;
	return hist_dispatch(commands, argc, argv, 2, usage);
}
