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
 * worse ends some metric's history. The file of each command: mmchange.h.
 */
#include <getopt.h>
#include <gsl/gsl_rng.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "numbers.h"
#include "mmchange.h"

static const char *prog = "mmchange";

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
		"         [--runs N] [--no-rerun] [--new-kernel] [RULE]\n"
		"                      steps of S between-run sd after N flat nights\n"
		"                      (--new-kernel: the step comes with a new kernel)\n"
		"  detectable [--nights 'N...'] [--runs N] [--no-rerun] [RULE]\n"
		"                      (--runs: runs a night, default 2 as the nightly's)\n"
		"                      the smallest step found within confirm + 1 nights in\n"
		"                      80%% of synthetic histories of N nights\n"
		"RULE: [--alpha A] [--perms R] [--min-size S] [--confirm M] [--min-sd K]\n"
		"      [--min-change PCT]\n"
		"defaults: --alpha 0.05 --perms 199 --min-size 2 --confirm 2 --min-sd 2 --min-ref 10\n"
		"          --tail 8 --t-alpha 0.0003\n");
}

/* ------------------------------------------------------------ options */

int parse_double(const char *s, const char *what, double lo, double hi, double *out)
{
	if (mm_parse_real(s, out) || !(*out >= lo && *out <= hi))
		return die_usage("%s '%s': want a number from %g to %g", what, s, lo, hi);
	return 0;
}

int parse_int(const char *s, const char *what, long lo, long hi, int *out)
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

/* The rule's options: 0 taken, 1 not a rule option, MM_USAGE a bad value. */
int rule_opt(int c, const char *arg, struct cp_rule *r)
{
	switch (c) {
	case 'a': return parse_double(arg, "--alpha", 1e-6, 0.5, &r->cp.alpha) ? MM_USAGE : 0;
	case 'R': return parse_int(arg, "--perms", 19, 100000, &r->cp.perms) ? MM_USAGE : 0;
	case 'S': return parse_int(arg, "--min-size", 1, 100, &r->cp.min_size) ? MM_USAGE : 0;
	case 'M': return parse_int(arg, "--confirm", 1, 100, &r->confirm) ? MM_USAGE : 0;
	case 'K': return parse_double(arg, "--min-sd", 0, 100, &r->min_sd) ? MM_USAGE : 0;
	case 'C': return parse_double(arg, "--min-change", 0, 1e6, &r->min_pct) ? MM_USAGE : 0;
	case 'F': return parse_int(arg, "--min-ref", 1, 10000, &r->min_ref) ? MM_USAGE : 0;
	case 'T': return parse_int(arg, "--tail", 0, 10000, &r->tail) ? MM_USAGE : 0;
	case 'P': return parse_double(arg, "--t-alpha", 1e-12, 1, &r->t_alpha) ? MM_USAGE : 0;
	}
	return 1;
}

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
			return MM_USAGE;
		if (!rc)
			continue;
		if (c == 'q') {
			if (parse_int(optarg, "--qhat", 1, INT_MAX, &qtau))
				return MM_USAGE;
		} else if (c == 'b' && (!strcmp(optarg, "higher") || !strcmp(optarg, "lower"))) {
			better = !strcmp(optarg, "higher") ? 1 : -1;
		} else {
			return die_usage("edivisive: bad option (see mmchange --help)");
		}
	}
	if (optind != argc)
		return die_usage("edivisive: the values come on stdin");
	while (fgets(line, sizeof(line), stdin)) {
		char *save, *tok[3] = { NULL, NULL, NULL }, *t;
		long nt = n;
		double nv = 0;
		int k = 0;
		bool bad;

		for (t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
			if (k < 3)
				tok[k++] = t;
		if (!k || tok[0][0] == '#')
			continue;
		bad = k == 3 || mm_parse_real(tok[k - 1], &v);
		if (k == 2) {					/* NIGHT VALUE */
			bad = bad || mm_parse_real(tok[0], &nv);
			nt = (long)nv;
		}
		if (bad) {
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
