// SPDX-License-Identifier: GPL-2.0
/*
 * mlock_mix: concurrent migration of a mix of mlocked and unlocked pages.
 *
 * Kernel path: move_pages(2) -> migrate_pages() -> migrate_folio_move()
 * (unmap_and_move() before 6.3) -> remove_migration_ptes(), which has to
 * rebuild the mlock state of each new page in mlock_folio() (mlock_count
 * since 6.1). Until "mm: migrate: record the mlocked page status to remove
 * unnecessary lru drain" (Linux 6.7), migrate_folio_move() called
 * lru_add_drain() for every mapped page so that the new page was on the
 * LRU before mlock_folio() looked at it; since then the old page's mlocked
 * state is recorded at unmap time (PAGE_WAS_MLOCKED) and only mlocked pages
 * drain. With trigger=compact the same path runs from compaction
 * (/proc/sys/vm/compact_memory -> compact_nodes() -> migrate_pages()) on
 * one node, mlocked pages included when compact_unevictable_allowed=1.
 * (EXPERIMENTS.md section 3.)
 *
 * Each thread owns a region of size_mb, mlock_pct percent of it mlocked in
 * 64 KiB chunks spread evenly through it, every page written. Per round
 * every thread moves its region from -> to and back (or writes
 * compact_memory once); then all meet at a barrier and one of them checks
 * what the drain protected: VmLck still equals the mlocked bytes, and
 * nr_mlock and Unevictable are what they were before the migrations. A
 * mismatch fails the case with the numbers: it is a kernel bug.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "folio_view.h"
#include "migrate_common.h"
#include "mlock_mix.h"

static const char *const counters[] = {
	"pgmigrate_success", "pgmigrate_fail", "compact_migrate_scanned",
	"compact_free_scanned", "compact_isolated", "compact_stall",
	"compact_fail", "compact_success", "unevictable_pgs_mlocked",
	"unevictable_pgs_munlocked", "unevictable_pgs_rescued",
	"unevictable_pgs_culled", "unevictable_pgs_stranded",
	"unevictable_pgs_cleared", "nr_mlock", "nr_unevictable",
	"numa_hint_faults", "thp_migration_success",
	NULL,
};

static const char *def_threads(char *buf, size_t len)
{
	snprintf(buf, len, "%d", mm_ncpus());
	return buf;
}

enum mix_trigger { MIX_MOVE_PAGES, MIX_COMPACT };	/* "move_pages|compact" */

struct mix_params {
	long long threads;
	long long size_mb;
	long long mlock_pct;
	double duration_s;
	long long rounds;
	int trigger;
	long long from, to;	/* MM_UNSET_INT: no such node here */
	int numa_balancing;
};

#define P struct mix_params
static const struct mm_param params[] = {
	{ MM_PINT(P, threads), .def_fn = def_threads, .min = 1,
	  .max = 1024, .help = "migrating threads, pinned round-robin (default: CPUs)" },
	{ MM_PINT(P, size_mb), .def = "64", .min = 1, .max = 1 << 20,
	  .help = "region of each thread in MiB" },
	{ MM_PINT(P, mlock_pct), .def = "0,10,50,100", .min = 0,
	  .max = 100, .help = "percent of each region mlocked, in 64 KiB chunks spread through it" },
	{ MM_PDOUBLE(P, duration_s), .def = "5", .min = 0.01,
	  .max = 86400, .help = "seconds of rounds per iteration (unless rounds is set)" },
	{ MM_PINT(P, rounds), .def = "0", .min = 0, .max = 1000000,
	  .help = "rounds per iteration instead of duration_s (0: use duration_s)" },
	{ MM_PENUM(P, trigger), .def = "move_pages",
	  .choices = "move_pages|compact",
	  .help = "move_pages: to and back between two nodes; compact: compact_memory on one node (root)" },
	{ MM_PINT(P, from), .def_fn = mig_def_from, .min = 0,
	  .max = 4095, .help = "move_pages: home node of the regions" },
	{ MM_PINT(P, to), .def_fn = mig_def_to, .min = 0, .max = 4095,
	  .help = "move_pages: node the regions visit" },
	{ MM_PENUM(P, numa_balancing), .def = "off",
	  .choices = MIG_BALANCING_CHOICES,
	  .help = "off: kernel.numa_balancing=0 for the run (restored after); keep: leave it" },
	MM_PARAM_END,
};
#undef P

