/* SPDX-License-Identifier: GPL-2.0 */
/*
 * label.h: the label rule, one for mmbench, every tool and the shell's
 * front doors (which ask `mmbench check-label`). A label names a run, a
 * side of a comparison and a directory. The metric name rule is in
 * results.h (mm_metric_name_ok).
 */
#ifndef MM_LABEL_H
#define MM_LABEL_H

#include <stddef.h>

#define MM_LABEL_MAX 100
/* 0 if label may name a run, else -1 with the reason (naming it) in why. */
int mm_label_check(const char *label, char *why, size_t len);
/* s for a message: control characters and '\' as \xNN. */
void mm_escape(const char *s, char *out, size_t len);

#endif
