// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench options: the run options' table as data (bench/runopts.c), for
 * the shell front doors; bench/run-options.tsv is a copy (make docs).
 */
#include <stdio.h>

#include "cmd.h"
#include "runopts.h"

int cmd_options(int argc, char **argv)
{
	if (argc != 1) {
		fprintf(stderr, "usage: mmbench options\n");
		return MM_USAGE;
	}
	(void)argv;
	run_opts_export(stdout);
	return mm_close_stdout("options", "standard output", MM_PASS);
}