/*
 * The experiment's evidence (EXPERIMENTS.md section 3): the drain count
 * per migrated page (lru_add_drain is probed by default), the correctness
 * the drain protected (must stay 0) and the migration rate.
 */
#define MLOCK_KEPT "mlocked pages stay mlocked and unevictable across migration (must stay 0)"
/* Attempts of an iteration whose compaction moved none of the regions' pages. */
#define COMPACT_RETRIES 3

static const struct mm_metric metrics[] = {
	{ .name = "calls_per_migrated_page:lru_add_drain", .better = MM_LOWER,
	  .role = MM_EVIDENCE,
	  .claim = "lru_add_drain() ran once per migrated page before the patch, only for mlocked pages after it (posted: 7.02 % of cycles in compaction -> gone)" },
	{ .name = "own_pages_mlock_lost", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = MLOCK_KEPT },
	{ .name = "own_pages_mlocked_evictable", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = MLOCK_KEPT },
	{ .name = "own_pages_mlocked_by_mistake", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = "unlocked pages do not become mlocked by migration (must stay 0)" },
	{ .name = "migrated_pages_per_s", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "migration throughput of a mlocked/unlocked mix under concurrent migrating threads (the gain grows with concurrency)" },
	{ .name = "thread_pages_per_s_min", .better = MM_HIGHER, .role = MM_CONTEXT },
	/* With duration_s (rounds=0) these count what fitted in wall time. */
	{ .name = "migrated_pages", .better = MM_INFO, .role = MM_CONTEXT,
	  .timed = true },
	{ .name = "calls", .better = MM_INFO, .role = MM_CONTEXT, .timed = true },
	{ .name = "nr_mlock_change", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "unevictable_change_kb", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "precondition_retries", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "call_latency_p50", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "call_latency_p99", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "call_latency_max", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "not_migrated_pages", .better = MM_LOWER, .role = MM_CONTEXT },
	/* Information; migrate_*: the migration phase's rows (time, faults, vmstat). */
	{ .name = "thread_pages_per_s_max", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "region_pages_moved", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "rounds", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "mlock_checks_passed", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "mlocked_kb", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "vmlck_kb", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "global_counters_checked", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "check_time", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "migrate_*", .better = MM_INFO, .role = MM_CONTEXT },
	MM_METRIC_END,
};

/* ---------------------------------------------------------------- precheck */

/* Chunk j is mlocked when the running share crosses an integer: an even
 * spread of pct percent of the chunks (Bresenham). */
bool mix_chunk_locked(size_t j, int pct)
{
	return (j + 1) * (size_t)pct / 100 > j * (size_t)pct / 100;
}

static size_t region_locked_bytes(size_t len, size_t pg, int pct)
{
	size_t chunk = CHUNK_PAGES * pg, nchunks = (len + chunk - 1) / chunk, n = 0;

	for (size_t j = 0; j < nchunks; j++)
		if (mix_chunk_locked(j, pct))
			n += j == nchunks - 1 ? len - j * chunk : chunk;
	return n;
}

static int precheck_compact(struct mm_ctx *ctx)
{
	if (!mm_is_root())
		return mm_skip(ctx, "trigger=compact writes %s and reads PFNs from /proc/self/pagemap: needs root",
			       COMPACT);
	if (access(COMPACT, W_OK) < 0)
		return mm_skip(ctx, "no writable %s: kernel without CONFIG_COMPACTION", COMPACT);
	if (access(UNEVICTABLE_ALLOWED, W_OK) < 0)
		return mm_skip(ctx, "no writable %s: compaction cannot be told to migrate mlocked pages",
			       UNEVICTABLE_ALLOWED);
	return MM_PASS;
}

/* move_pages: both nodes must hold every region, a tenth spare. */
static int precheck_nodes(struct mm_ctx *ctx, unsigned long long total_mb)
{
	const struct mix_params *p = ctx->params;
	int from, to, ret = mig_numa2_precheck(ctx, p->from, p->to, &from, &to);

	if (ret != MM_PASS)
		return ret;
	for (int i = 0; i < 2; i++) {
		int node = i ? to : from;
		long long free_b;

		numa_node_size64(node, &free_b);
		if ((long long)total_mb > free_b / 10 * 9 >> 20)
			return mm_fail(ctx, "threads x size_mb = %llu MiB does not fit on node %d: %lld MiB free, at most %lld usable",
				       total_mb, node, free_b >> 20, free_b / 10 * 9 >> 20);
	}
	return MM_PASS;
}

