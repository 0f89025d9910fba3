// SPDX-License-Identifier: GPL-2.0
/* thp_storm's host guard (the description below); the host's counters,
 * their window and the witness's baseline are core services (host_guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folio_view.h"
#include "thp_storm.h"

/*
 * The host guard. On a virtual machine with free page reporting the guest
 * hands free blocks of 2^page_reporting_order pages back to the host a few
 * seconds after they were freed; the next touch of such a block pays a
 * host fault per page, milliseconds per THP against a few hundred us. A
 * storm that lands on reported memory measures the host. So, where
 * reporting is active:
 *
 *  1. Right before the start barrier, each faulting thread backs the
 *     memory its faults will take: as many PMD THPs as it faults plus a
 *     quarter (the whole capped by the free memory in PMD-sized blocks less
 *     a reserve) are faulted in, on its own CPU (each fault zeroes 2 MiB,
 *     so the host backs every page), and freed again. Freed blocks go to
 *     that CPU's per-cpu list and the head of the free lists; reported
 *     ones sit at the tail (__putback_isolated_page), so the storm's PMD
 *     allocations take the backed ones first. Compaction's targets are the
 *     holes the fragmentation left: smaller than a reporting block, never
 *     reported, backed by the fragmentation's touch. That it worked is
 *     checked as root: the storm's THPs' PFNs against the backed ones
 *     (storm_guard_huge_from_backed_pct).
 *  2. Around the storm, from that release to its end: reported_kib (where
 *     the kernel counts it), the zones' managed pages and the balloon's
 *     vmstat counters (memory taken by the host or added unbacked), and
 *     steal time from /proc/stat. The storm is disturbed when the host
 *     took back any memory in that window (a reporting cycle takes the
 *     backed blocks as readily as any: 126 MiB reported in a 1 GiB storm
 *     with 128 MiB backed beyond its need still cost 1.7 ms per fault
 *     against 0.3 ms), when managed pages or the balloon moved, or when
 *     steal exceeded STEAL_MAX_PCT of the CPUs' time. Also the host's
 *     memory speed, with the storm's own fill as the witness (fill=1):
 *     the memset of each region that got a PMD THP is timed, outside the
 *     fault's clock reads. It writes memory the fault has just mapped, so
 *     no kernel path is in it, only the memory's write speed as the host
 *     gives it at that moment. The storm is disturbed when its mean fill
 *     is over FILL_MAX_PCT above the median of the case's emitted storms
 *     (warm-up included; the first storm of a case has no baseline). A
 *     storm with fewer than FILL_MIN THPs has no witness: a mean of a few
 *     fills is too uneven to judge by.
 *     Seen here in two runs of 40 plain storms of 256 faults: in one, the
 *     storms' mean fault and mean fill correlated (r 0.85); in the other
 *     the fills were steady within a few % and rose with the faults when
 *     the host slowed (159.8 against 128-146 us per fault, 35.9 against
 *     28-34 us per fill).
 *  3. A disturbed storm is not emitted: the iteration is set up and run
 *     again, each retry logged and counted (storm_guard_retries), and
 *     after GUARD_RETRIES retries the case fails with the reason.
 */

