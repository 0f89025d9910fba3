// SPDX-License-Identifier: GPL-2.0
/*
 * ref_pageout: the MADV_PAGEOUT loop exactly as EXPERIMENTS.md section 1
 * describes the posted experiment, written for this project from that
 * description (no code taken from will-it-scale or mmtests). It is the
 * reference `make bench-pageout` holds mmbench's pageout against.
 *
 * Kernel path: madvise(MADV_PAGEOUT) -> reclaim_pages() -> try_to_unmap_one()
 * and the refaults of the next read.
 *
 * N processes (forked, each pinned to CPU i % CPUs), each with its own
 * file of SIZE_MB MiB in DIR (written, fsync'd), mapped MAP_PRIVATE,
 * PROT_READ|PROT_WRITE, loop forever: read one byte per page (a volatile
 * load), madvise(whole file, MADV_PAGEOUT), count++. The parent releases
 * them together, lets them run WARMUP_S (default 0), takes the counts,
 * sleeps DURATION_S and takes them again: the posted figure is the total
 * count in that time. Only whole loops count (that is how the posted loop
 * counts). WINDOWS (default 1) windows of DURATION_S follow one another,
 * each counted on its own, as a long run read once a second is: the same
 * processes on the same files, one figure per window.
 *
 * PLACEMENT says where an instance starts. "after" (the default): forked
 * wherever the scheduler puts it and then pinned, as a plain program
 * does; its mm may then have run on two CPUs, and reclaim batches its TLB
 * flushes (one per MADV_PAGEOUT call) instead of flushing page by page.
 * "born": the parent pins itself to the instance's CPU before the fork,
 * so the instance's mm only ever runs there and reclaim flushes page by
 * page: the mode mmbench's pageout runs in (workloads/pageout.md says
 * why). In the guest mmbench is developed in, where a flush traps to the
 * hypervisor, the two differ about fourfold in loops/s; on bare metal,
 * where a local flush does not trap, they should be close (not measured).
 *
 * Usage: ref_pageout INSTANCES SIZE_MB DURATION_S DIR [WARMUP_S [after|born [WINDOWS]]]
 * Prints one line per window: "ref_pageout instances=N size_mb=M
 * duration_s=D placement=P window=W loops=TOTAL loops_per_s=RATE". Exit 0,
 * or 1 with the reason on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#define MAX_INST 256

/* One counter per cache line, so that counting does not share lines. */
struct counter {
	volatile uint64_t loops;
	volatile int ready;
	char pad[64 - sizeof(uint64_t) - sizeof(int)];
};

struct shared {
	volatile int go;
	char pad[60];
	struct counter c[MAX_INST];
};

static int die(const char *what)
{
	fprintf(stderr, "ref_pageout: %s: %s\n", what, strerror(errno));
	return 1;
}

static int make_file(const char *path, size_t len)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	for (size_t off = 0; off < len; off += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			goto err;
	if (fsync(fd) < 0)
		goto err;
	return fd;
err:
	close(fd);
	return -1;
}

static void pin(int i)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(i % (n > 0 ? n : 1)), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* The posted loop. Never returns. */
static void instance(struct shared *sh, int i, int fd, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin(i);
	if (p == MAP_FAILED)
		_exit(1);
	sh->c[i].ready = 1;
	while (!sh->go)
		;
	for (;;) {
		for (size_t off = 0; off < len; off += pg)
			(void)*(volatile char *)(p + off);
		madvise(p, len, MADV_PAGEOUT);
		sh->c[i].loops++;
	}
}

static void sleep_s(double secs)
{
	struct timespec ts;

	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t total_loops(const struct shared *sh, int n)
{
	uint64_t total = 0;

	for (int i = 0; i < n; i++)
		total += sh->c[i].loops;
	return total;
}

int main(int argc, char **argv)
{
	int n, fds[MAX_INST], ret = 1, started = 0, windows;
	pid_t pids[MAX_INST];
	struct shared *sh;
	char path[4096];
	uint64_t total;
	double secs, warm = argc > 5 ? atof(argv[5]) : 0;
	const char *place = argc > 6 ? argv[6] : "after";
	bool born = strcmp(place, "born") == 0;
	cpu_set_t own;
	size_t len;

	windows = argc > 7 ? atoi(argv[7]) : 1;
	if (argc < 5 || argc > 8 || (n = atoi(argv[1])) < 1 || n > MAX_INST ||
	    atoi(argv[2]) < 1 || (secs = atof(argv[3])) <= 0 || warm < 0 ||
	    (!born && strcmp(place, "after") != 0) || windows < 1) {
		fprintf(stderr, "usage: ref_pageout INSTANCES SIZE_MB DURATION_S DIR [WARMUP_S [after|born [WINDOWS]]]\n");
		return 2;
	}
	if (born && sched_getaffinity(0, sizeof(own), &own) < 0)
		return die("sched_getaffinity");
	len = (size_t)atoi(argv[2]) << 20;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return die("mmap of the counters");
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/ref_pageout-%d-%d.dat", argv[4],
			 (int)getpid(), i);
		fds[i] = make_file(path, len);
		unlink(path);
		if (fds[i] < 0) {
			fprintf(stderr, "ref_pageout: creating %s: %s\n", path, strerror(errno));
			goto out;
		}
	}
	for (; started < n; started++) {
		if (born)
			pin(started);
		pids[started] = fork();
		if (pids[started] < 0) {
			die("fork");
			goto out;
		}
		if (pids[started] == 0)
			instance(sh, started, fds[started], len);
	}
	if (born && sched_setaffinity(0, sizeof(own), &own) < 0) {
		die("sched_setaffinity");
		goto out;
	}
	for (int i = 0; i < n; i++)
		while (!sh->c[i].ready)
			usleep(1000);
	sh->go = 1;
	if (warm > 0)
		sleep_s(warm);
	for (int w = 0; w < windows; w++) {
		total = total_loops(sh, n);
		sleep_s(secs);
		total = total_loops(sh, n) - total;
		printf("ref_pageout instances=%d size_mb=%s duration_s=%s placement=%s window=%d loops=%llu loops_per_s=%.6g\n",
		       n, argv[2], argv[3], place, w, (unsigned long long)total, (double)total / secs);
		fflush(stdout);
	}
	ret = 0;
out:
	for (int i = 0; i < started; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < started; i++)
		waitpid(pids[i], NULL, 0);
	return ret;
}
