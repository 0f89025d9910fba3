// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench: the command-line front door. Its commands are the table of
 * bench/cmd/table.c, one file each in bench/cmd/; the options of run and
 * suite are the table of bench/runopts.c.
 */
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	return mm_cmd_dispatch(argc, argv);
}
