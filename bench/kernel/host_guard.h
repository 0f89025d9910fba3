/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's hand in a measurement, as a guest sees it. On a virtual
 * machine with free page reporting (virtio_balloon with
 * VIRTIO_BALLOON_F_REPORTING, Hyper-V's balloon) the guest hands free
 * blocks of 2^page_reporting_order pages back to the host, which faults
 * them in again on the next touch: a fault on reported memory also pays
 * for the host. A workload that guards its measured phase against it
 * snapshots what moves when the host takes or gives memory or CPU time
 * (reported_kib where the kernel counts it, the zones' managed pages, the
 * balloon's vmstat counters, steal time) right before the phase, and
 * judges the window after it. thp_storm's guard (workloads/thp_storm_guard.c)
 * is the user and says how the pieces are combined.
 */
#ifndef MMBENCH_HOST_GUARD_H
#define MMBENCH_HOST_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Is free page reporting active? why gets the evidence either way. */
bool mm_host_reporting(char *why, size_t len);
/* /sys/module/page_reporting/parameters/reported_kib; -1: not counted. */
long long mm_host_reported_kib(void);
/* Steal ticks of all CPUs (USER_HZ, /proc/stat); -1 if absent. */
long long mm_host_steal_ticks(void);

/* What moves when the host takes memory or time; -1: absent here. */
struct mm_host_snap {
	long long rep;		/* reported_kib */
	long long man;		/* managed pages of all zones */
	long long bal;		/* balloon_inflate + balloon_deflate */
	long long steal;	/* steal ticks */
};
void mm_host_snap(struct mm_host_snap *s);

/*
 * A guarded window, opened by several threads' snapshots (each taken at
 * its own t0) and closed once. reported_kib and steal only grow: the least
 * opening value counts; managed pages and the balloon: any difference
 * between the threads' openings is a move.
 */
struct mm_host_window {
	uint64_t t0, t1;
	struct mm_host_snap s0, s1;
	bool man_moved, bal_moved;	/* between the threads' openings */
};
/* Thread i's opening (i == 0 first: it resets the window). */
void mm_host_window_open(struct mm_host_window *w, int i, uint64_t t0,
			 const struct mm_host_snap *s);
/*
 * Close the window now. true when the host took back memory, managed pages
 * or the balloon moved, or steal exceeded steal_max_pct of the CPUs' time;
 * why then says which (page: bytes per page, for managed pages in KiB).
 */
bool mm_host_window_close(struct mm_host_window *w, size_t page,
			  double steal_max_pct, char *why, size_t len);

/* A witness's series of values, for its baseline (the median). */
struct mm_witness {
	double *v;
	size_t n, cap;
};
/* The median of the values kept, 0 if none. */
double mm_witness_median(const struct mm_witness *w);
/* Keep a value > 0 (an allocation failure drops it). */
void mm_witness_keep(struct mm_witness *w, double x);
void mm_witness_free(struct mm_witness *w);

#endif
