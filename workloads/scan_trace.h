/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where compaction's migrate scanner went: the PFN ranges of the tracepoint
 * compaction:mm_compaction_isolate_migratepages (start_pfn, end_pfn of each
 * isolate_migratepages_block() call; a large folio it steps over lies
 * inside the range too), recorded in a trace instance of the calling
 * process's own, so nothing else of tracefs is touched. The event exists
 * with these fields from Linux 3.x to 6.18 at least.
 */
#ifndef SCAN_TRACE_H
#define SCAN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scan_range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct scan_trace {
	char inst[600];		/* the instance directory, "" when none */
	struct scan_range *r;	/* merged and sorted after st_collect() */
	size_t nr, cap;
	uint64_t lost;		/* events the instance's buffer overran or dropped */
};

/*
 * Create the instance (mmbench_compact_<pid> under TRACEFS/instances) and
 * remove those of dead processes. 0, or -1 with the reason in why.
 */
int st_open(struct scan_trace *t, const char *tracefs, char *why, size_t len);
/* Clear it and record from now on, ranges reaching [lo, hi] only; a buffer
 * for span_blocks pageblocks' worth of events. 0 or -1 (why). */
int st_arm(struct scan_trace *t, uint64_t lo, uint64_t hi, size_t span_blocks,
	   char *why, size_t len);
/* Stop recording, merge the ranges, count lost events. 0 or -1 (why). */
int st_collect(struct scan_trace *t, char *why, size_t len);
/* Did a recorded range cover pfn? */
bool st_covered(const struct scan_trace *t, uint64_t pfn);
void st_close(struct scan_trace *t);

#endif /* SCAN_TRACE_H */
