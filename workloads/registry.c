// SPDX-License-Identifier: GPL-2.0
/*
 * The one table of every workload; `mmbench list` prints it in this order.
 * A line X(name) registers the workload `const struct workload wl_name`
 * of workloads/name.c, whose .name must be "name" (checked at start-up).
 * Adding a workload: workloads/ADDING.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbench.h"
#include "params.h"

#define MM_REGISTRY(X)		\
	X(pageout)		\
	X(thp_storm)		\
	X(migrate_ad)		\
	X(mlock_mix)		\
	X(compact_folio)	\
	/* one line per workload, each ending in a backslash */

#define DECLARE_(name) extern const struct workload wl_##name;
MM_REGISTRY(DECLARE_)
#undef DECLARE_

const struct workload *const mm_workloads[] = {
#define ENTRY_(name) &wl_##name,
	MM_REGISTRY(ENTRY_)
#undef ENTRY_
	NULL,
};

/* The names the registry lines give, in the order of mm_workloads[]. */
static const char *const registered_as[] = {
#define NAME_(name) #name,
	MM_REGISTRY(NAME_)
#undef NAME_
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
 * instead of a case failing mid-run (tests/core/test_tables.sh runs the
 * same check).
 */
__attribute__((constructor)) static void registry_self_check(void)
{
	char err[512];

	for (int i = 0; mm_workloads[i]; i++)
		if (!mm_workloads[i]->name ||
		    strcmp(mm_workloads[i]->name, registered_as[i]) != 0) {
			fprintf(stderr, "mmbench: internal error in the registry: X(%s) registers wl_%s, whose .name is '%s', not '%s'\n",
				registered_as[i], registered_as[i],
				mm_workloads[i]->name ? mm_workloads[i]->name : "(null)",
				registered_as[i]);
			exit(MM_FAIL);
		}
	if (mm_registry_check(err, sizeof(err)) < 0) {
		fprintf(stderr, "mmbench: internal error in a workload table: %s\n", err);
		exit(MM_FAIL);
	}
}
