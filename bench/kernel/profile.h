/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel profiles over the measured phase (--profile): system-wide perf
 * sampling, started once per case, enabled exactly between
 * mm_measure_begin() and mm_measure_end() of each measured iteration.
 * Shared by the files in bench/ only; see profile.c.
 */
#ifndef MMBENCH_PROFILE_H
#define MMBENCH_PROFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "mmbench.h"

/* profile.csv and profile_iterations.csv: their headers are in results.h. */

#define MM_PROFILE_DEFAULT_FREQ 499
#define MM_PROFILE_DEFAULT_CAP (64ull << 20)

/*
 * From the command line (the driver). mode: NULL or "flat" (self shares),
 * "callgraph" (also children shares: perf -g). Returns -1 with a message
 * printed for a bad value.
 */
int mm_profile_set(const char *mode);
int mm_profile_set_freq(const char *hz);
int mm_profile_set_cap(const char *size);
int mm_profile_set_kallsyms(const char *path);
bool mm_profile_enabled(void);

/* meta.csv facts of a profiled run (nothing without --profile). */
void mm_profile_facts(void (*kv)(void *o, const char *key, const char *val), void *o);

/* In the case child, around its iterations (driver.c). */
void mm_profile_case_begin(struct mm_ctx *ctx);
/* The case's measured iterations the profile accounted for (0: none). */
int mm_profile_case_end(struct mm_ctx *ctx);
/* In mm_measure_begin()/mm_measure_end() (probe.c). */
void mm_profile_begin(struct mm_ctx *ctx);
void mm_profile_end(struct mm_ctx *ctx);
/* Stop sampling like mm_profile_end() but keep no window: the samples
 * taken since mm_profile_begin() belong to no iteration. */
void mm_profile_discard(struct mm_ctx *ctx);
/* In the driver after every case: the case's temporary files go. */
void mm_profile_after_case(long pid);

#endif
