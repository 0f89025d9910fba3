// SPDX-License-Identifier: GPL-2.0
/* The one table of every workload; `mmbench list` prints it in this order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbench.h"
#include "params.h"

extern const struct workload wl_pageout;
extern const struct workload wl_thp_storm;
extern const struct workload wl_migrate_ad;
extern const struct workload wl_mlock_mix;

const struct workload *const mm_workloads[] = {
	&wl_pageout,
	&wl_thp_storm,
	&wl_migrate_ad,
	&wl_mlock_mix,
	NULL,
};

const struct workload *mm_workload_find(const char *name)
{
	for (int i = 0; mm_workloads[i]; i++)
		if (strcmp(mm_workloads[i]->name, name) == 0)
			return mm_workloads[i];
	return NULL;
}

/*
 * The tables check themselves before main(): a malformed parameter,
 * metric or needs table stops every command at start-up, naming the row,
 * instead of a case failing mid-run (tests/core/test_tables checks it too).
 */
__attribute__((constructor)) static void registry_self_check(void)
{
	char err[512];

	if (mm_registry_check(err, sizeof(err)) < 0) {
		fprintf(stderr, "mmbench: internal error in a workload table: %s\n", err);
		exit(MM_FAIL);
	}
}
