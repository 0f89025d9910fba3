// SPDX-License-Identifier: GPL-2.0
/*
 * mlock_mix's check and rows: the mlock state as user space sees it (VmLck,
 * nr_mlock, Unevictable, and as root each own page by pagemap and
 * kpageflags), checked after every round, and the rows of a run.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folio_view.h"
#include "migrate_common.h"
#include "mlock_mix.h"

/* "FIELD:" of a /proc/PID/status file in kB, -1 if absent. */
static long long status_kb(const char *path, const char *field)
{
	char line[256];
	size_t flen = strlen(field);
	long long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			v = strtoll(line + flen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * Other processes holding mlocked memory (an mlockall()ed daemon) move
 * nr_mlock and Unevictable while we run: list them, "" if none.
 */
static void other_mlockers(char *buf, size_t len)
{
	struct dirent *de;
	size_t off = 0;
	DIR *d = opendir("/proc");

	buf[0] = '\0';
	if (!d)
		return;
	while ((de = readdir(d)) && off + 64 < len) {
		char path[300];
		long long kb;

		if (!isdigit((unsigned char)de->d_name[0]) || atoi(de->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		kb = status_kb(path, "VmLck");
		if (kb > 0)
			off += (size_t)snprintf(buf + off, len - off, "%spid %s: %lld kB",
						off ? ", " : "", de->d_name, kb);
	}
	closedir(d);
}

/* Which page is meant to be mlocked: the chunk spread of region_mlock(). */
static void classify(struct mix_state *s, unsigned long i, uint64_t flags,
		     struct mlock_snap *m)
{
	bool locked = mix_chunk_locked(i / CHUNK_PAGES, s->pct);
	bool ml = flags >> KPF_MLOCKED & 1, ue = flags >> KPF_UNEVICTABLE & 1;

	if (locked && !ml)
		m->lost++;
	else if (locked && !ue)
		m->evictable++;
	else if (!locked && ml)
		m->stray++;
}

/* Every page of a region by its kpageflags, PFN runs read at once. */
static int region_flags(struct mix_state *s, struct mix_region *r,
			struct mlock_snap *m)
{
	uint64_t flags[512];
	int ret = fv_pfns(&s->fv, r->buf, r->npages, r->chk);

	if (ret < 0)
		return ret;
	for (unsigned long i = 0, n; i < r->npages; i += n) {
		n = 1;
		if (!r->chk[i]) {	/* not present: it was mlocked in */
			classify(s, i, 0, m);
			continue;
		}
		while (i + n < r->npages && n < 512 && r->chk[i + n] == r->chk[i] + n)
			n++;
		if (pread(s->fv.kpf_fd, flags, n * sizeof(*flags),
			  (off_t)(r->chk[i] * sizeof(*flags))) != (ssize_t)(n * sizeof(*flags)))
			return -EIO;
		for (unsigned long k = 0; k < n; k++)
			classify(s, i + k, flags[k], m);
	}
	return 0;
}

/*
 * The mlock state as user space sees it. Since 6.1 mlock_folio() batches
 * pages per CPU before they reach the unevictable LRU; migrate_pages(2)
 * between identical node sets drains every CPU's batches
 * (lru_cache_disable(), lru_add_drain_all() before 5.13) and moves
 * nothing. The vmstat totals lag per-CPU deltas until stat_refresh folds
 * them (root).
 */
int mix_mlock_snap(struct mix_state *s, struct mlock_snap *m)
{
	int ret = 0;

	if (numa_migrate_pages(0, s->settle, s->settle) < 0)
		return -errno;
	if (s->global_exact)
		mm_trigger(STAT_REFRESH, "1");	/* EINVAL only warns of negatives */
	m->vmlck_kb = status_kb("/proc/self/status", "VmLck");
	m->nr_mlock = mm_vmstat_get("nr_mlock");
	m->unevictable_kb = mm_meminfo_kb("Unevictable");
	if (m->vmlck_kb < 0 || m->nr_mlock < 0 || m->unevictable_kb < 0)
		return -ENOENT;
	m->lost = m->evictable = m->stray = s->fv.kpf_fd >= 0 ? 0 : -1;
	for (int i = 0; s->fv.kpf_fd >= 0 && ret == 0 && i < s->n; i++)
		ret = region_flags(s, &s->r[i], m);
	return ret;
}

/*
 * Root sees PFNs and page flags: the own-page check and compaction's
 * moved-page count need them. nr_mlock and Unevictable are global: they
 * are held exact only where per-CPU deltas can be folded (root) and no
 * other process holds mlocked memory; elsewhere they are reported only.
 */
int mix_open_views(struct mm_ctx *ctx, struct mix_state *s)
{
	char others[240];
	int ret;

	s->fv.pm_fd = s->fv.kpf_fd = -1;
	if (!mm_is_root()) {
		snprintf(s->global_note, sizeof(s->global_note),
			 "not root: own pages not checked, nr_mlock/Unevictable not folded (stat_refresh), reported only");
		return MM_PASS;
	}
	ret = fv_open_pagemap(&s->fv);
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "opening /proc/self/pagemap");
	}
	ret = fv_open_flags(&s->fv);
	if (ret < 0)
		mm_log(ctx, "no /proc/kpageflags (%s): own pages not checked", strerror(-ret));
	other_mlockers(others, sizeof(others));
	s->global_exact = !others[0] && access(STAT_REFRESH, W_OK) == 0;
	if (others[0])
		snprintf(s->global_note, sizeof(s->global_note),
			 "other processes hold mlocked memory (%s): nr_mlock/Unevictable reported, not checked",
			 others);
	return MM_PASS;
}

/*
 * After a round: VmLck is the mlocked bytes, every own page is mlocked and
 * on the unevictable LRU exactly where the spread says, and nr_mlock and
 * Unevictable are what they were before migrating.
 */
bool mix_check_round(struct mix_state *s)
{
	long long want_kb = (long long)(s->locked_bytes >> 10);
	struct mlock_snap *m = &s->last, *b = &s->base;
	int ret = mix_mlock_snap(s, m);
	bool own_ok, global_ok;

	if (ret < 0) {
		snprintf(s->why, sizeof(s->why), "after round %lld: cannot read the mlock state: %s",
			 s->rounds_done, strerror(-ret));
		return false;
	}
	own_ok = m->vmlck_kb == want_kb && m->lost <= 0 && m->evictable <= 0 &&
		 m->stray <= 0;
	global_ok = m->nr_mlock == b->nr_mlock && m->unevictable_kb == b->unevictable_kb;
	if (own_ok && (global_ok || !s->global_exact))
		return true;
	snprintf(s->why, sizeof(s->why),
		 "mlock state changed by migration after round %lld: VmLck %lld kB (mlocked: %lld kB); own pages: %lld lost PG_mlocked, %lld mlocked but evictable, %lld mlocked by mistake; nr_mlock %lld pages (before migration: %lld), Unevictable %lld kB (before migration: %lld kB)",
		 s->rounds_done, m->vmlck_kb, want_kb, m->lost, m->evictable,
		 m->stray, m->nr_mlock, b->nr_mlock, m->unevictable_kb,
		 b->unevictable_kb);
	return false;
}

/* Call latency percentiles over every thread; raw values to samples.csv. */
static void latency_rows(struct mm_ctx *ctx, struct mix_state *s)
{
	const char *cls = s->compact ? "compact" : "move_pages";
	size_t n = 0, k = 0;
	double *all;

	for (int i = 0; i < s->n; i++)
		n += s->r[i].nlat;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all || !n) {
		free(all);
		mm_log(ctx, "no migration call latencies to report");
		return;
	}
	for (int i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->r[i].nlat; j++) {
			all[k++] = s->r[i].lat[j];
			mm_sample(ctx, i, cls, (uint64_t)s->r[i].lat[j]);
		}
	mm_sort_doubles(all, n);
	mm_emit(ctx, "calls", (double)n, "calls");
	mm_emit(ctx, "call_latency_p50", mm_percentile(all, n, 50), "ns");
	mm_emit(ctx, "call_latency_p99", mm_percentile(all, n, 99), "ns");
	mm_emit(ctx, "call_latency_max", all[n - 1], "ns");
	free(all);
}

/* Pages/s of each thread's own region: the slowest and the fastest. */
static void thread_rows(struct mm_ctx *ctx, struct mix_state *s,
			struct mm_team *team, double secs, uint64_t own)
{
	double lo = 0, hi = 0;
	uint64_t left = 0;

	for (int i = 0; i < s->n; i++) {
		struct mix_slot *sl = mm_team_slot(team, i);
		double r = (double)sl->migrated / secs;

		lo = i == 0 || r < lo ? r : lo;
		hi = i == 0 || r > hi ? r : hi;
		left += sl->not_migrated;
	}
	mm_emit(ctx, "thread_pages_per_s_min", lo, "pages/s");
	mm_emit(ctx, "thread_pages_per_s_max", hi, "pages/s");
	if (s->compact)
		mm_emit(ctx, "region_pages_moved", (double)own, "pages");
	else
		mm_emit(ctx, "not_migrated_pages", (double)left, "pages");
}

static void check_rows(struct mm_ctx *ctx, struct mix_state *s)
{
	mm_emit(ctx, "rounds", (double)s->rounds_done, "rounds");
	mm_emit(ctx, "mlock_checks_passed", (double)(s->rounds_done - s->bad),
		"rounds");
	mm_emit(ctx, "mlocked_kb", (double)(s->locked_bytes >> 10), "kB");
	mm_emit(ctx, "vmlck_kb", (double)s->last.vmlck_kb, "kB");
	mm_emit(ctx, "nr_mlock_change", (double)(s->last.nr_mlock - s->base.nr_mlock),
		"pages");
	mm_emit(ctx, "unevictable_change_kb",
		(double)(s->last.unevictable_kb - s->base.unevictable_kb), "kB");
	mm_emit(ctx, "global_counters_checked", s->global_exact, "bool");
	if (s->last.lost < 0)
		return;
	mm_emit(ctx, "own_pages_mlock_lost", (double)s->last.lost, "pages");
	mm_emit(ctx, "own_pages_mlocked_evictable", (double)s->last.evictable, "pages");
	mm_emit(ctx, "own_pages_mlocked_by_mistake", (double)s->last.stray, "pages");
	mm_emit(ctx, "check_time", (double)s->check_ns, "ns");
}

/* Rates over the rounds' wall time, the mlock checks left out. */
void mix_emit_all(struct mm_ctx *ctx, struct mix_state *s, struct mm_team *team,
		     const struct mm_phase *ph, double migrated, uint64_t own)
{
	uint64_t wall = mm_team_end_ns(team) - mm_team_start_ns(team);
	double secs = (double)(wall > s->check_ns ? wall - s->check_ns : wall) / 1e9;

	thread_rows(ctx, s, team, secs, own);
	mm_emit(ctx, "migrated_pages", migrated, "pages");
	mm_emit(ctx, "migrated_pages_per_s", migrated / secs, "pages/s");
	latency_rows(ctx, s);
	check_rows(ctx, s);
	mm_phase_emit(ctx, ph);
}