/* mlock needs RLIMIT_MEMLOCK (or CAP_IPC_LOCK); each locked run is a VMA. */
static int precheck_mlock(struct mm_ctx *ctx, long long threads, size_t len, int pct)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), chunk = CHUNK_PAGES * pg;
	size_t locked = region_locked_bytes(len, pg, pct);
	size_t nchunks = (len + chunk - 1) / chunk, lchunks = (locked + chunk - 1) / chunk;
	size_t runs = lchunks < nchunks - lchunks + 1 ? lchunks : nchunks - lchunks + 1;
	size_t vmas = (size_t)threads * (2 * runs + 1);
	char buf[32];
	struct rlimit rl;

	locked *= (size_t)threads;
	if (!mm_is_root() && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < locked)
		return mm_skip(ctx, "mlock_pct=%d locks %zu KiB, RLIMIT_MEMLOCK is %llu KiB (run as root or raise ulimit -l)",
			       pct, locked >> 10, (unsigned long long)rl.rlim_cur >> 10);
	if (mm_read_file("/proc/sys/vm/max_map_count", buf, sizeof(buf)) == 0 &&
	    vmas + 1000 > (size_t)atol(buf))
		return mm_fail(ctx, "the mlock spread needs about %zu mappings, vm.max_map_count is %s: use fewer threads or a smaller size_mb",
			       vmas, buf);
	return MM_PASS;
}

static int mix_precheck(struct mm_ctx *ctx)
{
	const struct mix_params *p = ctx->params;
	long long threads = p->threads;
	size_t len = (size_t)p->size_mb << 20;
	unsigned long long total_mb = (unsigned long long)threads * (len >> 20);
	long long avail_kb = mm_mem_available_kb();
	int ret;

	if (p->trigger == MIX_COMPACT)
		ret = precheck_compact(ctx);
	else
		ret = precheck_nodes(ctx, total_mb);
	if (ret != MM_PASS)
		return ret;
	if (avail_kb > 0 && total_mb > (unsigned long long)avail_kb / 2048)
		return mm_fail(ctx, "threads x size_mb = %llu MiB is more than half of MemAvailable (%lld MiB)",
			       total_mb, avail_kb >> 10);
	/* compact: each region is built between FILLER_PAGES times its size */
	if (p->trigger == MIX_COMPACT && avail_kb > 0 &&
	    total_mb * (1 + FILLER_PAGES) > (unsigned long long)avail_kb / 2048)
		return mm_fail(ctx, "trigger=compact: threads x size_mb x %d = %llu MiB (the regions and the filler they are built between) is more than half of MemAvailable (%lld MiB)",
			       1 + FILLER_PAGES, total_mb * (1 + FILLER_PAGES), avail_kb >> 10);
	ret = precheck_mlock(ctx, threads, len, (int)p->mlock_pct);
	if (ret != MM_PASS)
		return ret;
	return mig_balancing_precheck(ctx, p->numa_balancing);
}

/* ---------------------------------------------------------------- state */

/* Free what a compact retry held (hold_for_retry). */
static void held_release(struct mix_state *s)
{
	for (int i = 0; s->r && i < s->n; i++) {
		struct mix_region *r = &s->r[i];

		if (r->held)
			munmap(r->held, r->len);
		if (r->blocker)
			munmap(r->blocker, r->blocker_len);
		r->held = r->blocker = NULL;
	}
}

static void mix_cleanup(struct mm_ctx *ctx)
{
	struct mix_state *s = ctx->priv;

	if (!s)
		return;
	held_release(s);
	for (int i = 0; s->r && i < s->n; i++) {
		struct mix_region *r = &s->r[i];

		if (r->buf)
			munmap(r->buf, r->len);
		free(r->pages);
		free(r->status);
		free(r->prev);
		free(r->pfn);
		free(r->pfn_new);
		free(r->chk);
		free(r->lat);
	}
	free(s->r);
	free(s->node_to);
	free(s->node_from);
	if (s->settle)
		numa_bitmask_free(s->settle);
	if (s->bar_ok)
		pthread_barrier_destroy(&s->bar);
	fv_close(&s->fv);
	free(s);
	ctx->priv = NULL;
}

