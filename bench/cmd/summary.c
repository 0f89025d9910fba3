// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench summary [--cases] RUN_DIR: its body is mm_summary()
 * (bench/summary.c); --cases prints only the case outcomes (a pair in the
 * VM lab shows those per run, the whole table with --verbose).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core.h"

int cmd_summary(int argc, char **argv)
{
	bool cases = argc == 3 && !strcmp(argv[1], "--cases");

	if (argc != 2 + cases || argv[argc - 1][0] == '-') {
		fprintf(stderr, "usage: mmbench summary [--cases] RUN_DIR\n");
		return MM_USAGE;
	}
	return mm_close_stdout("summary", "standard output", mm_summary(argv[argc - 1], cases));
}
