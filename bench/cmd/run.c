// SPDX-License-Identifier: GPL-2.0
/* mmbench run WORKLOAD [-p key=value[,value...]]... [options]: one plan. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "session.h"

int cmd_run(int argc, char **argv)
{
	struct run_opts ro = RUN_OPTS_INIT;
	struct plan *pn = calloc(1, sizeof(*pn));
	int ret = MM_USAGE, idx;

	if (!pn)
		return MM_FAIL;
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "mmbench run: which workload? (see: mmbench list)\n");
		goto out;
	}
	if (plan_init(pn, argv[1], "") < 0)
		goto out;
	idx = parse_opts(argc - 1, argv + 1, &ro, pn, true);
	if (idx < 0 || check_precision(&ro) < 0)
		goto out;
	if (idx < argc - 1) {
		fprintf(stderr, "mmbench run: unexpected argument '%s'\n", argv[idx + 1]);
		goto out;
	}
	if (plan_expand(pn) < 0)
		goto out;
	if (ro.dry_run) {
		ret = run_dry(pn, 1, &ro);
		goto out;
	}
	idx = run_setup(&ro, argc, argv);
	if (idx < 0) {
		ret = run_setup_status(idx);
		goto out;
	}
	ret = run_execute(pn, 1, &ro);
out:
	mm_plist_free(&pn->pl);
	free(pn);
	return ret;
}
