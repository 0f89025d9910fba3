// SPDX-License-Identifier: GPL-2.0
/*
 * thp_storm: THP fault storms under fragmentation (thpscale/thpcompact).
 *
 * Kernel path: a write fault on an untouched, MADV_HUGEPAGE, PMD-aligned
 * anonymous range -> do_huge_pmd_anonymous_page() -> vma_alloc_folio() of
 * PMD order with GFP_TRANSHUGE (defrag=madvise lets a madvised VMA stall)
 * -> __alloc_pages_slowpath() -> __alloc_pages_direct_compact() ->
 * try_to_compact_pages() -> compact_zone(): the migrate scanner
 * (isolate_migratepages) and the free scanner (isolate_freepages) meet
 * while migrate_pages() moves movable pages out of the way. When that
 * fails the fault falls back to do_anonymous_page(): a base page, or a
 * multi-size THP folio of an enabled smaller order (alloc_anon_folio()).
 * EXPERIMENTS.md sections 3 and 4 ("record the mlocked status" and ">0
 * order folio compaction") are measured on exactly this path.
 *
 * Each iteration: touch anonymous memory, split and unmap the first half
 * of every PMD-sized chunk (so every pageblock is left half used), refill
 * the holes with page cache by reading a file, then release T pinned
 * threads at once; each faults its share of fresh PMD-aligned regions,
 * timing the one-byte first touch, and classifies the result by mincore().
 *
 * Files: this one (the tables, prepare, the storm, the run),
 * thp_storm_setup.c (sizes, fragmentation), thp_storm_guard.c (the host
 * guard: how a storm the host disturbed is found and run again) and
 * thp_storm_emit.c (the rows), over thp_storm.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "folio_view.h"
#include "schedstat.h"
#include "thp_storm.h"

const char *const storm_counters[] = {
	"compact_stall", "compact_success", "compact_fail", "pgmigrate_success",
	"pgmigrate_fail", "compact_isolated", "compact_migrate_scanned",
	"compact_free_scanned", "thp_fault_alloc", "thp_fault_fallback",
	/* context */
	"compact_daemon_wake", "compact_daemon_migrate_scanned",
	"compact_daemon_free_scanned", "thp_fault_fallback_charge",
	"thp_split_page", "thp_split_pmd", "thp_deferred_split_page",
	"thp_migration_success", "thp_migration_fail", "thp_migration_split",
	"allocstall_normal", "allocstall_movable", "pgscan_direct",
	"pgsteal_direct", "pgscan_kswapd", "pgsteal_kswapd", "pgfault",
	NULL,
};
static const char *def_threads(char *buf, size_t len)
{
	int max = 4 * mm_ncpus() < 32 ? 4 * mm_ncpus() : 32;
	size_t off = 0;

	buf[0] = '\0';
	for (int t = 1; t <= max && off < len; t *= 2)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", t);
	return buf;
}