/* mlock the chunks the spread selects, one call per run of them. */
static int region_mlock(struct mix_region *r, size_t pg, int pct)
{
	size_t chunk = CHUNK_PAGES * pg, nchunks = (r->len + chunk - 1) / chunk;
	size_t start = SIZE_MAX;

	for (size_t j = 0; j <= nchunks; j++) {
		bool l = j < nchunks && mix_chunk_locked(j, pct);

		if (l && start == SIZE_MAX)
			start = j;
		if (!l && start != SIZE_MAX) {
			size_t off = start * chunk, end = j * chunk;

			if (end > r->len)
				end = r->len;
			/* The system call itself: ASan's mlock() does nothing. */
			if (syscall(SYS_mlock, r->buf + off, end - off) < 0)
				return -errno;
			start = SIZE_MAX;
		}
	}
	return 0;
}

/*
 * trigger=compact: compact_memory moves what its migrate scanner meets
 * between the zone start and the free scanner coming down from the zone
 * end, and only out of pageblocks that are partly used. Pages allocated
 * on a machine with most memory free land anywhere, often in blocks the
 * last compaction packed near the zone end, where the next one finds
 * nothing to move. So each iteration builds the regions afresh, every
 * region page faulted between FILLER_PAGES pages of a filler mapping that
 * is then unmapped: the regions sit in pageblocks three quarters free,
 * spread over the zone, and the scanners meet them.
 */
/* Map the region (and, for compaction, interleave it with a filler). */
static int region_map(struct mm_ctx *ctx, struct mix_state *s,
		      struct mix_region *r, int pct)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), flen = r->len * FILLER_PAGES;
	char *fill = NULL;
	int ret;

	r->buf = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->buf == MAP_FAILED) {
		r->buf = NULL;
		return mm_err(ctx, "mmap of %zu MiB", r->len >> 20);
	}
	/* Base pages: one migration, and before 6.7 one drain, per page. */
	if (madvise(r->buf, r->len, MADV_NOHUGEPAGE) < 0)
		return mm_err(ctx, "madvise(MADV_NOHUGEPAGE)");
	if (!s->compact && mbind(r->buf, r->len, MPOL_BIND, s->settle->maskp,
				 s->settle->size + 1, 0) < 0)
		return mm_err(ctx, "mbind(MPOL_BIND, node %d)", s->from);
	if (s->compact) {
		fill = mmap(NULL, flen, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fill == MAP_FAILED)
			return mm_err(ctx, "mmap of the %zu MiB filler", flen >> 20);
		madvise(fill, flen, MADV_NOHUGEPAGE);
		for (unsigned long i = 0; i < r->npages; i++) {
			for (size_t k = 0; k < FILLER_PAGES; k++)
				fill[(i * FILLER_PAGES + k) * pg] = 1;
			r->buf[i * pg] = 0x5a;
		}
		munmap(fill, flen);
	}
	memset(r->buf, 0x5a, r->len);
	ret = region_mlock(r, pg, pct);
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "mlock of %d%% of %zu MiB", pct, r->len >> 20);
	}
	return MM_PASS;
}

static int region_setup(struct mm_ctx *ctx, struct mix_state *s,
			struct mix_region *r, size_t len, int pct)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	r->len = len;
	r->npages = len / pg;
	if (region_map(ctx, s, r, pct) != MM_PASS)
		return MM_FAIL;
	r->pages = calloc(r->npages, sizeof(*r->pages));
	r->status = calloc(r->npages, sizeof(int));
	r->prev = calloc(r->npages, sizeof(int));
	r->pfn = calloc(s->compact ? r->npages : 1, sizeof(uint64_t));
	r->pfn_new = calloc(s->compact ? r->npages : 1, sizeof(uint64_t));
	r->chk = calloc(s->fv.kpf_fd >= 0 ? r->npages : 1, sizeof(uint64_t));
	if (!r->pages || !r->status || !r->prev || !r->pfn || !r->pfn_new || !r->chk)
		return mm_err(ctx, "allocating page lists");
	for (unsigned long i = 0; i < r->npages; i++)
		r->pages[i] = r->buf + i * pg;
	return MM_PASS;
}

