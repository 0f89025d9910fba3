// SPDX-License-Identifier: GPL-2.0
/*
 * mmchange simulate and detectable: synthetic histories judged night by
 * night as the nightly would, and from them the smallest step the rule
 * finds (make bench-alarms, and the detect command's detectable column).
 */
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "numbers.h"
#include "mmchange.h"

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
	bool new_kernel;	/* the step comes with a new kernel */
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
	int *kernel;		/* 0 before the step, 1 after (--new-kernel) */
	int n;
	int step_at;		/* index of the first point after the step, -1 */
};

static int sim_judge(const struct sim *sm, struct hist *h, struct cp_verdict *v)
{
	struct cp_series s = { .x = h->x, .night = h->night, .n = h->n, .better = 1,
			       .kernel = sm->new_kernel ? h->kernel : NULL };

	return cp_judge(&s, &sm->r, v);
}

/* One night: its runs appended, judged, a suspect re-run. 1: alert. */
/* One run of night t appended: level plus noise of the between-run sd. */
static void sim_run(const struct sim *sm, struct hist *h, int t, double level, gsl_rng *rng)
{
	h->night[h->n] = t;
	h->kernel[h->n] = t >= sm->ref;
	h->x[h->n++] = level + gsl_ran_gaussian_ziggurat(rng, sm->cov / 100 * sm->mean);
}

static int sim_night(const struct sim *sm, struct hist *h, int t, double level, gsl_rng *noise,
		     gsl_rng *again, struct cp_verdict *v)
{
	int k;

	for (k = 0; k < sm->runs; k++)
		sim_run(sm, h, t, level, noise);
	if (sim_judge(sm, h, v))
		return -1;
	if (!sm->rerun)
		return v->state == CPS_CONFIRMED && v->worse;
	if (v->state < CPS_SUSPECT || !v->worse)
		return 0;
	sim_run(sm, h, t, level, again);
	if (sim_judge(sm, h, v))
		return -1;
	return cp_rerun_holds(v, h->x[h->n - 1]) ? 1 : 0;
}

static int sim_one(const struct sim *sm, double step, unsigned long seed, struct sim_out *o)
{
	int cap = (sm->ref + sm->nights) * (sm->runs + 1) + 1, t, rc = 0, i;
	gsl_rng *noise = gsl_rng_alloc(gsl_rng_mt19937), *again = gsl_rng_alloc(gsl_rng_mt19937);
	struct hist h = { .x = calloc(cap, sizeof(double)), .night = calloc(cap, sizeof(int)),
			  .kernel = calloc(cap, sizeof(int)),
			  .step_at = -1 };
	struct cp_verdict v;

	memset(o, 0, sizeof(*o));
	if (!noise || !again || !h.x || !h.night || !h.kernel) {
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
			for (a = 0; a < sm->runs; a++)
				sim_run(sm, &h, t, level, noise);
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
	free(h.kernel);
	if (noise)
		gsl_rng_free(noise);
	if (again)
		gsl_rng_free(again);
	return rc;
}

int cmd_simulate(int argc, char **argv)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "cov", required_argument, NULL, 'c' },
		{ "ref", required_argument, NULL, 'r' }, { "nights", required_argument, NULL, 'n' },
		{ "steps", required_argument, NULL, 's' }, { "seeds", required_argument, NULL, 'e' },
		{ "runs", required_argument, NULL, 'u' }, { "no-rerun", no_argument, NULL, 'x' },
		{ "new-kernel", no_argument, NULL, 'k' }, { NULL, 0, NULL, 0 },
	};
	struct sim sm = { .r = CP_DEFAULT_RULE, .cov = 11, .mean = 100, .ref = 20, .nights = 10,
			  .seeds = 200, .runs = 2, .rerun = true, .steps = { 0, 1, 2, 3 },
			  .nsteps = 4 };
	int c, k, i;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &sm.r);
		char *p, *end, list_buf[512];

		if (rc == 2)
			return MM_USAGE;
		if (!rc)
			continue;
		switch (c) {
		case 'c': if (parse_double(optarg, "--cov", 0.001, 1000, &sm.cov)) return MM_USAGE; break;
		case 'r': if (parse_int(optarg, "--ref", 2, 10000, &sm.ref)) return MM_USAGE; break;
		case 'n': if (parse_int(optarg, "--nights", 1, 1000, &sm.nights)) return MM_USAGE; break;
		case 'e': if (parse_int(optarg, "--seeds", 1, 1000000, &sm.seeds)) return MM_USAGE; break;
		case 'u': if (parse_int(optarg, "--runs", 1, 100, &sm.runs)) return MM_USAGE; break;
		case 'x': sm.rerun = false; break;
		case 'k': sm.new_kernel = true; break;
		case 's':
			snprintf(list_buf, sizeof(list_buf), "%s", optarg);
			sm.nsteps = 0;
			for (p = strtok_r(list_buf, " ,", &end); p && sm.nsteps < 16;
			     p = strtok_r(NULL, " ,", &end), sm.nsteps++)
				if (mm_parse_real(p, &sm.steps[sm.nsteps]) || !(sm.steps[sm.nsteps] >= 0))
					return die_usage("--steps '%s': want numbers >= 0", optarg);
			break;
		default: return die_usage("simulate: bad option (see mmchange --help)");
		}
	}
	if (optind != argc)
		return die_usage("simulate: no arguments");
	printf("# %d seeds, %d flat nights then a step%s, %d night(s) after it, %d run(s) a night%s;"
	       " between-run CoV %.4g%%\n", sm.seeds, sm.ref,
	       sm.new_kernel ? " with a new kernel" : " (the same kernel)", sm.nights, sm.runs,
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

double detectable_sd(const struct cp_rule *r, int ref, int runs, bool rerun, int within)
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
int cmd_detectable(int argc, char **argv)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "nights", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'u' }, { "no-rerun", no_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	struct cp_rule r = CP_DEFAULT_RULE;
	const char *list = "10 15 20 30 60";
	int c, runs = 2, nn;
	bool rerun = true;
	char *p, *end;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &r);

		if (rc == 2)
			return MM_USAGE;
		if (!rc)
			continue;
		if (c == 'n')
			list = optarg;
		else if (c == 'u') {
			if (parse_int(optarg, "--runs", 1, 100, &runs))
				return MM_USAGE;
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
