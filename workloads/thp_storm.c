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
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "mmbench.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define MAX_MTHP 16
#define MAX_THREADS 256
#define IO_CHUNK (1u << 20)
/* Never map more than this share of MemAvailable: there is no swap to
 * fall back on, so what is left must hold the page cache and the rest. */
#define CAP_PCT 90
/* The host guard (see "guard" below). */
#define PR_DIR "/sys/module/page_reporting/parameters"
#define GUARD_RETRIES 5
#define GUARD_RETRIES_S "5"
#define STEAL_MAX_PCT 5.0
#define FILL_MAX_PCT 15.0
#define FILL_MIN 32	/* THP fills a storm needs for its witness to count */
#define GUARD_RESERVE (128u << 20)

/* Counters named in the results, and context counters (storm_vm_*). */
static const char *const counters[] = {
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
#define N_NAMED 10

enum fclass { C_BASE, C_MTHP, C_HUGE, C_NCLASS };
static const char *const class_name[C_NCLASS] = { "base", "mthp", "huge" };

/* Sizes of one case, decided before anything is mapped. */
struct plan {
	size_t page, pmd;	/* base page and PMD (THP) size in bytes */
	size_t anon;		/* fragmenting region, multiple of 2 x pmd */
	size_t file;		/* refill file */
	size_t nregions;	/* storm faults in total: anon / pmd / 2 */
	bool ram_file;		/* the file's blocks live in RAM (brd, zram) */
	int threads;
	int nmthp;
	unsigned int mthp_kb[MAX_MTHP];
};

/* Per-thread fault records, allocated and touched in prepare(). */
struct tbuf {
	uint64_t *ns;		/* first-touch time of each fault */
	uint16_t *pages;	/* pages resident in the region right after */
	uint64_t *wait;		/* runqueue wait inside the timed touch, ns */
	/* The host guard's backing by this thread, right before the barrier: */
	size_t gwant, gbacked;	/* bytes to back, bytes that got a THP */
	uint64_t gback_ns;	/* the backing touch */
	uint64_t *gpfn;		/* head PFNs of the backed THPs (root) */
	size_t gnpfn, gcap;
	uint64_t gt0;		/* release of the backed memory */
	long long grep0, gman0, gbal0, gsteal0; /* counters right after it */
	uint64_t gfill_ns;	/* the fills of the huge faults (the witness) */
	size_t gnfill;
	unsigned char *vec;	/* mincore vector of one region */
	char *map;		/* this iteration's storm mapping */
	size_t n;		/* regions of this thread */
};

/* Shared with the coordinator after the storm. */
struct slot {
	size_t done;
	int err;		/* errno of a failed mincore */
	long nivcsw;		/* preemptions of this thread during its storm */
	bool schedstat;		/* runqueue waits were read */
};

struct state {
	struct plan pl;
	bool madv, fill, raw, root;
	char path[4200];	/* refill file */
	int fd;
	char *iobuf;
	char *frag;		/* the fragmenting region (aligned) */
	char *frag_map;
	size_t frag_map_len;
	struct tbuf t[MAX_THREADS];
	long long mthp_stat0[MAX_MTHP][2];
	bool noted_pressure;	/* thp_storm_pressure said for this case */
	bool guard;		/* the host guard runs (free page reporting) */
	double *fills;		/* fill witness of the case's emitted storms, us */
	size_t nfills, capfills;
	long long settle_ms;
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

enum storm_guard { GUARD_AUTO, GUARD_OFF };	/* "auto|off" */

struct storm_params {
	long long threads;
	long long anon_pct;
	long long size_mb;	/* MM_UNSET_INT: anon_pct decides */
	long long file_pct;
	bool madvise;
	bool fill;
	const char *mthp;
	bool raw;
	const char *dir;
	int guard;
	long long settle_ms;
};

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
	MM_METRIC_END,
};

static const char *data_dir(struct mm_ctx *ctx)
{
	const struct storm_params *p = ctx->params;

	return *p->dir ? p->dir : ctx->scratch_dir;
}

/* ---------------------------------------------------------------- plan */

/* "64kB", "64K", "64", "2M", "2MB" -> KiB; 0 on a malformed size. */
static unsigned int parse_kb(const char *s, const char **end)
{
	unsigned long v = 0;
	const char *p = s;

	while (isdigit((unsigned char)*p))
		v = v * 10 + (unsigned long)(*p++ - '0');
	if (p == s || v == 0 || v > (1ul << 22))
		return 0;
	if (*p == 'M' || *p == 'm') {
		v <<= 10;
		p++;
	} else if (*p == 'k' || *p == 'K') {
		p++;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	*end = p;
	return (unsigned int)v;
}

static int parse_mthp(struct mm_ctx *ctx, struct plan *pl)
{
	const char *mthp = ((const struct storm_params *)ctx->params)->mthp;
	const char *s = mthp, *end;

	pl->nmthp = 0;
	while (*s) {
		unsigned int kb = parse_kb(s, &end);

		if (!kb || (*end && *end != ','))
			return mm_fail(ctx, "parameter 'mthp': '%s' is not a list of sizes like 64kB,512kB",
				       mthp);
		if (pl->nmthp == MAX_MTHP)
			return mm_fail(ctx, "parameter 'mthp': more than %d sizes", MAX_MTHP);
		pl->mthp_kb[pl->nmthp++] = kb;
		s = *end ? end + 1 : end;
	}
	return MM_PASS;
}

static size_t pmd_size(void)
{
	char buf[64];

	if (mm_read_file(THP_DIR "/hpage_pmd_size", buf, sizeof(buf)) == 0 &&
	    strtoull(buf, NULL, 10) > 0)
		return (size_t)strtoull(buf, NULL, 10);
	return 2u << 20;
}

enum dir_kind { DIR_DISK, DIR_RAM_BLOCK, DIR_SHMEM };

/*
 * Where the refill file's data lives. On tmpfs/ramfs its pages are shmem:
 * reading them allocates no page cache, so the holes cannot be refilled.
 * On a RAM block device (brd, zram: the VM lab's ext4 RAM disk) reading
 * does allocate page cache, but the device's own copy takes RAM as well.
 */
static enum dir_kind dir_kind(const char *dir)
{
	char sys[64], link[512];
	struct statfs fs;
	struct stat st;
	ssize_t n;
	const char *base;

	if (statfs(dir, &fs) == 0 &&
	    (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
		return DIR_SHMEM;
	if (stat(dir, &st) < 0)
		return DIR_DISK;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	n = readlink(sys, link, sizeof(link) - 1);
	if (n <= 0)
		return DIR_DISK;
	link[n] = '\0';
	base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (strncmp(base, "ram", 3) == 0 || strncmp(base, "zram", 4) == 0)
		return DIR_RAM_BLOCK;
	return DIR_DISK;
}

/* Every punched chunk is a mapping of its own: the limit matters. */
static size_t max_map_count(void)
{
	char buf[64];

	if (mm_read_file("/proc/sys/vm/max_map_count", buf, sizeof(buf)) < 0)
		return 65530;	/* DEFAULT_MAX_MAP_COUNT */
	return (size_t)strtoull(buf, NULL, 10);
}

/* Bytes of per-thread records and vectors, allocated up front. */
static size_t record_bytes(const struct plan *pl)
{
	return pl->nregions * (2 * sizeof(uint64_t) + sizeof(uint16_t)) +
	       (size_t)pl->threads * (pl->pmd / pl->page + 4096);
}

/* The anonymous size: size_mb, or anon_pct of MemAvailable (of which a
 * file held in RAM takes its share). Multiple of 2 x PMD. */
static size_t anon_size(struct mm_ctx *ctx, const struct plan *pl,
			unsigned long long avail)
{
	const struct storm_params *p = ctx->params;
	bool sized = p->size_mb != MM_UNSET_INT;
	unsigned long long a;

	if (sized)
		a = (unsigned long long)p->size_mb << 20;
	else
		a = avail / 100 * (unsigned long long)p->anon_pct;
	if (!sized && pl->ram_file)
		a = a / (100 + (unsigned long long)p->file_pct) * 100;
	return (size_t)(a - a % (2 * pl->pmd));
}

static int plan_sizes(struct mm_ctx *ctx, struct plan *pl)
{
	const struct storm_params *p = ctx->params;
	long long avail_kb = mm_mem_available_kb();
	unsigned long long avail, cap;

	pl->page = (size_t)sysconf(_SC_PAGESIZE);
	pl->pmd = pmd_size();
	pl->threads = (int)p->threads;
	pl->ram_file = p->file_pct > 0 &&
		       dir_kind(data_dir(ctx)) == DIR_RAM_BLOCK;
	if (avail_kb <= 0)
		return mm_fail(ctx, "cannot read MemAvailable from /proc/meminfo");
	avail = (unsigned long long)avail_kb << 10;
	cap = avail / 100 * CAP_PCT;
	if (p->size_mb != MM_UNSET_INT && (unsigned long long)p->size_mb << 20 > avail)
		return mm_fail(ctx, "size_mb=%lld is larger than MemAvailable (%llu MiB); refused before mapping anything",
			       p->size_mb, avail >> 20);
	pl->anon = anon_size(ctx, pl, avail);
	pl->nregions = pl->anon / pl->pmd / 2;
	pl->file = pl->anon / 100 * (size_t)p->file_pct;
	pl->file -= pl->file % IO_CHUNK;
	if (pl->nregions < (size_t)pl->threads)
		return mm_fail(ctx, "%d threads need at least %zu MiB of anonymous memory (one %zu KiB region each); size is %zu MiB",
			       pl->threads, (size_t)pl->threads * 2 * pl->pmd >> 20,
			       pl->pmd >> 10, pl->anon >> 20);
	if (pl->anon + record_bytes(pl) + (pl->ram_file ? pl->file : 0) > cap)
		return mm_fail(ctx, "%zu MiB of anonymous memory%s is more than %d%% of MemAvailable (%llu MiB): without swap the run could end in an OOM kill",
			       pl->anon >> 20, pl->ram_file ? " plus the refill file on a RAM disk" : "",
			       CAP_PCT, avail >> 20);
	if (pl->anon / pl->pmd + 1000 > max_map_count())
		return mm_fail(ctx, "%zu MiB leaves %zu mappings after the unmapping, more than vm.max_map_count (%zu) allows: use a smaller size_mb or raise vm.max_map_count",
			       pl->anon >> 20, pl->anon / pl->pmd, max_map_count());
	return parse_mthp(ctx, pl);
}

/* ---------------------------------------------------------------- probe */

static int probe_mthp(struct mm_ctx *ctx, const struct plan *pl)
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
static int thp_probe(struct mm_ctx *ctx)
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
	ret = plan_sizes(ctx, &pl);
	if (ret != MM_PASS)
		return ret;
	if (pl.file) {
		d = data_dir(ctx);
		if (access(d, W_OK) < 0)
			return mm_err(ctx, "dir '%s' is not writable", d);
		if (dir_kind(d) == DIR_SHMEM)
			return mm_fail(ctx, "dir '%s' is on tmpfs/ramfs: reading its file allocates no page cache, so the holes cannot be refilled; use a disk-backed dir or file_pct=0",
				       d);
		if (statvfs(d, &sv) == 0 &&
		    (unsigned long long)sv.f_bavail * sv.f_frsize < pl.file + pl.file / 20)
			return mm_fail(ctx, "dir '%s': %llu MiB free, the refill file needs %zu MiB",
				       d, (unsigned long long)sv.f_bavail * sv.f_frsize >> 20,
				       pl.file >> 20);
	}
	return probe_mthp(ctx, &pl);
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
	free(s->fills);
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
		 data_dir(ctx), (int)getpid());
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

static bool reporting_active(char *why, size_t len);

/* Which host guard runs, said once per case in meta.csv. */
static void note_guard(struct mm_ctx *ctx, struct state *s)
{
	bool off = ((const struct storm_params *)ctx->params)->guard == GUARD_OFF;
	char why[200];

	s->guard = reporting_active(why, sizeof(why)) && !off;
	if (!s->guard) {
		mm_note(ctx, "thp_storm_guard", "[%s]: none (%s)", mm_case_string(ctx->c),
			off ? "guard=off" : why);
		return;
	}
	mm_note(ctx, "thp_storm_guard", "[%s]: free page reporting (%s): storm memory backed right before the start barrier; a storm during which reported_kib, managed pages or the balloon moved, steal exceeded %.0f%%, or filling its THPs took over %.0f%% longer than in the case's earlier storms (the host's memory was slower), is not emitted and %s",
		mm_case_string(ctx->c), why, STEAL_MAX_PCT, FILL_MAX_PCT,
		"is run again (up to " GUARD_RETRIES_S " retries, storm_guard_retries; its --probe counts and --profile samples are discarded)");
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
	ret = plan_sizes(ctx, &s->pl);
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
	note_guard(ctx, s);
	mm_note(ctx, "thp_storm_classify", "%s",
		s->root ? "mincore() of the whole region after a one-byte touch; confirmed per region by pagemap+kpageflags (root) and by smaps AnonHugePages" :
			  "mincore() of the whole region after a one-byte touch; confirmed by smaps AnonHugePages (not root: no kpageflags)");
	return MM_PASS;
}

/* ---------------------------------------------------------------- fragment */

#ifndef MADV_COLD
#define MADV_COLD 20
#endif

/* An anonymous mapping of len bytes starting on an align boundary. */
static char *map_aligned(size_t len, size_t align)
{
	char *m = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (m == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)m + align - 1) & ~((uintptr_t)align - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (m + len + align > p + len)
		munmap(p + len, (size_t)(m + len + align - (p + len)));
	return p;
}

/*
 * Touch the anonymous memory, then free the first half of every PMD-sized
 * chunk. munmap() of half a PMD-mapped THP only splits the PMD and queues
 * the folio for deferred split: the freed half would stay allocated until
 * the deferred-split shrinker runs under pressure. MADV_COLD on a partial
 * PMD range splits the folio at once (madvise_cold_or_pageout_pte_range),
 * so the munmap() that follows really returns half of every pageblock.
 */
static int fragment(struct mm_ctx *ctx, struct state *s)
{
	size_t len = s->pl.anon, pmd = s->pl.pmd;
	char *p = map_aligned(len, pmd);

	if (!p)
		return mm_err(ctx, "mmap of %zu MiB of anonymous memory", len >> 20);
	s->frag = p;
	if (s->madv && madvise(p, len, MADV_HUGEPAGE) < 0)
		return mm_err(ctx, "madvise(MADV_HUGEPAGE) on the fragmenting memory");
	for (size_t off = 0; off < len; off += s->pl.page)
		p[off] = 1;
	for (size_t off = 0; off < len; off += pmd) {
		madvise(p + off, pmd / 2, MADV_COLD);	/* absent before 5.4 */
		if (munmap(p + off, pmd / 2) < 0)
			return mm_err(ctx, "munmap of the first half of chunk %zu",
				      off / pmd);
	}
	return MM_PASS;
}

static void release_frag(struct state *s)
{
	if (s->frag)
		munmap(s->frag, s->pl.anon);
	s->frag = NULL;
}

/* Read the file: its new page cache lands in the holes just freed. */
static int refill(struct mm_ctx *ctx, struct state *s)
{
	for (size_t off = 0; off < s->pl.file; off += IO_CHUNK) {
		ssize_t n = pread(s->fd, s->iobuf, IO_CHUNK, (off_t)off);

		if (n < 0 && errno == EINTR) {
			off -= IO_CHUNK;
			continue;
		}
		if (n != (ssize_t)IO_CHUNK)
			return mm_err(ctx, "reading refill file '%s' at %zu MiB",
				      s->path, off >> 20);
	}
	return MM_PASS;
}

/* Free memory from /proc/buddyinfo: all of it, and in blocks >= order. */
static void buddy_free(size_t page, int order, double *free_mb, double *huge_mb)
{
	char line[512];
	FILE *f = fopen("/proc/buddyinfo", "re");

	*free_mb = *huge_mb = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		int o = 0, used;
		long cnt;

		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		p += strcspn(p, " ");	/* the zone name */
		for (; sscanf(p, "%ld%n", &cnt, &used) == 1; p += used, o++) {
			double mb = (double)cnt * (double)(page << o) / 1048576.0;

			*free_mb += mb;
			if (o >= order)
				*huge_mb += mb;
		}
	}
	fclose(f);
}

static int log2_sz(size_t v)
{
	int o = 0;

	while ((1ul << o) < v)
		o++;
	return o;
}

/* What the fragmentation left, emitted only once the iteration counts. */
struct frag_info {
	uint64_t frag_ns, refill_ns;
	long long thp_left_kb;	/* THP still mapped in the fragmenting memory */
	double free_mb, huge_mb; /* free at the storm's start, in >= PMD blocks */
};

/* One iteration's setup: drop the file's cache, fragment, refill. */
static int setup_iteration(struct mm_ctx *ctx, struct state *s, struct frag_info *fi)
{
	uint64_t t0, t1, t2;
	int ret;

	if (s->fd >= 0)
		posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
	t0 = mm_now_ns();
	ret = fragment(ctx, s);
	t1 = mm_now_ns();
	if (ret == MM_PASS && s->fd >= 0)
		ret = refill(ctx, s);
	t2 = mm_now_ns();
	if (ret != MM_PASS)
		return ret;
	buddy_free(s->pl.page, log2_sz(s->pl.pmd / s->pl.page), &fi->free_mb, &fi->huge_mb);
	fi->frag_ns = t1 - t0;
	fi->refill_ns = t2 - t1;
	fi->thp_left_kb = mm_smaps_kb(s->frag, s->pl.anon, "AnonHugePages:");
	return MM_PASS;
}

static void iteration_name(const struct mm_ctx *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "%siteration %d", ctx->warmup ? "warm-up " : "",
		 ctx->iteration);
}

/*
 * The fragmentation's precondition: no THP left in the fragmenting memory.
 * A THP that survived the split keeps its unmapped half allocated (deferred
 * split), so its pageblock was not fragmented. That does not change from
 * one try to the next (no MADV_COLD split: before 5.4): the case fails.
 */
static int check_frag(struct mm_ctx *ctx, const struct frag_info *fi)
{
	char it[48];

	if (fi->thp_left_kb <= 0)
		return MM_PASS;
	iteration_name(ctx, it, sizeof(it));
	return mm_fail(ctx, "fragmentation failed in %s: %lld KiB of THP still mapped after freeing the first half of every PMD-sized chunk (MADV_COLD did not split them): those halves stay allocated, the storm would not meet fragmented memory",
		       it, fi->thp_left_kb);
}

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

	mm_emit(ctx, "storm_start_free_huge_pct_of_need", pct, "pct", MM_INFO);
	if (pct < 100.0 || s->noted_pressure)
		return;
	s->noted_pressure = true;
	iteration_name(ctx, it, sizeof(it));
	mm_note(ctx, "thp_storm_pressure", "[%s]: from %s on: %.0f MiB free in PMD-sized blocks at the storm's start, the storm faults %.0f MiB: its faults did not need compaction (use anon_pct for the experiment's fragmentation)",
		mm_case_string(ctx->c), it, fi->huge_mb, need_mb);
	mm_log(ctx, "%s: %.0f MiB free in PMD-sized blocks at the storm's start cover the %.0f MiB it faults: not under fragmentation, compaction not needed",
	       it, fi->huge_mb, need_mb);
}