#define P struct storm_params
static const struct mm_param params[] = {
	{ MM_PINT(P, threads), .def_fn = def_threads,
	  .min = 1, .max = MAX_THREADS,
	  .help = "faulting threads, pinned round-robin (default 1,2,4.. up to min(4 x CPUs, 32))" },
	{ MM_PINT(P, anon_pct), .def = "80", .min = 1, .max = CAP_PCT,
	  .help = "fragmenting anonymous memory, % of MemAvailable" },
	{ MM_PINT(P, size_mb), .def = "", .min = 1, .max = 1 << 30,
	  .help = "fragmenting anonymous memory in MiB, overrides anon_pct" },
	{ MM_PINT(P, file_pct), .def = "25", .min = 0, .max = 100,
	  .help = "refill file size, % of the anonymous size" },
	{ MM_PBOOL(P, madvise), .def = "1",
	  .help = "MADV_HUGEPAGE on the anonymous and storm memory" },
	{ MM_PBOOL(P, fill), .def = "1",
	  .help = "write the rest of each faulted region, outside the timed touch (the host guard times it: its witness of the host's memory speed)" },
	{ MM_PSTRING(P, mthp), .def = "", .nolist = true,
	  .help = "multi-size THP sizes to enable for the run, e.g. 64kB,512kB" },
	{ MM_PBOOL(P, raw), .def = "0",
	  .help = "write every fault (thread, class, ns) to samples.csv" },
	{ MM_PSTRING(P, dir), .def = "",
	  .help = "directory for the refill file (default: scratch dir in the run dir)" },
	{ MM_PENUM(P, guard), .def = "auto", .choices = "auto|off",
	  .help = "auto: where free page reporting hands memory to the host, back the storm's memory first and retry a storm the host disturbed; off: never" },
	{ MM_PINT(P, settle_ms), .def = "0", .min = 0, .max = 600000,
	  .help = "wait between backing the memory and the storm (shows what the guard protects against)" },
	MM_PARAM_END,
};
#undef P

/*
 * The experiments' evidence (EXPERIMENTS.md sections 3 and 4), directions
 * as thpscale/thpcompact read them. Latencies are in us: timed by unit.
 */
/* A fault class's count and tail latencies (thp_storm_emit.c's emit_class()). */
#define FAULT_ROW(cls, stat, b) { .name = cls "_" stat, .better = b, .role = MM_CONTEXT }
#define FAULT_CLASS_ROWS(cls) FAULT_ROW(cls, "count", MM_INFO),		\
	FAULT_ROW(cls, "p50", MM_LOWER), FAULT_ROW(cls, "p90", MM_LOWER),	\
	FAULT_ROW(cls, "p99", MM_LOWER), FAULT_ROW(cls, "max", MM_LOWER)

static const struct mm_metric metrics[] = {
	{ .name = "fault_both_mean", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "THP fault latency under fragmentation (section 3: mean fault-both latency falls without the per-page LRU drain in migration, more with more threads)" },
	{ .name = "pct_huge", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "share of storm faults that got a PMD THP (section 4: the v2 posting measured a drop, 86.19 -> 51.17 % at 1 thread)" },
	{ .name = "fault_huge_mean", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "latency of the faults that got a THP: direct compaction's cost" },
	{ .name = "fault_base_mean", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "latency of the faults that fell back to a base page" },
	{ .name = "compact_stall", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "direct compaction stalls during the storm (section 4 posted 229710 -> 554846)" },
	{ .name = "compact_success", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "direct compactions that produced the page (section 4 posted 144177 -> 9351)" },
	{ .name = "compaction_efficiency", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "100 x success / stalls (section 4 posted 62.76 -> 1.69)" },
	{ .name = "scan_efficiency", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "100 x migrate-scanned / free-scanned PFNs (section 4 posted 12.29 -> 27.75)" },
	{ .name = "pgmigrate_fail", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "pages compaction failed to migrate (section 4 posted 25818 -> 459621)" },
	{ .name = "compaction_cost", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "memory traffic of compaction, MiB (section 4 posted 66050.96 -> 17615.55)" },
	{ .name = "pgmigrate_success", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "storm_start_free_huge_pct_of_need", .better = MM_INFO,
	  .role = MM_CONTEXT },
	{ .name = "fault_mthp_mean", .better = MM_LOWER, .role = MM_CONTEXT },
	FAULT_CLASS_ROWS("fault_base"),
	FAULT_CLASS_ROWS("fault_huge"),
	FAULT_CLASS_ROWS("fault_mthp"),
	FAULT_CLASS_ROWS("fault_both"),
	{ .name = "pct_mthp", .better = MM_HIGHER, .role = MM_CONTEXT },
	/* Information; storm_*: the storm's phase, vmstat and guard rows. */
	{ .name = "fault_runq_wait_mean", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "fault_both_mean_excl_runq", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "fault_runq_waited_count", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "classify_mismatch_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "frag_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "refill_time", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "compact_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "thp_fault_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "mthp_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "storm_*", .better = MM_INFO, .role = MM_CONTEXT },
	MM_METRIC_END,
};

/* ---------------------------------------------------------------- precheck */

static int precheck_mthp(struct mm_ctx *ctx, const struct plan *pl)
{
	char path[256];

	if (pl->nmthp && access(THP_DIR "/hugepages-64kB", F_OK) < 0 &&
	    access(THP_DIR "/hugepages-2048kB", F_OK) < 0)
		return mm_skip(ctx, "mthp: this kernel has no multi-size THP (hugepages-*kB; Linux 6.8+)");
	for (int i = 0; i < pl->nmthp; i++) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB", pl->mthp_kb[i]);
		if (access(path, F_OK) < 0)
			return mm_skip(ctx, "mthp: this kernel has no %ukB size (%s absent)",
				       pl->mthp_kb[i], path);
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/enabled",
			 pl->mthp_kb[i]);
		if (access(path, W_OK) < 0)
			return mm_skip(ctx, "mthp: %ukB cannot be enabled for anonymous memory here (%s: %s)",
				       pl->mthp_kb[i], path, strerror(errno));
	}
	return MM_PASS;
}

