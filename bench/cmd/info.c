// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench info WORKLOAD: the workload's parameter table (type, default,
 * range, help) and its metric table.
 */
#include <stdio.h>

#include "cmd.h"
#include "core.h"
#include "params.h"

static const char *type_name(enum mm_ptype t)
{
	static const char *const n[] = { "int", "double", "bool", "enum",
					 "string" };

	return n[t];
}

/*
 * The workload's metric table: evidence (the experiment's claim, with its
 * direction) first, then the listed context metrics.
 */
static void info_metrics(const struct workload *wl)
{
	static const char *const better[] = { "lower", "higher", "info" };
	const struct mm_metric *m;

	if (!wl->metrics || !wl->metrics->name)
		return;
	printf("\n%-44s %-8s %-6s %s\n", "METRIC", "ROLE", "BETTER", "CLAIM");
	for (int role = MM_EVIDENCE; role >= MM_CONTEXT; role--)
		for (m = wl->metrics; m->name; m++)
			if ((int)m->role == role)
				printf("%-44s %-8s %-6s %s%s\n", m->name,
				       role == MM_EVIDENCE ? "evidence" : "context",
				       better[m->better], m->timed ? "(timed) " : "",
				       m->claim ? m->claim : "");
	printf("Metrics not listed are not written (the case fails); a name ending in\n"
	       "'*' is a family: the metrics that begin with it. A unit of time or a rate\n"
	       "per second marks a timed one. --probe adds calls:FUNC (context, info)\n"
	       "and calls_per_UNIT:FUNC (evidence, lower).\n");
}

int cmd_info(int argc, char **argv)
{
	const char *name = argv[1];
	const struct workload *wl = mm_workload_find(name);
	char needs[128], why[512], buf[MM_VALUE_LEN], range[64];

	(void)argc;
	if (!wl) {
		fprintf(stderr, "mmbench: unknown workload '%s' (see: mmbench list)\n",
			name);
		return MM_USAGE;
	}
	mm_needs_words(wl->needs, needs, sizeof(needs));
	printf("%s: %s\nneeds: %s (%s", wl->name, wl->desc, needs,
	       mm_needs_met(wl->needs, why, sizeof(why)) ? "met here" : why);
	if (wl->needs_except)
		printf("; %s", wl->needs_except);
	printf(")\n\n");
	printf("%-14s %-7s %-18s %-16s %s\n", "PARAMETER", "TYPE", "DEFAULT",
	       "RANGE", "HELP");
	for (const struct mm_param *p = wl->params; p && p->name; p++) {
		const char *def = mm_param_default(p, buf, sizeof(buf));

		if (p->type == MM_P_ENUM)
			snprintf(range, sizeof(range), "%s", p->choices);
		else if ((p->type == MM_P_INT || p->type == MM_P_DOUBLE) &&
			 p->min <= p->max)
			snprintf(range, sizeof(range), p->type == MM_P_INT ? "%.0f..%.0f" : "%g..%g", p->min, p->max);
		else
			snprintf(range, sizeof(range), "-");
		printf("%-14s %-7s %-18s %-16s %s%s\n", p->name, type_name(p->type),
		       *def ? def : "(auto)", range, p->help,
		       p->nolist ? " (',' is part of the value)" : "");
	}
	printf("\nA list value (-p name=a,b,c) runs one case per value; an int value\n"
	       "may be 'cpus', the number of online CPUs here.\n");
	info_metrics(wl);
	return MM_PASS;
}

