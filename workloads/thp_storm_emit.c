// SPDX-License-Identifier: GPL-2.0
/* thp_storm's rows: the storm's faults by class, its compaction, the
 * classes confirmed, and its context (the fragmentation, the runqueue, the host). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folio_view.h"
#include "thp_storm.h"

static const char *const class_name[C_NCLASS] = { "base", "mthp", "huge" };

/*
 * Under fragmentation the storm's faults need compaction: the free memory
 * in PMD-sized blocks at its start is less than it faults. Where it is not
 * (a size_mb far below the free memory), the figures are THP faults
 * without compaction: reported per iteration and said once in meta.csv.
 */
static void frag_pressure(struct mm_ctx *ctx, struct state *s, const struct frag_info *fi)
{
	double need_mb = (double)(s->pl.nregions * s->pl.pmd) / 1048576.0;
	double pct = need_mb > 0 ? 100.0 * fi->huge_mb / need_mb : 0;
	char it[48];

	mm_emit(ctx, "storm_start_free_huge_pct_of_need", pct, "pct");
	if (pct < 100.0 || s->noted_pressure)
		return;
	s->noted_pressure = true;
	storm_iteration_name(ctx, it, sizeof(it));
	mm_note(ctx, "thp_storm_pressure", "[%s]: from %s on: %.0f MiB free in PMD-sized blocks at the storm's start, the storm faults %.0f MiB: its faults did not need compaction (use anon_pct for the experiment's fragmentation)",
		mm_case_string(ctx->c), it, fi->huge_mb, need_mb);
	mm_log(ctx, "%s: %.0f MiB free in PMD-sized blocks at the storm's start cover the %.0f MiB it faults: not under fragmentation, compaction not needed",
	       it, fi->huge_mb, need_mb);
}

void storm_emit_frag(struct mm_ctx *ctx, struct state *s, const struct frag_info *fi)
{
	mm_emit(ctx, "frag_time", (double)fi->frag_ns, "ns");
	mm_emit(ctx, "refill_time", (double)fi->refill_ns, "ns");
	mm_emit(ctx, "frag_thp_left", (double)fi->thp_left_kb, "KiB");
	mm_emit(ctx, "storm_start_free", fi->free_mb, "MiB");
	mm_emit(ctx, "storm_start_free_huge", fi->huge_mb, "MiB");
	frag_pressure(ctx, s, fi);
}

/* Regions whose mincore class disagrees with kpageflags; -1: unavailable. */
static long kpf_mismatch(struct state *s)
{
	size_t npr = s->pl.pmd / s->pl.page;
	uint64_t *ent = malloc(npr * 8), *fl = malloc(npr * 8);
	struct folio_view v;
	long bad = fv_open(&v) == 0 && ent && fl ? 0 : -1;

	for (int i = 0; i < s->pl.threads && bad >= 0; i++) {
		struct tbuf *t = &s->t[i];

		for (size_t k = 0; k < t->n && bad >= 0; k++) {
			int h = fv_pmd_thp(&v, t->map + k * s->pl.pmd, npr, ent, fl);

			if (h < 0)
				bad = -1;
			else if (h != (storm_class(s, t->pages[k]) == C_HUGE))
				bad++;
		}
	}
	fv_close(&v);
	free(ent);
	free(fl);
	return bad;
}

