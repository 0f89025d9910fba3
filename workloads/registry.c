// SPDX-License-Identifier: GPL-2.0
/* The one table of every workload; `mmbench list` prints it in this order. */
#include <string.h>

#include "mmbench.h"

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
