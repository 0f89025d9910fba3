// SPDX-License-Identifier: GPL-2.0
/*
 * compact_folio's build: each iteration's large folios (mTHP or xfs page
 * cache) found by PFN and kpageflags, the filler between them, and the
 * fragmentation that leaves compaction a reason to move them.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folio_view.h"
#include "migrate_common.h"
#include "compact_folio.h"

/* ---------------------------------------------------------------- build */

void cf_teardown(struct cf_state *s)
{
	if (s->fol_map)
		munmap(s->fol_map, s->fol_map_len);
	if (s->fill)
		munmap(s->fill, s->fill_len);
	if (s->fd >= 0)
		posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
	free(s->pfn);
	free(s->fl);
	free(s->fpfn);
	free(s->f);
	s->fol_map = s->fol = s->fill = NULL;
	s->pfn = s->fl = s->fpfn = NULL;
	s->f = NULL;
}

/* The folio region: anonymous mTHP, or the file read into the page cache. */
int cf_make_folios(struct mm_ctx *ctx, struct cf_state *s)
{
	size_t pmd = s->pb * s->pg;
	volatile char sink = 0;
	char c;

	if (s->src == SRC_ANON) {
		/* aligned to the PMD size, so folio boundaries are region offsets */
		s->fol_map_len = s->fol_len + pmd;
		s->fol_map = mmap(NULL, s->fol_map_len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s->fol_map == MAP_FAILED)
			goto fail;
		s->fol = (char *)(((uintptr_t)s->fol_map + pmd - 1) & ~(uintptr_t)(pmd - 1));
		for (size_t off = 0; off < s->fol_len; off += s->pg)
			s->fol[off] = 1;
		return MM_PASS;
	}
	/* Read page by page: each read that reaches the readahead marker
	 * starts an asynchronous readahead of folios two orders larger than
	 * the marked one, up to the window (xfs_file). A read as large as the
	 * window would start a synchronous readahead each time, of order 2. */
	posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
	for (size_t off = 0; off < s->file_len; off += s->pg)
		if (pread(s->fd, &c, 1, (off_t)off) < 0)
			return mm_err(ctx, "reading '%s'", s->path);
	s->fol_map_len = s->file_len;
	s->fol_map = mmap(NULL, s->file_len, PROT_READ, MAP_SHARED, s->fd, 0);
	if (s->fol_map == MAP_FAILED)
		goto fail;
	s->fol = s->fol_map;
	for (size_t off = 0; off < s->file_len; off += s->pg)
		sink += s->fol[off];
	(void)sink;
	return MM_PASS;
fail:
	s->fol_map = NULL;
	return mm_err(ctx, "mmap of the %zu MiB folio region", s->fol_len >> 20);
}

static int cf_zone_of(const struct cf_state *s, uint64_t pfn)
{
	for (int i = 0; i < s->nz; i++)
		if (pfn >= s->z[i].start && pfn < s->z[i].end)
			return i;
	return -1;
}

/* The node's zones with memory, from /proc/zoneinfo. */
int cf_read_zones(struct cf_state *s)
{
	char line[256], name[32];
	long long spanned = 0, present = 0, start;
	int node = -1;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return -errno;
	s->nz = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2)
			spanned = present = 0;
		else if (sscanf(line, " spanned %lld", &spanned) == 1 ||
			 sscanf(line, " present %lld", &present) == 1)
			continue;
		else if (sscanf(line, " start_pfn: %lld", &start) == 1 &&
			 node == s->node && present > 0 && s->nz < MAX_ZONES) {
			s->z[s->nz].start = (uint64_t)start;
			s->z[s->nz++].end = (uint64_t)(start + spanned);
		}
	}
	fclose(f);
	return s->nz ? 0 : -ENOENT;
}