/* NAME_count always; the latency figures only when there were faults. */
static void emit_class(struct mm_ctx *ctx, const char *name, double *v, size_t n)
{
	static const double pct[] = { 50, 90, 99 };
	char m[64];
	double sum = 0;

	snprintf(m, sizeof(m), "%s_count", name);
	mm_emit(ctx, m, (double)n, "faults");
	if (!n)
		return;
	mm_sort_doubles(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	snprintf(m, sizeof(m), "%s_mean", name);
	mm_emit(ctx, m, sum / (double)n, "us");
	for (size_t i = 0; i < 3; i++) {
		snprintf(m, sizeof(m), "%s_p%.0f", name, pct[i]);
		mm_emit(ctx, m, mm_percentile(v, n, pct[i]), "us");
	}
	snprintf(m, sizeof(m), "%s_max", name);
	mm_emit(ctx, m, v[n - 1], "us");
}

/* Latencies by class, pct_huge; returns the huge fault count or -1. */
long storm_emit_faults(struct mm_ctx *ctx, struct state *s)
{
	double *v[C_NCLASS + 1];
	size_t n[C_NCLASS + 1] = { 0 };
	long ret = -1;

	for (int c = 0; c <= C_NCLASS; c++)
		v[c] = malloc(s->pl.nregions * sizeof(double));
	for (int c = 0; c <= C_NCLASS; c++)
		if (!v[c])
			goto out;
	for (int i = 0; i < s->pl.threads; i++) {
		for (size_t k = 0; k < s->t[i].n; k++) {
			double us = (double)s->t[i].ns[k] / 1000.0;
			enum fclass c = storm_class(s, s->t[i].pages[k]);

			v[c][n[c]++] = us;
			v[C_NCLASS][n[C_NCLASS]++] = us;
		}
	}
	emit_class(ctx, "fault_base", v[C_BASE], n[C_BASE]);
	emit_class(ctx, "fault_huge", v[C_HUGE], n[C_HUGE]);
	if (s->pl.nmthp || n[C_MTHP])
		emit_class(ctx, "fault_mthp", v[C_MTHP], n[C_MTHP]);
	emit_class(ctx, "fault_both", v[C_NCLASS], n[C_NCLASS]);
	mm_emit(ctx, "pct_huge", 100.0 * (double)n[C_HUGE] / (double)n[C_NCLASS],
		"pct");
	if (s->pl.nmthp || n[C_MTHP])
		mm_emit(ctx, "pct_mthp", 100.0 * (double)n[C_MTHP] / (double)n[C_NCLASS],
			"pct");
	ret = (long)n[C_HUGE];
out:
	for (int c = 0; c <= C_NCLASS; c++)
		free(v[c]);
	if (ret < 0)
		mm_err(ctx, "allocating latency arrays");
	return ret;
}

/* The vmstat figures of the storm, named as thpscale reports them. */
void storm_emit_compaction(struct mm_ctx *ctx, const struct mm_phase *ph)
{
	static const char *const unit[N_NAMED] = {
		"stalls", "count", "count", "pages", "pages", "pages", "pages",
		"pages", "faults", "faults",
	};
	long long d[N_NAMED];
	char m[96];

	for (int i = 0; i < N_NAMED; i++) {
		d[i] = mm_phase_vmstat(ph, storm_counters[i]);
		if (d[i] < 0)
			mm_log(ctx, "/proc/vmstat has no %s on this kernel: not reported",
			       storm_counters[i]);
		else
			mm_emit(ctx, storm_counters[i], (double)d[i], unit[i]);
	}
	/* Defined only when there was a stall / a free page scanned. */
	if (d[0] > 0 && d[1] >= 0)
		mm_emit(ctx, "compaction_efficiency", 100.0 * (double)d[1] / (double)d[0],
			"pct");
	if (d[7] > 0 && d[6] >= 0)
		mm_emit(ctx, "scan_efficiency", 100.0 * (double)d[6] / (double)d[7],
			"pct");
	/* workloads/thp_storm.md: 64 B of struct page per PFN scanned by either scanner,
	 * 8 KiB (read + write of a 4 KiB page) per page migrated. */
	if (d[3] >= 0 && d[6] >= 0 && d[7] >= 0)
		mm_emit(ctx, "compaction_cost",
			((double)(d[6] + d[7]) * 64.0 + (double)d[3] * 8192.0) / 1048576.0,
			"MiB");
	for (int i = N_NAMED; storm_counters[i]; i++) {
		long long x = mm_phase_vmstat(ph, storm_counters[i]);

		snprintf(m, sizeof(m), "storm_vm_%s", storm_counters[i]);
		if (x >= 0)
			mm_emit(ctx, m, (double)x, "count");
	}
}

void storm_mthp_stats(const struct state *s, long long st[][2])
{
	static const char *const f[2] = { "anon_fault_alloc", "anon_fault_fallback" };
	char path[256], buf[64];

	for (int i = 0; i < s->pl.nmthp; i++) {
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/stats/%s",
				 s->pl.mthp_kb[i], f[k]);
			st[i][k] = mm_read_file(path, buf, sizeof(buf)) == 0 ?
				   strtoll(buf, NULL, 10) : -1;
		}
	}
}

