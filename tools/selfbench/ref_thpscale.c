// SPDX-License-Identifier: GPL-2.0
/*
 * ref_thpscale: a thpscale-style THP fault storm, written for this project
 * from EXPERIMENTS.md section 4's description of how such a storm works
 * (no code taken from mmtests). It is the reference `make bench-thp` holds
 * mmbench's thp_storm against, timed the usual way.
 *
 * Kernel path: a write fault on a MADV_HUGEPAGE, PMD-aligned anonymous range
 * -> do_huge_pmd_anonymous_page() -> direct compaction when no free 2 MiB
 * block is left, else a base-page fallback.
 *
 * Per iteration: map SIZE_MB of anonymous memory (MADV_HUGEPAGE), touch it,
 * unmap the first half of every 2 MiB chunk, refill the holes with page
 * cache by reading a file of FILE_PCT % of SIZE_MB, then THREADS threads
 * (pinned round-robin) wait on a barrier and fault SIZE_MB / 2 of fresh
 * 2 MiB-aligned regions at once. Each fault is timed with gettimeofday()
 * around the first touch and the fill of the 2 MiB, and classed huge or
 * base afterwards (pagemap + kpageflags THP bit: root; not root, the
 * classes are not known and print as -1). As root the page cache is dropped and
 * memory compacted once at the start, as mmbench's prepare does, so both
 * start from the same state.
 *
 * Usage: ref_thpscale THREADS SIZE_MB FILE_PCT DIR [WARMUPS [ITERATIONS]]
 * Prints per measured iteration: "ref_thpscale iteration=I threads=T
 * faults=N huge=H pct_huge=P fault_both_mean=US fault_huge_mean=US
 * fault_base_mean=US" (a class without faults prints -1).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#define PMD (2ul << 20)
#define IO (1ul << 20)
#define MAX_THREADS 64
#define KPF_THP 22

struct thr {
	pthread_t tid;
	int id;
	char *map;		/* this thread's regions */
	size_t n;		/* regions */
	double *us;		/* per fault */
	signed char *huge;	/* per fault: 1 huge, 0 base, -1 not known */
};

static pthread_barrier_t bar;
static struct thr thr[MAX_THREADS];
static int kpf = -1, pm = -1;

static void pin(int i)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(i % (n > 0 ? n : 1)), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static char *map_aligned(size_t len)
{
	char *m = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (m == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)m + PMD - 1) & ~(PMD - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	munmap(p + len, (size_t)(m + PMD - p));
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* Is the region at p a THP? pagemap PFN + kpageflags THP bit (root). */
static int is_huge(const char *p)
{
	uint64_t e, f;

	if (pm < 0 || kpf < 0 ||
	    pread(pm, &e, 8, (off_t)((uintptr_t)p / 4096 * 8)) != 8 ||
	    !(e >> 63) || !(e & ((1ull << 55) - 1)) ||
	    pread(kpf, &f, 8, (off_t)((e & ((1ull << 55) - 1)) * 8)) != 8)
		return -1;
	return (int)(f >> KPF_THP & 1);
}

static void *storm(void *arg)
{
	struct thr *t = arg;
	struct timeval a, b;

	pin(t->id);
	pthread_barrier_wait(&bar);
	for (size_t i = 0; i < t->n; i++) {
		char *p = t->map + i * PMD;

		gettimeofday(&a, NULL);
		*(volatile char *)p = 1;
		memset(p, 2, PMD);
		gettimeofday(&b, NULL);
		t->us[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 +
			   (double)(b.tv_usec - a.tv_usec);
	}
	return NULL;
}

static int read_file(int fd, char *buf, size_t len)
{
	for (size_t off = 0; off < len; off += IO)
		if (pread(fd, buf, IO, (off_t)off) != (ssize_t)IO)
			return -1;
	return 0;
}

static int make_file(const char *dir, size_t len, char *buf)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/ref_thpscale-%d.dat", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	unlink(path);
	if (fd < 0)
		return -1;
	memset(buf, 0x5a, IO);
	for (size_t off = 0; off < len; off += IO)
		if (write(fd, buf, IO) != (ssize_t)IO)
			return -1;
	fsync(fd);
	return fd;
}

static void reset(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0 && write(fd, "3", 1) < 0)
		perror("ref_thpscale: drop_caches");
	if (fd >= 0)
		close(fd);
	fd = open("/proc/sys/vm/compact_memory", O_WRONLY);
	if (fd >= 0 && write(fd, "1", 1) < 0)
		perror("ref_thpscale: compact_memory");
	if (fd >= 0)
		close(fd);
}