/* Where each region starts: all on from, or its PFNs for compaction. */
static int regions_placed(struct mm_ctx *ctx, struct mix_state *s)
{
	for (int i = 0; i < s->n; i++) {
		struct mix_region *r = &s->r[i];
		long off;
		int ret;

		if (s->compact) {
			ret = fv_pfns(&s->fv, r->buf, r->npages, r->pfn);
			if (ret < 0) {
				errno = -ret;
				return mm_err(ctx, "reading /proc/self/pagemap");
			}
			continue;
		}
		off = mig_not_on_node(r->pages, r->npages, r->prev, s->from);
		if (off != 0)
			return mm_fail(ctx, "after populating, %ld pages of region %d are not on node %d%s",
				       off, i, s->from, off < 0 ? " (move_pages query failed)" : "");
	}
	return MM_PASS;
}

static int shared_lists(struct mm_ctx *ctx, struct mix_state *s, unsigned long npages)
{
	s->settle = numa_allocate_nodemask();
	s->node_to = calloc(npages, sizeof(int));
	s->node_from = calloc(npages, sizeof(int));
	s->r = calloc((size_t)s->n, sizeof(*s->r));
	if (!s->settle || !s->node_to || !s->node_from || !s->r)
		return mm_err(ctx, "calloc");
	numa_bitmask_setbit(s->settle, (unsigned int)s->from);
	for (unsigned long i = 0; i < npages; i++) {
		s->node_to[i] = s->to;
		s->node_from[i] = s->from;
	}
	return MM_PASS;
}

/* Compaction skips mlocked pages unless compact_unevictable_allowed=1. */
static int allow_unevictable(struct mm_ctx *ctx)
{
	char cur[16];
	int ret;

	if (mm_setting_get(UNEVICTABLE_ALLOWED, cur, sizeof(cur)) == 0 &&
	    !strcmp(cur, "1"))
		return MM_PASS;
	ret = mm_setting_set(UNEVICTABLE_ALLOWED, "1");
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "setting %s to 1", UNEVICTABLE_ALLOWED);
	}
	return MM_PASS;
}

/* After mlock and before any migration: the spread is what was asked. */
static int regions_locked(struct mm_ctx *ctx, struct mix_state *s)
{
	struct mlock_snap m;

	if (mix_mlock_snap(s, &m) < 0)
		return mm_err(ctx, "reading VmLck, nr_mlock, Unevictable and page flags");
	if ((size_t)m.vmlck_kb != s->locked_bytes >> 10 || m.lost > 0 || m.stray > 0)
		return mm_fail(ctx, "after mlock and before any migration: VmLck %lld kB for %zu kB locked, %lld pages not mlocked, %lld mlocked by mistake",
			       m.vmlck_kb, s->locked_bytes >> 10, m.lost, m.stray);
	return MM_PASS;
}

/*
 * A retry after compaction moved none of the regions' pages: they were
 * where its migration scanner did not reach (it stops where it meets the
 * free scanner coming down from the top of the zone). Freed, they and
 * their filler would be the first pages the rebuilt regions got back
 * (the free lists hand out the last freed first), and the retry would
 * fail the same way; seen on a host after hours of other work, 4 attempts
 * in a row. So while the regions are rebuilt the old ones are held, and a
 * blocker the size of the regions and their filler takes the pages freed
 * last: the rebuilt regions come from elsewhere. Both are freed before the
 * measured phase (compaction must not move them too). Only while
 * MemAvailable stays over twice what is held. False when not held (a
 * blocker already mapped is freed with the rest by held_release).
 */
static bool hold_for_retry(struct mix_state *s)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), want = 0;
	long long avail_kb = mm_mem_available_kb();

	for (int i = 0; i < s->n; i++)
		want += s->r[i].len * (2 + FILLER_PAGES);
	if (avail_kb < 0 || want >> 10 > (unsigned long long)avail_kb / 2)
		return false;
	for (int i = 0; i < s->n; i++) {
		struct mix_region *r = &s->r[i];
		size_t len = r->len * (1 + FILLER_PAGES);
		char *b = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (b == MAP_FAILED)
			return false;
		madvise(b, len, MADV_NOHUGEPAGE);
		for (size_t off = 0; off < len; off += pg)
			b[off] = 1;
		r->blocker = b;
		r->blocker_len = len;
	}
	return true;
}

/*
 * trigger=compact, every iteration after the first: the last compaction
 * left the regions packed where the next would not move them; build them
 * again between filler pages (see region_map), outside the measured phase.
 * RETRY: see hold_for_retry.
 */