void storm_emit_mthp_stats(struct mm_ctx *ctx, const struct state *s)
{
	long long now[MAX_MTHP][2];
	char m[96];

	storm_mthp_stats(s, now);
	for (int i = 0; i < s->pl.nmthp; i++) {
		for (int k = 0; k < 2; k++) {
			if (now[i][k] < 0 || s->mthp_stat0[i][k] < 0)
				continue;
			snprintf(m, sizeof(m), "mthp_%ukB_anon_fault_%s", s->pl.mthp_kb[i],
				 k ? "fallback" : "alloc");
			mm_emit(ctx, m, (double)(now[i][k] - s->mthp_stat0[i][k]),
				"faults");
		}
	}
}

/* Cross-check the mincore classes against the kernel's own accounting. */
void storm_emit_confirm(struct mm_ctx *ctx, struct state *s, long huge)
{
	long long kb = 0;
	long kpf;

	for (int i = 0; i < s->pl.threads; i++) {
		long long x = mm_smaps_kb(s->t[i].map, s->t[i].n * s->pl.pmd,
					  "AnonHugePages:");

		kb = x < 0 || kb < 0 ? -1 : kb + x;
	}
	if (kb >= 0)
		mm_emit(ctx, "classify_mismatch_smaps",
			(double)labs(kb / (long long)(s->pl.pmd >> 10) - huge), "faults");
	if (!s->root)
		return;
	kpf = kpf_mismatch(s);
	if (kpf >= 0)
		mm_emit(ctx, "classify_mismatch_kpageflags", (double)kpf, "faults");
}

void storm_emit_samples(struct mm_ctx *ctx, const struct state *s)
{
	for (int i = 0; i < s->pl.threads; i++)
		for (size_t k = 0; k < s->t[i].n; k++)
			mm_sample(ctx, i, class_name[storm_class(s, s->t[i].pages[k])],
				  s->t[i].ns[k]);
}

/*
 * Time the faulting threads waited on a runqueue inside the timed touches
 * (other tasks ran on their CPU): part of the wall-clock fault times, not
 * of the kernel path. Context, so a noisy figure can be read.
 */
static void emit_runq(struct mm_ctx *ctx, struct state *s, struct mm_team *team)
{
	uint64_t wait = 0, all_ns = 0;
	size_t waited = 0;

	for (int i = 0; i < s->pl.threads; i++) {
		if (!((struct slot *)mm_team_slot(team, i))->schedstat)
			return;
		for (size_t k = 0; k < s->t[i].n; k++) {
			wait += s->t[i].wait[k];
			all_ns += s->t[i].ns[k];
			waited += s->t[i].wait[k] > 0;
		}
	}
	mm_emit(ctx, "fault_runq_wait_mean", (double)wait / 1000.0 / (double)s->pl.nregions,
		"us");
	mm_emit(ctx, "fault_both_mean_excl_runq",
		((double)all_ns - (double)wait) / 1000.0 / (double)s->pl.nregions, "us");
	mm_emit(ctx, "fault_runq_waited_count", (double)waited, "faults");
}

/* What else ran during the storm: preemptions, minor faults, the host. */
void storm_emit_context(struct mm_ctx *ctx, struct state *s,
			       struct mm_team *team, const struct mm_phase *ph,
			       long long rep0, long long steal0)
{
	long long rep1 = mm_host_reported_kib(), steal1 = mm_host_steal_ticks();
	long tck = sysconf(_SC_CLK_TCK);
	long nivcsw = 0;

	for (int i = 0; i < s->pl.threads; i++)
		nivcsw += ((struct slot *)mm_team_slot(team, i))->nivcsw;
	mm_emit(ctx, "storm_time", (double)mm_phase_ns(ph), "ns");
	mm_emit(ctx, "storm_minflt", (double)mm_phase_minflt(ph), "faults");
	mm_emit(ctx, "storm_nivcsw", (double)nivcsw, "switches");
	emit_runq(ctx, s, team);
	if (rep0 >= 0 && rep1 >= rep0)
		mm_emit(ctx, "storm_host_reported", (double)(rep1 - rep0), "KiB");
	/* All CPUs, USER_HZ resolution (10 ms at 100 Hz). */
	if (steal0 >= 0 && steal1 >= steal0 && tck > 0)
		mm_emit(ctx, "storm_steal", 1000.0 * (double)(steal1 - steal0) / (double)tck,
			"ms");
}