/* Every large folio of the region: a compound head, then its tails. */
int cf_find_folios(struct mm_ctx *ctx, struct cf_state *s)
{
	size_t n = s->fol_len / s->pg;

	s->pfn = calloc(n, 8);
	s->fl = calloc(n, 8);
	s->f = calloc(n / 2 + 1, sizeof(*s->f));
	if (!s->pfn || !s->fl || !s->f)
		return mm_err(ctx, "calloc");
	if (fv_pfns(&s->fv, s->fol, n, s->pfn) < 0 || fv_flags(&s->fv, s->pfn, n, s->fl) < 0)
		return mm_err(ctx, "reading the folio region's PFNs and page flags");
	s->nf = s->npmd = 0;
	memset(s->by_order, 0, sizeof(s->by_order));
	for (size_t i = 0, run, m; i < n; i += run) {
		m = fv_folio_at(s->pfn, s->fl, i, n, &run);
		if (m >= s->pb)
			s->npmd++;
		if (!m || m >= s->pb)
			continue;
		s->f[s->nf] = (struct folio){ .idx = i, .pfn = s->pfn[i],
			.order = (uint8_t)__builtin_ctzl(m),
			.zone = (uint8_t)cf_zone_of(s, s->pfn[i]) };
		s->by_order[s->f[s->nf].order]++;
		s->nf++;
	}
	return MM_PASS;
}

/*
 * The filler, in two halves: one faulted before the folios are made, one
 * after. Whichever way the allocator walks the zone, one half lies above
 * the folios, where its holes can take them.
 */
int cf_make_filler(struct mm_ctx *ctx, struct cf_state *s, bool second)
{
	size_t n = s->fill_len / s->pg, half = n / 2 * s->pg;

	if (!second) {
		s->fill = mmap(NULL, s->fill_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s->fill == MAP_FAILED) {
			s->fill = NULL;
			return mm_err(ctx, "mmap of the %zu MiB filler", s->fill_len >> 20);
		}
		madvise(s->fill, s->fill_len, MADV_NOHUGEPAGE);
	}
	for (size_t off = second ? half : 0; off < (second ? s->fill_len : half); off += s->pg)
		s->fill[off] = 1;
	if (!second)
		return MM_PASS;
	if (cf_node_bind(s, false) < 0)
		return mm_err(ctx, "set_mempolicy away from node %d", s->node);
	s->fpfn = calloc(n, 8);
	if (!s->fpfn)
		return mm_err(ctx, "calloc");
	if (fv_pfns(&s->fv, s->fill, n, s->fpfn) < 0)
		return mm_err(ctx, "reading the filler's PFNs");
	return MM_PASS;
}

/* ---------------------------------------------------------------- fragment */

