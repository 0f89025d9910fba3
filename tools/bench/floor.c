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
 *                 guard does.
 *                 Where the host backs the guest's memory unevenly, the
 *                 storms differ although no harness is involved.
 *
 * The mem and cpu runs stay on memory this process already touched; the
 * thp runs need N x 512 MiB (refused above half of MemAvailable).
 *
 * Prints one line per run: cpu and mem its wall time in milliseconds, thp
 * its mean fault time in microseconds (CLOCK_MONOTONIC, three decimals).
 * Exit 0, 1 when the memory cannot be had, 2 on usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CPU_WORDS 65536		/* 256 KiB of uint32_t */
#define CPU_PASSES 1500
#define MEM_BYTES (1ul << 30)
#define PMD (2ul << 20)
#define THP_BYTES (512ul << 20)
#define THP_BACK (640ul << 20)

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
		if (rep0 >= 0 && rep1 > rep0 && retries < 5) {
			fprintf(stderr, "floor: storm %d: the host took back %lld KiB (reported_kib) during it (%.1f us per fault): run again\n",
				i, rep1 - rep0, us);
			retries++;
			i--;
			continue;
		}
		printf("%.3f\n", us);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *end = NULL;
	long n = argc == 3 ? strtol(argv[2], &end, 10) : 0;
	volatile uint32_t sink;
	char *buf = NULL;

	if (argc == 3 && (end == argv[2] || *end || n < 1 || n > 100000)) {
		fprintf(stderr, "floor: N '%s': a whole number from 1 to 100000\n", argv[2]);
		return 2;
	}
	if (n < 1 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "mem") != 0 &&
		      strcmp(argv[1], "thp") != 0)) {
		fprintf(stderr, "usage: floor cpu|mem|thp N\n");
		return 2;
	}
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
