// SPDX-License-Identifier: GPL-2.0
/* A thread's scheduler statistics: schedstat.h. */
#include <fcntl.h>

#include "schedstat.h"

int mm_schedstat_open(void)
{
	return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}
