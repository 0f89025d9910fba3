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

/* The calling thread's schedstat file, O_CLOEXEC; -1 where it is missing. */
int mm_schedstat_open(void);
/* Run and runqueue-wait time so far, ns, from fd; -1 (fd < 0, unreadable). */
int mm_schedstat_read(int fd, uint64_t *run, uint64_t *wait);

#endif
