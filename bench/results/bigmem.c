// SPDX-License-Identifier: GPL-2.0
/* Huge-page backed buffers and arenas: see bigmem.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bigmem.h"

#define HPAGE (2ul << 20)
#define PAGE 4096ul
/* Smaller mappings keep base pages: a run of a few hundred rows must not
 * cost a 2 MiB page per array. */
#define HUGE_MIN HPAGE
#define BUF_MIN (64ul << 10)
#define CHUNK_MIN (64ul << 10)
#define CHUNK_MAX (8 * HPAGE)

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/*
 * A mapping of len bytes, a multiple of PAGE. From HUGE_MIN up it starts
 * on a 2 MiB boundary and asks for huge pages, so that every 2 MiB of it
 * can be one.
 */
static void *map_mem(size_t len)
{
	size_t extra = len >= HUGE_MIN ? HPAGE : 0, head;
	uint8_t *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (!extra)
		return p;
	head = round_up((uintptr_t)p, HPAGE) - (uintptr_t)p;
	if (head)
		munmap(p, head);
	munmap(p + head + len, extra - head);
	p += head;
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

int big_reserve(struct big_buf *b, size_t len)
{
	size_t cap;
	void *p;

	if (len <= b->cap)
		return 0;
	if (len > SIZE_MAX / 4)
		return -1;
	cap = b->cap ? b->cap : BUF_MIN;
	while (cap < len)
		cap *= 2;
	p = map_mem(cap);
	if (!p)
		return -1;
	/* the pages move to the new (aligned) place; nothing is copied */
	if (b->p) {
		if (mremap(b->p, b->cap, cap, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED) {
			munmap(p, cap);
			return -1;
		}
		/* the moved mapping keeps the old one's flags */
		if (cap >= HUGE_MIN)
			madvise(p, cap, MADV_HUGEPAGE);
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void big_release(struct big_buf *b)
{
	if (b->p)
		munmap(b->p, b->cap);
	b->p = NULL;
	b->cap = 0;
}

struct big_chunk {
	struct big_chunk *next;
	size_t used, len;
};

/* Chunks double from CHUNK_MIN to CHUNK_MAX as the arena fills. */
void *arena_alloc(struct big_arena *a, size_t len)
{
	struct big_chunk *c = a->head;
	size_t hdr = round_up(sizeof(*c), 16);
	void *p;

	if (len > SIZE_MAX / 4)
		return NULL;
	len = round_up(len, 16);
	if (!c || c->len - c->used < len) {
		size_t clen = c ? 2 * c->len : CHUNK_MIN;

		if (clen > CHUNK_MAX)
			clen = CHUNK_MAX;
		if (clen < hdr + len)
			clen = round_up(hdr + len, PAGE);
		c = map_mem(clen);
		if (!c)
			return NULL;
		c->len = clen;
		c->used = hdr;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c + c->used;
	c->used += len;
	return p;
}

void *arena_realloc(struct big_arena *a, const void *old, size_t oldlen, size_t len)
{
	void *p = arena_alloc(a, len);

	if (p && oldlen)
		memcpy(p, old, oldlen < len ? oldlen : len);
	return p;
}

void arena_splice(struct big_arena *dst, struct big_arena *src)
{
	struct big_chunk *c = src->head;

	if (!c)
		return;
	while (c->next)
		c = c->next;
	/* dst's current chunk stays first: it is the one with room */
	if (dst->head) {
		c->next = dst->head->next;
		dst->head->next = src->head;
	} else {
		dst->head = src->head;
	}
	src->head = NULL;
}

void arena_free(struct big_arena *a)
{
	struct big_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		munmap(c, c->len);
	}
	a->head = NULL;
}

struct big_stream {
	struct big_buf *b;
	size_t *len;
};

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	struct big_stream *s = cookie;

	if (big_reserve(s->b, *s->len + n))
		return -1;
	memcpy((char *)s->b->p + *s->len, buf, n);
	*s->len += n;
	return n;
}

static int stream_close(void *cookie)
{
	free(cookie);
	return 0;
}

FILE *big_memstream(struct big_buf *b, size_t *len)
{
	struct big_stream *s = malloc(sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	s->b = b;
	s->len = len;
	*len = 0;
	f = fopencookie(s, "w", (cookie_io_functions_t){ .write = stream_write,
							 .close = stream_close });
	if (!f)
		free(s);
	return f;
}
