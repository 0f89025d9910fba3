// SPDX-License-Identifier: GPL-2.0
/* mmbench help (-h, --help): the usage on standard output. */
#include "cmd.h"
#include "core.h"

int cmd_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	mm_usage(stdout);
	return MM_PASS;
}
