// SPDX-License-Identifier: GPL-2.0
/* Memory backings: see backing.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backing.h"

/* A byte pattern that is never zero, so no page can be a zero page. */
static void fill(char *buf, size_t len, int idx)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(1 + ((i / 4096 + (size_t)idx) % 251));
}

static int anon_create(struct mm_region *r, size_t len, const char *dir, int idx)
{
	(void)dir;
	r->fd = -1;
	r->len = len;
	r->addr = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->addr == MAP_FAILED)
		return -errno;
	fill(r->addr, len, idx);
	return 0;
}

static void unmap_close(struct mm_region *r)
{
	if (r->addr && r->addr != MAP_FAILED)
		munmap(r->addr, r->len);
	if (r->fd >= 0)
		close(r->fd);
	r->addr = NULL;
	r->fd = -1;
}

/*
 * The file is written with write() and fsync'd, so its pages are clean
 * page cache before the mapping exists: MADV_PAGEOUT can drop them
 * without writeback, and reads of a MAP_PRIVATE mapping never copy.
 */
static int file_create(struct mm_region *r, size_t len, const char *dir, int idx)
{
	size_t chunk = 1 << 20, done = 0;
	char *buf = malloc(chunk);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	r->addr = NULL;
	snprintf(r->path, sizeof(r->path), "%s/mmbench-%d-%d.dat", dir,
		 (int)getpid(), idx);
	r->fd = open(r->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (r->fd < 0) {
		free(buf);
		return -errno;
	}
	fill(buf, chunk, idx);
	while (done < len && ret == 0) {
		size_t n = len - done < chunk ? len - done : chunk;

		if (write(r->fd, buf, n) != (ssize_t)n)
			ret = errno ? -errno : -EIO;
		done += n;
	}
	free(buf);
	if (ret == 0 && fsync(r->fd) < 0)
		ret = -errno;
	r->len = len;
	if (ret == 0) {
		r->addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			       r->fd, 0);
		if (r->addr == MAP_FAILED)
			ret = -errno;
	}
	if (ret < 0) {
		unmap_close(r);
		unlink(r->path);
	}
	return ret;
}

static void file_release(struct mm_region *r)
{
	unmap_close(r);
	if (r->path[0])
		unlink(r->path);
	r->path[0] = '\0';
}

static int shmem_create(struct mm_region *r, size_t len, const char *dir, int idx)
{
	(void)dir;
	r->fd = memfd_create("mmbench", MFD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->len = len;
	if (ftruncate(r->fd, (off_t)len) < 0) {
		int e = errno;

		unmap_close(r);
		return -e;
	}
	r->addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->addr == MAP_FAILED) {
		int e = errno;

		unmap_close(r);
		return -e;
	}
	fill(r->addr, len, idx);
	return 0;
}

static const struct mm_backing backings[] = {
	{ "file", false, file_create, file_release },
	{ "anon", true, anon_create, unmap_close },
	{ "shmem", true, shmem_create, unmap_close },
};

const struct mm_backing *mm_backing_find(const char *name)
{
	for (size_t i = 0; i < sizeof(backings) / sizeof(backings[0]); i++)
		if (strcmp(backings[i].name, name) == 0)
			return &backings[i];
	return NULL;
}
