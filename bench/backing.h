/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory backings combined with workloads: anonymous, file (MAP_PRIVATE
 * over a regular file whose pages live in the page cache) and shmem (a
 * memfd, MAP_SHARED). A workload picks one by name and never cares which.
 */
#ifndef MMBENCH_BACKING_H
#define MMBENCH_BACKING_H

#include <stdbool.h>
#include <stddef.h>

struct mm_region {
	char *addr;
	size_t len;
	int fd;			/* -1 for anon */
	char path[4096];	/* file backing: the file, removed on release */
};

struct mm_backing {
	const char *name;
	/* Reclaiming its pages needs swap (anon and shmem do, file does not). */
	bool needs_swap;
	/* Create and fill the memory (non-zero bytes, written back for files). */
	int (*create)(struct mm_region *r, size_t len, const char *dir, int idx);
	void (*release)(struct mm_region *r);
};

const struct mm_backing *mm_backing_find(const char *name);
#define MM_BACKING_CHOICES "file|anon|shmem"

#endif