static void emit_frag(struct mm_ctx *ctx, struct state *s, const struct frag_info *fi)
{
	mm_emit(ctx, "frag_time", (double)fi->frag_ns, "ns", MM_INFO);
	mm_emit(ctx, "refill_time", (double)fi->refill_ns, "ns", MM_INFO);
	mm_emit(ctx, "frag_thp_left", (double)fi->thp_left_kb, "KiB", MM_INFO);
	mm_emit(ctx, "storm_start_free", fi->free_mb, "MiB", MM_INFO);
	mm_emit(ctx, "storm_start_free_huge", fi->huge_mb, "MiB", MM_INFO);
	frag_pressure(ctx, s, fi);
}

/*
 * Free page reporting (virtio_balloon) hands free high-order blocks back to
 * the hypervisor, which faults them in again on the next touch: a THP
 * fault on reported memory also pays for the host. Some guest kernels
 * count the reported memory; where they do, the storm's share is shown.
 */
#define REPORTED_KIB "/sys/module/page_reporting/parameters/reported_kib"

static long long host_reported_kib(void)
{
	char buf[64];

	if (mm_read_file(REPORTED_KIB, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* ---------------------------------------------------------------- guard */

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

struct guard {
	size_t want, backed;	/* bytes to back, bytes that got a THP */
	uint64_t back_ns;	/* the backing touch */
	uint64_t *pfn;		/* head PFN of each backed THP (root), sorted */
	size_t npfn;
	uint64_t t0, t1;	/* release of the backed memory, storm end */
	long long rep0, rep1;	/* reported_kib, -1 if not counted */
	long long man0, man1;	/* managed pages of all zones */
	long long bal0, bal1;	/* balloon_inflate + balloon_deflate */
	long long steal0, steal1; /* /proc/stat steal, USER_HZ ticks, -1 absent */
	bool man_moved, bal_moved; /* between the threads' releases */
	double fill_us, fill_base; /* the storm's fill witness, its baseline; 0: none */
	char why[256];		/* what disturbed the storm, "" if nothing */
};

/*
 * Is free page reporting active? CONFIG_PAGE_REPORTING gives the module
 * parameter; a device has to register for anything to be reported: a
 * virtio balloon with VIRTIO_BALLOON_F_REPORTING (feature bit 5), or
 * Hyper-V's balloon. A kernel that counts reported memory (reported_kib)
 * and has reported some is taken at its word.
 */
static bool reporting_active(char *why, size_t len)
{
	char buf[256], path[300];
	long long rep;
	int order;
	DIR *d;
	struct dirent *de;

	if (mm_read_file(PR_DIR "/page_reporting_order", buf, sizeof(buf)) < 0) {
		snprintf(why, len, "no %s/page_reporting_order: no free page reporting", PR_DIR);
		return false;
	}
	order = atoi(buf);
	d = opendir("/sys/bus/virtio/devices");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", de->d_name);
		if (mm_read_file(path, buf, sizeof(buf)) < 0 || strtol(buf, NULL, 0) != 5)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/features", de->d_name);
		if (mm_read_file(path, buf, sizeof(buf)) == 0 && strlen(buf) > 5 &&
		    buf[5] == '1') {
			closedir(d);
			snprintf(why, len, "virtio balloon with free page reporting, page_reporting_order %d",
				 order);
			return true;
		}
	}
	if (d)
		closedir(d);
	if (access("/sys/module/hv_balloon", F_OK) == 0) {
		snprintf(why, len, "Hyper-V balloon (hv_balloon) loaded, page_reporting_order %d", order);
		return true;
	}
	if (mm_read_file(PR_DIR "/reported_kib", buf, sizeof(buf)) == 0 &&
	    (rep = strtoll(buf, NULL, 10)) > 0) {
		snprintf(why, len, "reported_kib %lld, page_reporting_order %d", rep, order);
		return true;
	}
	snprintf(why, len, "page_reporting_order %d but no reporting device (virtio balloon REPORTING, hv_balloon)",
		 order);
	return false;
}

/* Sum of "managed" over /proc/zoneinfo: moves when memory is added or taken. */
static long long managed_pages(void)
{
	char line[256];
	long long sum = 0, v;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " managed %lld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

/* Steal ticks of all CPUs (8th value of the "cpu" line); -1 if absent. */
static long long steal_ticks(void)
{
	unsigned long long v[8];
	char line[512];
	FILE *f = fopen("/proc/stat", "re");
	int n = 0;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 ? (long long)v[7] : -1;
}

static long long balloon_moves(void)
{
	long long a = mm_vmstat_get("balloon_inflate"), b = mm_vmstat_get("balloon_deflate");

	return a < 0 && b < 0 ? -1 : (a > 0 ? a : 0) + (b > 0 ? b : 0);
}

static void guard_snap(long long *rep, long long *man, long long *bal, long long *steal)
{
	*rep = host_reported_kib();
	*man = managed_pages();
	*bal = balloon_moves();
	*steal = steal_ticks();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The fill witness's baseline: the median of the case's emitted storms, 0 if none. */
static double fill_base(const struct state *s)
{
	double *v;
	double m;

	if (!s->nfills || !(v = malloc(s->nfills * sizeof(*v))))
		return 0;
	memcpy(v, s->fills, s->nfills * sizeof(*v));
	gsl_sort(v, 1, s->nfills);
	m = gsl_stats_median_from_sorted_data(v, 1, s->nfills);
	free(v);
	return m;
}

/* An emitted storm's fill witness joins the baseline (warm-up included). */
static void fill_keep(struct state *s, double us)
{
	double *v;

	if (us <= 0)
		return;
	if (s->nfills == s->capfills) {
		v = realloc(s->fills, (s->capfills * 2 + 8) * sizeof(*v));
		if (!v)
			return;
		s->fills = v;
		s->capfills = s->capfills * 2 + 8;
	}
	s->fills[s->nfills++] = us;
}

/*
 * In a faulting thread, before the start barrier: back this thread's share
 * of the storm's memory and free it; the counters of the disturbance check
 * are read right after the release.
 */
static void thread_back(struct state *s, struct tbuf *t, int pm)
{
	size_t pmd = s->pl.pmd, len = t->gwant;
	char *p = len ? map_aligned(len, pmd) : NULL;
	uint64_t e, t0;

	t->gbacked = t->gback_ns = t->gnpfn = 0;
	if (p) {
		madvise(p, len, MADV_HUGEPAGE);
		t0 = mm_now_ns();
		for (size_t off = 0; off < len; off += s->pl.page)
			p[off] = 1;
		t->gback_ns = mm_now_ns() - t0;
		t->gbacked = (size_t)mm_smaps_kb(p, len, "AnonHugePages:") << 10;
		for (size_t off = 0; pm >= 0 && off < len && t->gnpfn < t->gcap; off += pmd)
			if (pread(pm, &e, 8, (off_t)((uintptr_t)(p + off) / s->pl.page * 8)) == 8 &&
			    (e >> 63) && (e & ((1ull << 55) - 1)))
				t->gpfn[t->gnpfn++] = e & ((1ull << 55) - 1);
		munmap(p, len);
	}
	t->gt0 = mm_now_ns();
	guard_snap(&t->grep0, &t->gman0, &t->gbal0, &t->gsteal0);
	if (s->settle_ms > 0)
		usleep((useconds_t)(s->settle_ms * 1000));
}

/* ---------------------------------------------------------------- storm */

static int map_storm(struct mm_ctx *ctx, struct state *s)
{
	for (int i = 0; i < s->pl.threads; i++) {
		struct tbuf *t = &s->t[i];

		t->map = map_aligned(t->n * s->pl.pmd, s->pl.pmd);
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
	unsigned long long run, wait;
	char buf[96];
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? wait : 0;
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
	int sfd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	struct rusage r0, r1;

	if (s->guard) {
		int pm = s->root ? open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC) : -1;

		thread_back(s, t, pm);
		if (pm >= 0)
			close(pm);
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

static enum fclass classify(const struct state *s, uint16_t pages)
{
	if (pages >= s->pl.pmd / s->pl.page)
		return C_HUGE;
	return pages > 1 ? C_MTHP : C_BASE;
}

/* ---------------------------------------------------------------- confirm */

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_THP 22

/* Is the region one PMD-sized THP, by pagemap PFNs and kpageflags? */
static int kpf_is_huge(int pm, int kf, const char *p, size_t npr, size_t page,
		       uint64_t *ent, uint64_t *fl)
{
	size_t len = npr * sizeof(uint64_t);
	uint64_t pfn0;

	if (pread(pm, ent, len, (off_t)((uintptr_t)p / page * 8)) != (ssize_t)len)
		return -1;
	pfn0 = ent[0] & PM_PFN_MASK;
	if (!(ent[0] & PM_PRESENT))
		return 0;
	if (!pfn0)
		return -1;	/* PFNs hidden: no CAP_SYS_ADMIN */
	for (size_t i = 1; i < npr; i++)
		if (!(ent[i] & PM_PRESENT) || (ent[i] & PM_PFN_MASK) != pfn0 + i)
			return 0;
	if (pread(kf, fl, len, (off_t)(pfn0 * 8)) != (ssize_t)len)
		return -1;
	if (!(fl[0] & (1ull << KPF_COMPOUND_HEAD)) || !(fl[0] & (1ull << KPF_THP)))
		return 0;
	for (size_t i = 1; i < npr; i++)
		if (!(fl[i] & (1ull << KPF_COMPOUND_TAIL)))
			return 0;
	return 1;
}

/* Regions whose mincore class disagrees with kpageflags; -1: unavailable. */
static long kpf_mismatch(struct state *s)
{
	size_t npr = s->pl.pmd / s->pl.page;
	uint64_t *ent = malloc(npr * 8), *fl = malloc(npr * 8);
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	long bad = ent && fl && pm >= 0 && kf >= 0 ? 0 : -1;

	for (int i = 0; i < s->pl.threads && bad >= 0; i++) {
		struct tbuf *t = &s->t[i];

		for (size_t k = 0; k < t->n && bad >= 0; k++) {
			int h = kpf_is_huge(pm, kf, t->map + k * s->pl.pmd, npr,
					    s->pl.page, ent, fl);

			if (h < 0)
				bad = -1;
			else if (h != (classify(s, t->pages[k]) == C_HUGE))
				bad++;
		}
	}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	free(ent);
	free(fl);
	return bad;
}

/* ---------------------------------------------------------------- results */

/* NAME_count always; the latency figures only when there were faults. */
static void emit_class(struct mm_ctx *ctx, const char *name, double *v, size_t n)
{
	static const double pct[] = { 50, 90, 99 };
	char m[64];
	double sum = 0;

	snprintf(m, sizeof(m), "%s_count", name);
	mm_emit(ctx, m, (double)n, "faults", MM_INFO);
	if (!n)
		return;
	mm_sort_doubles(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	snprintf(m, sizeof(m), "%s_mean", name);
	mm_emit(ctx, m, sum / (double)n, "us", MM_LOWER);
	for (size_t i = 0; i < 3; i++) {
		snprintf(m, sizeof(m), "%s_p%.0f", name, pct[i]);
		mm_emit(ctx, m, mm_percentile(v, n, pct[i]), "us", MM_LOWER);
	}
	snprintf(m, sizeof(m), "%s_max", name);
	mm_emit(ctx, m, v[n - 1], "us", MM_LOWER);
}

/* Latencies by class, pct_huge; returns the huge fault count or -1. */
static long emit_faults(struct mm_ctx *ctx, struct state *s)
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
			enum fclass c = classify(s, s->t[i].pages[k]);

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
		"pct", MM_HIGHER);
	if (s->pl.nmthp || n[C_MTHP])
		mm_emit(ctx, "pct_mthp", 100.0 * (double)n[C_MTHP] / (double)n[C_NCLASS],
			"pct", MM_HIGHER);
	ret = (long)n[C_HUGE];
out:
	for (int c = 0; c <= C_NCLASS; c++)
		free(v[c]);
	if (ret < 0)
		mm_err(ctx, "allocating latency arrays");
	return ret;
}

/* The vmstat figures of the storm, named as thpscale reports them. */
static void emit_compaction(struct mm_ctx *ctx, const struct mm_phase *ph)
{
	static const char *const unit[N_NAMED] = {
		"stalls", "count", "count", "pages", "pages", "pages", "pages",
		"pages", "faults", "faults",
	};
	long long d[N_NAMED];
	char m[96];

	for (int i = 0; i < N_NAMED; i++) {
		d[i] = mm_phase_vmstat(ph, counters[i]);
		if (d[i] < 0)
			mm_log(ctx, "/proc/vmstat has no %s on this kernel: not reported",
			       counters[i]);
		else
			mm_emit(ctx, counters[i], (double)d[i], unit[i], MM_INFO);
	}
	/* Defined only when there was a stall / a free page scanned. */
	if (d[0] > 0 && d[1] >= 0)
		mm_emit(ctx, "compaction_efficiency", 100.0 * (double)d[1] / (double)d[0],
			"pct", MM_HIGHER);
	if (d[7] > 0 && d[6] >= 0)
		mm_emit(ctx, "scan_efficiency", 100.0 * (double)d[6] / (double)d[7],
			"pct", MM_INFO);
	/* workloads/thp_storm.md: 64 B of struct page per PFN scanned by either scanner,
	 * 8 KiB (read + write of a 4 KiB page) per page migrated. */
	if (d[3] >= 0 && d[6] >= 0 && d[7] >= 0)
		mm_emit(ctx, "compaction_cost",
			((double)(d[6] + d[7]) * 64.0 + (double)d[3] * 8192.0) / 1048576.0,
			"MiB", MM_LOWER);
	for (int i = N_NAMED; counters[i]; i++) {
		long long x = mm_phase_vmstat(ph, counters[i]);

		snprintf(m, sizeof(m), "storm_vm_%s", counters[i]);
		if (x >= 0)
			mm_emit(ctx, m, (double)x, "count", MM_INFO);
	}
}

static void mthp_stats(const struct state *s, long long st[][2])
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

static void emit_mthp_stats(struct mm_ctx *ctx, const struct state *s)
{
	long long now[MAX_MTHP][2];
	char m[96];

	mthp_stats(s, now);
	for (int i = 0; i < s->pl.nmthp; i++) {
		for (int k = 0; k < 2; k++) {
			if (now[i][k] < 0 || s->mthp_stat0[i][k] < 0)
				continue;
			snprintf(m, sizeof(m), "mthp_%ukB_anon_fault_%s", s->pl.mthp_kb[i],
				 k ? "fallback" : "alloc");
			mm_emit(ctx, m, (double)(now[i][k] - s->mthp_stat0[i][k]),
				"faults", MM_INFO);
		}
	}
}

/* Cross-check the mincore classes against the kernel's own accounting. */
static void emit_confirm(struct mm_ctx *ctx, struct state *s, long huge)
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
			(double)labs(kb / (long long)(s->pl.pmd >> 10) - huge), "faults",
			MM_INFO);
	if (!s->root)
		return;
	kpf = kpf_mismatch(s);
	if (kpf >= 0)
		mm_emit(ctx, "classify_mismatch_kpageflags", (double)kpf, "faults",
			MM_INFO);
}

static void emit_samples(struct mm_ctx *ctx, const struct state *s)
{
	for (int i = 0; i < s->pl.threads; i++)
		for (size_t k = 0; k < s->t[i].n; k++)
			mm_sample(ctx, i, class_name[classify(s, s->t[i].pages[k])],
				  s->t[i].ns[k]);
}

/* ---------------------------------------------------------------- run */

/*
 * The bytes each thread backs: its faults plus a quarter, the whole capped
 * by the free memory in PMD-sized blocks less GUARD_RESERVE (under
 * fragmentation the storm's THPs come from compaction, of memory in use).
 */
static void guard_plan(struct state *s)
{
	size_t pmd = s->pl.pmd, need = s->pl.nregions * pmd, want, huge;
	double free_mb, huge_mb;

	buddy_free(s->pl.page, log2_sz(pmd / s->pl.page), &free_mb, &huge_mb);
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
static int guard_gather(struct state *s, struct guard *g)
{
	size_t nfill = 0;

	memset(g, 0, sizeof(*g));
	g->rep0 = g->man0 = g->bal0 = g->steal0 = -1;
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
		if (i == 0 || t->gt0 < g->t0)
			g->t0 = t->gt0;
		/* reported_kib and steal only grow: the first reading is the least */
		if (i == 0 || t->grep0 < g->rep0)
			g->rep0 = t->grep0;
		if (i == 0 || t->gsteal0 < g->steal0)
			g->steal0 = t->gsteal0;
		/* managed pages and the balloon: any difference is a move */
		if (i == 0) {
			g->man0 = t->gman0;
			g->bal0 = t->gbal0;
		}
		if (t->gman0 != g->man0)
			g->man_moved = true;
		if (t->gbal0 != g->bal0)
			g->bal_moved = true;
	}
	qsort(g->pfn, g->npfn, sizeof(*g->pfn), cmp_u64);
	g->fill_us = nfill >= FILL_MIN ? g->fill_us / (double)nfill : 0;
	g->fill_base = fill_base(s);
	return 0;
}

/* After the storm: did the host take memory, or time, during it? */
static bool guard_disturbed(struct state *s, struct guard *g)
{
	double secs, steal_pct = 0;
	long tck = sysconf(_SC_CLK_TCK);

	g->t1 = mm_now_ns();
	guard_snap(&g->rep1, &g->man1, &g->bal1, &g->steal1);
	secs = (double)(g->t1 - g->t0) / 1e9;
	if (g->steal0 >= 0 && g->steal1 >= g->steal0 && tck > 0 && secs > 0)
		steal_pct = 100.0 * (double)(g->steal1 - g->steal0) / (double)tck /
			    (secs * (double)mm_ncpus());
	g->why[0] = '\0';
	if (g->rep0 >= 0 && g->rep1 > g->rep0)
		snprintf(g->why, sizeof(g->why), "the host took back %lld KiB (reported_kib) during the storm",
			 g->rep1 - g->rep0);
	else if (g->man_moved || (g->man0 >= 0 && g->man1 != g->man0))
		snprintf(g->why, sizeof(g->why), "the zones' managed memory changed by %lld KiB during the storm",
			 (g->man1 - g->man0) * (long long)(s->pl.page >> 10));
	else if (g->bal_moved || (g->bal0 >= 0 && g->bal1 != g->bal0))
		snprintf(g->why, sizeof(g->why), "the balloon moved %lld pages during the storm",
			 g->bal1 - g->bal0);
	else if (steal_pct > STEAL_MAX_PCT)
		snprintf(g->why, sizeof(g->why), "steal time was %.1f%% of the CPUs' time during the storm (limit %.0f%%)",
			 steal_pct, STEAL_MAX_PCT);
	else if (g->fill_us > 0 && g->fill_base > 0 &&
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
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long miss = 0;
	uint64_t e, pfn;

	*huge = 0;
	if (pm < 0)
		return -1;
	for (int i = 0; i < s->pl.threads; i++) {
		for (size_t k = 0; k < s->t[i].n; k++) {
			const char *p = s->t[i].map + k * s->pl.pmd;

			if (classify(s, s->t[i].pages[k]) != C_HUGE ||
			    pread(pm, &e, 8, (off_t)((uintptr_t)p / s->pl.page * 8)) != 8 ||
			    !(e >> 63) || !(pfn = e & PM_PFN_MASK))
				continue;
			(*huge)++;
			miss += !bsearch(&pfn, g->pfn, g->npfn, sizeof(pfn), cmp_u64);
		}
	}
	close(pm);
	return miss;
}

static void emit_guard(struct mm_ctx *ctx, struct state *s, const struct guard *g,
		       int retries)
{
	size_t huge;
	long miss;

	mm_emit(ctx, "storm_guard_retries", retries, "attempts", MM_INFO);
	mm_emit(ctx, "storm_guard_backed", (double)(g->want >> 20), "MiB", MM_INFO);
	mm_emit(ctx, "storm_guard_backed_huge_pct",
		g->want ? 100.0 * (double)g->backed / (double)g->want : 0, "pct", MM_INFO);
	mm_emit(ctx, "storm_guard_back_time", (double)g->back_ns, "ns", MM_INFO);
	if (g->fill_us > 0)
		mm_emit(ctx, "storm_guard_fill", g->fill_us, "us", MM_INFO);
	if (g->fill_us > 0 && g->fill_base > 0)
		mm_emit(ctx, "storm_guard_fill_base", g->fill_base, "us", MM_INFO);
	if (g->rep0 >= 0 && g->rep1 >= g->rep0)
		mm_emit(ctx, "storm_guard_reported", (double)(g->rep1 - g->rep0), "KiB",
			MM_INFO);
	if (g->npfn && (miss = guard_unbacked(s, g, &huge)) >= 0 && huge) {
		mm_emit(ctx, "storm_guard_unbacked_faults", (double)miss, "faults", MM_INFO);
		mm_emit(ctx, "storm_guard_huge_from_backed_pct",
			100.0 * (double)(huge - (size_t)miss) / (double)huge, "pct", MM_INFO);
	}
}

static void guard_free(struct guard *g)
{
	free(g->pfn);
	memset(g, 0, sizeof(*g));
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
		"us", MM_INFO);
	mm_emit(ctx, "fault_both_mean_excl_runq",
		((double)all_ns - (double)wait) / 1000.0 / (double)s->pl.nregions, "us", MM_INFO);
	mm_emit(ctx, "fault_runq_waited_count", (double)waited, "faults", MM_INFO);
}

/* What else ran during the storm: preemptions, minor faults, the host. */
static void emit_storm_context(struct mm_ctx *ctx, struct state *s,
			       struct mm_team *team, const struct mm_phase *ph,
			       long long rep0, long long steal0)
{
	long long rep1 = host_reported_kib(), steal1 = steal_ticks();
	long tck = sysconf(_SC_CLK_TCK);
	long nivcsw = 0;

	for (int i = 0; i < s->pl.threads; i++)
		nivcsw += ((struct slot *)mm_team_slot(team, i))->nivcsw;
	mm_emit(ctx, "storm_time", (double)mm_phase_ns(ph), "ns", MM_INFO);
	mm_emit(ctx, "storm_minflt", (double)mm_phase_minflt(ph), "faults", MM_INFO);
	mm_emit(ctx, "storm_nivcsw", (double)nivcsw, "switches", MM_INFO);
	emit_runq(ctx, s, team);
	if (rep0 >= 0 && rep1 >= rep0)
		mm_emit(ctx, "storm_host_reported", (double)(rep1 - rep0), "KiB",
			MM_INFO);
	/* All CPUs, USER_HZ resolution (10 ms at 100 Hz). */
	if (steal0 >= 0 && steal1 >= steal0 && tck > 0)
		mm_emit(ctx, "storm_steal", 1000.0 * (double)(steal1 - steal0) / (double)tck,
			"ms", MM_INFO);
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
			large += classify(s, s->t[i].pages[k]) != C_BASE;
	if (large > 0)
		return MM_PASS;
	iteration_name(ctx, it, sizeof(it));
	return mm_fail(ctx, "no huge page possible in the storm of %s: its regions are not THP-eligible (smaps THPeligible 0; THP enabled=%s, madvise=%d) and none of its %zu faults got a large folio: base-page faults only",
		       it, mm_thp_mode(mode, sizeof(mode)), s->madv, s->pl.nregions);
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

/* Everything an attempt mapped or started, released for the next one. */
static void end_attempt(struct state *s, struct mm_team **team)
{
	mm_team_free(*team);
	*team = NULL;
	unmap_storm(s);
	release_frag(s);
}

/*
 * A storm the host disturbed (see the guard) emits nothing, and what
 * --probe and --profile gathered during it is discarded: the iteration is
 * set up and stormed again, at most GUARD_RETRIES times, each retry
 * logged; then the case fails with the reason.
 */
static int disturbed(struct mm_ctx *ctx, struct state *s, const struct guard *g,
		     int retries)
{
	char it[48];

	iteration_name(ctx, it, sizeof(it));
	if (retries == GUARD_RETRIES)
		return mm_fail(ctx, "storm of %s disturbed in %d attempts, the last: %s (its fault_both_mean %.1f us; free page reporting: the storm measured the host)",
			       it, GUARD_RETRIES + 1, g->why, mean_fault_us(s));
	mm_log(ctx, "%s: storm disturbed: %s (its fault_both_mean %.1f us): nothing emitted, retry %d of %d",
	       it, g->why, mean_fault_us(s), retries + 1, GUARD_RETRIES);
	return MM_PASS;
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
	ret = setup_iteration(ctx, s, &fi);
	if (ret == MM_PASS)
		ret = check_frag(ctx, &fi);
	if (ret == MM_PASS)
		ret = map_storm(ctx, s);
	if (ret != MM_PASS)
		goto out;
	mthp_stats(s, s->mthp_stat0);
	eligible = storm_eligible(s);
	if (s->guard)
		guard_plan(s);
	rep0 = host_reported_kib();
	steal0 = steal_ticks();
	mm_phase_begin(&ph, "storm", RUSAGE_SELF, counters);
	mm_measure_begin(ctx);
	ret = mm_team_run(ctx, &o, &team);
	mm_phase_end(&ph);
	if (ret != MM_PASS) {
		ret = team_error(ctx, s, team);
		goto out;
	}
	/* Checked before anything of the iteration is emitted (--probe too). */
	if (s->guard && guard_gather(s, &g) < 0) {
		ret = mm_err(ctx, "allocating the guard's PFN list");
		goto out;
	}
	if (s->guard && guard_disturbed(s, &g)) {
		mm_measure_discard(ctx);
		ret = disturbed(ctx, s, &g, retries);
		if (ret != MM_PASS)
			goto out;
		retries++;
		guard_free(&g);
		end_attempt(s, &team);
		goto again;
	}
	ret = check_attempted(ctx, s, eligible);
	if (ret != MM_PASS)
		goto out;
	mm_measure_end(ctx, (double)s->pl.nregions, "fault");
	emit_frag(ctx, s, &fi);
	/* The fragmenting memory goes first: smaps is short again. */
	release_frag(s);
	huge = emit_faults(ctx, s);
	if (huge < 0) {
		ret = MM_FAIL;
		goto out;
	}
	emit_compaction(ctx, &ph);
	emit_mthp_stats(ctx, s);
	emit_confirm(ctx, s, huge);
	emit_storm_context(ctx, s, team, &ph, rep0, steal0);
	if (s->guard) {
		emit_guard(ctx, s, &g, retries);
		fill_keep(s, g.fill_us);
	}
	if (s->raw)
		emit_samples(ctx, s);
out:
	guard_free(&g);
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
	.probe = thp_probe,
	.prepare = thp_prepare,
	.run = thp_run,
	.cleanup = thp_cleanup,
};
