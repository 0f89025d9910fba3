// SPDX-License-Identifier: GPL-2.0
/* A thread's scheduler statistics: schedstat.h. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "schedstat.h"

int mm_schedstat_open(void)
{
	return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

int mm_schedstat_read(int fd, uint64_t *run, uint64_t *wait)
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
