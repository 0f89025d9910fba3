// SPDX-License-Identifier: GPL-2.0
/* mmbench summary RUN_DIR: its body is mm_summary() (bench/summary.c). */
#include "cmd.h"
#include "core.h"

int cmd_summary(int argc, char **argv)
{
	(void)argc;
	return mm_close_stdout("summary", "standard output", mm_summary(argv[1]));
}