/* Refuse, before anything is mapped or written, what cannot run here. */
static int thp_precheck(struct mm_ctx *ctx)
{
	struct plan pl;
	struct statvfs sv;
	char mode[32];
	const char *d;
	int ret;

	if (!*mm_thp_mode(mode, sizeof(mode)))
		return mm_skip(ctx, "this kernel has no transparent hugepages (%s absent)",
			       THP_DIR "/enabled");
	if (strcmp(mode, "never") == 0)
		return mm_skip(ctx, "THP is disabled (%s is 'never')", THP_DIR "/enabled");
	ret = storm_plan_sizes(ctx, &pl);
	if (ret != MM_PASS)
		return ret;
	if (pl.file) {
		d = storm_data_dir(ctx);
		if (access(d, W_OK) < 0)
			return mm_err(ctx, "dir '%s' is not writable", d);
		if (storm_dir_kind(d) == DIR_SHMEM)
			return mm_fail(ctx, "dir '%s' is on tmpfs/ramfs: reading its file allocates no page cache, so the holes cannot be refilled; use a disk-backed dir or file_pct=0",
				       d);
		if (statvfs(d, &sv) == 0 &&
		    (unsigned long long)sv.f_bavail * sv.f_frsize < pl.file + pl.file / 20)
			return mm_fail(ctx, "dir '%s': %llu MiB free, the refill file needs %zu MiB",
				       d, (unsigned long long)sv.f_bavail * sv.f_frsize >> 20,
				       pl.file >> 20);
	}
	return precheck_mthp(ctx, &pl);
}

/* ---------------------------------------------------------------- prepare */

static void thp_cleanup(struct mm_ctx *ctx)
{
	struct state *s = ctx->priv;

	if (!s)
		return;
	if (s->fd >= 0) {
		close(s->fd);
		unlink(s->path);
	}
	for (int i = 0; i < MAX_THREADS; i++) {
		free(s->t[i].ns);
		free(s->t[i].pages);
		free(s->t[i].wait);
		free(s->t[i].gpfn);
		free(s->t[i].vec);
	}
	free(s->iobuf);
	mm_witness_free(&s->fills);
	free(s);
	ctx->priv = NULL;
}

