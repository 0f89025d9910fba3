/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compact_folio's own header, shared by its files: compact_folio.c (the
 * tables, precheck, prepare, trigger, classification and the run) and
 * compact_folio_build.c (each iteration's folios, filler and
 * fragmentation). No other file includes it.
 */
#ifndef COMPACT_FOLIO_H
#define COMPACT_FOLIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folio_view.h"
#include "mmbench.h"
#include "scan_trace.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define COMPACT_ALL "/proc/sys/vm/compact_memory"
#define PROACTIVE "/proc/sys/vm/compaction_proactiveness"
#define PCP_FRACTION "/proc/sys/vm/percpu_pagelist_high_fraction"
#define XFS_MAGIC 0x58465342
#define MAX_ZONES 16
#define RETRIES 2		/* more attempts of an iteration that scanned no folio */
#define FIT_NUM 5		/* holes above >= 5/4 of the movable pages below */
#define FIT_DEN 4

enum { SRC_AUTO, SRC_ANON, SRC_XFS };	/* "auto|anon|xfs" */
enum { TRIG_NODE, TRIG_ALL, TRIG_STORM }; /* "node|compact_memory|storm" */

struct cf_params {
	int source;
	long long order;
	long long size_mb;
	long long filler_mb;
	int trigger;
	long long node;
	const char *dir;
	int numa_balancing;
};

struct folio {
	size_t idx;		/* first page in its region */
	uint64_t pfn;		/* head PFN before compaction */
	uint8_t order, zone, cls;
	bool scanned;
};

struct zone {
	uint64_t start, end;	/* PFNs */
	uint64_t thr;		/* block-aligned: folios below it are planned */
	size_t planned;
	bool strict;		/* the zone's other movable pages below fit too */
	uint64_t b0;		/* first pageblock */
	uint64_t foreign;	/* movable pages below thr not ours */
	uint16_t *firsthalf;	/* filler or free pages in each block's first half */
};

struct cf_state {
	int src, order, node, other, pbo; /* other: a node for the rest; pbo: pageblock order */
	size_t pg, pb;
	struct folio_view fv;
	struct scan_trace st;
	int fd;
	char path[4200];
	char *fol, *fol_map, *fill;	/* folio region (aligned), its mapping, filler */
	size_t fol_len, fol_map_len, fill_len, file_len;
	uint64_t *pfn, *fl, *fpfn;	/* folio region PFNs and flags, filler PFNs */
	struct folio *f;
	size_t nf, npmd, planned;
	uint64_t foreign;	/* other movable pages below the thresholds */
	bool settled;		/* a settling compaction ran in this iteration */
	bool measuring;		/* mm_measure_begin() without its end */
	uint64_t settle_floor;	/* others' pages a settling left below, or UINT64_MAX */
	struct zone z[MAX_ZONES];
	int nz;
	size_t ncls[FV_NSHAPES], nscan, ncls_scanned[FV_NSHAPES], by_order[16];
	char split_stat[300];
};

/* ---------------------------------------------------------------- knobs */

/* compact_folio.c */
int cf_node_bind(struct cf_state *s, bool on);

/* compact_folio_build.c */
void cf_teardown(struct cf_state *s);
int cf_make_folios(struct mm_ctx *ctx, struct cf_state *s);
int cf_read_zones(struct cf_state *s);
int cf_find_folios(struct mm_ctx *ctx, struct cf_state *s);
int cf_make_filler(struct mm_ctx *ctx, struct cf_state *s, bool second);
int cf_fragment(struct mm_ctx *ctx, struct cf_state *s);

#endif
