// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench's commands as a table: one row each (name, handler, the words
 * it takes, its usage lines), the handler in bench/cmd/NAME.c. A new
 * command is a new file here and a new row.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core.h"
#include "runopts.h"

struct mm_cmd {
	const char *name;
	mm_cmd_fn *fn;
	int nwords;		/* exactly this many words with the name; 0: any */
	const char *usage;	/* its usage lines, '\n' between them; NULL: none */
};

static const struct mm_cmd mm_cmds[] = {
	{ "list", cmd_list, 0, "list" },
	{ "info", cmd_info, 2, "info WORKLOAD" },
	{ "run", cmd_run, 0, "run WORKLOAD [-p key=value[,value...]]... [options]" },
	{ "suite", cmd_suite, 0, "suite FILE [options]" },
	{ "sysinfo", cmd_sysinfo, 0, "sysinfo [-o CSV_FILE] [-x TOPOLOGY_XML]" },
	{ "restore", cmd_restore, 0, "restore RUN_DIR" },
	{ "summary", cmd_summary, 0, "summary [--cases] RUN_DIR" },
	{ "precision", cmd_precision, 0, "precision [--precision P] RUN_DIR..." },
	{ "check-label", cmd_check_label, 2, "check-label LABEL" },
	{ "check", cmd_check, 3, "check label|alpha|decimal|integer VALUE" },
	{ "field", cmd_field, 0,
	  "field [--where COL=VALUE] [--last] [--lines] FILE COLUMN...\n"
	  "field --header FILE | --csv VALUE... | --schema" },
	{ "options", cmd_options, 0, "options" },
	{ "help", cmd_help, 0, NULL },
	{ "-h", cmd_help, 0, NULL },
	{ "--help", cmd_help, 0, NULL },
};

#define N_CMDS (sizeof(mm_cmds) / sizeof(mm_cmds[0]))

void mm_usage(FILE *f)
{
	const char *lead = "usage: ";

	for (size_t i = 0; i < N_CMDS; i++) {
		for (const char *u = mm_cmds[i].usage; u && *u; lead = "       ") {
			size_t n = strcspn(u, "\n");

			fprintf(f, "%smmbench %.*s\n", lead, (int)n, u);
			u += n + (u[n] == '\n');
		}
	}
	fputs("options for run and suite:\n", f);
	run_opts_help(f);
	fputs("exit status: 0 ran, 1 a case failed, 2 usage error, 4 all skipped\n", f);
}

int mm_close_stdout(const char *cmd, const char *name, int ret)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err)
		return ret;
	fprintf(stderr, "mmbench %s: writing %s: %s\n", cmd, name, strerror(err));
	return ret == MM_PASS ? MM_FAIL : ret;
}

int mm_cmd_dispatch(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < N_CMDS; i++) {
		const struct mm_cmd *c = &mm_cmds[i];

		if (strcmp(name, c->name) == 0 && (!c->nwords || c->nwords == argc - 1))
			return c->fn(argc - 1, argv + 1);
	}
	mm_usage(stderr);
	return MM_USAGE;
}
