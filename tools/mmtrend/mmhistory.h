/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmhistory's parts: usage, the command table and the history's own
 * commands (mmhistory.c: append, check, select); the run directories
 * (histkeep.c: expired, drop, runs, meta-add, meta-get); a comparison's
 * digest (histdigest.c); the regressions ledger (histledger.c).
 */
#ifndef MMT_MMHISTORY_H
#define MMT_MMHISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "exitcodes.h"
#include "history.h"
#include "judge.h"

#define LOCK_TIMEOUT_S 60
#define MAX_LIST 4096

#define die_usage hist_usage_error

/* mmhistory.c: helpers of every command */
void flatten(char *s);
bool in_list(const char *const *list, int n, const char *s);
int parse_long(const char *s, const char *what, long min, long *out);
int parse_pct(const char *s, double *out);
bool file_nonempty(const char *p);

/* One line of an mmcompare --csv: the NEW side (1) with its base mean. */
struct cline {
	const char *workload, *kase, *metric, *unit, *mean_type, *verdict;
	double mean, base_mean, pct, p;
	bool pct_ok, p_ok, base_ok;
	/* a judged metric the BASE side measured and the NEW side did not:
	 * nothing can be claimed about it, so the night is not "not worse" */
	bool gone;
	bool exact;		/* no spread on either side: exact evidence */
	enum judge_verdict jv;
};

struct cmpfile {
	struct tab t;
	struct cline *l;
	size_t n;
};

/* histdigest.c: compare.csv loaded, its NEW side judged under jo */
int cmpfile_load(struct cmpfile *c, const char *path, const struct judge_opts *jo);
void cmpfile_free(struct cmpfile *c);
int judge_opt(int c, const char *arg, struct judge_opts *jo);

/* The commands (argc, argv from the command's name on) */
int cmd_expired(int argc, char **argv);
int cmd_drop(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_meta_add(int argc, char **argv);
int cmd_meta_get(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_ledger_update(int argc, char **argv);
int cmd_ledger_changes(int argc, char **argv);
int cmd_ledger_list(int argc, char **argv, bool runs);

#endif /* MMT_MMHISTORY_H */
