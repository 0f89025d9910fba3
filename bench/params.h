/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's side of the workload tables (parameters, metrics, needs):
 * the parameters of a command line and their cases (params.c), filling a
 * workload's parameter struct for a case, and the registry self-check
 * that finds a malformed table at start-up, not mid-run.
 */
#ifndef MMBENCH_PARAMS_H
#define MMBENCH_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"
#include "mmbench.h"

int mm_nparams(const struct workload *wl);
const char *mm_param_default(const struct mm_param *p, char *buf, size_t len);
int mm_param_check(const struct workload *wl, const struct mm_param *p,
		   const char *s, char *out, size_t outlen, char *err,
		   size_t errlen);
/* The -p values of one command line (struct mm_plist, core.h). */
void mm_plist_init(struct mm_plist *pl, const struct workload *wl);
void mm_plist_free(struct mm_plist *pl);
int mm_plist_set(struct mm_plist *pl, const char *kv, char *err, size_t errlen);
/* Validate everything and compute the value lists of every parameter. */
int mm_plist_expand(struct mm_plist *pl, char *err, size_t errlen);
void mm_plist_case(const struct mm_plist *pl, int k, struct mm_case *c);

/*
 * Fill the workload's parameter struct (wl->params_size bytes at dst)
 * from the case's values, through each row's type and offset.
 */
void mm_params_fill(const struct workload *wl, const struct mm_case *c,
		    void *dst);
/*
 * Check one workload's tables: names, types, offsets inside the struct
 * and not overlapping, ranges, enum choices, that every default is a
 * valid value, metric names and needs. 0, or -1 with the first problem
 * (naming the workload and the row) in err.
 */
int mm_workload_check(const struct workload *wl, char *err, size_t len);
/* Every workload of the registry, and no name twice. 0 or -1 and err. */
int mm_registry_check(char *err, size_t len);

/* needs.c: every MM_NEED_* bit; "root,numa2" ("-" for none). */
unsigned int mm_needs_known(void);
void mm_needs_words(unsigned int mask, char *buf, size_t len);
/* Print "name: reason" if a need is not met; returns true if all met. */
bool mm_needs_met(unsigned int needs, char *why, size_t len);

#endif /* MMBENCH_PARAMS_H */
