// SPDX-License-Identifier: GPL-2.0
/*
 * compact_folio: does compaction move a large folio whole?
 *
 * Kernel path: /sys/devices/system/node/nodeN/compact (or compact_memory,
 * or a THP fault's direct compaction) -> compact_zone() ->
 * isolate_migratepages_block(), then migrate_pages() with
 * compaction_alloc(). Before "Enable >0 order folio memory compaction"
 * (Linux 6.9) the migrate scanner stepped over every compound page unless
 * cc->alloc_contig; since then it isolates folios below the target order
 * and compaction_alloc() takes a free page of the folio's own order, so a
 * folio of order 1 to pageblock order - 1 moves in one piece (or is split
 * when none is found). EXPERIMENTS.md section 4; compact_folio.md.
 *
 * One iteration, on one node: large folios (anonymous mTHP, or xfs page
 * cache) between the two halves of a base-page filler, found by pagemap
 * PFNs and kpageflags (folio_view.h); per zone, a pageblock threshold
 * below which the movable pages fit into holes the filler leaves above it
 * (all filler below freed, the first half of each filler block above);
 * compaction, with the PFN ranges its migrate scanner covered
 * (scan_trace.h); every folio classified again. Evidence: the share of
 * the scanned folios moved whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "folio_view.h"
#include "migrate_common.h"
#include "scan_trace.h"
#include "compact_folio.h"

static const char *def_node(char *buf, size_t len)
{
	int n = -1;

	for (int i = 0; mig_nth_mem_node(i) >= 0; i++)
		n = mig_nth_mem_node(i);
	if (n < 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%d", n);
	return buf;
}

#define P struct cf_params
static const struct mm_param params[] = {
	{ MM_PENUM(P, source), .def = "auto", .choices = "auto|anon|xfs",
	  .help = "anon: anonymous mTHP of the order (Linux 6.8+); xfs: page cache of a file on xfs (dir); auto: anon where the kernel has the size, else xfs" },
	{ MM_PINT(P, order), .def = "4", .min = 1, .max = 8,
	  .help = "folio order (4: 64 KiB); xfs: the readahead window, folios grow to this order (2 and up)" },
	{ MM_PINT(P, size_mb), .def = "32", .min = 1, .max = 1 << 16,
	  .help = "memory in large folios, MiB" },
	{ MM_PINT(P, filler_mb), .def = "", .min = 1, .max = 1 << 20,
	  .help = "base-page filler that is left in holes above the folios, MiB (default: 8 x size_mb)" },
	{ MM_PENUM(P, trigger), .def = "node", .choices = "node|compact_memory|storm",
	  .help = "node: the node's compact file; compact_memory: every node; storm: MADV_HUGEPAGE faults over the node's free memory (direct compaction)" },
	{ MM_PINT(P, node), .def_fn = def_node, .min = 0, .max = 4095,
	  .help = "node that holds all the memory (default: the last node with memory)" },
	{ MM_PSTRING(P, dir), .def = "",
	  .help = "xfs: directory on xfs for the file (default: the case's scratch directory)" },
	{ MM_PENUM(P, numa_balancing), .def = "off", .choices = MIG_BALANCING_CHOICES,
	  .help = "off: kernel.numa_balancing=0 for the run (restored after); keep: leave it" },
	MM_PARAM_END,
};
#undef P

static const struct mm_metric metrics[] = {
	{ .name = "moved_whole_pct", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "compaction moves a large folio whole: of the folios its migrate scanner reached, 0% before Linux 6.9 (it stepped over them), most after" },
	{ .name = "folios_scanned", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "folios_moved_whole", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "folios_split", .better = MM_LOWER, .role = MM_CONTEXT },
	{ .name = "scanned_pct", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "precondition_retries", .better = MM_LOWER, .role = MM_CONTEXT },
	/* Information; compact_*: the compaction phase's rows (time, faults, vmstat). */
	{ .name = "folios", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "folios_*", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "mthp_split", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "others_movable_below", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "pmd_folios_left_out", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "scanner_ranges", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "settling_compactions", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "source_anon", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "compact_*", .better = MM_INFO, .role = MM_CONTEXT },
	MM_METRIC_END,
};

