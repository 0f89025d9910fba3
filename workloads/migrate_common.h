/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the NUMA migration workloads (migrate_ad, mlock_mix). */
#ifndef MIGRATE_COMMON_H
#define MIGRATE_COMMON_H

#include <stddef.h>

#include "mmbench.h"

/* The n-th NUMA node with memory (0-based), or -1. */
int mig_nth_mem_node(int n);
/* Parameter defaults: first and second node with memory ("" if none). */
const char *mig_def_from(char *buf, size_t len);
const char *mig_def_to(char *buf, size_t len);
/*
 * Two distinct existing nodes from the from/to parameters (MM_UNSET_INT:
 * no default node here), or a skip whose reason names the VM lab on a
 * machine with fewer than two nodes.
 */
int mig_numa2_precheck(struct mm_ctx *ctx, long long from_p, long long to_p,
		    int *from, int *to);
/*
 * Pages of the list not on node: move_pages(2) with a NULL node list only
 * reports where each page is (status: node or -errno). -errno on error.
 */
long mig_not_on_node(void **pages, unsigned long n, int *status, int node);

/*
 * numa_balancing=off|keep: automatic NUMA balancing migrates pages and
 * takes hint faults on its own, inside the timed phases. The precheck skips
 * when it is on and cannot be switched off (not root); prepare switches
 * it off through the settings journal. The parameter is an MM_P_ENUM
 * with MIG_BALANCING_CHOICES; its value is passed in.
 */
#define MIG_BALANCING_CHOICES "off|keep"
enum mig_balancing { MIG_BALANCING_OFF, MIG_BALANCING_KEEP };
int mig_balancing_precheck(struct mm_ctx *ctx, int balancing);
int mig_balancing_off(struct mm_ctx *ctx, int balancing);

#endif /* MIGRATE_COMMON_H */