static int regions_rebuild(struct mm_ctx *ctx, struct mix_state *s, bool retry)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int ret = MM_PASS;
	bool keep = retry && hold_for_retry(s);

	/*
	 * The new regions are built while the old ones still hold their
	 * pages: freed first, those pages (where the last compaction packed
	 * them) would be the first the new regions get back. Freed after,
	 * they are free targets up there for the next compaction.
	 */
	for (int i = 0; i < s->n && ret == MM_PASS; i++) {
		struct mix_region *r = &s->r[i];

		r->old = r->buf;
		r->buf = NULL;
		ret = region_map(ctx, s, r, s->pct);
		for (unsigned long k = 0; ret == MM_PASS && k < r->npages; k++)
			r->pages[k] = r->buf + k * pg;
	}
	for (int i = 0; i < s->n; i++) {
		struct mix_region *r = &s->r[i];

		/* held unlocked: VmLck is checked against the new regions */
		if (r->old && keep && munlock(r->old, r->len) == 0)
			r->held = r->old;
		else if (r->old)
			munmap(r->old, r->len);
		r->old = NULL;
	}
	if (ret != MM_PASS || regions_placed(ctx, s) != MM_PASS)
		return MM_FAIL;
	return regions_locked(ctx, s);
}

static int mix_prepare(struct mm_ctx *ctx)
{
	const struct mix_params *p = ctx->params;
	struct mix_state *s = calloc(1, sizeof(*s));
	size_t len = (size_t)p->size_mb << 20;

	if (!s)
		return mm_err(ctx, "calloc");
	ctx->priv = s;
	s->fv.pm_fd = s->fv.kpf_fd = -1;
	s->n = (int)p->threads;
	s->pct = (int)p->mlock_pct;
	s->compact = p->trigger == MIX_COMPACT;
	/* unset: no node with memory (from), or one node (to; the precheck has
	 * refused move_pages there): node 0, as before */
	s->from = p->from == MM_UNSET_INT ? 0 : (int)p->from;
	s->to = s->compact || p->to == MM_UNSET_INT ? s->from : (int)p->to;
	s->rounds_max = p->rounds;
	s->locked_bytes = (size_t)s->n * region_locked_bytes(len, (size_t)sysconf(_SC_PAGESIZE), s->pct);
	mm_probe_default(ctx, "lru_add_drain");
	if (mix_open_views(ctx, s) != MM_PASS ||
	    mig_balancing_off(ctx, p->numa_balancing) != MM_PASS ||
	    (s->compact && allow_unevictable(ctx) != MM_PASS) ||
	    shared_lists(ctx, s, len / (size_t)sysconf(_SC_PAGESIZE)) != MM_PASS)
		return MM_FAIL;
	if (s->global_note[0] && ctx->iteration == 0)
		mm_note(ctx, "mlock_mix", "[%s]: %s", mm_case_string(ctx->c), s->global_note);
	for (int i = 0; i < s->n; i++)
		if (region_setup(ctx, s, &s->r[i], len, s->pct) != MM_PASS)
			return MM_FAIL;
	/* Not on the pages the last case (or process) freed: see the rebuild. */
	if (s->compact && regions_rebuild(ctx, s, false) != MM_PASS)
		return MM_FAIL;
	if (regions_placed(ctx, s) != MM_PASS)
		return MM_FAIL;
	if (pthread_barrier_init(&s->bar, NULL, (unsigned int)s->n) != 0)
		return mm_fail(ctx, "pthread_barrier_init failed");
	s->bar_ok = true;
	s->fresh = true;
	return regions_locked(ctx, s);
}

/* ---------------------------------------------------------------- tasks */

