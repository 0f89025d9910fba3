// SPDX-License-Identifier: GPL-2.0
/*
 * migrate_ad: do pages keep their accessed/dirty bits across migration?
 *
 * Kernel path: move_pages(2), mbind(2) with MPOL_MF_MOVE or migrate_pages(2)
 * -> migrate_pages() -> try_to_migrate_one() (try_to_unmap_one() before
 * 5.15), which replaces each PTE (or PMD of a THP) by a migration entry,
 * then remove_migration_pte() / remove_migration_pmd(), which install the
 * entry of the new page. Before "mm: Remember a/d bits for migration
 * entries" (Linux 6.1) that entry was always made old and clean: the first
 * access after a migration made the MMU set the accessed bit again, the
 * first write the dirty bit, and whatever reads the young bit (smaps
 * Referenced, page idle tracking, reclaim) saw migrated hot pages as
 * unused. Since 6.1 the migration entry carries both bits and the new
 * entry gets them back (EXPERIMENTS.md section 2).
 *
 * One iteration, evidence first: clear the reference bits
 * (/proc/self/clear_refs, 1), flush this process's TLB (see
 * tlb_flush_self() below), read every page, and take the region's smaps
 * "Referenced:" as a share of its size (the precondition: >= 99, checked
 * and retried, see referenced_checked()); migrate there and back and take
 * it again: 0 without the series, 100 with it. Then the timed part: an
 * untimed read (every PTE young again on every kernel), the strided read
 * (warm), the move from -> to and back to -> from, timed each way, the
 * first strided read after that (the figure of the series) and a second
 * one; another round trip and the first strided write after it. Nothing
 * is emitted before the precondition has held.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "migrate_common.h"

#define HPAGE (2ul << 20)
/* The Referenced precondition: share of the region, attempts after a miss. */
#define REF_BEFORE_MIN 99.0
#define REF_RETRIES 3

/* Migration and NUMA balancing counters; absent ones are left out. */
static const char *const counters[] = {
	"pgmigrate_success", "pgmigrate_fail", "numa_hint_faults",
	"numa_hint_faults_local", "numa_pages_migrated", "numa_pte_updates",
	"thp_migration_success", "thp_migration_fail", "thp_migration_split",
	NULL,
};

enum { PH_READ_BEFORE, PH_TO, PH_BACK, PH_READ_AFTER, PH_READ_AGAIN,
       PH_WRITE_AFTER, PH_N };

static const char *const phase_names[PH_N] = {
	"read_before", "migrate_to", "migrate_back", "read_after",
	"read_again", "write_after",
};

struct ad_state {
	char *buf;		/* the region, 2 MiB aligned, its own VMA */
	size_t len, pg, stride;
	unsigned long npages;
	int from, to;
	int method;		/* enum ad_method */
	void **pages;		/* one address per base page */
	int *node_from, *node_to, *status;
	struct bitmask *mask_from, *mask_to;
	bool tlb_hot;		/* ref_tlb=hot: no flush, translations kept hot */
	size_t scratch_pages;	/* mapping unmapped to flush it (tlb_flush_self) */
};

/*
 * 1024 MiB as posted, halved until it fits in 3/4 of the free memory of
 * the smaller of the two nodes: a power of two keeps the case string the
 * same on kernels whose free memory differs a little.
 */
static const char *def_size(char *buf, size_t len)
{
	int a = mig_nth_mem_node(0), b = mig_nth_mem_node(1);
	long long cap = 1024, fa, fb;

	if (a >= 0 && b >= 0 && numa_node_size64(a, &fa) > 0 &&
	    numa_node_size64(b, &fb) > 0) {
		long long fit = (fa < fb ? fa : fb) / 4 * 3 >> 20;

		while (cap > 1 && cap > fit)
			cap /= 2;
	}
	snprintf(buf, len, "%lld", cap);
	return buf;
}

static const char *def_stride(char *buf, size_t len)
{
	snprintf(buf, len, "%ld", sysconf(_SC_PAGESIZE));
	return buf;
}