static int set_knob(struct mm_ctx *ctx, const char *path, const char *v)
{
	char cur[64];
	int ret;

	if (mm_setting_get(path, cur, sizeof(cur)) == 0 && !strcmp(cur, v))
		return MM_PASS;
	ret = mm_setting_set(path, v);
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "setting %s to %s", path, v);
	}
	return MM_PASS;
}

/* ---------------------------------------------------------------- precheck */

static size_t mthp_kb(int order)
{
	return ((size_t)sysconf(_SC_PAGESIZE) >> 10) << order;
}

static bool has_mthp(int order)
{
	char path[128];

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%zukB/enabled", mthp_kb(order));
	return access(path, F_OK) == 0;
}

static const char *xfs_dir(struct mm_ctx *ctx)
{
	const struct cf_params *p = ctx->params;

	return p->dir[0] ? p->dir : ctx->scratch_dir;
}

static int precheck_source(struct mm_ctx *ctx, int *src)
{
	const struct cf_params *p = ctx->params;
	struct statfs sf;

	*src = p->source;
	if (*src == SRC_AUTO)
		*src = has_mthp((int)p->order) ? SRC_ANON : SRC_XFS;
	if (*src == SRC_ANON && !has_mthp((int)p->order))
		return mm_skip(ctx, "source=anon: this kernel has no %s/hugepages-%zukB (anonymous mTHP sizes come with Linux 6.8; source=xfs uses xfs's page cache)",
			       THP_DIR, mthp_kb((int)p->order));
	if (*src == SRC_ANON)
		return MM_PASS;
	if (p->order < 2)
		return mm_fail(ctx, "source=xfs, order=%lld: readahead makes page-cache folios of order 2 and up", p->order);
	if (statfs(xfs_dir(ctx), &sf) < 0)
		return mm_err(ctx, "statfs of '%s'", xfs_dir(ctx));
	if (sf.f_type != XFS_MAGIC)
		return mm_skip(ctx, "source=xfs: xfs missing: '%s' is not on xfs (file system magic 0x%lx); give dir=, or in the VM lab --vm-fs xfs",
			       xfs_dir(ctx), (unsigned long)sf.f_type);
	return MM_PASS;
}

static void compact_path(const struct cf_params *p, char *buf, size_t len)
{
	if (p->trigger == TRIG_NODE)
		snprintf(buf, len, "/sys/devices/system/node/node%lld/compact", p->node);
	else
		snprintf(buf, len, "%s", COMPACT_ALL);
}

