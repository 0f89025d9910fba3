// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench precision [--precision P] RUN_DIR...: its body is
 * mm_precision_cmd() (bench/precision.c).
 */
#include "cmd.h"
#include "precision.h"

int cmd_precision(int argc, char **argv)
{
	return mm_precision_cmd(argc, argv);
}
