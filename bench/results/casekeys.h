/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Case strings ("key=value;key=value", sorted by key: results.h) taken
 * apart: one key's value, and a set of cases split into the keys whose
 * value differs between them and the "k=v;k=v" they all share. mmcompare's
 * tables ("Cases vary in: ...", "Fixed: ...") and `mmbench summary` show
 * a workload's cases the same way, from here.
 */
#ifndef MM_CASEKEYS_H
#define MM_CASEKEYS_H

#include <stdbool.h>
#include <stddef.h>

/* KEY's value in KASE into buf; false when KASE has no KEY. */
bool mm_case_get(const char *kase, const char *key, char *buf, size_t len);
/*
 * The keys of cases[0..n) (n >= 1): those whose value (or absence)
 * differs between cases into a malloc'd NULL-terminated *vary (*nvary of
 * them, each malloc'd), the others' "k=v;k=v" into a malloc'd *fixed (NULL
 * when none). 0, or -1 out of memory (what was made is still to be freed).
 */
int mm_case_split(const char **cases, size_t n, char ***vary, int *nvary,
		  char **fixed);
/* *s (malloc'd or NULL) += (sep when *s is not empty) a b; -1 out of memory. */
int mm_str_append(char **s, const char *sep, const char *a, const char *b);

#endif /* MM_CASEKEYS_H */
