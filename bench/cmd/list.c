// SPDX-License-Identifier: GPL-2.0
/* mmbench list: the workloads, what each needs and whether it is met here. */
#include <stdio.h>

#include "cmd.h"
#include "core.h"
#include "params.h"

int cmd_list(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%-12s %-22s %-8s %s\n", "WORKLOAD", "NEEDS", "HERE",
	       "DESCRIPTION");
	for (int i = 0; mm_workloads[i]; i++) {
		const struct workload *wl = mm_workloads[i];
		char needs[128], why[512];
		bool ok = mm_needs_met(wl->needs, why, sizeof(why));

		mm_needs_words(wl->needs, needs, sizeof(needs));
		printf("%-12s %-22s %-8s %s\n", wl->name, needs, ok ? "yes" : "no",
		       wl->desc);
		if (!ok)
			printf("%-12s   (not here: %s%s%s)\n", "", why,
			       wl->needs_except ? "; but " : "",
			       wl->needs_except ? wl->needs_except : "");
	}
	return MM_PASS;
}
