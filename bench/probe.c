// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel function call counts over the measured phase (--probe FUNC,...).
 * Not implemented yet: with --probe the driver records a skip note and the
 * workload runs without counts.
 */
#include <string.h>

#include "core.h"

static char probe_funcs[1024];

void mm_probe_set(const char *funcs)
{
	snprintf(probe_funcs, sizeof(probe_funcs), "%s", funcs ? funcs : "");
}

void mm_measure_begin(struct mm_ctx *ctx)
{
	(void)ctx;
}

void mm_measure_end(struct mm_ctx *ctx, double units, const char *unit_name)
{
	(void)units;
	(void)unit_name;
	if (probe_funcs[0] && ctx->iteration == 0 && !ctx->warmup)
		mm_note(ctx, "probe", "skipped: kprobe counting not implemented yet");
}
