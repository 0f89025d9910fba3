/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of `mmbench run` and `mmbench suite`, one table (runopts.c):
 * each row is one option: its name, its value and type, its default, its
 * help and the function that checks and keeps it. The parser, --help,
 * `mmbench options` (the export the shell front doors read) and the plan
 * of a run (a workload and its expanded parameters) are made from it.
 */
#ifndef MMBENCH_RUNOPTS_H
#define MMBENCH_RUNOPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "core.h"
#include "driver.h"
#include "params.h"

#define MAX_META 64

/* What the options of one command line set. */
struct run_opts {
	struct mm_opts o;
	bool iter_set, warm_set, dry_run, max_iter_set, max_time_set;
	const char *out, *root, *label, *mirror, *probe;
	char *meta[MAX_META];
	int nmeta;
	char *sets[MAX_META];
};

/* The defaults before any option: 5 iterations, 1 warm-up, 900 s. */
#define RUN_OPTS_INIT { .o = { .iterations = 5, .warmups = 1, .timeout = 900 } }

/* One planned invocation: a workload and its expanded parameters. */
struct plan {
	struct mm_plist pl;
	int iterations, warmups;
	char where[300];	/* "suite:LINE" for messages */
};

/*
 * Parse the options of one invocation (the command line, or one suite
 * line: global false). -p goes into pn when given; global options into ro
 * (only when global). Returns the index of the first word that is no
 * option, or -1 after a message on stderr; -h prints the usage and exits.
 */
int parse_opts(int argc, char **argv, struct run_opts *ro, struct plan *pn,
	       bool global);
/*
 * The precision options together, after parsing (limits need
 * --precision, --max-time below --timeout, -i not above
 * --max-iterations); sets their defaults. 0 or -1 after a message.
 */
int check_precision(struct run_opts *ro);
/* The options' part of the usage text, one row after another. */
void run_opts_help(FILE *f);
/* `mmbench options`: the table as data (see bench/README.md). */
void run_opts_export(FILE *f);

/* A plan for workload WLNAME; WHERE ("FILE:LINE: " or "") starts messages. */
int plan_init(struct plan *pn, const char *wlname, const char *where);
/* The plan's cases from its -p values; -1 after a message. */
int plan_expand(struct plan *pn);

#endif /* MMBENCH_RUNOPTS_H */
