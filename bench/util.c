// SPDX-License-Identifier: GPL-2.0
/*
 * System facts and measurement helpers shared by the driver and workloads:
 * /proc/vmstat and /proc/meminfo readers, /proc/self/smaps sums,
 * percentiles. Phases are in phase.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <numa.h>

#include "mmbench.h"

int mm_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int mm_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

int mm_nnodes_with_memory(void)
{
	int n = 0;

	if (numa_available() < 0)
		return 1;
	for (int i = 0; i <= numa_max_node(); i++) {
		long long free_b;

		if (numa_bitmask_isbitset(numa_all_nodes_ptr, i) &&
		    numa_node_size64(i, &free_b) > 0)
			n++;
	}
	return n > 0 ? n : 1;
}

long long mm_meminfo_kb(const char *field)
{
	char line[256];
	size_t flen = strlen(field);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, flen) == 0 && line[flen] == ':') {
			v = strtoll(line + flen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

long long mm_mem_available_kb(void)
{
	return mm_meminfo_kb("MemAvailable");
}

long long mm_swap_total_kb(void)
{
	return mm_meminfo_kb("SwapTotal");
}

bool mm_is_root(void)
{
	return geteuid() == 0;
}

/* The selected word of a "always [madvise] never" style sysfs file. */
static void bracketed_word(char *buf)
{
	char *l = strchr(buf, '['), *r;

	if (!l)
		return;
	r = strchr(l, ']');
	if (!r)
		return;
	*r = '\0';
	memmove(buf, l + 1, (size_t)(r - l));
}

int mm_setting_get(const char *path, char *buf, size_t len)
{
	int ret = mm_read_file(path, buf, len);

	if (ret == 0)
		bracketed_word(buf);
	return ret;
}

const char *mm_thp_mode(char *buf, size_t len)
{
	if (mm_setting_get("/sys/kernel/mm/transparent_hugepage/enabled",
			   buf, len) < 0)
		buf[0] = '\0';
	return buf;
}

/* ---------------------------------------------------------------- smaps */

long long mm_smaps_kb(const void *addr, size_t len, const char *field)
{
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	size_t flen = strlen(field);
	bool in = false;
	long long sum = 0;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		/* A mapping header starts with "start-end " in hex. */
		if (isxdigit((unsigned char)line[0]) &&
		    sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-')) {
			in = a < hi && b > lo;
			continue;
		}
		if (in && strncmp(line, field, flen) == 0)
			sum += strtoll(line + flen, NULL, 10);
	}
	fclose(f);
	return sum;
}

/* ---------------------------------------------------------------- stats */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void mm_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

/* Linear interpolation between closest ranks (type 7, as R and numpy). */
double mm_percentile(const double *sorted, size_t n, double pct)
{
	double pos, frac;
	size_t i;

	if (n == 0)
		return 0.0;
	pos = pct / 100.0 * (double)(n - 1);
	i = (size_t)pos;
	if (i >= n - 1)
		return sorted[n - 1];
	frac = pos - (double)i;
	return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}