static int lat_add(struct mix_region *r, uint64_t ns)
{
	if (r->nlat == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		double *p = realloc(r->lat, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->lat = p;
		r->cap = cap;
	}
	r->lat[r->nlat++] = (double)ns;
	return 0;
}

static void task_error(struct mix_slot *sl, int err, const char *op)
{
	sl->err = err;
	snprintf(sl->op, sizeof(sl->op), "%s", op);
}

/* One move_pages(2) call for the whole region; counts what changed node. */
static int move_once(struct mix_state *s, struct mix_region *r,
		     struct mix_slot *sl, int node)
{
	uint64_t t0 = mm_now_ns();
	long ret = numa_move_pages(0, r->npages, r->pages,
				   node == s->to ? s->node_to : s->node_from,
				   r->status, MPOL_MF_MOVE);
	uint64_t dt = mm_now_ns() - t0;
	int *tmp;

	if (ret < 0) {
		task_error(sl, errno, "move_pages");
		return -1;
	}
	if (lat_add(r, dt) < 0) {
		task_error(sl, ENOMEM, "latency buffer");
		return -1;
	}
	for (unsigned long i = 0; i < r->npages; i++) {
		if (r->status[i] != node)
			sl->not_migrated++;
		else if (r->prev[i] != node)
			sl->migrated++;
	}
	tmp = r->prev;
	r->prev = r->status;
	r->status = tmp;
	return 0;
}

/* Pages of the region whose PFN changed since the last look. */
static int pfn_moved(struct mix_state *s, struct mix_region *r,
		     struct mix_slot *sl)
{
	uint64_t *tmp;
	int ret = fv_pfns(&s->fv, r->buf, r->npages, r->pfn_new);

	if (ret < 0)
		return ret;
	for (unsigned long i = 0; i < r->npages; i++)
		sl->migrated += r->pfn_new[i] != r->pfn[i];
	tmp = r->pfn;
	r->pfn = r->pfn_new;
	r->pfn_new = tmp;
	return 0;
}

/* One compact_memory write: compaction of every zone, in this thread. */
static void compact_once(struct mix_state *s, struct mix_region *r,
			 struct mix_slot *sl)
{
	uint64_t t0 = mm_now_ns();
	int ret = mm_trigger(COMPACT, "1");
	uint64_t dt = mm_now_ns() - t0;

	if (ret < 0)
		return task_error(sl, -ret, "writing compact_memory");
	if (lat_add(r, dt) < 0)
		return task_error(sl, ENOMEM, "latency buffer");
	ret = pfn_moved(s, r, sl);
	if (ret < 0)
		return task_error(sl, -ret, "reading pagemap");
}

static bool any_task_error(struct mm_task *t)
{
	for (int i = 0; i < t->ntasks; i++)
		if (((struct mix_slot *)mm_team_slot(t->team, i))->err)
			return true;
	return false;
}

/*
 * All threads meet after each round; the barrier's serial thread checks
 * the mlock state (timed, so rates can leave it out) and decides for all
 * whether another round runs. The second barrier publishes the decision.
 */
static bool round_end(struct mm_task *t, struct mix_state *s)
{
	if (pthread_barrier_wait(&s->bar) == PTHREAD_BARRIER_SERIAL_THREAD) {
		uint64_t t0 = mm_now_ns();

		s->rounds_done++;
		if (!mix_check_round(s))
			s->bad = true;
		s->check_ns += mm_now_ns() - t0;
		s->stop = s->bad || any_task_error(t) ||
			  (s->rounds_max ? s->rounds_done >= s->rounds_max : mm_task_stop(t));
	}
	pthread_barrier_wait(&s->bar);
	return s->stop;
}

static int mix_task(struct mm_task *t)
{
	struct mm_ctx *ctx = t->arg;
	struct mix_state *s = ctx->priv;
	struct mix_region *r = &s->r[t->id];
	struct mix_slot *sl = t->slot;

	mm_task_start(t);
	do {
		if (sl->err)
			continue;	/* keep meeting the others at the barrier */
		if (s->compact)
			compact_once(s, r, sl);
		else if (move_once(s, r, sl, s->to) == 0)
			move_once(s, r, sl, s->from);
	} while (!round_end(t, s));
	return sl->err ? MM_FAIL : MM_PASS;
}

/* ---------------------------------------------------------------- run */

/*
 * Migrated pages: move_pages counts what changed node in its own regions;
 * compaction migrates any movable page of the zone, so the kernel's
 * pgmigrate_success is its total and the own regions are reported apart.
 */
static double migrated_pages(struct mix_state *s, struct mm_team *team,
			     const struct mm_phase *ph, uint64_t *own)
{
	long long pgm = mm_phase_vmstat(ph, "pgmigrate_success");

	*own = 0;
	for (int i = 0; i < s->n; i++)
		*own += ((struct mix_slot *)mm_team_slot(team, i))->migrated;
	return s->compact && pgm >= 0 ? (double)pgm : (double)*own;
}

static int task_failure(struct mm_ctx *ctx, struct mix_state *s, struct mm_team *team)
{
	for (int i = 0; team && i < s->n; i++) {
		struct mix_slot *sl = mm_team_slot(team, i);

		if (sl->err) {
			errno = sl->err;
			return mm_err(ctx, "thread %d: %s", i, sl->op);
		}
	}
	return mm_fail(ctx, "a migrating thread failed");
}

static void reset_round_state(struct mix_state *s)
{
	s->rounds_done = 0;
	s->stop = s->bad = false;
	s->check_ns = 0;
	s->why[0] = '\0';
	for (int i = 0; i < s->n; i++)
		s->r[i].nlat = 0;
}

static int mix_run(struct mm_ctx *ctx)
{
	struct mix_state *s = ctx->priv;
	struct mm_team_opts o = {
		.ntasks = s->n, .threads = true, .pin = true,
		.slot_size = sizeof(struct mix_slot),
		.duration_ns = s->rounds_max ? 0 :
			(uint64_t)(((const struct mix_params *)ctx->params)->duration_s * 1e9),
		.fn = mix_task, .arg = ctx,
	};
	struct mm_team *team = NULL;
	struct mm_phase ph;
	double migrated;
	uint64_t own;
	int ret, retries = 0;

again:
	if (s->compact && (!s->fresh || retries) &&
	    regions_rebuild(ctx, s, retries > 0) != MM_PASS) {
		held_release(s);
		return MM_FAIL;
	}
	/* freed before the clock starts: compaction must not move them too */
	held_release(s);
	s->fresh = false;
	reset_round_state(s);
	if (mix_mlock_snap(s, &s->base) < 0)
		return mm_err(ctx, "reading VmLck, nr_mlock and Unevictable");
	s->last = s->base;
	mm_phase_begin(&ph, "migrate", RUSAGE_SELF, counters);
	mm_measure_begin(ctx);
	ret = mm_team_run(ctx, &o, &team);
	mm_phase_end(&ph);
	if (ret != MM_PASS) {
		ret = task_failure(ctx, s, team);
		mm_team_free(team);
		return ret;
	}
	migrated = migrated_pages(s, team, &ph, &own);
	/*
	 * Compaction moves what its scanners meet. The regions are built in
	 * fragmented pageblocks for it (region_map), but if it still moved
	 * none of their pages the path under test (migrating mlocked and
	 * unlocked pages of this process) did not run: the iteration's
	 * precondition failed. Nothing of the attempt is emitted (its probe
	 * counts and profile samples are discarded); the regions are rebuilt
	 * and the iteration runs again, at most COMPACT_RETRIES times, each
	 * retry logged and counted (precondition_retries); then the case
	 * fails with the reason.
	 */
	if (s->compact && !own) {
		mm_team_free(team);
		team = NULL;
		mm_measure_discard(ctx);
		if (retries < COMPACT_RETRIES) {
			mm_log(ctx, "%siteration %d: compaction moved none of the regions' pages in %lld round(s) (pgmigrate_success %.0f): nothing emitted, regions rebuilt, retry %d of %d",
			       ctx->warmup ? "warm-up " : "", ctx->iteration, s->rounds_done,
			       migrated, retries + 1, COMPACT_RETRIES);
			retries++;
			goto again;
		}
		return mm_fail(ctx, "precondition failed in %siteration %d: compaction moved none of the regions' pages in %d attempts of %lld round(s) (pgmigrate_success %.0f in the last): the migration of mlocked and unlocked pages under test did not run",
			       ctx->warmup ? "warm-up " : "", ctx->iteration, retries + 1,
			       s->rounds_done, migrated);
	}
	mm_measure_end(ctx, migrated, "migrated_page");
	mix_emit_all(ctx, s, team, &ph, migrated, own);
	if (s->compact)
		mm_emit(ctx, "precondition_retries", retries, "attempts");
	mm_team_free(team);
	if (s->bad)
		return mm_fail(ctx, "%s", s->why);
	return MM_PASS;
}

const struct workload wl_mlock_mix = {
	.name = "mlock_mix",
	.desc = "threads migrating a mix of mlocked and unlocked pages (LRU drain per page), mlock state checked",
	.params = params,
	.params_size = sizeof(struct mix_params),
	.metrics = metrics,
	.needs = MM_NEED_NUMA2,
	.needs_except = "trigger=compact runs on one node",
	.precheck = mix_precheck,
	.prepare = mix_prepare,
	.run = mix_run,
	.cleanup = mix_cleanup,
};
