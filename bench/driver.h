/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMBENCH_DRIVER_H
#define MMBENCH_DRIVER_H

#include "core.h"

struct mm_opts {
	int iterations;
	int warmups;
	unsigned int timeout;	/* seconds per case */
	bool verbose;
	char **sets;		/* --set PATH=VALUE, applied in each case */
	int nsets;
};

/* The label rule (params.c): see mm_label_check(). */
#define MM_LABEL_MAX 100
/* 0 if label may name a run, else -1 with the reason (naming it) in why. */
int mm_label_check(const char *label, char *why, size_t len);
/* A decimal number: [-]digits[.digits][e[+-]digits], nothing else. */
bool mm_decimal_real(const char *s);
/* A decimal integer ([-]digits, nothing else): 0, -EINVAL or -ERANGE. */
int mm_parse_decimal(const char *s, long long *out);
/* s for a message: control characters and '\' as \xNN. */
void mm_escape(const char *s, char *out, size_t len);

void mm_driver_signals(void);
int mm_driver_interrupted(void);
/* Apply every --set (journalled); MM_PASS, or MM_FAIL with the reason. */
int mm_apply_sets(const struct mm_opts *o, char *why, size_t len);
int mm_run_case(const struct workload *wl, const struct mm_case *c,
		const struct mm_opts *o);

#endif
