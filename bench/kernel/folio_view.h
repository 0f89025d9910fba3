/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Large folios as user space can see them (root): the PFN of each page of
 * a mapping from /proc/self/pagemap and its flags from /proc/kpageflags.
 * A large folio is a compound head followed by its tails at consecutive
 * PFNs; kpageflags has no order, so the order is the length of that run.
 */
#ifndef FOLIO_VIEW_H
#define FOLIO_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_LRU 5
#define KPF_BUDDY 10
#define KPF_HEAD 15
#define KPF_TAIL 16
#define KPF_UNEVICTABLE 18
#define KPF_THP 22
#define KPF_MLOCKED 33

/* What became of a folio (fv_shape). */
enum fv_shape { FV_UNTOUCHED, FV_MOVED, FV_SPLIT, FV_GONE, FV_GREW, FV_NSHAPES };

struct folio_view {
	int pm_fd, kpf_fd;	/* /proc/self/pagemap, /proc/kpageflags */
	size_t pg;		/* page size */
};

/* Open both files; -errno (the view is then closed). */
int fv_open(struct folio_view *v);
void fv_close(struct folio_view *v);
/* Open pagemap only (PFNs, no flags: kpf_fd -1); -errno. */
int fv_open_pagemap(struct folio_view *v);
/* Then kpageflags (kpf_fd); -errno, the pagemap stays open. */
int fv_open_flags(struct folio_view *v);
/* pread() of len bytes in full; 0 or -errno (-EIO at the end of the file). */
int fv_pread(int fd, void *buf, size_t len, off_t off);
/* The PFN of each of the n pages at addr (0: not present). 0 or -errno. */
int fv_pfns(const struct folio_view *v, const void *addr, size_t n, uint64_t *pfn);
/* The kpageflags of each PFN (0 for PFN 0), runs read at once. 0 or -errno. */
int fv_flags(const struct folio_view *v, const uint64_t *pfn, size_t n, uint64_t *flags);
/*
 * Is the region of npr pages at addr one PMD-mapped THP: its pages present
 * at consecutive PFNs, a compound head with KPF_THP and npr - 1 tails?
 * 1 yes, 0 no, -1 unknown (a read failed, or PFNs hidden: no
 * CAP_SYS_ADMIN). ent and fl are the caller's buffers of npr entries.
 */
int fv_pmd_thp(const struct folio_view *v, const void *addr, size_t npr,
	       uint64_t *ent, uint64_t *fl);
/*
 * The large folio that starts at page i of a region of n pages (its pfn and
 * flags arrays): its page count, a power of two above 1, naturally aligned
 * in PFNs and in the region and whole in it; 0 when there is none; *run
 * gets the pages to step over either way (at least 1).
 */
size_t fv_folio_at(const uint64_t *pfn, const uint64_t *flags, size_t i, size_t n,
		   size_t *run);
/*
 * What became of a folio of 2^order pages whose head was at old_pfn, from
 * the PFNs its pages have now (pfn[0..2^order)): the same folio where it
 * was, moved whole, split, gone (a page not present) or part of a larger
 * folio now. order <= 8.
 */
enum fv_shape fv_shape(const struct folio_view *v, const uint64_t *pfn,
		       unsigned int order, uint64_t old_pfn);

#endif /* FOLIO_VIEW_H */
