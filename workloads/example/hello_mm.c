// SPDX-License-Identifier: GPL-2.0
/*
 * hello_mm: the cost of first-touch anonymous page faults.
 *
 * Kernel path: a write to a never-touched page of a private anonymous
 * mapping -> handle_mm_fault() -> do_anonymous_page(), which allocates a
 * zeroed page, charges it to the memory cgroup and maps it. Each
 * iteration maps size_mb MiB with THP off for the region (so every base
 * page takes its own fault), writes one byte per page under the clock,
 * proves with mincore() that every page was faulted in, and unmaps.
 *
 * The complete example of workloads/ADDING.md: copy it to workloads/,
 * rename hello_mm, and add one line to workloads/registry.c.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmbench.h"

/* The parameters, as fields: the core fills them once per case. */
struct hello_params {
	long long size_mb;
};

static const struct mm_param params[] = {
	{ MM_PINT(struct hello_params, size_mb), .def = "16", .min = 1,
	  .max = 1024, .help = "anonymous memory touched per iteration, MiB" },
	MM_PARAM_END,
};

/* The evidence first, with its direction and claim; the rest is context. */
static const struct mm_metric metrics[] = {
	{ .name = "fault_ns_per_page", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "a first-touch anonymous page fault costs less" },
	{ .name = "faults_per_page", .better = MM_INFO, .role = MM_CONTEXT },
	MM_METRIC_END,
};

/* Refuse, before any work, what cannot run here. */
static int hello_precheck(struct mm_ctx *ctx)
{
	const struct hello_params *p = ctx->params;
	long long avail_kb = mm_mem_available_kb();

	if (avail_kb > 0 && p->size_mb << 10 > avail_kb / 2)
		return mm_fail(ctx, "size_mb=%lld is more than half of MemAvailable (%lld MiB)",
			       p->size_mb, avail_kb >> 10);
	return MM_PASS;
}

/* One iteration: map, touch every page under the clock, check, emit. */
static int hello_run(struct mm_ctx *ctx)
{
	const struct hello_params *p = ctx->params;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (size_t)p->size_mb << 20;
	size_t npages = len / pg, resident = 0;
	unsigned char *vec = malloc(npages);
	struct mm_phase ph;
	int ret = MM_PASS;
	char *buf;

	if (!vec)
		return mm_err(ctx, "malloc");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		free(vec);
		return mm_err(ctx, "mmap of %zu MiB", len >> 20);
	}
	if (madvise(buf, len, MADV_NOHUGEPAGE) < 0) {
		ret = mm_err(ctx, "madvise(MADV_NOHUGEPAGE)");
		goto out;
	}
	mm_phase_begin(&ph, "touch", RUSAGE_SELF, NULL);
	mm_measure_begin(ctx);
	for (size_t off = 0; off < len; off += pg)
		buf[off] = 1;
	mm_phase_end(&ph);
	mm_measure_end(ctx, (double)npages, "page");
	/* The precondition of the figure: every page was faulted in. */
	if (mincore(buf, len, vec) < 0) {
		ret = mm_err(ctx, "mincore");
		goto out;
	}
	for (size_t i = 0; i < npages; i++)
		resident += vec[i] & 1;
	if (resident != npages) {
		ret = mm_fail(ctx, "precondition failed: %zu of %zu pages resident after the touch",
			      resident, npages);
		goto out;
	}
	mm_emit(ctx, "fault_ns_per_page", (double)mm_phase_ns(&ph) / (double)npages, "ns");
	mm_emit(ctx, "faults_per_page", (double)mm_phase_minflt(&ph) / (double)npages, "faults");
out:
	munmap(buf, len);
	free(vec);
	return ret;
}

const struct workload wl_hello_mm = {
	.name = "hello_mm",
	.desc = "first-touch anonymous page faults: ns per page (the example workload)",
	.params = params,
	.params_size = sizeof(struct hello_params),
	.metrics = metrics,
	.needs = 0,
	.precheck = hello_precheck,
	.run = hello_run,
};
