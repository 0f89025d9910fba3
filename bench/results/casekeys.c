// SPDX-License-Identifier: GPL-2.0
/*
 * Case strings taken apart (casekeys.h): a key's value, and the keys of a
 * workload's cases split into those that vary and those every case shares.
 * Linked by mmbench (summary) and the result-set readers (mmcompare's
 * tables), so both show a workload's cases by one rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casekeys.h"

bool mm_case_get(const char *kase, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = kase, *end;

	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(end - p - kl - 1), p + kl + 1);
			return true;
		}
		p = *end ? end + 1 : end;
	}
	return false;
}


/* The keys of one case string, each as a malloc'd "key" (no value). */
static int case_keys(const char *kase, char ***keys, int *nkeys)
{
	const char *p = kase, *eq, *end;
	char **k;

	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', end - p);
		if (eq) {
			int i;

			for (i = 0; i < *nkeys; i++)
				if (strlen((*keys)[i]) == (size_t)(eq - p) &&
				    !strncmp((*keys)[i], p, eq - p))
					break;
			if (i == *nkeys) {
				k = realloc(*keys, (*nkeys + 1) * sizeof(*k));
				if (!k)
					return -1;
				*keys = k;
				k[*nkeys] = strndup(p, eq - p);
				if (!k[*nkeys])
					return -1;
				(*nkeys)++;
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* Does KEY have the same value (or absence) in every case? */
static bool key_fixed(const char **cases, size_t n, const char *key,
		      char *first, size_t len)
{
	char v[512];
	bool have0, have;
	size_t i;

	have0 = mm_case_get(cases[0], key, first, len);
	for (i = 1; i < n; i++) {
		have = mm_case_get(cases[i], key, v, sizeof(v));
		if (have != have0 || (have && strcmp(v, first)))
			return false;
	}
	return true;
}

int mm_str_append(char **s, const char *sep, const char *a, const char *b)
{
	size_t n = *s ? strlen(*s) : 0;
	char *r = realloc(*s, n + strlen(sep) + strlen(a) + strlen(b) + 1);

	if (!r)
		return -1;
	if (!n)
		r[0] = '\0';
	else
		strcat(r, sep);
	strcat(strcat(r, a), b);
	*s = r;
	return 0;
}

int mm_case_split(const char **cases, size_t n, char ***vary, int *nvary, char **fixed)
{
	char **keys = NULL, first[512];
	int nkeys = 0, i, rc = 0;
	size_t c;

	for (c = 0; c < n && !rc; c++)
		rc = case_keys(cases[c], &keys, &nkeys);
	*vary = calloc(nkeys + 1, sizeof(**vary));
	if (!*vary)
		rc = -1;
	for (i = 0; i < nkeys; i++) {
		if (rc) {
			free(keys[i]);
		} else if (key_fixed(cases, n, keys[i], first, sizeof(first))) {
			if (mm_case_get(cases[0], keys[i], first, sizeof(first)))
				rc = mm_str_append(fixed, ";", keys[i], "=") ||
				     mm_str_append(fixed, "", first, "");
			free(keys[i]);
		} else {
			(*vary)[(*nvary)++] = keys[i];
		}
	}
	free(keys);
	return rc;
}
