// SPDX-License-Identifier: GPL-2.0
/*
 * thp_storm's setup: the case's sizes, decided before anything is mapped,
 * and each iteration's fragmentation (touch, free half of every PMD-sized
 * chunk, refill the holes with page cache) and its precondition.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "thp_storm.h"

const char *storm_data_dir(struct mm_ctx *ctx)
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

/*
 * Where the refill file's data lives. On tmpfs/ramfs its pages are shmem:
 * reading them allocates no page cache, so the holes cannot be refilled.
 * On a RAM block device (brd, zram: the VM lab's ext4 RAM disk) reading
 * does allocate page cache, but the device's own copy takes RAM as well.
 */
enum dir_kind storm_dir_kind(const char *dir)
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

int storm_plan_sizes(struct mm_ctx *ctx, struct plan *pl)
{
	const struct storm_params *p = ctx->params;
	long long avail_kb = mm_mem_available_kb();
	unsigned long long avail, cap;

	pl->page = (size_t)sysconf(_SC_PAGESIZE);
	pl->pmd = pmd_size();
	pl->threads = (int)p->threads;
	pl->ram_file = p->file_pct > 0 &&
		       storm_dir_kind(storm_data_dir(ctx)) == DIR_RAM_BLOCK;
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

/* An anonymous mapping of len bytes starting on an align boundary. */
char *storm_map_aligned(size_t len, size_t align)
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
	char *p = storm_map_aligned(len, pmd);

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

void storm_release_frag(struct state *s)
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
void storm_buddy_free(size_t page, int order, double *free_mb, double *huge_mb)
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

int storm_log2(size_t v)
{
	int o = 0;

	while ((1ul << o) < v)
		o++;
	return o;
}

/* One iteration's setup: drop the file's cache, fragment, refill. */
int storm_setup_iteration(struct mm_ctx *ctx, struct state *s, struct frag_info *fi)
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
	storm_buddy_free(s->pl.page, storm_log2(s->pl.pmd / s->pl.page), &fi->free_mb, &fi->huge_mb);
	fi->frag_ns = t1 - t0;
	fi->refill_ns = t2 - t1;
	fi->thp_left_kb = mm_smaps_kb(s->frag, s->pl.anon, "AnonHugePages:");
	return MM_PASS;
}

void storm_iteration_name(const struct mm_ctx *ctx, char *buf, size_t len)
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
int storm_check_frag(struct mm_ctx *ctx, const struct frag_info *fi)
{
	char it[48];

	if (fi->thp_left_kb <= 0)
		return MM_PASS;
	storm_iteration_name(ctx, it, sizeof(it));
	return mm_fail(ctx, "fragmentation failed in %s: %lld KiB of THP still mapped after freeing the first half of every PMD-sized chunk (MADV_COLD did not split them): those halves stay allocated, the storm would not meet fragmented memory",
		       it, fi->thp_left_kb);
}