/* The enum parameters' values: the order of their .choices words. */
#define METHODS "move_pages|mbind|migrate_pages"
enum ad_method { AD_MOVE_PAGES, AD_MBIND, AD_MIGRATE_PAGES };
enum ad_thp { AD_THP_ON, AD_THP_OFF };		/* "on|off" */
enum ad_ref_tlb { AD_TLB_FLUSH, AD_TLB_HOT };	/* "flush|hot" */

struct ad_params {
	long long size_mb;
	long long from, to;	/* MM_UNSET_INT: no such node here */
	int thp;
	int method;
	long long stride;
	int numa_balancing;
	int ref_tlb;
};

#define P struct ad_params
static const struct mm_param params[] = {
	{ MM_PINT(P, size_mb), .def_fn = def_size, .min = 1,
	  .max = 1 << 20,
	  .help = "anonymous region in MiB (default 1024, halved until it fits 3/4 of the smaller node's free memory)" },
	{ MM_PINT(P, from), .def_fn = mig_def_from, .min = 0, .max = 4095,
	  .help = "node the region starts on (default: first node with memory)" },
	{ MM_PINT(P, to), .def_fn = mig_def_to, .min = 0, .max = 4095,
	  .help = "node it migrates to (default: second node with memory)" },
	{ MM_PENUM(P, thp), .def = "off", .choices = "on|off",
	  .help = "on: MADV_HUGEPAGE (PMD migration entries); off: MADV_NOHUGEPAGE" },
	{ MM_PENUM(P, method), .def = "move_pages",
	  .choices = METHODS,
	  .help = "move_pages(2); mbind(2) MPOL_MF_MOVE; migrate_pages(2) (moves all the process's pages on the node)" },
	{ MM_PINT(P, stride), .def_fn = def_stride, .min = 1,
	  .max = 1 << 30, .help = "bytes between accesses of the strided read/write" },
	{ MM_PENUM(P, numa_balancing), .def = "off",
	  .choices = MIG_BALANCING_CHOICES,
	  .help = "off: kernel.numa_balancing=0 for the run (restored after); keep: leave it" },
	{ MM_PENUM(P, ref_tlb), .def = "flush", .choices = "flush|hot",
	  .help = "Referenced check: flush: clear_refs, flush this process's TLB, read every page; hot: the region's translations kept cached across clear_refs and no flush, so the read can use them and leave the bits clear (the failure the flush prevents; for tests)" },
	MM_PARAM_END,
};
#undef P

/*
 * The experiment's evidence (EXPERIMENTS.md section 2), evidence first.
 * The two ratios are quotients of phase times: timed although their unit
 * does not say so.
 */