static void report(int it, int threads)
{
	double sum[2] = { 0 }, all = 0;
	size_t n[2] = { 0 }, tot = 0;
	bool known = true;

	for (int k = 0; k < threads; k++)
		for (size_t i = 0; i < thr[k].n; i++) {
			int h = thr[k].huge[i] > 0;

			known = known && thr[k].huge[i] >= 0;
			sum[h] += thr[k].us[i];
			n[h]++;
			all += thr[k].us[i];
			tot++;
		}
	if (!known)
		n[0] = n[1] = 0;
	printf("ref_thpscale iteration=%d threads=%d faults=%zu huge=%ld pct_huge=%.4f fault_both_mean=%.4f fault_huge_mean=%.4f fault_base_mean=%.4f\n",
	       it, threads, tot, known ? (long)n[1] : -1L,
	       known ? 100.0 * (double)n[1] / (double)tot : -1.0, all / (double)tot,
	       n[1] ? sum[1] / (double)n[1] : -1, n[0] ? sum[0] / (double)n[0] : -1);
	fflush(stdout);
}

/* One iteration: fragment, refill, storm, classify. */
static int iteration(int threads, size_t anon, int fd, size_t file, char *buf)
{
	size_t regions = anon / PMD / 2, per = regions / (size_t)threads;
	char *frag = map_aligned(anon);

	if (!frag)
		return -1;
	for (size_t off = 0; off < anon; off += 4096)
		frag[off] = 1;
	for (size_t off = 0; off < anon; off += PMD)
		munmap(frag + off, PMD / 2);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (file && read_file(fd, buf, file) < 0)
		return -1;
	for (int k = 0; k < threads; k++) {
		thr[k].id = k;
		thr[k].n = per + ((size_t)k < regions % (size_t)threads);
		thr[k].map = map_aligned(thr[k].n * PMD);
		if (!thr[k].map)
			return -1;
	}
	pthread_barrier_init(&bar, NULL, (unsigned int)threads);
	for (int k = 0; k < threads; k++)
		pthread_create(&thr[k].tid, NULL, storm, &thr[k]);
	for (int k = 0; k < threads; k++)
		pthread_join(thr[k].tid, NULL);
	pthread_barrier_destroy(&bar);
	for (int k = 0; k < threads; k++)
		for (size_t i = 0; i < thr[k].n; i++)
			thr[k].huge[i] = (signed char)is_huge(thr[k].map + i * PMD);
	for (int k = 0; k < threads; k++)
		munmap(thr[k].map, thr[k].n * PMD);
	for (size_t off = 0; off < anon; off += PMD)
		munmap(frag + off + PMD / 2, PMD / 2);
	return 0;
}

int main(int argc, char **argv)
{
	int threads, warm, iters, fd = -1;
	size_t anon, file, regions;
	char *buf;

	if (argc < 5 || (threads = atoi(argv[1])) < 1 || threads > MAX_THREADS ||
	    atoi(argv[2]) < 4 || atoi(argv[3]) < 0) {
		fprintf(stderr, "usage: ref_thpscale THREADS SIZE_MB FILE_PCT DIR [WARMUPS [ITERATIONS]]\n");
		return 2;
	}
	warm = argc > 5 ? atoi(argv[5]) : 0;
	iters = argc > 6 ? atoi(argv[6]) : 1;
	anon = ((size_t)atoi(argv[2]) << 20) & ~(2 * PMD - 1);
	file = anon / 100 * (size_t)atoi(argv[3]) / IO * IO;
	regions = anon / PMD / 2;
	buf = aligned_alloc(4096, IO);
	if (!buf || regions < (size_t)threads)
		return 2;
	for (int k = 0; k < threads; k++) {
		thr[k].us = calloc(regions, sizeof(double));
		thr[k].huge = calloc(regions, 1);
		if (!thr[k].us || !thr[k].huge)
			return 1;
	}
	fd = make_file(argv[4], file ? file : IO, buf);
	if (fd < 0) {
		fprintf(stderr, "ref_thpscale: refill file in %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (geteuid() == 0)
		reset();
	for (int it = 0; it < warm + iters; it++) {
		if (iteration(threads, anon, fd, file, buf) < 0) {
			fprintf(stderr, "ref_thpscale: iteration %d: %s\n", it, strerror(errno));
			return 1;
		}
		if (it >= warm)
			report(it - warm, threads);
	}
	return 0;
}
