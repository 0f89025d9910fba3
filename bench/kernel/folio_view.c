// SPDX-License-Identifier: GPL-2.0
/* Large folios from pagemap and kpageflags: folio_view.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "folio_view.h"

#define PM_PRESENT 63
#define PM_PFN ((1ull << 55) - 1)

int fv_open(struct folio_view *v)
{
	int e = fv_open_pagemap(v);

	if (e == 0)
		e = fv_open_flags(v);
	if (e < 0)
		fv_close(v);
	return e;
}

int fv_open_pagemap(struct folio_view *v)
{
	v->pg = (size_t)sysconf(_SC_PAGESIZE);
	v->kpf_fd = -1;
	v->pm_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	return v->pm_fd >= 0 ? 0 : -errno;
}

int fv_open_flags(struct folio_view *v)
{
	v->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	return v->kpf_fd >= 0 ? 0 : -errno;
}

void fv_close(struct folio_view *v)
{
	if (v->pm_fd >= 0)
		close(v->pm_fd);
	if (v->kpf_fd >= 0)
		close(v->kpf_fd);
	v->pm_fd = v->kpf_fd = -1;
}

int fv_pread(int fd, void *buf, size_t len, off_t off)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

int fv_pfns(const struct folio_view *v, const void *addr, size_t n, uint64_t *pfn)
{
	int ret = fv_pread(v->pm_fd, pfn, n * 8, (off_t)((uintptr_t)addr / v->pg * 8));

	for (size_t i = 0; !ret && i < n; i++)
		pfn[i] = pfn[i] >> PM_PRESENT ? pfn[i] & PM_PFN : 0;
	return ret;
}

int fv_flags(const struct folio_view *v, const uint64_t *pfn, size_t n, uint64_t *flags)
{
	for (size_t i = 0, k; i < n; i += k) {
		int ret;

		k = 1;
		if (!pfn[i]) {
			flags[i] = 0;
			continue;
		}
		while (i + k < n && k < 4096 && pfn[i + k] == pfn[i] + k)
			k++;
		ret = fv_pread(v->kpf_fd, flags + i, k * 8, (off_t)(pfn[i] * 8));
		if (ret < 0)
			return ret;
	}
	return 0;
}

int fv_pmd_thp(const struct folio_view *v, const void *addr, size_t npr,
	       uint64_t *ent, uint64_t *fl)
{
	size_t len = npr * sizeof(uint64_t);
	uint64_t pfn0;

	if (pread(v->pm_fd, ent, len, (off_t)((uintptr_t)addr / v->pg * 8)) != (ssize_t)len)
		return -1;
	pfn0 = ent[0] & PM_PFN;
	if (!(ent[0] >> PM_PRESENT))
		return 0;
	if (!pfn0)
		return -1;	/* PFNs hidden: no CAP_SYS_ADMIN */
	for (size_t i = 1; i < npr; i++)
		if (!(ent[i] >> PM_PRESENT) || (ent[i] & PM_PFN) != pfn0 + i)
			return 0;
	if (pread(v->kpf_fd, fl, len, (off_t)(pfn0 * 8)) != (ssize_t)len)
		return -1;
	if (!(fl[0] >> KPF_HEAD & 1) || !(fl[0] >> KPF_THP & 1))
		return 0;
	for (size_t i = 1; i < npr; i++)
		if (!(fl[i] >> KPF_TAIL & 1))
			return 0;
	return 1;
}

size_t fv_folio_at(const uint64_t *pfn, const uint64_t *flags, size_t i, size_t n,
		   size_t *run)
{
	size_t m = 1;

	*run = 1;
	if (!pfn[i] || !(flags[i] >> KPF_HEAD & 1))
		return 0;
	while (i + m < n && pfn[i + m] == pfn[i] + m && (flags[i + m] >> KPF_TAIL & 1) &&
	       !(flags[i + m] >> KPF_HEAD & 1))
		m++;
	*run = m;
	/* a folio is naturally aligned; a run cut by the region is no folio */
	if (m < 2 || m & (m - 1) || pfn[i] % m || i % m)
		return 0;
	return m;
}

enum fv_shape fv_shape(const struct folio_view *v, const uint64_t *pfn,
		       unsigned int order, uint64_t old_pfn)
{
	size_t m = (size_t)1 << order;
	uint64_t fl[257] = { 0 };	/* order <= 8: the folio and the page after */

	if (m > 256)
		return FV_SPLIT;
	for (size_t k = 0; k < m; k++)
		if (!pfn[k])
			return FV_GONE;
	for (size_t k = 1; k < m; k++)
		if (pfn[k] != pfn[0] + k)
			return FV_SPLIT;
	if (fv_pread(v->kpf_fd, fl, (m + 1) * 8, (off_t)(pfn[0] * 8)) < 0) {
		/* the page after it is past the last PFN */
		if (fv_pread(v->kpf_fd, fl, m * 8, (off_t)(pfn[0] * 8)) < 0)
			return FV_GONE;
		fl[m] = 0;
	}
	if (!(fl[0] >> KPF_HEAD & 1))
		return fl[0] >> KPF_TAIL & 1 ? FV_GREW : FV_SPLIT;
	for (size_t k = 1; k < m; k++)
		if (!(fl[k] >> KPF_TAIL & 1) || fl[k] >> KPF_HEAD & 1)
			return FV_SPLIT;
	if (fl[m] >> KPF_TAIL & 1)
		return FV_GREW;
	return pfn[0] == old_pfn ? FV_UNTOUCHED : FV_MOVED;
}