/* Records are written before the storm so it never page-faults on them. */
static int alloc_records(struct mm_ctx *ctx, struct state *s)
{
	size_t per = s->pl.nregions / (size_t)s->pl.threads;
	size_t extra = s->pl.nregions % (size_t)s->pl.threads;
	size_t npr = s->pl.pmd / s->pl.page;

	for (int i = 0; i < s->pl.threads; i++) {
		struct tbuf *t = &s->t[i];

		t->n = per + ((size_t)i < extra);
		t->ns = aligned_alloc(64, (t->n * sizeof(*t->ns) + 63) / 64 * 64);
		t->pages = aligned_alloc(64, (t->n * sizeof(*t->pages) + 63) / 64 * 64);
		t->wait = aligned_alloc(64, (t->n * sizeof(*t->wait) + 63) / 64 * 64);
		t->vec = aligned_alloc(64, (npr + 63) / 64 * 64);
		t->gcap = t->n + t->n / 2 + 2;	/* the guard backs need + a quarter */
		t->gpfn = malloc(t->gcap * sizeof(*t->gpfn));
		if (!t->ns || !t->pages || !t->vec || !t->wait || !t->gpfn)
			return mm_err(ctx, "allocating fault records");
		memset(t->ns, 0xff, t->n * sizeof(*t->ns));
		memset(t->pages, 0, t->n * sizeof(*t->pages));
		memset(t->wait, 0, t->n * sizeof(*t->wait));
		memset(t->vec, 0, npr);
	}
	return MM_PASS;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The refill file: written, synced, then dropped from the page cache. */
static int create_file(struct mm_ctx *ctx, struct state *s)
{
	snprintf(s->path, sizeof(s->path), "%s/mmbench-thp_storm-%d.dat",
		 storm_data_dir(ctx), (int)getpid());
	s->fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (s->fd < 0)
		return mm_err(ctx, "creating refill file '%s'", s->path);
	for (size_t i = 0; i < IO_CHUNK; i++)
		s->iobuf[i] = (char)(i * 131 + 7);
	for (size_t off = 0; off < s->pl.file; off += IO_CHUNK)
		if (write_all(s->fd, s->iobuf, IO_CHUNK) < 0)
			return mm_err(ctx, "writing refill file '%s'", s->path);
	if (fsync(s->fd) < 0)
		return mm_err(ctx, "fsync of refill file '%s'", s->path);
	posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
	return MM_PASS;
}

/* Enable each requested mTHP size that is "never" (as "inherit"). */
static int enable_mthp(struct mm_ctx *ctx, struct state *s)
{
	char path[256], cur[64];
	int ret;

	for (int i = 0; i < s->pl.nmthp; i++) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/enabled",
			 s->pl.mthp_kb[i]);
		ret = mm_setting_get(path, cur, sizeof(cur));
		if (ret < 0) {
			errno = -ret;
			return mm_err(ctx, "reading %s", path);
		}
		if (strcmp(cur, "never") != 0) {
			mm_note(ctx, "thp_storm_mthp", "hugepages-%ukB already '%s', left so",
				s->pl.mthp_kb[i], cur);
			continue;
		}
		ret = mm_setting_set(path, "inherit");
		if (ret < 0) {
			errno = -ret;
			return mm_err(ctx, "enabling %s", path);
		}
		mm_note(ctx, "thp_storm_mthp", "hugepages-%ukB set to 'inherit' (was 'never')",
			s->pl.mthp_kb[i]);
	}
	return MM_PASS;
}

/* A clean start for every thread count: no page cache, compacted memory. */
static void reset_memory(struct mm_ctx *ctx, struct state *s)
{
	int r1, r2;

	if (!s->root) {
		mm_note(ctx, "thp_storm_reset",
			"drop_caches and compact_memory skipped: not root");
		return;
	}
	sync();
	r1 = mm_trigger("/proc/sys/vm/drop_caches", "3");
	r2 = mm_trigger("/proc/sys/vm/compact_memory", "1");
	if (r1 < 0 || r2 < 0)
		mm_note(ctx, "thp_storm_reset", "drop_caches: %s; compact_memory: %s",
			r1 < 0 ? strerror(-r1) : "done", r2 < 0 ? strerror(-r2) : "done");
}

