/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbench's commands: one file per command in bench/cmd/, one row per
 * command in table.c's table. A handler gets the command's words (argv[0]
 * is the command's name) and returns the exit status. Declared here:
 * the handlers and table.c's functions.
 */
#ifndef MMBENCH_CMD_H
#define MMBENCH_CMD_H

#include <stdio.h>

typedef int mm_cmd_fn(int argc, char **argv);

mm_cmd_fn cmd_list, cmd_info, cmd_run, cmd_suite, cmd_sysinfo, cmd_restore,
	cmd_summary, cmd_precision, cmd_check_label, cmd_check, cmd_field,
	cmd_options, cmd_help;

/* table.c: the command named by argv[1] runs; else the usage, exit 2. */
int mm_cmd_dispatch(int argc, char **argv);
/* table.c: the usage text (the commands' table, the run options'). */
void mm_usage(FILE *f);
/*
 * Standard output flushed and closed at the end of a command that prints
 * its result there: a write that failed (a full disk, /dev/full) is the
 * command's failure, said with NAME (the file of -o, or standard output).
 */
int mm_close_stdout(const char *cmd, const char *name, int ret);

#endif /* MMBENCH_CMD_H */
