// SPDX-License-Identifier: GPL-2.0
/*
 * Result-set reader: the string table (every workload, case, metric and
 * file name interned once) and the index of lines and sample sets keyed by
 * four interned pointers.
 */
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resultset_int.h"

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

static int strtab_grow(struct rs_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
	struct str_ent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (!t->e[i].s)
			continue;
		for (j = t->e[i].h & (cap - 1); e[j].s; j = (j + 1) & (cap - 1))
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

/*
 * The one stable copy of p[0..n) and, in *order, when it was first seen;
 * NULL when out of memory.
 */
const char *rs_intern_order(struct rs_set *s, const char *p, size_t n, int *order)
{
	struct rs_strtab *t = s->strs;
	uint64_t h = hash_bytes(p, n);
	size_t i;

	if (2 * (t->n + 1) > t->cap && strtab_grow(t))
		return NULL;
	for (i = h & (t->cap - 1); t->e[i].s; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].h == h && t->e[i].len == n && !memcmp(t->e[i].s, p, n)) {
			*order = t->e[i].order;
			return t->e[i].s;
		}
	}
	t->e[i].s = malloc(n + 1);
	if (!t->e[i].s)
		return NULL;
	memcpy(t->e[i].s, p, n);
	t->e[i].s[n] = '\0';
	t->e[i].h = h;
	t->e[i].len = n;
	t->e[i].order = *order = s->norder++;
	t->n++;
	return t->e[i].s;
}

const char *rs_intern(struct rs_set *s, const char *p, size_t n)
{
	int order;

	return rs_intern_order(s, p, n, &order);
}

void rs_strtab_free(struct rs_strtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->e[i].s);
	free(t->e);
	free(t);
}

/* ------------------------------------------- index keyed by 4 pointers */

static uint64_t hash_key(const void *const k[4])
{
	uint64_t h = 0;
	int i;

	for (i = 0; i < 4; i++)
		h = mix64(h ^ (uint64_t)(uintptr_t)k[i]) + i;
	return h ? h : 1;
}

/* Room for n entries at a load of at most 1/2. */
static int hash_reserve(struct rs_hash *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 1024, i, j;
	struct big_buf mem = { 0 };
	struct hash_ent *e;

	while (2 * n > cap)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	if (big_reserve(&mem, cap * sizeof(*e)))
		return -1;
	e = mem.p;
	for (i = 0; i < t->cap; i++) {
		if (!t->e[i].h)
			continue;
		for (j = t->e[i].h & (cap - 1); e[j].h; j = (j + 1) & (cap - 1))
			;
		e[j] = t->e[i];
	}
	big_release(&t->mem);
	t->mem = mem;
	t->e = e;
	t->cap = cap;
	return 0;
}

/*
 * Find key k; when absent insert it with index *idx. Returns 1 found (idx
 * set), 0 inserted, -1 out of memory.
 */
int rs_hash_get(const struct rs_set *s, struct rs_hash *t, const void *const k[4],
		hash_eq_fn eq, size_t *idx)
{
	uint64_t h = hash_key(k);
	size_t i;

	if (hash_reserve(t, t->n + 1))
		return -1;
	for (i = h & (t->cap - 1); t->e[i].h; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].h == h && eq(s, t->e[i].idx, k)) {
			*idx = t->e[i].idx;
			return 1;
		}
	}
	t->e[i].h = h;
	t->e[i].idx = *idx;
	t->n++;
	return 0;
}

void rs_hash_free(struct rs_hash *t)
{
	if (t)
		big_release(&t->mem);
	free(t);
}