static int thp_prepare(struct mm_ctx *ctx)
{
	const struct storm_params *p = ctx->params;
	struct state *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return mm_err(ctx, "calloc");
	ctx->priv = s;
	s->fd = -1;
	s->madv = p->madvise;
	s->fill = p->fill;
	s->raw = p->raw;
	s->root = mm_is_root();
	s->settle_ms = p->settle_ms;
	ret = storm_plan_sizes(ctx, &s->pl);
	if (ret == MM_PASS)
		ret = alloc_records(ctx, s);
	s->iobuf = ret == MM_PASS ? aligned_alloc(4096, IO_CHUNK) : NULL;
	if (ret == MM_PASS && !s->iobuf)
		ret = mm_err(ctx, "allocating the I/O buffer");
	if (ret == MM_PASS && s->pl.file)
		ret = create_file(ctx, s);
	if (ret == MM_PASS)
		ret = enable_mthp(ctx, s);
	if (ret != MM_PASS) {
		thp_cleanup(ctx);
		return ret;
	}
	reset_memory(ctx, s);
	mm_note(ctx, "thp_storm_sizes",
		"threads=%d anon=%zu MiB file=%zu MiB%s regions=%zu of %zu KiB",
		s->pl.threads, s->pl.anon >> 20, s->pl.file >> 20,
		s->pl.ram_file ? " (on a RAM disk: counted in anon_pct)" : "",
		s->pl.nregions, s->pl.pmd >> 10);
	storm_note_guard(ctx, s);
	mm_note(ctx, "thp_storm_classify", "%s",
		s->root ? "mincore() of the whole region after a one-byte touch; confirmed per region by pagemap+kpageflags (root) and by smaps AnonHugePages" :
			  "mincore() of the whole region after a one-byte touch; confirmed by smaps AnonHugePages (not root: no kpageflags)");
	return MM_PASS;
}

/* ---------------------------------------------------------------- storm */

static int map_storm(struct mm_ctx *ctx, struct state *s)
{
	for (int i = 0; i < s->pl.threads; i++) {
		struct tbuf *t = &s->t[i];

		t->map = storm_map_aligned(t->n * s->pl.pmd, s->pl.pmd);
		if (!t->map)
			return mm_err(ctx, "mmap of thread %d's storm regions", i);
		if (s->madv && madvise(t->map, t->n * s->pl.pmd, MADV_HUGEPAGE) < 0)
			return mm_err(ctx, "madvise(MADV_HUGEPAGE) on the storm regions");
	}
	return MM_PASS;
}

static void unmap_storm(struct state *s)
{
	for (int i = 0; i < s->pl.threads; i++) {
		if (s->t[i].map)
			munmap(s->t[i].map, s->t[i].n * s->pl.pmd);
		s->t[i].map = NULL;
	}
}

static uint16_t resident(const unsigned char *vec, size_t n)
{
	unsigned int r = 0;

	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	return (uint16_t)r;
}

/* Runqueue wait of the calling thread so far, ns (schedstat); 0 if none. */
static uint64_t runq_wait_ns(int fd)
{
	uint64_t run, wait;

	return mm_schedstat_read(fd, &run, &wait) == 0 ? wait : 0;
}

/*
 * One faulting thread: a fresh region per fault, nothing but the one-byte
 * write between the two clock reads. mincore() after the touch tells what
 * the fault mapped: the whole region (a PMD THP), a smaller large folio
 * (mTHP) or one page. The fill, if any, is outside the timed window, and
 * so are the two schedstat reads that tell how long the thread waited on
 * the runqueue (other tasks ran) inside it.
 */