static int cf_precheck(struct mm_ctx *ctx)
{
	const struct cf_params *p = ctx->params;
	char path[128], why[300], tfs[256];
	long long free_b, need, filler;
	int src, ret;

	if (!mm_is_root())
		return mm_skip(ctx, "needs root: PFNs from /proc/self/pagemap, /proc/kpageflags, tracefs and compaction");
	if (p->node > numa_max_node() || numa_node_size64((int)p->node, &free_b) <= 0)
		return mm_fail(ctx, "node=%lld: no such node with memory", p->node);
	compact_path(p, path, sizeof(path));
	if (p->trigger != TRIG_STORM && access(path, W_OK) < 0)
		return mm_skip(ctx, "no writable %s: kernel without CONFIG_COMPACTION", path);
	if (p->trigger == TRIG_STORM && access(THP_DIR "/hpage_pmd_size", F_OK) < 0)
		return mm_skip(ctx, "trigger=storm: no THP in this kernel");
	if (access("/proc/kpageflags", R_OK) < 0)
		return mm_skip(ctx, "no /proc/kpageflags (CONFIG_PROC_PAGE_MONITOR)");
	ret = precheck_source(ctx, &src);
	if (ret != MM_PASS)
		return ret;
	if (mm_tracefs(tfs, sizeof(tfs), why, sizeof(why)) < 0)
		return mm_skip(ctx, "tracefs: %s", why);
	snprintf(path, sizeof(path), "%s/events/compaction/mm_compaction_isolate_migratepages", tfs);
	if (access(path, F_OK) < 0)
		return mm_skip(ctx, "no tracepoint compaction:mm_compaction_isolate_migratepages in %s", tfs);
	filler = p->filler_mb == MM_UNSET_INT ? 8 * p->size_mb : p->filler_mb;
	/* the holes are at most half the filler, and must hold the folios */
	if (filler * FIT_DEN < 2 * p->size_mb * FIT_NUM)
		return mm_fail(ctx, "no fragmentation possible in the memory given: filler_mb=%lld leaves at most %lld MiB of holes for %lld MiB of folios (the holes are half the filler, with room to spare: filler_mb >= %lld)",
			       filler, filler / 2, p->size_mb,
			       (2 * p->size_mb * FIT_NUM + FIT_DEN - 1) / FIT_DEN);
	need = (p->size_mb * (src == SRC_XFS ? 2 : 1) + filler) << 20;
	if (need > free_b / 10 * 8)
		return mm_fail(ctx, "no fragmentation possible in the memory given: the folios%s and the filler need %lld MiB, node %lld has %lld MiB free (at most 80%% usable)",
			       src == SRC_XFS ? " (file and page cache)" : "", need >> 20,
			       p->node, free_b >> 20);
	return mig_balancing_precheck(ctx, p->numa_balancing);
}

/* ---------------------------------------------------------------- prepare */

/*
 * The folios and the filler on the node (MPOL_BIND), and nothing else
 * of ours: the rest (our arrays, the page cache of the results we write)
 * prefers another node where there is one, so it lands neither among the
 * folios nor below them, where compaction would migrate its base pages
 * first (see plan_zone on small free pages).
 */
int cf_node_bind(struct cf_state *s, bool on)
{
	struct bitmask *bm = numa_allocate_nodemask();
	int ret;

	numa_bitmask_setbit(bm, (unsigned int)(on || s->other < 0 ? s->node : s->other));
	if (on)
		ret = set_mempolicy(MPOL_BIND, bm->maskp, bm->size + 1);
	else if (s->other >= 0)
		ret = set_mempolicy(MPOL_PREFERRED, bm->maskp, bm->size + 1);
	else
		ret = set_mempolicy(MPOL_DEFAULT, NULL, 0);
	numa_bitmask_free(bm);
	return ret < 0 ? -errno : 0;
}

/* Only the chosen mTHP size may apply to the folio region: every other
 * size (PMD included) that would ('always', or 'inherit' under a
 * top-level 'always') is set to 'never' for the run. */
static int anon_knobs(struct mm_ctx *ctx, struct cf_state *s)
{
	char top[32], cur[32], path[300], want[64];
	struct dirent *de;
	DIR *d = opendir(THP_DIR);
	int ret = MM_PASS;

	if (!d)
		return mm_err(ctx, "opening %s", THP_DIR);
	mm_setting_get(THP_DIR "/enabled", top, sizeof(top));
	snprintf(want, sizeof(want), "hugepages-%zukB", mthp_kb(s->order));
	while (ret == MM_PASS && (de = readdir(d))) {
		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(path, sizeof(path), THP_DIR "/%s/enabled", de->d_name);
		if (!strcmp(de->d_name, want))
			ret = set_knob(ctx, path, "always");
		else if (mm_setting_get(path, cur, sizeof(cur)) == 0 &&
			 (!strcmp(cur, "always") ||
			  (!strcmp(cur, "inherit") && !strcmp(top, "always"))))
			ret = set_knob(ctx, path, "never");
	}
	closedir(d);
	snprintf(s->split_stat, sizeof(s->split_stat), THP_DIR "/%s/stats/split", want);
	return ret;
}

