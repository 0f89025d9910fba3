/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmchange's parts: usage, the options of the rule, edivisive and the
 * command table (mmchange.c); simulate and detectable (chgsim.c); detect
 * (chgdetect.c), its inputs (chgload.c) and its verdicts (chgjudge.c).
 */
#ifndef MMT_MMCHANGE_H
#define MMT_MMCHANGE_H

#include <stdbool.h>
#include <stdio.h>

#include "changepoint.h"
#include "csvio.h"
#include "exitcodes.h"
#include "history.h"
#include "judge.h"
#include "resultset.h"

#define die_usage hist_usage_error

/* mmchange.c: the options of the rule (changepoint.h), every command's */
int parse_double(const char *s, const char *what, double lo, double hi, double *out);
int parse_int(const char *s, const char *what, long lo, long hi, int *out);
int rule_opt(int c, const char *arg, struct cp_rule *r);

#define RULE_LONGOPTS \
	{ "alpha", required_argument, NULL, 'a' }, { "perms", required_argument, NULL, 'R' }, \
	{ "min-size", required_argument, NULL, 'S' }, \
	{ "confirm", required_argument, NULL, 'M' }, \
	{ "min-sd", required_argument, NULL, 'K' }, \
	{ "min-change", required_argument, NULL, 'C' }, \
	{ "min-ref", required_argument, NULL, 'F' }, { "tail", required_argument, NULL, 'T' }, \
	{ "t-alpha", required_argument, NULL, 'P' }

/* chgsim.c: the smallest detectable step, found in DET_POWER of the
 * histories, searched up to DET_MAX_SD */
#define DET_SEEDS 100
#define DET_POWER 0.8
#define DET_MAX_SD 12.0
double detectable_sd(const struct cp_rule *r, int ref, int runs, bool rerun, int within);

/* chgload.c */
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
int load_history(struct detect *d);
int load_run(struct detect *d, int run);
int load_ledger(struct detect *d);

/* chgjudge.c */
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
	double runs_cov;	/* CoV between the runs of one night, %; NAN: one a night */
	double det_sd;		/* smallest detectable step, sd; NAN not computed */
	bool exact;
	const char *why;	/* why a confirmed-looking change is not an alert */
};
int judge_line(struct detect *d, struct dline *l, struct judged *j);
void ledger_action(struct detect *d, struct judged *j);
int write_csv(const struct detect *d, const struct judged *js, int n, FILE *f);
void print_summary(const struct detect *d, const struct judged *js, int n);

/* The commands (argc, argv from the command's name on) */
int cmd_simulate(int argc, char **argv);
int cmd_detectable(int argc, char **argv);
int cmd_detect(int argc, char **argv);

#endif /* MMT_MMCHANGE_H */