static const struct mm_metric metrics[] = {
	{ .name = "referenced_after_migrate_pct", .better = MM_HIGHER,
	  .role = MM_EVIDENCE,
	  .claim = "a migrated page keeps its accessed bit: smaps Referenced stays at the whole region after node0->1->0 (0 without the series)" },
	{ .name = "read_after_over_before", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .timed = true,
	  .claim = "the first read after migration no longer pays for setting the accessed bits (posted: 99 ms -> 4 ms for 1 GiB)" },
	{ .name = "write_after_over_read_before", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .timed = true,
	  .claim = "the first write after migration no longer pays for setting the accessed and dirty bits" },
	{ .name = "referenced_before_migrate_pct", .better = MM_INFO,
	  .role = MM_CONTEXT },
	{ .name = "precondition_retries", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "migrate_to_pages_per_s", .better = MM_HIGHER, .role = MM_CONTEXT },
	{ .name = "migrate_back_pages_per_s", .better = MM_HIGHER, .role = MM_CONTEXT },
	{ .name = "not_on_node_after_to", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "not_on_node_after_back", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "not_on_node_after_other_moves", .better = MM_LOWER,
	  .role = MM_CONTEXT },
	/* The phases' times (their other rows are information). */
	{ .name = "read_before_time", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "migrate_to_time", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "migrate_back_time", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "read_after_time", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "read_again_time", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "write_after_time", .better = MM_LOWER, .role = MM_CONTEXT },
	/* Information; the phases' other rows (faults, CPU times, vmstat). */
	{ .name = "migrated_to_pages", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "migrated_back_pages", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "numa_hint_faults", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "read_before_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "migrate_to_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "migrate_back_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "read_after_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "read_again_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "write_after_*", .better = MM_INFO, .role = MM_CONTEXT },
	MM_METRIC_END,
};

/* ---------------------------------------------------------------- precheck */

/* Both nodes must hold the region, with a tenth spare for the kernel. */
static int check_fit(struct mm_ctx *ctx, int node, long long size_mb)
{
	long long free_b, total = numa_node_size64(node, &free_b);

	if (total <= 0)
		return mm_fail(ctx, "node %d has no memory (see numactl -H)", node);
	if (size_mb > free_b / 10 * 9 >> 20)
		return mm_fail(ctx, "size_mb=%lld does not fit on node %d: %lld MiB free, at most %lld MiB usable",
			       size_mb, node, free_b >> 20, free_b / 10 * 9 >> 20);
	return MM_PASS;
}

static int ad_precheck(struct mm_ctx *ctx)
{
	const struct ad_params *p = ctx->params;
	long long size_mb = p->size_mb;
	char buf[64];
	int from, to, ret;

	ret = mig_numa2_precheck(ctx, p->from, p->to, &from, &to);
	if (ret != MM_PASS)
		return ret;
	if (check_fit(ctx, from, size_mb) != MM_PASS ||
	    check_fit(ctx, to, size_mb) != MM_PASS)
		return MM_FAIL;
	if ((size_t)p->stride > (size_t)size_mb << 20)
		return mm_fail(ctx, "stride=%lld is larger than the region",
			       p->stride);
	if (p->thp == AD_THP_ON &&
	    (!*mm_thp_mode(buf, sizeof(buf)) || !strcmp(buf, "never")))
		return mm_skip(ctx, "thp=on: transparent hugepages are %s here",
			       *buf ? "disabled (enabled=never)" : "not built in");
	return mig_balancing_precheck(ctx, p->numa_balancing);
}

/* ---------------------------------------------------------------- setup */

static void ad_cleanup(struct mm_ctx *ctx)
{
	struct ad_state *s = ctx->priv;

	if (!s)
		return;
	if (s->buf)
		munmap(s->buf, s->len);
	free(s->pages);
	free(s->node_from);
	free(s->node_to);
	free(s->status);
	if (s->mask_from)
		numa_bitmask_free(s->mask_from);
	if (s->mask_to)
		numa_bitmask_free(s->mask_to);
	free(s);
	ctx->priv = NULL;
}

/*
 * A 2 MiB aligned anonymous mapping of its own (the slack around it is
 * unmapped), so THPs can back it and its smaps entry is the region alone.
 */
static int region_map(struct mm_ctx *ctx, struct ad_state *s, bool thp)
{
	size_t raw_len = s->len + HPAGE;
	char *raw = mmap(NULL, raw_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (raw == MAP_FAILED)
		return mm_err(ctx, "mmap of %zu MiB", s->len >> 20);
	a = ((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1);
	if (a > (uintptr_t)raw)
		munmap(raw, a - (uintptr_t)raw);
	munmap((char *)a + s->len, (uintptr_t)raw + raw_len - a - s->len);
	s->buf = (char *)a;
	if (madvise(s->buf, s->len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0)
		return mm_err(ctx, "madvise(%s)", thp ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE");
	return MM_PASS;
}

static int alloc_lists(struct mm_ctx *ctx, struct ad_state *s)
{
	s->pages = calloc(s->npages, sizeof(*s->pages));
	s->node_from = calloc(s->npages, sizeof(int));
	s->node_to = calloc(s->npages, sizeof(int));
	s->status = calloc(s->npages, sizeof(int));
	s->mask_from = numa_allocate_nodemask();
	s->mask_to = numa_allocate_nodemask();
	if (!s->pages || !s->node_from || !s->node_to || !s->status ||
	    !s->mask_from || !s->mask_to)
		return mm_err(ctx, "allocating page lists for %lu pages", s->npages);
	numa_bitmask_setbit(s->mask_from, (unsigned int)s->from);
	numa_bitmask_setbit(s->mask_to, (unsigned int)s->to);
	for (unsigned long i = 0; i < s->npages; i++) {
		s->pages[i] = s->buf + i * s->pg;
		s->node_from[i] = s->from;
		s->node_to[i] = s->to;
	}
	return MM_PASS;
}

static int ad_prepare(struct mm_ctx *ctx)
{
	const struct ad_params *p = ctx->params;
	struct ad_state *s = calloc(1, sizeof(*s));
	long off;

	if (!s)
		return mm_err(ctx, "calloc");
	ctx->priv = s;
	s->pg = (size_t)sysconf(_SC_PAGESIZE);
	s->len = (size_t)p->size_mb << 20;
	s->npages = s->len / s->pg;
	s->stride = (size_t)p->stride;
	/* the precheck has checked that both are set */
	s->from = (int)p->from;
	s->to = (int)p->to;
	s->method = p->method;
	s->tlb_hot = p->ref_tlb == AD_TLB_HOT;
	if (mig_balancing_off(ctx, p->numa_balancing) != MM_PASS ||
	    region_map(ctx, s, p->thp == AD_THP_ON) != MM_PASS ||
	    alloc_lists(ctx, s) != MM_PASS)
		return MM_FAIL;
	/* MPOL_BIND makes every first-touch fault allocate on from. */
	if (mbind(s->buf, s->len, MPOL_BIND, s->mask_from->maskp,
		  s->mask_from->size + 1, 0) < 0)
		return mm_err(ctx, "mbind(MPOL_BIND, node %d)", s->from);
	memset(s->buf, 0x5a, s->len);
	off = mig_not_on_node(s->pages, s->npages, s->status, s->from);
	if (off != 0)
		return mm_fail(ctx, "after populating, %ld of %lu pages are not on node %d%s",
			       off, s->npages, s->from, off < 0 ? " (move_pages query failed)" : "");
	return MM_PASS;
}

/* ---------------------------------------------------------------- moves */

/* Move the whole region to node with the chosen system call. */
static int region_move(struct ad_state *s, int node)
{
	bool there = node == s->to;
	struct bitmask *m = there ? s->mask_to : s->mask_from;
	long ret;

	if (s->method == AD_MOVE_PAGES)
		ret = numa_move_pages(0, s->npages, s->pages,
				      there ? s->node_to : s->node_from,
				      s->status, MPOL_MF_MOVE);
	else if (s->method == AD_MBIND)
		ret = mbind(s->buf, s->len, MPOL_BIND, m->maskp, m->size + 1,
			    MPOL_MF_MOVE);
	else
		ret = numa_migrate_pages(0, there ? s->mask_from : s->mask_to, m);
	return ret < 0 ? -errno : 0;
}

/* A move (timed when ph is given); *off: pages not on node after it. */
static int move_checked(struct mm_ctx *ctx, struct ad_state *s,
			struct mm_phase *ph, int idx, int node, long *off)
{
	char method[32];
	int ret;

	if (ph)
		mm_phase_begin(ph, phase_names[idx], RUSAGE_SELF, counters);
	ret = region_move(s, node);
	if (ph)
		mm_phase_end(ph);
	if (ret < 0) {
		mm_enum_word(METHODS, s->method, method, sizeof(method));
		errno = -ret;
		return mm_err(ctx, "%s to node %d", method, node);
	}
	*off = mig_not_on_node(s->pages, s->npages, s->status, node);
	if (*off < 0) {
		errno = (int)-*off;
		return mm_err(ctx, "move_pages(2) query of the region");
	}
	return MM_PASS;
}

/* An untimed round trip; adds the pages that missed their node to *off. */
static int round_trip(struct mm_ctx *ctx, struct ad_state *s, long *off)
{
	long a, b;

	if (move_checked(ctx, s, NULL, 0, s->to, &a) != MM_PASS ||
	    move_checked(ctx, s, NULL, 0, s->from, &b) != MM_PASS)
		return MM_FAIL;
	*off += a + b;
	return MM_PASS;
}

/* One byte per stride: reads with volatile loads, or writes. */
static void strided(struct mm_phase *ph, int idx, struct ad_state *s, bool write)
{
	volatile char *p = (volatile char *)s->buf;
	char sink = 0;

	mm_phase_begin(ph, phase_names[idx], RUSAGE_SELF, counters);
	if (write)
		for (size_t off = 0; off < s->len; off += s->stride)
			p[off] = (char)off;
	else
		for (size_t off = 0; off < s->len; off += s->stride)
			sink ^= p[off];
	mm_phase_end(ph);
	(void)sink;
}

/* ---------------------------------------------------------------- evidence */

/*
 * Why the Referenced check flushes the TLB, and how it failed without.
 *
 * Writing 1 to /proc/PID/clear_refs (clear_refs_write() in
 * fs/proc/task_mmu.c, the same in 5.10, 6.1 and 6.12) clears the young
 * bit of every PTE/PMD with ptep_test_and_clear_young() and PG_referenced,
 * and flushes no TLB: only the soft-dirty variant (4) ends in
 * flush_tlb_mm(). On x86 that is deliberate (ptep_clear_flush_young() in
 * arch/x86/mm/pgtable.c: "clearing the accessed bit without a TLB flush
 * doesn't cause data corruption"). The CPU sets the accessed bit only when
 * it walks the page table to fill a TLB entry. A page whose translation is
 * still cached from before the clear_refs is read through the cached entry,
 * and its PTE stays old: smaps counts it as not Referenced although it was
 * just read.
 *
 * On hardware with 4 KiB pages a region of tens of thousands of pages does
 * not fit the TLB (1.5-3 K entries), so a full read refills, and ages,
 * everything. With THP it does: 256 MiB is 128 PMD entries. QEMU TCG's
 * software TLB grows by doubling at each full flush (CR3 write) that finds
 * it more than 70 % used, up to 2^20 entries, so under TCG a region can end
 * up entirely cached. Without --probe nothing flushed the whole TLB after
 * the region had been read and it stayed small; arming and disarming the
 * kprobe each iteration (text_poke() switches to a temporary mm: two CR3
 * writes) flushed it right after the region's strided reads, each time
 * doubling it, until it held all 65536 pages of 256 MiB: from that
 * iteration on clear_refs + read read 0 % Referenced before and after the
 * migration (bookworm 6.1, 8 iterations: 100,100,100,100 then 0,0,0,0).
 * No probe is needed: a plain program in the guest that reads 256 MiB and
 * unmaps a 64-page scratch mapping once per round (a full flush) read 100 %
 * for 9 rounds and 0 % from the 10th on, on 5.10, 6.1 and 6.12 alike.
 *
 * The fix: after clear_refs and before the read, unmap a scratch mapping
 * whose pages were touched and which is larger than the kernel's ceiling
 * for page-by-page invalidation (x86 tlb_single_page_flush_ceiling, 33
 * pages; arm64 MAX_TLBI_OPS, 512, without range invalidation): the
 * munmap() then flushes the whole mm, on this CPU and on every CPU the mm
 * is live on, and the others flush before they run it again (x86 tlb_gen).
 * The region's own PTEs are not touched, so the timed phases are not
 * disturbed. With it the same guest read 100 % in every round; a 32-page
 * scratch mapping (flushed page by page) did not help. ref_tlb=hot
 * (referenced_hot()) reproduces the failure on purpose.
 */
#define SCRATCH_PAGES 1024
#define X86_CEILING "/sys/kernel/debug/x86/tlb_single_page_flush_ceiling"

/* Above the single-page flush ceiling, also where an admin raised it. */
static size_t scratch_pages(void)
{
	char buf[32];
	long c;

	if (mm_read_file(X86_CEILING, buf, sizeof(buf)) == 0) {
		c = atol(buf);
		if (c >= SCRATCH_PAGES && c < 1 << 20)
			return (size_t)c + 1;
	}
	return SCRATCH_PAGES;
}

static int tlb_flush_self(struct mm_ctx *ctx, struct ad_state *s)
{
	size_t len;
	char *p;

	if (!s->scratch_pages)
		s->scratch_pages = scratch_pages();
	len = s->scratch_pages * s->pg;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return mm_err(ctx, "mmap of the %zu-page TLB flush scratch mapping",
			      s->scratch_pages);
	/*
	 * Base pages only: the unmap of a PMD-mapped THP is flushed with one
	 * INVLPG per 2 MiB (stride PMD_SHIFT, below the ceiling), which leaves
	 * the region's entries alone (QEMU TCG happens to flush everything on
	 * an INVLPG inside a large page; hardware does not).
	 */
	if (madvise(p, len, MADV_NOHUGEPAGE) < 0) {
		munmap(p, len);
		return mm_err(ctx, "madvise(MADV_NOHUGEPAGE) on the TLB flush scratch mapping");
	}
	/* Only present pages are unmapped and flushed: touch every one. */
	for (size_t off = 0; off < len; off += s->pg)
		p[off] = 1;
	if (munmap(p, len) < 0)
		return mm_err(ctx, "munmap of the TLB flush scratch mapping");
	return MM_PASS;
}

struct ad_result {
	long off_to, off_back, off_other;
	double moved_to, moved_back;
	double ref_before_pct, ref_after_pct;
	int retries;
};

/* Clear the accessed bits of every page of this process (clear_refs 1). */
static int clear_refs(struct mm_ctx *ctx)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return mm_err(ctx, "opening /proc/self/clear_refs");
	n = write(fd, "1", 1);
	close(fd);
	if (n != 1)
		return mm_err(ctx, "writing 1 to /proc/self/clear_refs");
	return MM_PASS;
}

static int referenced_pct(struct mm_ctx *ctx, struct ad_state *s, double *pct)
{
	long long size_kb = mm_smaps_kb(s->buf, s->len, "Size:");
	long long ref_kb = mm_smaps_kb(s->buf, s->len, "Referenced:");

	if (size_kb < 0 || ref_kb < 0)
		return mm_err(ctx, "reading /proc/self/smaps");
	/* A neighbour merged into the VMA would be counted with the region. */
	if ((size_t)size_kb != s->len >> 10)
		return mm_fail(ctx, "the region's smaps entries span %lld kB, not %zu kB: merged with a neighbour mapping",
			       size_kb, s->len >> 10);
	*pct = 100.0 * (double)ref_kb / (double)size_kb;
	return MM_PASS;
}

/* One load per page of the region. */
static void read_pages(struct ad_state *s)
{
	volatile char *p = (volatile char *)s->buf;
	char sink = 0;

	for (size_t off = 0; off < s->len; off += s->pg)
		sink ^= p[off];
	(void)sink;
}

#define HOT_ROUNDS 10

/*
 * ref_tlb=hot, the failure the flush prevents, on purpose: pinned to one
 * CPU, HOT_ROUNDS of a full read and a full flush (QEMU TCG doubles its
 * TLB at a flush that finds it more than 70 % used: it ends up holding the
 * region), one more read that loads the region's translations, clear_refs
 * and the read without a flush. Where the TLB holds the region (TCG, or
 * THP on hardware) that read goes through cached translations and sets no
 * accessed bit.
 */
static int referenced_hot(struct mm_ctx *ctx, struct ad_state *s,
			  struct ad_result *r)
{
	cpu_set_t old, one;
	int cpu = sched_getcpu(), ret = MM_PASS;
	bool pinned = false;

	if (cpu >= 0 && sched_getaffinity(0, sizeof(old), &old) == 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	for (int i = 0; i < HOT_ROUNDS && ret == MM_PASS; i++) {
		read_pages(s);
		ret = tlb_flush_self(ctx, s);
	}
	if (ret == MM_PASS) {
		read_pages(s);
		ret = clear_refs(ctx);
	}
	if (ret == MM_PASS)
		read_pages(s);
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	if (ret != MM_PASS)
		return ret;
	return referenced_pct(ctx, s, &r->ref_before_pct);
}

/*
 * Referenced after a round trip: with the series, the young bit set by
 * the read rides in the migration entry and smaps still sees it. The
 * round trip runs only once the read has set the bits (the precondition).
 */
static int referenced_round(struct mm_ctx *ctx, struct ad_state *s,
			    struct ad_result *r)
{
	if (s->tlb_hot) {
		if (referenced_hot(ctx, s, r) != MM_PASS)
			return MM_FAIL;
	} else {
		if (clear_refs(ctx) != MM_PASS || tlb_flush_self(ctx, s) != MM_PASS)
			return MM_FAIL;
		read_pages(s);
		if (referenced_pct(ctx, s, &r->ref_before_pct) != MM_PASS)
			return MM_FAIL;
	}
	if (r->ref_before_pct < REF_BEFORE_MIN)
		return MM_PASS;
	if (round_trip(ctx, s, &r->off_other) != MM_PASS ||
	    referenced_pct(ctx, s, &r->ref_after_pct) != MM_PASS)
		return MM_FAIL;
	return MM_PASS;
}

static void iteration_name(const struct mm_ctx *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "%siteration %d", ctx->warmup ? "warm-up " : "",
		 ctx->iteration);
}

/*
 * The precondition of the evidence: right after clear_refs and a read of
 * every page, the whole region is Referenced. An attempt that misses it
 * measured nothing (the read did not set the bits, or something cleared
 * them again): it is retried, each retry logged and counted
 * (precondition_retries), and after REF_RETRIES the case fails with the
 * iteration and the share. referenced_after is not a precondition: it is
 * 0 by design on kernels without the series (5.10).
 */
static int referenced_checked(struct mm_ctx *ctx, struct ad_state *s,
			      struct ad_result *r)
{
	char it[48];

	iteration_name(ctx, it, sizeof(it));
	for (;;) {
		if (referenced_round(ctx, s, r) != MM_PASS)
			return MM_FAIL;
		if (r->ref_before_pct >= REF_BEFORE_MIN)
			return MM_PASS;
		if (r->retries == REF_RETRIES)
			return mm_fail(ctx, "precondition failed in %s: referenced_before_migrate_pct %.2f < %.0f right after clear_refs%s and reading every page, in %d attempts: the read did not set the accessed bits%s",
				       it, r->ref_before_pct, REF_BEFORE_MIN,
				       s->tlb_hot ? "" : ", a TLB flush",
				       REF_RETRIES + 1,
				       s->tlb_hot ? " (ref_tlb=hot: translations cached from before clear_refs were used)" : "");
		r->retries++;
		mm_log(ctx, "%s: referenced_before_migrate_pct %.2f < %.0f right after clear_refs and reading every page: nothing emitted, retry %d of %d",
		       it, r->ref_before_pct, REF_BEFORE_MIN, r->retries, REF_RETRIES);
	}
}

/* ---------------------------------------------------------------- run */

static double per_s(double pages, const struct mm_phase *ph)
{
	uint64_t ns = mm_phase_ns(ph);

	return ns ? pages * 1e9 / (double)ns : 0.0;
}

static double ratio(const struct mm_phase *a, const struct mm_phase *b)
{
	uint64_t nb = mm_phase_ns(b);

	return nb ? (double)mm_phase_ns(a) / (double)nb : 0.0;
}

static void ad_emit(struct mm_ctx *ctx, const struct mm_phase *ph,
		    const struct mm_phase *whole, const struct ad_result *r)
{
	long long hint = mm_phase_vmstat(whole, "numa_hint_faults");

	for (int i = 0; i < PH_N; i++)
		mm_phase_emit(ctx, &ph[i]);
	mm_emit(ctx, "read_after_over_before", ratio(&ph[PH_READ_AFTER], &ph[PH_READ_BEFORE]),
		"ratio");
	mm_emit(ctx, "write_after_over_read_before",
		ratio(&ph[PH_WRITE_AFTER], &ph[PH_READ_BEFORE]), "ratio");
	mm_emit(ctx, "migrate_to_pages_per_s", per_s(r->moved_to, &ph[PH_TO]),
		"pages/s");
	mm_emit(ctx, "migrate_back_pages_per_s", per_s(r->moved_back, &ph[PH_BACK]),
		"pages/s");
	mm_emit(ctx, "migrated_to_pages", r->moved_to, "pages");
	mm_emit(ctx, "migrated_back_pages", r->moved_back, "pages");
	mm_emit(ctx, "not_on_node_after_to", (double)r->off_to, "pages");
	mm_emit(ctx, "not_on_node_after_back", (double)r->off_back, "pages");
	mm_emit(ctx, "not_on_node_after_other_moves", (double)r->off_other, "pages");
	mm_emit(ctx, "referenced_before_migrate_pct", r->ref_before_pct, "pct");
	mm_emit(ctx, "referenced_after_migrate_pct", r->ref_after_pct, "pct");
	mm_emit(ctx, "precondition_retries", r->retries, "attempts");
	if (hint >= 0)
		mm_emit(ctx, "numa_hint_faults", (double)hint, "faults");
}

static int ad_run(struct mm_ctx *ctx)
{
	struct ad_state *s = ctx->priv;
	struct mm_phase ph[PH_N], whole, warm;
	struct ad_result r = { 0 };
	double n = (double)s->npages;

	mm_phase_begin(&whole, "iteration", RUSAGE_SELF, counters);
	/* The evidence first: nothing is measured or emitted before it held. */
	if (referenced_checked(ctx, s, &r) != MM_PASS)
		return MM_FAIL;
	/*
	 * The round trip left old PTEs on kernels without the series: one
	 * untimed read makes them young, so read_before is the warm read.
	 */
	strided(&warm, PH_READ_BEFORE, s, false);
	strided(&ph[PH_READ_BEFORE], PH_READ_BEFORE, s, false);
	mm_measure_begin(ctx);
	if (move_checked(ctx, s, &ph[PH_TO], PH_TO, s->to, &r.off_to) != MM_PASS ||
	    move_checked(ctx, s, &ph[PH_BACK], PH_BACK, s->from, &r.off_back) != MM_PASS)
		return MM_FAIL;
	strided(&ph[PH_READ_AFTER], PH_READ_AFTER, s, false);
	strided(&ph[PH_READ_AGAIN], PH_READ_AGAIN, s, false);
	/* Pages that never left from did not come back either. */
	r.moved_to = n - (double)r.off_to;
	r.moved_back = n - (double)r.off_back - (double)r.off_to;
	if (r.moved_back < 0)
		r.moved_back = 0;
	mm_measure_end(ctx, r.moved_to + r.moved_back, "migrated_page");
	if (round_trip(ctx, s, &r.off_other) != MM_PASS)
		return MM_FAIL;
	strided(&ph[PH_WRITE_AFTER], PH_WRITE_AFTER, s, true);
	mm_phase_end(&whole);
	ad_emit(ctx, ph, &whole, &r);
	return MM_PASS;
}

const struct workload wl_migrate_ad = {
	.name = "migrate_ad",
	.desc = "accessed/dirty bits across NUMA migration: first access after a move, smaps Referenced",
	.params = params,
	.params_size = sizeof(struct ad_params),
	.metrics = metrics,
	.needs = MM_NEED_NUMA2,
	.precheck = ad_precheck,
	.prepare = ad_prepare,
	.run = ad_run,
	.cleanup = ad_cleanup,
};
