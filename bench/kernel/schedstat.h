/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's scheduler statistics (CONFIG_SCHED_INFO):
 * /proc/thread-self/schedstat holds the time the thread ran on a CPU and
 * the time it waited on a runqueue while runnable (other tasks ran), in
 * ns. A workload opens the file in the measuring thread, outside its
 * measured window, and reads it with pread() around what it times.
 */
#ifndef MMBENCH_SCHEDSTAT_H
#define MMBENCH_SCHEDSTAT_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* The calling thread's schedstat file, O_CLOEXEC; -1 where it is missing. */
int mm_schedstat_open(void);
/*
 * Run and runqueue-wait time so far, ns, from fd; -1 (fd < 0, unreadable).
 * Inline: workloads read it inside their measured loops, around what they
 * time, as they did with a copy of their own.
 */
static inline int mm_schedstat_read(int fd, uint64_t *run, uint64_t *wait)
{
	char buf[96];
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	unsigned long long a, b;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &a, &b) != 2)
		return -1;
	*run = a;
	*wait = b;
	return 0;
}

#endif
