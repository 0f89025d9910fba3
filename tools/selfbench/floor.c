// SPDX-License-Identifier: GPL-2.0
/*
 * floor: the machine's own spread, timed beside a benchmark's arms so that
 * a CoV target can be read against what the machine allows at that time.
 *
 *   floor cpu N   a fixed loop of loads, multiplies and stores over 256 KiB
 *                 (held in the CPU's caches; about 0.14 s here), N times
 *   floor mem N   memset of a 1 GiB buffer touched once beforehand (the
 *                 memory's write speed, what zeroing a huge page runs at),
 *                 N times
 *   floor thp N   N storms of 256 huge page faults on memory backed right
 *                 before, as thp_storm's host guard does: map 640 MiB
 *                 (MADV_HUGEPAGE), write it, unmap it, then map 512 MiB
 *                 and time the first one-byte write of every 2 MiB (each
 *                 filled after its clock read). Each storm's memory stays
 *                 mapped until the end, so the next lands on other
 *                 physical memory, as one thp_storm iteration's does after
 *                 another's. Prints the mean microseconds per fault. A
 *                 storm during which the host took memory back (the
 *                 kernel's reported_kib moved, where it counts it) is
 *                 said on stderr and run again, at most 5 times, as the
 *                 guard does; then floor gives up (exit 1, the reason).
 *                 Where the host backs the guest's memory unevenly, the
 *                 storms differ although no harness is involved.
 *   floor io N DIR
 *                 the disk's read speed, what a pageout loop mostly waits
 *                 for: a 64 MiB file in DIR (made new, filled, fsync'd,
 *                 removed at the end), N times 16 rounds of dropping its
 *                 pages (POSIX_FADV_DONTNEED, checked with mincore once:
 *                 a file system that keeps them, tmpfs, is refused) and
 *                 reading it whole, 1 MiB per read(); about a second each
 *                 here, as long as one pageout iteration.
 *
 * The mem and cpu runs stay on memory this process already touched; the
 * thp runs need N x 512 MiB (refused above half of MemAvailable).
 *
 * Prints one line per run: cpu, mem and io its wall time in milliseconds,
 * thp its mean fault time in microseconds (CLOCK_MONOTONIC, three
 * decimals). Exit 0, 1 when the memory or the file cannot be had, 2 on
 * usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CPU_WORDS 65536		/* 256 KiB of uint32_t */
#define CPU_PASSES 1500
#define MEM_BYTES (1ul << 30)
#define PMD (2ul << 20)
#define THP_BYTES (512ul << 20)
#define THP_BACK (640ul << 20)
#define THP_RETRIES 5	/* disturbed attempts of one storm before giving up */
#define IO_BYTES (64ul << 20)
#define IO_CHUNK (1ul << 20)
#define IO_ROUNDS 16

static uint32_t cpu_buf[CPU_WORDS];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Each word read, mixed into a running value and written back: work on
 * cached memory with no system call, as much of the kernel's is. (A chain
 * of multiplies alone varied 0.6% here while this varied 4-5%: the
 * machine's spread is in its memory operations, not its arithmetic.)
 */
static uint32_t cpu_run(void)
{
	uint32_t x = 1;

	for (int k = 0; k < CPU_PASSES; k++)
		for (int i = 0; i < CPU_WORDS; i++) {
			x = x * 1664525u + cpu_buf[i];
			cpu_buf[i] = x;
		}
	return x;
}

static long long mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* LEN bytes of anonymous memory on a PMD boundary, MADV_HUGEPAGE; NULL on failure. */
static char *map_huge(size_t len)
{
	char *p = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* One storm on freshly backed memory: mean us per 2 MiB fault, -1 on failure. */
static double thp_run(void)
{
	char *back = map_huge(THP_BACK), *p;
	double sum = 0;

	if (!back)
		return -1;
	memset(back, 1, THP_BACK);
	munmap(back, THP_BACK);
	p = map_huge(THP_BYTES);	/* kept: the next storm lands elsewhere */
	if (!p)
		return -1;
	for (size_t off = 0; off < THP_BYTES; off += PMD) {
		double t0 = now_ms();

		*(volatile char *)(p + off) = 1;
		sum += now_ms() - t0;
		memset(p + off, 2, PMD);
	}
	return sum * 1e3 / (double)(THP_BYTES / PMD);
}

/* KiB the kernel has reported to the host (free page reporting), -1 if not counted. */
static long long reported_kib(void)
{
	FILE *f = fopen("/sys/module/page_reporting/parameters/reported_kib", "r");
	long long kb = -1;

	if (f) {
		if (fscanf(f, "%lld", &kb) != 1)
			kb = -1;
		fclose(f);
	}
	return kb;
}

static int thp_runs(int n)
{
	long long avail = mem_available_kb();
	int retries = 0;

	if (avail < 0 || (long long)n * (long long)(THP_BYTES >> 10) > avail / 2) {
		fprintf(stderr, "floor: %d storms need %lld MiB, over half of MemAvailable (%lld kB)\n",
			n, (long long)n * (long long)(THP_BYTES >> 20), avail);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		long long rep0 = reported_kib(), rep1;
		double us = thp_run();

		if (us < 0) {
			perror("floor: mmap");
			return 1;
		}
		rep1 = reported_kib();
		if (rep0 >= 0 && rep1 > rep0) {
			if (++retries > THP_RETRIES) {
				fprintf(stderr, "floor: storm %d: the host took back memory (reported_kib) during each of %d attempts, the last %lld KiB: no undisturbed storm to time\n",
					i, retries, rep1 - rep0);
				return 1;
			}
			fprintf(stderr, "floor: storm %d: the host took back %lld KiB (reported_kib) during it (%.1f us per fault): run again\n",
				i, rep1 - rep0, us);
			i--;
			continue;
		}
		retries = 0;
		printf("%.3f\n", us);
	}
	return 0;
}

/* Pages of FD's first LEN bytes in the page cache, -1 on error. */
static long resident_pages(int fd, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE), n = 0;
	size_t np = len / (size_t)pg;
	unsigned char *vec = malloc(np);
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (!vec || p == MAP_FAILED || mincore(p, len, vec) < 0)
		n = -1;
	for (size_t i = 0; n >= 0 && i < np; i++)
		n += vec[i] & 1;
	if (p != MAP_FAILED)
		munmap(p, len);
	free(vec);
	return n;
}