static int cf_cmp_pfn(const void *a, const void *b)
{
	const struct folio *x = *(struct folio *const *)a, *y = *(struct folio *const *)b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/*
 * Zone z's threshold: the highest pageblock boundary above a folio such
 * that the movable pages below it (kpageflags LRU, less the filler that
 * will be freed there) fit FIT_NUM/FIT_DEN times into the holes the
 * filler leaves above it. A hole is the first half of a pageblock whose
 * first half is all filler or free: one free page of order pageblock
 * order - 1 once the filler there is freed.
 * Nothing smaller is freed above the threshold: 6.9's compaction_alloc()
 * takes a free page of the folio's order from what the free scanner
 * isolated, and while smaller free pages sit there it isolates no more
 * (isolate_freepages() returns while cc->nr_freepages is nonzero), so a
 * few small free pages would make it split the folios instead.
 */
static int cf_plan_zone(struct cf_state *s, struct zone *z, int zi)
{
	uint64_t b0 = z->start >> s->pbo, nb = ((z->end + s->pb - 1) >> s->pbo) - b0;
	size_t half = s->pb / 2, nfz = 0, step = 4096;
	uint64_t *kpf = malloc(step * 8), *need = calloc(nb + 1, 8), *cap = calloc(nb + 1, 8);
	struct folio **fz = calloc(s->nf + 1, sizeof(*fz));
	int ret = -ENOMEM;

	z->thr = z->start;
	z->planned = 0;
	z->strict = false;
	z->foreign = 0;
	z->b0 = b0;
	free(z->firsthalf);
	z->firsthalf = calloc(nb, sizeof(*z->firsthalf));
	if (!kpf || !need || !cap || !fz || !z->firsthalf)
		goto out;
	for (size_t i = 0; i < s->nf; i++)
		if (s->f[i].zone == zi)
			fz[nfz++] = &s->f[i];
	/* movable pages per block (need[b + 1], made a prefix sum below); a
	 * tail page counts as its head (6.1 shows PG_lru on the head only) */
	for (uint64_t p = z->start, lru = 0; p < z->end; p += step) {
		size_t k = z->end - p < step ? z->end - p : step;

		if ((ret = fv_pread(s->fv.kpf_fd, kpf, k * 8, (off_t)(p * 8))) < 0)
			goto out;
		for (size_t j = 0; j < k; j++) {
			uint64_t b = ((p + j) >> s->pbo) - b0;

			if (!(kpf[j] >> KPF_TAIL & 1))
				lru = kpf[j] >> KPF_LRU & 1;
			need[b + 1] += lru;
			/* a free page in a first half joins the hole */
			z->firsthalf[b] += ((p + j) & (s->pb - 1)) < half && (kpf[j] >> KPF_BUDDY & 1);
		}
	}
	for (size_t i = 0; i < s->fill_len / s->pg; i++) {
		uint64_t p = s->fpfn[i], b = (p >> s->pbo) - b0;

		if (!p || p < z->start || p >= z->end)
			continue;
		if (need[b + 1])
			need[b + 1]--;
		z->firsthalf[b] += (p & (s->pb - 1)) < half;
	}
	for (uint64_t b = 0; b < nb; b++) {
		cap[b] = z->firsthalf[b] == half ? half : 0;
		need[b + 1] += need[b];
	}
	for (uint64_t b = nb; b-- > 0;)
		cap[b] += cap[b + 1];
	qsort(fz, nfz, sizeof(*fz), cf_cmp_pfn);
	/* Where the other movable pages do not fit (a busy machine), the
	 * folios alone: other free holes above may still take the rest. */
	for (int pass = 0; pass < 2 && !z->planned; pass++) {
		uint64_t own = 0;

		for (size_t j = 0; j < nfz; j++)
			own += (uint64_t)1 << fz[j]->order;
		for (size_t j = nfz; j-- > 0; own -= (uint64_t)1 << fz[j]->order) {
			uint64_t b = ((fz[j]->pfn + ((uint64_t)1 << fz[j]->order) + s->pb - 1) >>
				      s->pbo) - b0;

			if (b <= nb && cap[b] * FIT_DEN >= (pass ? own : need[b]) * FIT_NUM) {
				z->thr = (b0 + b) << s->pbo;
				z->planned = j + 1;
				z->strict = !pass;
				z->foreign = need[b] > own ? need[b] - own : 0;
				break;
			}
		}
	}
	ret = 0;
out:
	free(kpf);
	free(need);
	free(cap);
	free(fz);
	return ret;
}

/* A filler page to free: below its zone's threshold, or in a hole above. */
static bool cf_drop_page(const struct cf_state *s, uint64_t p)
{
	const struct zone *z;
	int zi;

	if (!p)
		return false;	/* not present */
	zi = cf_zone_of(s, p);
	if (zi < 0)
		return true;
	z = &s->z[zi];
	if (p < z->thr)
		return true;
	return (p & (s->pb - 1)) < s->pb / 2 && z->firsthalf[(p >> s->pbo) - z->b0] == s->pb / 2;
}

/* Free the filler below each zone's threshold, and half of each block above. */
int cf_fragment(struct mm_ctx *ctx, struct cf_state *s)
{
	size_t n = s->fill_len / s->pg, run = 0, freed = 0;

	s->planned = s->foreign = 0;
	for (int i = 0; i < s->nz; i++) {
		if (cf_plan_zone(s, &s->z[i], i) < 0)
			return mm_fail(ctx, "planning the fragmentation of zone %d: out of memory or /proc/kpageflags unreadable", i);
		s->planned += s->z[i].planned;
		s->foreign += s->z[i].foreign;
	}
	for (size_t i = 0; i <= n; i++) {
		bool drop = false;

		if (i < n)
			drop = cf_drop_page(s, s->fpfn[i]);
		if (drop) {
			run++;
			continue;
		}
		if (run && madvise(s->fill + (i - run) * s->pg, run * s->pg, MADV_DONTNEED) < 0)
			return mm_err(ctx, "madvise(MADV_DONTNEED) of the filler");
		freed += run;
		run = 0;
	}
	for (int i = 0; i < s->nz; i++)
		if (s->z[i].planned)
			mm_log(ctx, "%s%d: %zu of %zu folios below the threshold %#llx (%s fit the holes above); %zu of %zu filler pages freed",
			       ctx->warmup ? "warm-up " : "iteration ", ctx->iteration,
			       s->z[i].planned, s->nf, (unsigned long long)s->z[i].thr,
			       s->z[i].strict ? "every movable page below would" : "only the folios below would",
			       freed, n);
	return MM_PASS;
}
