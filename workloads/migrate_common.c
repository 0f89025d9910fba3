// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the NUMA migration workloads: node defaults, the
 * two-node requirement, and where pages are (move_pages(2) in query mode:
 * do_pages_stat() looks the page up without touching it, so the query
 * does not set the accessed bit the workloads measure).
 */
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_common.h"

int mig_nth_mem_node(int n)
{
	if (numa_available() < 0)
		return -1;
	for (int i = 0; i <= numa_max_node(); i++)
		if (numa_bitmask_isbitset(numa_all_nodes_ptr, i) &&
		    numa_node_size64(i, NULL) > 0 && n-- == 0)
			return i;
	return -1;
}

static const char *node_def(char *buf, size_t len, int n)
{
	int node = mig_nth_mem_node(n);

	if (node < 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%d", node);
	return buf;
}

const char *mig_def_from(char *buf, size_t len)
{
	return node_def(buf, len, 0);
}

const char *mig_def_to(char *buf, size_t len)
{
	return node_def(buf, len, 1);
}

int mig_numa2_precheck(struct mm_ctx *ctx, long long from_p, long long to_p,
		    int *from, int *to)
{
	int n = numa_available() < 0 ? 0 : ctx->nnodes;

	if (n < 2)
		return mm_skip(ctx, "needs two NUMA nodes with memory, this machine has %d; run it in the VM lab: "
			       "./run.sh --vm bookworm (installed: mmbench measure --vm bookworm)", n);
	if (from_p == MM_UNSET_INT || to_p == MM_UNSET_INT)
		return mm_fail(ctx, "from/to: no default node found");
	/* both checked against [0, 4095] by their parameter rows */
	*from = (int)from_p;
	*to = (int)to_p;
	if (*from == *to)
		return mm_fail(ctx, "from and to are both node %d", *from);
	for (int i = 0; i < 2; i++) {
		int node = i ? *to : *from;

		if (node > numa_max_node() || numa_node_size64(node, NULL) <= 0)
			return mm_fail(ctx, "%s=%d: no such node with memory (nodes 0..%d, see numactl -H)",
				       i ? "to" : "from", node, numa_max_node());
	}
	return MM_PASS;
}

long mig_not_on_node(void **pages, unsigned long n, int *status, int node)
{
	long off = 0;

	if (numa_move_pages(0, n, pages, NULL, status, 0) < 0)
		return -errno;
	for (unsigned long i = 0; i < n; i++)
		off += status[i] != node;
	return off;
}

#define BALANCING "/proc/sys/kernel/numa_balancing"

/* The current value when it would have to be switched off, else NULL. */
static const char *balancing_to_change(int balancing, char *buf, size_t len)
{
	if (balancing != MIG_BALANCING_OFF ||
	    mm_setting_get(BALANCING, buf, len) < 0 || !strcmp(buf, "0"))
		return NULL;
	return buf;
}

int mig_balancing_precheck(struct mm_ctx *ctx, int balancing)
{
	char cur[32];

	if (balancing_to_change(balancing, cur, sizeof(cur)) && !mm_is_root())
		return mm_skip(ctx, "kernel.numa_balancing=%s and switching it off needs root (numa_balancing=keep runs with it; hint faults are reported)",
			       cur);
	return MM_PASS;
}

int mig_balancing_off(struct mm_ctx *ctx, int balancing)
{
	char cur[32];
	int ret;

	if (!balancing_to_change(balancing, cur, sizeof(cur)))
		return MM_PASS;
	ret = mm_setting_set(BALANCING, "0");
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "setting %s to 0", BALANCING);
	}
	return MM_PASS;
}