/* xfs: the file, and the readahead window of the order on its device. */
static int xfs_file(struct mm_ctx *ctx, struct cf_state *s)
{
	char ra[96], val[32], *buf;
	struct stat st;
	int ret = MM_PASS;

	snprintf(s->path, sizeof(s->path), "%s/compact_folio.%d", xfs_dir(ctx), getpid());
	s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (s->fd < 0)
		return mm_err(ctx, "creating '%s'", s->path);
	unlink(s->path);	/* gone with the descriptor, also after a crash */
	buf = malloc(1 << 20);
	if (!buf)
		return mm_err(ctx, "malloc");
	memset(buf, 0x5a, 1 << 20);
	for (size_t off = 0; off < s->file_len && ret == MM_PASS; off += 1 << 20)
		if (pwrite(s->fd, buf, 1 << 20, (off_t)off) != 1 << 20)
			ret = mm_err(ctx, "writing '%s'", s->path);
	free(buf);
	if (ret != MM_PASS || fsync(s->fd) < 0 || fstat(s->fd, &st) < 0)
		return ret != MM_PASS ? ret : mm_err(ctx, "fsync of '%s'", s->path);
	snprintf(ra, sizeof(ra), "/sys/class/bdi/%u:%u/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	snprintf(val, sizeof(val), "%zu", mthp_kb(s->order));
	if (access(ra, W_OK) < 0) {
		mm_log(ctx, "no %s: the readahead window (and so the folio orders) stays the device's", ra);
		return MM_PASS;
	}
	return set_knob(ctx, ra, val);
}

/* A trace instance of our own for the migrate scanner's ranges. */
static int trace_open(struct mm_ctx *ctx, struct cf_state *s)
{
	char tfs[256], why[400];

	if (mm_tracefs(tfs, sizeof(tfs), why, sizeof(why)) < 0 ||
	    st_open(&s->st, tfs, why, sizeof(why)) < 0)
		return mm_fail(ctx, "tracefs: %s", why);
	return MM_PASS;
}

static void cf_cleanup(struct mm_ctx *ctx)
{
	struct cf_state *s = ctx->priv;

	if (!s)
		return;
	st_close(&s->st);
	for (int i = 0; i < MAX_ZONES; i++)
		free(s->z[i].firsthalf);
	if (s->fd >= 0)
		close(s->fd);
	fv_close(&s->fv);
	free(s);
	ctx->priv = NULL;
}

static int cf_prepare(struct mm_ctx *ctx)
{
	const struct cf_params *p = ctx->params;
	struct cf_state *s = calloc(1, sizeof(*s));
	char buf[64];
	int ret;

	if (!s)
		return mm_err(ctx, "calloc");
	ctx->priv = s;
	s->fd = s->fv.pm_fd = s->fv.kpf_fd = -1;
	s->settle_floor = UINT64_MAX;
	s->order = (int)p->order;
	s->node = (int)p->node;
	s->pg = (size_t)sysconf(_SC_PAGESIZE);
	s->pbo = 9;
	if (mm_read_file(THP_DIR "/hpage_pmd_size", buf, sizeof(buf)) == 0)
		for (s->pbo = 0; ((size_t)1 << s->pbo) * s->pg < (size_t)atoll(buf); s->pbo++)
			;
	s->pb = (size_t)1 << s->pbo;
	s->fol_len = s->file_len = (size_t)p->size_mb << 20;
	s->fill_len = (size_t)(p->filler_mb == MM_UNSET_INT ? 8 * p->size_mb : p->filler_mb) << 20;
	ret = precheck_source(ctx, &s->src);
	if (ret != MM_PASS)
		return ret;
	mm_note(ctx, "compact_folio_source", "[%s]: %s", mm_case_string(ctx->c),
		s->src == SRC_ANON ? "anonymous mTHP" : "xfs page cache");
	ret = fv_open(&s->fv);
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "opening /proc/self/pagemap and /proc/kpageflags");
	}
	for (int i = 0; (s->other = mig_nth_mem_node(i)) >= 0 && s->other == s->node; i++)
		;
	if (cf_node_bind(s, false) < 0)
		return mm_err(ctx, "set_mempolicy away from node %d", s->node);
	/*
	 * Proactive compaction would move pages behind our back. Freed pages
	 * go to the per-CPU lists first, which may hold a hundred MiB (their
	 * high mark is tuned up as pages are freed) and are not free pages
	 * to compaction: the holes the filler leaves would not be there. The
	 * smallest lists (batch x 4 pages) keep them in the buddy allocator.
	 */
	if (mig_balancing_off(ctx, p->numa_balancing) != MM_PASS ||
	    (access(PROACTIVE, W_OK) == 0 && set_knob(ctx, PROACTIVE, "0") != MM_PASS) ||
	    (access(PCP_FRACTION, W_OK) == 0 && set_knob(ctx, PCP_FRACTION, "1000000") != MM_PASS))
		return MM_FAIL;
	ret = s->src == SRC_ANON ? anon_knobs(ctx, s) : xfs_file(ctx, s);
	if (ret != MM_PASS)
		return ret;
	return trace_open(ctx, s);
}