static int storm_task(struct mm_task *task)
{
	struct state *s = ((struct mm_ctx *)task->arg)->priv;
	struct tbuf *t = &s->t[task->id];
	struct slot *sl = task->slot;
	size_t pmd = s->pl.pmd, npr = pmd / s->pl.page;
	int sfd = mm_schedstat_open();
	struct rusage r0, r1;

	if (s->guard) {
		struct folio_view pm = { .pm_fd = -1, .kpf_fd = -1 };

		if (s->root)
			fv_open_pagemap(&pm);
		storm_thread_back(s, t, &pm);
		fv_close(&pm);
	}
	t->gfill_ns = 0;
	t->gnfill = 0;
	getrusage(RUSAGE_THREAD, &r0);
	mm_task_start(task);
	for (size_t i = 0; i < t->n; i++) {
		char *p = t->map + i * pmd;
		uint64_t w0 = runq_wait_ns(sfd), t0 = mm_now_ns();

		*(volatile char *)p = 1;
		t->ns[i] = mm_now_ns() - t0;
		t->wait[i] = runq_wait_ns(sfd) - w0;
		/* A wait just outside the clock reads is not in the window. */
		if (t->wait[i] > t->ns[i])
			t->wait[i] = t->ns[i];
		if (mincore(p, pmd, t->vec) < 0) {
			sl->err = errno;
			break;
		}
		t->pages[i] = resident(t->vec, npr);
		if (s->fill) {
			/* A THP's fill is the guard's witness of the memory's speed. */
			bool witness = s->guard && t->pages[i] >= npr;
			uint64_t f0 = witness ? mm_now_ns() : 0;

			memset(p, 2, pmd);
			if (witness) {
				t->gfill_ns += mm_now_ns() - f0;
				t->gnfill++;
			}
		}
		sl->done = i + 1;
	}
	getrusage(RUSAGE_THREAD, &r1);
	sl->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	sl->schedstat = sfd >= 0;
	if (sfd >= 0)
		close(sfd);
	return sl->err ? MM_FAIL : MM_PASS;
}

enum fclass storm_class(const struct state *s, uint16_t pages)
{
	if (pages >= s->pl.pmd / s->pl.page)
		return C_HUGE;
	return pages > 1 ? C_MTHP : C_BASE;
}

static int team_error(struct mm_ctx *ctx, struct state *s, struct mm_team *team)
{
	for (int i = 0; team && i < s->pl.threads; i++) {
		struct slot *sl = mm_team_slot(team, i);

		if (sl->err) {
			errno = sl->err;
			return mm_err(ctx, "thread %d: mincore after fault %zu", i, sl->done);
		}
	}
	return mm_fail(ctx, "a faulting thread failed");
}

/*
 * The storm's precondition: its regions could get huge pages at all. smaps
 * THPeligible (since 5.0) is 0 for a VMA the kernel will not back with a
 * PMD THP (enabled=madvise with madvise=0, a prctl, a cgroup); if no fault
 * got a large folio either (no mTHP), the storm measured base-page faults
 * only, and does in every try: the case fails with the reason. Taken from
 * this process's own mappings: the vmstat THP counters are system-wide.
 */
static long long storm_eligible(struct state *s)
{
	long long sum = 0;

	for (int i = 0; i < s->pl.threads; i++) {
		long long x = mm_smaps_kb(s->t[i].map, s->t[i].n * s->pl.pmd,
					  "THPeligible:");

		if (x < 0)
			return -1;
		sum += x;
	}
	return sum;
}

static int check_attempted(struct mm_ctx *ctx, struct state *s, long long eligible)
{
	size_t large = 0;
	char it[48], mode[32];
	struct utsname u;

	if (eligible != 0 || uname(&u) < 0 || atoi(u.release) < 5)
		return MM_PASS;
	for (int i = 0; i < s->pl.threads; i++)
		for (size_t k = 0; k < s->t[i].n; k++)
			large += storm_class(s, s->t[i].pages[k]) != C_BASE;
	if (large > 0)
		return MM_PASS;
	storm_iteration_name(ctx, it, sizeof(it));
	return mm_fail(ctx, "no huge page possible in the storm of %s: its regions are not THP-eligible (smaps THPeligible 0; THP enabled=%s, madvise=%d) and none of its %zu faults got a large folio: base-page faults only",
		       it, mm_thp_mode(mode, sizeof(mode)), s->madv, s->pl.nregions);
}

