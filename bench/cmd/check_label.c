// SPDX-License-Identifier: GPL-2.0
/* mmbench check-label LABEL: the label rule for shell tools. */
#include <stdio.h>

#include "cmd.h"
#include "driver.h"

/* Exit 0, or 2 with the reason. */
int cmd_check_label(int argc, char **argv)
{
	char why[700];

	(void)argc;
	if (mm_label_check(argv[1], why, sizeof(why)) < 0) {
		fprintf(stderr, "mmbench: %s\n", why);
		return MM_USAGE;
	}
	return MM_PASS;
}