static int trace_arm(struct mm_ctx *ctx, struct cf_state *s)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	char why[400];

	for (size_t i = 0; i < s->nf; i++) {
		lo = s->f[i].pfn < lo ? s->f[i].pfn : lo;
		hi = s->f[i].pfn > hi ? s->f[i].pfn : hi;
	}
	if (st_arm(&s->st, lo, hi, (size_t)((hi - lo) >> s->pbo), why, sizeof(why)) < 0)
		return mm_fail(ctx, "trace instance: %s", why);
	return MM_PASS;
}

static int trace_collect(struct mm_ctx *ctx, struct cf_state *s)
{
	char why[400];

	if (st_collect(&s->st, why, sizeof(why)) < 0)
		return mm_fail(ctx, "trace instance: %s", why);
	return MM_PASS;
}

/* ---------------------------------------------------------------- trigger */

/*
 * MADV_HUGEPAGE faults over the node's free memory but 32 MiB: once its
 * free pageblocks are taken, each fault compacts directly (order 9, which
 * 6.9+ lets isolate the folios below it).
 */
static int storm(struct mm_ctx *ctx, struct cf_state *s)
{
	size_t pmd = s->pb * s->pg, len;
	long long free_b;
	char *m;

	numa_node_size64(s->node, &free_b);
	free_b -= 32ll << 20;
	if (free_b < (long long)pmd)
		return MM_PASS;
	len = (size_t)free_b / pmd * pmd;
	m = mmap(NULL, len + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return mm_err(ctx, "mmap of the %zu MiB storm", len >> 20);
	char *a = (char *)(((uintptr_t)m + pmd - 1) & ~(uintptr_t)(pmd - 1));

	madvise(a, len, MADV_HUGEPAGE);
	if (cf_node_bind(s, true) < 0) {
		munmap(m, len + pmd);
		return mm_err(ctx, "set_mempolicy(MPOL_BIND, node %d)", s->node);
	}
	for (size_t off = 0; off < len; off += pmd)
		a[off] = 1;
	cf_node_bind(s, false);
	munmap(m, len + pmd);
	return MM_PASS;
}

static int storm_knobs(struct mm_ctx *ctx)
{
	char cur[32], path[128];

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%zukB/enabled", mthp_kb(9));
	if (access(path, F_OK) < 0)
		snprintf(path, sizeof(path), THP_DIR "/enabled");
	if (mm_setting_get(path, cur, sizeof(cur)) == 0 && !strcmp(cur, "never") &&
	    set_knob(ctx, path, "madvise") != MM_PASS)
		return MM_FAIL;
	if (mm_setting_get(THP_DIR "/defrag", cur, sizeof(cur)) == 0 &&
	    (!strcmp(cur, "never") || !strcmp(cur, "defer")))
		return set_knob(ctx, THP_DIR "/defrag", "madvise");
	return MM_PASS;
}

/* Outside the measurement: the node's compaction, or all of them. */
static void compact_node_now(const struct cf_state *s)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact", s->node);
	if (mm_trigger(path, "1") < 0)
		mm_trigger(COMPACT_ALL, "1");
}

