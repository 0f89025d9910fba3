/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlock_mix's own header, shared by its files: mlock_mix.c (the tables,
 * precheck, prepare, the rounds and the run) and mlock_mix_check.c (the mlock
 * state check and the rows). No other file includes it.
 */
#ifndef MLOCK_MIX_H
#define MLOCK_MIX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folio_view.h"
#include "mmbench.h"

#define CHUNK_PAGES 16		/* mlock granularity: 64 KiB of 4 KiB pages */
#define FILLER_PAGES 3		/* compact: filler pages faulted per region page */
#define COMPACT "/proc/sys/vm/compact_memory"
#define UNEVICTABLE_ALLOWED "/proc/sys/vm/compact_unevictable_allowed"
#define STAT_REFRESH "/proc/sys/vm/stat_refresh"
/* What the mlock bookkeeping looks like from user space. */
struct mlock_snap {
	long long vmlck_kb;	/* VmLck of this process (/proc/self/status) */
	long long nr_mlock;	/* pages, /proc/vmstat */
	long long unevictable_kb; /* /proc/meminfo */
	/* Own pages by /proc/kpageflags (root), -1 when not looked at: */
	long long lost;		/* should be mlocked, PG_mlocked clear */
	long long evictable;	/* mlocked but not on the unevictable LRU */
	long long stray;	/* should not be mlocked, PG_mlocked set */
};

struct mix_region {
	char *buf;
	char *old;		/* compact: the last iteration's, while rebuilding */
	char *held;		/* compact retry: the last ones, kept (hold_for_retry) */
	char *blocker;		/* compact retry: see hold_for_retry */
	size_t blocker_len;
	size_t len;
	unsigned long npages;
	void **pages;
	int *status, *prev;	/* this call's and the last call's placement */
	uint64_t *pfn, *pfn_new; /* compact: PFNs from /proc/self/pagemap */
	uint64_t *chk;		/* PFNs for the kpageflags check */
	double *lat;		/* ns per migration call */
	size_t nlat, cap;
};

struct mix_slot {
	uint64_t migrated;	/* pages that changed node (or PFN) */
	uint64_t not_migrated;	/* move_pages: pages left behind */
	int err;		/* errno of a failed call */
	char op[32];		/* the call that failed */
};

struct mix_state {
	int n, from, to;
	long long rounds_max;
	bool compact;
	size_t locked_bytes;
	struct mix_region *r;
	int *node_to, *node_from;	/* shared target lists */
	struct bitmask *settle;	/* {from}: mbind target and drain */
	struct folio_view fv;	/* root: own pages by pagemap and kpageflags */
	int pct;
	/* nr_mlock/Unevictable compared exactly only when nothing else moves them */
	bool global_exact;
	char global_note[300];
	pthread_barrier_t bar;
	bool bar_ok;
	/* Written by the barrier's serial thread between two barriers. */
	long long rounds_done;
	bool stop, bad;
	uint64_t check_ns;
	bool fresh;		/* compact: regions built and not yet compacted */
	struct mlock_snap base, last;
	char why[512];
};

/* mlock_mix.c */
bool mix_chunk_locked(size_t j, int pct);

/* mlock_mix_check.c */
int mix_mlock_snap(struct mix_state *s, struct mlock_snap *m);
int mix_open_views(struct mm_ctx *ctx, struct mix_state *s);
bool mix_check_round(struct mix_state *s);
void mix_emit_all(struct mm_ctx *ctx, struct mix_state *s, struct mm_team *team,
		  const struct mm_phase *ph, double migrated, uint64_t own);

#endif
