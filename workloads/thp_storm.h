/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thp_storm's own header, shared by its files: thp_storm.c (the tables,
 * prepare, the storm and the run), thp_storm_setup.c (the case's sizes
 * and each iteration's fragmentation), thp_storm_guard.c (the host guard)
 * and thp_storm_emit.c (the rows). No other file includes it.
 */
#ifndef THP_STORM_H
#define THP_STORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_guard.h"
#include "mmbench.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define MAX_MTHP 16
#define MAX_THREADS 256
#define IO_CHUNK (1u << 20)
/* Never map more than this share of MemAvailable: there is no swap to
 * fall back on, so what is left must hold the page cache and the rest. */
#define CAP_PCT 90
/* The host guard (thp_storm_guard.c). */
#define GUARD_RETRIES 5
#define GUARD_RETRIES_S "5"
#define STEAL_MAX_PCT 5.0
#define FILL_MAX_PCT 15.0
#define FILL_MIN 32	/* THP fills a storm needs for its witness to count */
#define GUARD_RESERVE (128u << 20)

/* Counters named in the results, and context counters (storm_vm_*). */
extern const char *const storm_counters[];
#define N_NAMED 10	/* the named ones come first */

enum fclass { C_BASE, C_MTHP, C_HUGE, C_NCLASS };
/* Sizes of one case, decided before anything is mapped. */
struct plan {
	size_t page, pmd;	/* base page and PMD (THP) size in bytes */
	size_t anon;		/* fragmenting region, multiple of 2 x pmd */
	size_t file;		/* refill file */
	size_t nregions;	/* storm faults in total: anon / pmd / 2 */
	bool ram_file;		/* the file's blocks live in RAM (brd, zram) */
	int threads;
	int nmthp;
	unsigned int mthp_kb[MAX_MTHP];
};

/* Per-thread fault records, allocated and touched in prepare(). */
struct tbuf {
	uint64_t *ns;		/* first-touch time of each fault */
	uint16_t *pages;	/* pages resident in the region right after */
	uint64_t *wait;		/* runqueue wait inside the timed touch, ns */
	/* The host guard's backing by this thread, right before the barrier: */
	size_t gwant, gbacked;	/* bytes to back, bytes that got a THP */
	uint64_t gback_ns;	/* the backing touch */
	uint64_t *gpfn;		/* head PFNs of the backed THPs (root) */
	size_t gnpfn, gcap;
	uint64_t gt0;		/* release of the backed memory */
	struct mm_host_snap gsnap; /* the host's counters right after it */
	uint64_t gfill_ns;	/* the fills of the huge faults (the witness) */
	size_t gnfill;
	unsigned char *vec;	/* mincore vector of one region */
	char *map;		/* this iteration's storm mapping */
	size_t n;		/* regions of this thread */
};

/* Shared with the coordinator after the storm. */
struct slot {
	size_t done;
	int err;		/* errno of a failed mincore */
	long nivcsw;		/* preemptions of this thread during its storm */
	bool schedstat;		/* runqueue waits were read */
};

struct state {
	struct plan pl;
	bool madv, fill, raw, root;
	char path[4200];	/* refill file */
	int fd;
	char *iobuf;
	char *frag;		/* the fragmenting region (aligned) */
	char *frag_map;
	size_t frag_map_len;
	struct tbuf t[MAX_THREADS];
	long long mthp_stat0[MAX_MTHP][2];
	bool noted_pressure;	/* thp_storm_pressure said for this case */
	bool guard;		/* the host guard runs (free page reporting) */
	struct mm_witness fills; /* fill witness of the case's emitted storms, us */
	long long settle_ms;
};

enum storm_guard { GUARD_AUTO, GUARD_OFF };	/* "auto|off" */

struct storm_params {
	long long threads;
	long long anon_pct;
	long long size_mb;	/* MM_UNSET_INT: anon_pct decides */
	long long file_pct;
	bool madvise;
	bool fill;
	const char *mthp;
	bool raw;
	const char *dir;
	int guard;
	long long settle_ms;
};

#ifndef MADV_COLD
#define MADV_COLD 20
#endif

/* What the fragmentation left, emitted only once the iteration counts. */
struct frag_info {
	uint64_t frag_ns, refill_ns;
	long long thp_left_kb;	/* THP still mapped in the fragmenting memory */
	double free_mb, huge_mb; /* free at the storm's start, in >= PMD blocks */
};

struct guard {
	size_t want, backed;	/* bytes to back, bytes that got a THP */
	uint64_t back_ns;	/* the backing touch */
	uint64_t *pfn;		/* head PFN of each backed THP (root), sorted */
	size_t npfn;
	struct mm_host_window w; /* release of the backed memory to storm end */
	double fill_us, fill_base; /* the storm's fill witness, its baseline; 0: none */
	char why[256];		/* what disturbed the storm, "" if nothing */
};

/* thp_storm.c */
enum fclass storm_class(const struct state *s, uint16_t pages);

/* thp_storm_setup.c */
const char *storm_data_dir(struct mm_ctx *ctx);
enum dir_kind { DIR_DISK, DIR_RAM_BLOCK, DIR_SHMEM };
enum dir_kind storm_dir_kind(const char *dir);
int storm_plan_sizes(struct mm_ctx *ctx, struct plan *pl);
char *storm_map_aligned(size_t len, size_t align);
void storm_release_frag(struct state *s);
void storm_buddy_free(size_t page, int order, double *free_mb, double *huge_mb);
int storm_log2(size_t v);
int storm_setup_iteration(struct mm_ctx *ctx, struct state *s, struct frag_info *fi);
void storm_iteration_name(const struct mm_ctx *ctx, char *buf, size_t len);
int storm_check_frag(struct mm_ctx *ctx, const struct frag_info *fi);

/* thp_storm_guard.c */
void storm_note_guard(struct mm_ctx *ctx, struct state *s);
struct folio_view;
void storm_thread_back(struct state *s, struct tbuf *t, const struct folio_view *pm);
void storm_guard_plan(struct state *s);
int storm_guard_gather(struct state *s, struct guard *g);
bool storm_guard_disturbed(struct state *s, struct guard *g);
void storm_emit_guard(struct mm_ctx *ctx, struct state *s, const struct guard *g,
		      int retries);
void storm_guard_free(struct guard *g);
int storm_disturbed(struct mm_ctx *ctx, struct state *s, const struct guard *g,
		    int retries);

/* thp_storm_emit.c */
void storm_emit_frag(struct mm_ctx *ctx, struct state *s, const struct frag_info *fi);
long storm_emit_faults(struct mm_ctx *ctx, struct state *s);
void storm_emit_compaction(struct mm_ctx *ctx, const struct mm_phase *ph);
void storm_mthp_stats(const struct state *s, long long st[][2]);
void storm_emit_mthp_stats(struct mm_ctx *ctx, const struct state *s);
void storm_emit_confirm(struct mm_ctx *ctx, struct state *s, long huge);
void storm_emit_samples(struct mm_ctx *ctx, const struct state *s);
void storm_emit_context(struct mm_ctx *ctx, struct state *s, struct mm_team *team,
			const struct mm_phase *ph, long long rep0, long long steal0);

#endif