static int trigger(struct mm_ctx *ctx, struct cf_state *s)
{
	const struct cf_params *p = ctx->params;
	char path[128];
	int ret;

	if (p->trigger == TRIG_STORM)
		return storm(ctx, s);
	compact_path(p, path, sizeof(path));
	ret = mm_trigger(path, "1");
	if (ret < 0) {
		errno = -ret;
		return mm_err(ctx, "writing %s", path);
	}
	return MM_PASS;
}

/* ---------------------------------------------------------------- classify */

/*
 * Splitting a page-cache folio unmaps it (no migration entries for file
 * folios), so the region is faulted in again first; a page that left the
 * page cache altogether (mincore) counts as gone, not refaulted.
 */
static int refault(struct mm_ctx *ctx, struct cf_state *s, uint64_t *now)
{
	size_t n = s->fol_len / s->pg;
	unsigned char *vec = malloc(n);
	volatile char sink = 0;

	if (!vec || mincore(s->fol, s->fol_len, vec) < 0) {
		free(vec);
		return mm_err(ctx, "mincore of the file mapping");
	}
	for (size_t i = 0; i < n; i++)
		if (vec[i] & 1)
			sink += s->fol[i * s->pg];
	(void)sink;
	if (fv_pfns(&s->fv, s->fol, n, now) < 0) {
		free(vec);
		return mm_err(ctx, "reading the folio region's PFNs");
	}
	for (size_t i = 0; i < n; i++)
		now[i] = vec[i] & 1 ? now[i] : 0;
	free(vec);
	return MM_PASS;
}

static int classify(struct mm_ctx *ctx, struct cf_state *s)
{
	size_t n = s->fol_len / s->pg;
	uint64_t *now = calloc(n, 8);

	if (!now)
		return mm_err(ctx, "calloc");
	if (s->src == SRC_XFS ? refault(ctx, s, now) != MM_PASS :
	    fv_pfns(&s->fv, s->fol, n, now) < 0) {
		free(now);
		return s->src == SRC_XFS ? MM_FAIL : mm_err(ctx, "reading the folio region's PFNs");
	}
	memset(s->ncls, 0, sizeof(s->ncls));
	memset(s->ncls_scanned, 0, sizeof(s->ncls_scanned));
	s->nscan = 0;
	for (size_t i = 0; i < s->nf; i++) {
		struct folio *f = &s->f[i];

		f->cls = (uint8_t)fv_shape(&s->fv, now + f->idx, f->order, f->pfn);
		f->scanned = st_covered(&s->st, f->pfn);
		s->ncls[f->cls]++;
		if (f->scanned) {
			s->nscan++;
			s->ncls_scanned[f->cls]++;
		}
	}
	free(now);
	return MM_PASS;
}

/* ---------------------------------------------------------------- run */

static const char *const counters[] = {
	"compact_migrate_scanned", "compact_free_scanned", "compact_isolated",
	"pgmigrate_success", "pgmigrate_fail", "compact_stall", "compact_success",
	"compact_fail", "thp_fault_alloc", "thp_fault_fallback", "thp_split_page",
	"pgsteal_kswapd", "pgsteal_direct",
	NULL,
};

