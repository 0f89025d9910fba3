// SPDX-License-Identifier: GPL-2.0
/* mmbench check-label LABEL: mmbench check label LABEL, by its old name. */
#include "cmd.h"

int cmd_check_label(int argc, char **argv)
{
	char *words[] = { "check", "label", argv[1], NULL };

	(void)argc;
	return cmd_check(3, words);
}