/* Everything an attempt mapped or started, released for the next one. */
static void end_attempt(struct state *s, struct mm_team **team)
{
	mm_team_free(*team);
	*team = NULL;
	unmap_storm(s);
	storm_release_frag(s);
}

static int thp_run(struct mm_ctx *ctx)
{
	struct state *s = ctx->priv;
	struct mm_team_opts o = {
		.ntasks = s->pl.threads, .threads = true, .pin = true,
		.slot_size = sizeof(struct slot), .fn = storm_task, .arg = ctx,
	};
	struct mm_team *team = NULL;
	struct guard g = { 0 };
	struct frag_info fi;
	struct mm_phase ph;
	long long rep0, steal0, eligible;
	long huge;
	int ret, retries = 0;

again:
	ret = storm_setup_iteration(ctx, s, &fi);
	if (ret == MM_PASS)
		ret = storm_check_frag(ctx, &fi);
	if (ret == MM_PASS)
		ret = map_storm(ctx, s);
	if (ret != MM_PASS)
		goto out;
	storm_mthp_stats(s, s->mthp_stat0);
	eligible = storm_eligible(s);
	if (s->guard)
		storm_guard_plan(s);
	rep0 = mm_host_reported_kib();
	steal0 = mm_host_steal_ticks();
	mm_phase_begin(&ph, "storm", RUSAGE_SELF, storm_counters);
	mm_measure_begin(ctx);
	ret = mm_team_run(ctx, &o, &team);
	mm_phase_end(&ph);
	if (ret != MM_PASS) {
		ret = team_error(ctx, s, team);
		goto out;
	}
	/* Checked before anything of the iteration is emitted (--probe too). */
	if (s->guard && storm_guard_gather(s, &g) < 0) {
		ret = mm_err(ctx, "allocating the guard's PFN list");
		goto out;
	}
	if (s->guard && storm_guard_disturbed(s, &g)) {
		mm_measure_discard(ctx);
		ret = storm_disturbed(ctx, s, &g, retries);
		if (ret != MM_PASS)
			goto out;
		retries++;
		storm_guard_free(&g);
		end_attempt(s, &team);
		goto again;
	}
	ret = check_attempted(ctx, s, eligible);
	if (ret != MM_PASS)
		goto out;
	mm_measure_end(ctx, (double)s->pl.nregions, "fault");
	storm_emit_frag(ctx, s, &fi);
	/* The fragmenting memory goes first: smaps is short again. */
	storm_release_frag(s);
	huge = storm_emit_faults(ctx, s);
	if (huge < 0) {
		ret = MM_FAIL;
		goto out;
	}
	storm_emit_compaction(ctx, &ph);
	storm_emit_mthp_stats(ctx, s);
	storm_emit_confirm(ctx, s, huge);
	storm_emit_context(ctx, s, team, &ph, rep0, steal0);
	if (s->guard) {
		storm_emit_guard(ctx, s, &g, retries);
		mm_witness_keep(&s->fills, g.fill_us);
	}
	if (s->raw)
		storm_emit_samples(ctx, s);
out:
	storm_guard_free(&g);
	end_attempt(s, &team);
	return ret;
}

const struct workload wl_thp_storm = {
	.name = "thp_storm",
	.desc = "THP fault storms under fragmentation, with compaction statistics (thpscale)",
	.params = params,
	.params_size = sizeof(struct storm_params),
	.metrics = metrics,
	.needs = MM_NEED_THP,
	.precheck = thp_precheck,
	.prepare = thp_prepare,
	.run = thp_run,
	.cleanup = thp_cleanup,
};