static void emit_all(struct mm_ctx *ctx, struct cf_state *s, const struct mm_phase *ph,
		     long long split0, int retries)
{
	char name[32], buf[32];
	size_t unreached = s->nf - s->nscan;

	mm_emit(ctx, "moved_whole_pct", 100.0 * (double)s->ncls_scanned[FV_MOVED] / (double)s->nscan,
		"%");
	mm_emit(ctx, "folios_scanned", (double)s->nscan, "folios");
	mm_emit(ctx, "folios_moved_whole", (double)s->ncls_scanned[FV_MOVED], "folios");
	mm_emit(ctx, "folios_split", (double)s->ncls_scanned[FV_SPLIT], "folios");
	mm_emit(ctx, "folios_untouched", (double)s->ncls_scanned[FV_UNTOUCHED], "folios");
	mm_emit(ctx, "folios_gone", (double)s->ncls[FV_GONE], "folios");
	mm_emit(ctx, "folios_grew", (double)s->ncls[FV_GREW], "folios");
	mm_emit(ctx, "folios_not_reached", (double)unreached, "folios");
	mm_emit(ctx, "folios_changed_not_reached",
		(double)(s->nf - s->ncls[FV_UNTOUCHED] - (s->nscan - s->ncls_scanned[FV_UNTOUCHED])),
		"folios");
	mm_emit(ctx, "folios", (double)s->nf, "folios");
	mm_emit(ctx, "folios_planned", (double)s->planned, "folios");
	mm_emit(ctx, "scanned_pct", 100.0 * (double)s->nscan / (double)s->nf, "%");
	mm_emit(ctx, "pmd_folios_left_out", (double)s->npmd, "folios");
	for (int k = 1; k < 16; k++)
		if (s->by_order[k]) {
			snprintf(name, sizeof(name), "folios_order_%d", k);
			mm_emit(ctx, name, (double)s->by_order[k], "folios");
		}
	mm_emit(ctx, "source_anon", s->src == SRC_ANON, "bool");
	mm_emit(ctx, "scanner_ranges", (double)s->st.nr, "ranges");
	if (split0 >= 0 && mm_read_file(s->split_stat, buf, sizeof(buf)) == 0)
		mm_emit(ctx, "mthp_split", (double)(atoll(buf) - split0), "folios");
	mm_emit(ctx, "precondition_retries", retries, "attempts");
	mm_emit(ctx, "others_movable_below", (double)s->foreign, "pages");
	mm_emit(ctx, "settling_compactions", s->settled, "compactions");
	mm_phase_emit(ctx, ph);
}

static void measure_discard(struct mm_ctx *ctx, struct cf_state *s)
{
	if (s->measuring)
		mm_measure_discard(ctx);
	s->measuring = false;
}

static int attempt(struct mm_ctx *ctx, struct cf_state *s, struct mm_phase *ph, long long *split0)
{
	const struct cf_params *p = ctx->params;
	char buf[64];
	int ret;

	if (cf_read_zones(s) < 0)
		return mm_fail(ctx, "node %d: no zone with memory in /proc/zoneinfo", s->node);
	/* start from packed memory: what is free lies in large blocks */
	compact_node_now(s);
	if (cf_node_bind(s, true) < 0)
		return mm_err(ctx, "set_mempolicy(MPOL_BIND, node %d)", s->node);
	if ((ret = cf_make_filler(ctx, s, false)) != MM_PASS || (ret = cf_make_folios(ctx, s)) != MM_PASS ||
	    (ret = cf_make_filler(ctx, s, true)) != MM_PASS || (ret = cf_find_folios(ctx, s)) != MM_PASS)
		return ret;
	if (!s->nf)
		return mm_fail(ctx, "no large folio below pageblock order was made (%zu of PMD size): %s",
			       s->npmd, s->src == SRC_ANON ? "the mTHP allocations fell back to base pages" :
			       "the file's page cache has no large folios");
	if ((ret = cf_fragment(ctx, s)) != MM_PASS || !s->planned)
		return ret;	/* no plan: nothing scanned, cf_run retries */
	/*
	 * Other processes' movable pages below the folios (in a fresh guest,
	 * the initramfs's files lie at the bottom of a node) are migrated
	 * before them, and the small free pages their migration leaves make
	 * 6.9+ split the folios that follow (plan_zone). Once per iteration
	 * a compaction of this layout, unmeasured, moves them up into the
	 * holes; the layout is then built again. What it left (pages that do
	 * not migrate) is the floor: later iterations settle only above it.
	 */
	if (s->settled && s->settle_floor == UINT64_MAX)
		s->settle_floor = s->foreign;	/* what a settling leaves: not moved by it */
	if (s->foreign && !s->settled &&
	    (s->settle_floor == UINT64_MAX || s->foreign > s->settle_floor)) {
		mm_log(ctx, "%siteration %d: %llu movable pages of others below the folios: one unmeasured compaction moves them away, then the layout is built again",
		       ctx->warmup ? "warm-up " : "", ctx->iteration, (unsigned long long)s->foreign);
		s->settled = true;
		compact_node_now(s);
		cf_teardown(s);
		return attempt(ctx, s, ph, split0);
	}
	if ((ret = trace_arm(ctx, s)) != MM_PASS)
		return ret;
	if (p->trigger == TRIG_STORM && (ret = storm_knobs(ctx)) != MM_PASS)
		return ret;
	*split0 = mm_read_file(s->split_stat, buf, sizeof(buf)) == 0 ? atoll(buf) : -1;
	mm_phase_begin(ph, "compact", RUSAGE_SELF, counters);
	mm_measure_begin(ctx);
	s->measuring = true;
	ret = trigger(ctx, s);
	mm_phase_end(ph);
	if (ret == MM_PASS)
		ret = trace_collect(ctx, s);
	if (ret == MM_PASS)
		ret = classify(ctx, s);
	if (ret != MM_PASS)
		measure_discard(ctx, s);
	return ret;
}