/* Which host guard runs, said once per case in meta.csv. */
void storm_note_guard(struct mm_ctx *ctx, struct state *s)
{
	bool off = ((const struct storm_params *)ctx->params)->guard == GUARD_OFF;
	char why[200];

	s->guard = mm_host_reporting(why, sizeof(why)) && !off;
	if (!s->guard) {
		mm_note(ctx, "thp_storm_guard", "[%s]: none (%s)", mm_case_string(ctx->c),
			off ? "guard=off" : why);
		return;
	}
	mm_note(ctx, "thp_storm_guard", "[%s]: free page reporting (%s): storm memory backed right before the start barrier; a storm during which reported_kib, managed pages or the balloon moved, steal exceeded %.0f%%, or filling its THPs took over %.0f%% longer than in the case's earlier storms (the host's memory was slower), is not emitted and %s",
		mm_case_string(ctx->c), why, STEAL_MAX_PCT, FILL_MAX_PCT,
		"is run again (up to " GUARD_RETRIES_S " retries, storm_guard_retries; its --probe counts and --profile samples are discarded)");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * In a faulting thread, before the start barrier: back this thread's share
 * of the storm's memory and free it; the counters of the disturbance check
 * are read right after the release.
 */
void storm_thread_back(struct state *s, struct tbuf *t, const struct folio_view *pm)
{
	size_t pmd = s->pl.pmd, len = t->gwant;
	char *p = len ? storm_map_aligned(len, pmd) : NULL;
	uint64_t pfn, t0;

	t->gbacked = t->gback_ns = t->gnpfn = 0;
	if (p) {
		madvise(p, len, MADV_HUGEPAGE);
		t0 = mm_now_ns();
		for (size_t off = 0; off < len; off += s->pl.page)
			p[off] = 1;
		t->gback_ns = mm_now_ns() - t0;
		t->gbacked = (size_t)mm_smaps_kb(p, len, "AnonHugePages:") << 10;
		for (size_t off = 0; pm->pm_fd >= 0 && off < len && t->gnpfn < t->gcap; off += pmd)
			if (fv_pfns(pm, p + off, 1, &pfn) == 0 && pfn)
				t->gpfn[t->gnpfn++] = pfn;
		munmap(p, len);
	}
	t->gt0 = mm_now_ns();
	mm_host_snap(&t->gsnap);
	if (s->settle_ms > 0)
		usleep((useconds_t)(s->settle_ms * 1000));
}

/*
 * The bytes each thread backs: its faults plus a quarter, the whole capped
 * by the free memory in PMD-sized blocks less GUARD_RESERVE (under
 * fragmentation the storm's THPs come from compaction, of memory in use).
 */
void storm_guard_plan(struct state *s)
{
	size_t pmd = s->pl.pmd, need = s->pl.nregions * pmd, want, huge;
	double free_mb, huge_mb;

	storm_buddy_free(s->pl.page, storm_log2(pmd / s->pl.page), &free_mb, &huge_mb);
	huge = (size_t)(huge_mb * 1048576.0);
	want = need + need / 4;
	if (want + GUARD_RESERVE > huge)
		want = huge > GUARD_RESERVE ? huge - GUARD_RESERVE : 0;
	for (int i = 0; i < s->pl.threads; i++) {
		struct tbuf *t = &s->t[i];
		size_t w = (size_t)((double)want * (double)t->n / (double)s->pl.nregions);

		t->gwant = w - w % pmd;
		if (t->gwant / pmd > t->gcap)
			t->gwant = t->gcap * pmd;
	}
}

/* The threads' backing as one: window from the first release, PFNs sorted. */
int storm_guard_gather(struct state *s, struct guard *g)
{
	size_t nfill = 0;

	memset(g, 0, sizeof(*g));
	for (int i = 0; i < s->pl.threads; i++)
		g->npfn += s->t[i].gnpfn;
	g->pfn = malloc((g->npfn + 1) * sizeof(*g->pfn));
	if (!g->pfn)
		return -1;
	g->npfn = 0;
	for (int i = 0; i < s->pl.threads; i++) {
		struct tbuf *t = &s->t[i];

		g->want += t->gwant;
		g->backed += t->gbacked;
		g->fill_us += (double)t->gfill_ns / 1000.0;
		nfill += t->gnfill;
		g->back_ns = t->gback_ns > g->back_ns ? t->gback_ns : g->back_ns;
		memcpy(g->pfn + g->npfn, t->gpfn, t->gnpfn * sizeof(*g->pfn));
		g->npfn += t->gnpfn;
		mm_host_window_open(&g->w, i, t->gt0, &t->gsnap);
	}
	qsort(g->pfn, g->npfn, sizeof(*g->pfn), cmp_u64);
	g->fill_us = nfill >= FILL_MIN ? g->fill_us / (double)nfill : 0;
	g->fill_base = mm_witness_median(&s->fills);
	return 0;
}

/* After the storm: did the host take memory, or time, during it? */
bool storm_guard_disturbed(struct state *s, struct guard *g)
{
	if (mm_host_window_close(&g->w, s->pl.page, STEAL_MAX_PCT, g->why, sizeof(g->why)))
		return true;
	if (g->fill_us > 0 && g->fill_base > 0 &&
	    g->fill_us > g->fill_base * (1.0 + FILL_MAX_PCT / 100.0))
		snprintf(g->why, sizeof(g->why), "filling its huge pages took %.1f us per THP, %.1f%% over the %.1f us of the case's earlier storms (limit %.0f%%): the host's memory was slower",
			 g->fill_us, 100.0 * (g->fill_us / g->fill_base - 1.0), g->fill_base,
			 FILL_MAX_PCT);
	return g->why[0] != '\0';
}

/*
 * Huge faults whose 2 MiB came from a block the guard did not back (root:
 * pagemap PFNs); *huge gets the huge faults looked at. -1: not known.
 */
static long guard_unbacked(struct state *s, const struct guard *g, size_t *huge)
{
	struct folio_view pm;
	long miss = 0;
	uint64_t pfn;

	*huge = 0;
	if (fv_open_pagemap(&pm) < 0)
		return -1;
	for (int i = 0; i < s->pl.threads; i++) {
		for (size_t k = 0; k < s->t[i].n; k++) {
			const char *p = s->t[i].map + k * s->pl.pmd;

			if (storm_class(s, s->t[i].pages[k]) != C_HUGE ||
			    fv_pfns(&pm, p, 1, &pfn) < 0 || !pfn)
				continue;
			(*huge)++;
			miss += !bsearch(&pfn, g->pfn, g->npfn, sizeof(pfn), cmp_u64);
		}
	}
	fv_close(&pm);
	return miss;
}

void storm_emit_guard(struct mm_ctx *ctx, struct state *s, const struct guard *g,
		       int retries)
{
	size_t huge;
	long miss;

	mm_emit(ctx, "storm_guard_retries", retries, "attempts");
	mm_emit(ctx, "storm_guard_backed", (double)(g->want >> 20), "MiB");
	mm_emit(ctx, "storm_guard_backed_huge_pct",
		g->want ? 100.0 * (double)g->backed / (double)g->want : 0, "pct");
	mm_emit(ctx, "storm_guard_back_time", (double)g->back_ns, "ns");
	if (g->fill_us > 0)
		mm_emit(ctx, "storm_guard_fill", g->fill_us, "us");
	if (g->fill_us > 0 && g->fill_base > 0)
		mm_emit(ctx, "storm_guard_fill_base", g->fill_base, "us");
	if (g->w.s0.rep >= 0 && g->w.s1.rep >= g->w.s0.rep)
		mm_emit(ctx, "storm_guard_reported", (double)(g->w.s1.rep - g->w.s0.rep), "KiB");
	if (g->npfn && (miss = guard_unbacked(s, g, &huge)) >= 0 && huge) {
		mm_emit(ctx, "storm_guard_unbacked_faults", (double)miss, "faults");
		mm_emit(ctx, "storm_guard_huge_from_backed_pct",
			100.0 * (double)(huge - (size_t)miss) / (double)huge, "pct");
	}
}

void storm_guard_free(struct guard *g)
{
	free(g->pfn);
	memset(g, 0, sizeof(*g));
}

/* Mean of all faults of the storm, us (for the log of a disturbed one). */
static double mean_fault_us(const struct state *s)
{
	double sum = 0;

	for (int i = 0; i < s->pl.threads; i++)
		for (size_t k = 0; k < s->t[i].n; k++)
			sum += (double)s->t[i].ns[k] / 1000.0;
	return s->pl.nregions ? sum / (double)s->pl.nregions : 0;
}

/*
 * A storm the host disturbed (see the guard) emits nothing, and what
 * --probe and --profile gathered during it is discarded: the iteration is
 * set up and stormed again, at most GUARD_RETRIES times, each retry
 * logged; then the case fails with the reason.
 */
int storm_disturbed(struct mm_ctx *ctx, struct state *s, const struct guard *g,
		     int retries)
{
	char it[48];

	storm_iteration_name(ctx, it, sizeof(it));
	if (retries == GUARD_RETRIES)
		return mm_fail(ctx, "storm of %s disturbed in %d attempts, the last: %s (its fault_both_mean %.1f us; free page reporting: the storm measured the host)",
			       it, GUARD_RETRIES + 1, g->why, mean_fault_us(s));
	mm_log(ctx, "%s: storm disturbed: %s (its fault_both_mean %.1f us): nothing emitted, retry %d of %d",
	       it, g->why, mean_fault_us(s), retries + 1, GUARD_RETRIES);
	return MM_PASS;
}

