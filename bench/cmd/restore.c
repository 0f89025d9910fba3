// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench restore RUN_DIR: put back the knobs a killed run left changed,
 * from its settings journal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "core.h"

int cmd_restore(int argc, char **argv)
{
	char path[4200];

	if (argc != 2) {
		fprintf(stderr, "usage: mmbench restore RUN_DIR\n");
		return MM_USAGE;
	}
	snprintf(path, sizeof(path), "%s/settings.journal", argv[1]);
	if (access(path, R_OK) < 0) {
		fprintf(stderr, "mmbench restore: no settings journal in '%s': %s\n",
			argv[1], strerror(errno));
		return MM_USAGE;
	}
	return mm_settings_restore(argv[1], true);
}
