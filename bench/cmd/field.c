// SPDX-License-Identifier: GPL-2.0
/* mmbench field ...: its body is mm_field() (bench/field.c). */
#include "cmd.h"
#include "core.h"

int cmd_field(int argc, char **argv)
{
	return mm_field(argc, argv);
}