static int cf_run(struct mm_ctx *ctx)
{
	struct cf_state *s = ctx->priv;
	struct mm_phase ph;
	long long split0 = -1;
	int ret, retries = 0;

	s->settled = false;
again:
	s->nscan = s->planned = 0;
	ret = attempt(ctx, s, &ph, &split0);
	if (ret == MM_PASS && s->st.lost) {
		measure_discard(ctx, s);
		ret = mm_fail(ctx, "the trace instance lost %llu events of the migrate scanner: the ranges it covered are not known",
			      (unsigned long long)s->st.lost);
	}
	/*
	 * The preconditions: the layout has folios below a threshold (the
	 * plan), and compaction's migrate scanner reached at least one
	 * folio. Where either failed, nothing of the attempt is emitted; the
	 * layout is made afresh (it lands elsewhere), at most RETRIES more
	 * times.
	 */
	if (ret == MM_PASS && !s->nscan) {
		measure_discard(ctx, s);
		cf_teardown(s);
		if (retries < RETRIES) {
			mm_log(ctx, "%siteration %d: %s: nothing emitted, retry %d of %d",
			       ctx->warmup ? "warm-up " : "", ctx->iteration,
			       s->planned ? "the migrate scanner reached none of the folios" :
			       "no folio below a threshold (no fragmentation possible)",
			       retries + 1, RETRIES);
			retries++;
			goto again;
		}
		if (!s->planned)
			return mm_fail(ctx, "no fragmentation possible in the memory given: in %d attempts, in no zone of node %d did the movable pages below a folio fit into the holes the %zu MiB filler left above it (give a larger filler_mb, or a smaller size_mb)",
				       retries + 1, s->node, s->fill_len >> 20);
		return mm_fail(ctx, "precondition failed in %siteration %d: in %d attempts compaction's migrate scanner reached none of the large folios (the last: %zu folios, %zu planned below the thresholds, %zu ranges covered)",
			       ctx->warmup ? "warm-up " : "", ctx->iteration, retries + 1,
			       s->nf, s->planned, s->st.nr);
	}
	if (ret == MM_PASS) {
		s->measuring = false;
		mm_measure_end(ctx, (double)s->nscan, "scanned_folio");
		emit_all(ctx, s, &ph, split0, retries);
	}
	cf_teardown(s);
	return ret;
}

const struct workload wl_compact_folio = {
	.name = "compact_folio",
	.desc = "large folios (mTHP or xfs page cache) under compaction: moved whole, split or untouched, by PFN and kpageflags",
	.params = params,
	.params_size = sizeof(struct cf_params),
	.metrics = metrics,
	.needs = MM_NEED_ROOT | MM_NEED_TRACEFS,
	.precheck = cf_precheck,
	.prepare = cf_prepare,
	.run = cf_run,
	.cleanup = cf_cleanup,
};