/* One io sample: IO_ROUNDS times drop the file's pages and read it whole. */
static double io_run(int fd, char *buf)
{
	double t0 = now_ms();

	for (int r = 0; r < IO_ROUNDS; r++) {
		posix_fadvise(fd, 0, IO_BYTES, POSIX_FADV_DONTNEED);
		for (off_t off = 0; off < (off_t)IO_BYTES; off += IO_CHUNK)
			if (pread(fd, buf, IO_CHUNK, off) != (ssize_t)IO_CHUNK)
				return -1;
	}
	return now_ms() - t0;
}

static int io_runs(int n, const char *dir)
{
	char path[4096], *buf = malloc(IO_CHUNK);
	int fd, ret = 1;
	long res;

	snprintf(path, sizeof(path), "%s/floor-io.%d", dir, (int)getpid());
	fd = buf ? open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (fd < 0) {
		fprintf(stderr, "floor: io: cannot create %s: %s\n", path, strerror(errno));
		free(buf);
		return 1;
	}
	memset(buf, 0x5a, IO_CHUNK);
	for (off_t off = 0; off < (off_t)IO_BYTES; off += IO_CHUNK)
		if (pwrite(fd, buf, IO_CHUNK, off) != (ssize_t)IO_CHUNK) {
			fprintf(stderr, "floor: io: writing %s: %s\n", path,
				errno ? strerror(errno) : "short write");
			goto out;
		}
	if (fsync(fd) < 0) {
		fprintf(stderr, "floor: io: fsync of %s: %s\n", path, strerror(errno));
		goto out;
	}
	posix_fadvise(fd, 0, IO_BYTES, POSIX_FADV_DONTNEED);
	res = resident_pages(fd, IO_BYTES);
	if (res < 0 || res > (long)(IO_BYTES / (size_t)sysconf(_SC_PAGESIZE) / 100)) {
		fprintf(stderr, "floor: io: %s: %ld of its pages stay cached after POSIX_FADV_DONTNEED (a file system in memory?): no disk reads to time\n",
			dir, res);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		double ms = io_run(fd, buf);

		if (ms < 0) {
			fprintf(stderr, "floor: io: reading %s: %s\n", path,
				errno ? strerror(errno) : "short read");
			goto out;
		}
		printf("%.3f\n", ms);
	}
	ret = 0;
out:
	close(fd);
	unlink(path);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	bool io = argc >= 2 && strcmp(argv[1], "io") == 0;
	char *end = NULL;
	long n = argc == 3 + io ? strtol(argv[2], &end, 10) : 0;
	volatile uint32_t sink;
	char *buf = NULL;

	if (argc == 3 + io && (end == argv[2] || *end || n < 1 || n > 100000)) {
		fprintf(stderr, "floor: N '%s': a whole number from 1 to 100000\n", argv[2]);
		return 2;
	}
	if (n < 1 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "mem") != 0 &&
		      strcmp(argv[1], "thp") != 0 && !io)) {
		fprintf(stderr, "usage: floor cpu|mem|thp N | floor io N DIR\n");
		return 2;
	}
	if (io)
		return io_runs((int)n, argv[3]);
	if (strcmp(argv[1], "thp") == 0)
		return thp_runs((int)n);
	if (argv[1][0] == 'm') {
		buf = mmap(NULL, MEM_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("floor: mmap of 1 GiB");
			return 1;
		}
		memset(buf, 1, MEM_BYTES);	/* touched once, outside the clock */
	}
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();

		if (buf) {
			memset(buf, i, MEM_BYTES);
			__asm__ volatile("" : : "r"(buf) : "memory");
		} else {
			sink = cpu_run();
		}
		printf("%.3f\n", now_ms() - t0);
	}
	(void)sink;
	return 0;
}
