/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Large memory for mmcompare: anonymous mappings that ask for transparent
 * huge pages (MADV_HUGEPAGE, honoured in THP "madvise" mode). A million-row
 * comparison touches some 200 MB; faulted in 4 KiB at a time that is about
 * 50,000 page faults, which cost more than the parsing itself in a guest.
 * With huge pages one fault maps 2 MiB. Where THP is off the madvise fails
 * harmlessly and the memory is ordinary.
 */
#ifndef MMBENCH_BIGMEM_H
#define MMBENCH_BIGMEM_H

#include <stddef.h>
#include <stdio.h>

/* A growable zero-filled array; grows by mremap, never by copying. */
struct big_buf {
	void *p;
	size_t cap;		/* bytes mapped */
};

/* Make room for at least len bytes. 0, or -1 when out of memory. */
int big_reserve(struct big_buf *b, size_t len);
void big_release(struct big_buf *b);

/* Bump allocation from huge-page chunks, freed all at once. */
struct big_chunk;
struct big_arena {
	struct big_chunk *head;
};

/* len bytes, 16-byte aligned and zeroed; NULL when out of memory. */
void *arena_alloc(struct big_arena *a, size_t len);
/* A new block of len bytes holding the first oldlen bytes of old (which
 * stays allocated until the arena goes): growth without free(). */
void *arena_realloc(struct big_arena *a, const void *old, size_t oldlen, size_t len);
/* Move every chunk of src into dst (the memory stays where it is). */
void arena_splice(struct big_arena *dst, struct big_arena *src);
void arena_free(struct big_arena *a);

/*
 * A stdio stream writing into a big_buf (like open_memstream, which grows
 * by copying and so faults every page twice). Written bytes: *len.
 */
FILE *big_memstream(struct big_buf *b, size_t *len);

#endif /* MMBENCH_BIGMEM_H */
