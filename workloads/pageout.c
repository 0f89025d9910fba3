// SPDX-License-Identifier: GPL-2.0
/*
 * pageout: MADV_PAGEOUT loops over private file mappings.
 *
 * Kernel path: madvise(MADV_PAGEOUT) -> madvise_cold_or_pageout_pte_range()
 * -> reclaim_pages() -> shrink_folio_list() -> try_to_unmap() ->
 * try_to_unmap_one() -> folio_remove_rmap_*() and the lruvec statistics
 * update, once per page before the "batched rmap removal" series and once
 * per large-folio range after it (EXPERIMENTS.md section 1). Each instance
 * reads one byte per page (refaulting what was paged out) and pages the
 * whole mapping out again, as fast as it can, for duration_s.
 *
 * The figure is continuous: each loop (read + MADV_PAGEOUT) is timed with
 * CLOCK_MONOTONIC, the loop running when the deadline passes is finished
 * and counted, and an instance's rate is its loops over the nanoseconds
 * they took. Counting whole loops over a fixed wall-clock second, as the
 * posted experiment does, quantises the figure by one loop (about 8% at 12
 * loops a second); this does not.
 *
 * Pages paged out are counted with mincore() after every madvise(): the
 * pages that were resident after the read and are not any more. That is
 * the figure itself, not a vmstat proxy (reclaim_pages() does not move the
 * pgsteal counters on every kernel). The posted loop has no mincore(): it
 * runs between two timed loops, outside their clock reads, and its cost
 * is reported (check_pct).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "backing.h"
#include "mmbench.h"
#include "schedstat.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

/* Counters the reclaim and refault paths move; absent ones are skipped. */
static const char *const counters[] = {
	"pgfault", "pgmajfault", "pgpgin", "pgpgout", "pgactivate",
	"pgdeactivate", "pgrefill", "pgsteal_direct", "pgsteal_kswapd",
	"pgscan_direct", "pgscan_kswapd", "workingset_refault_file",
	"workingset_activate_file", "workingset_refault_anon", "pswpout",
	"pswpin", "thp_split_page", "thp_deferred_split_page",
	NULL,
};

struct slot {
	uint64_t loops;
	uint64_t paged_out;
	uint64_t loop_ns;	/* wall time of the timed loops (read + pageout) */
	uint64_t check_ns;	/* wall time of the mincore() counts between them */
	/* Of loop_ns, from /proc/thread-self/schedstat (CONFIG_SCHED_INFO): */
	uint64_t oncpu_ns;	/* on a CPU */
	uint64_t runq_ns;	/* runnable, waiting while another task ran */
	bool sched;		/* schedstat was readable */
	uint64_t loop_utime_ns;	/* user time inside the measured loop */
	long minflt, majflt;
	int err;		/* errno of a failed madvise/mincore */
};

struct state {
	const struct mm_backing *b;
	struct mm_region *r;
	int n;
	unsigned char *vec;	/* mincore vector, per task copy after fork */
	size_t npages;
};

static const char *def_instances(char *buf, size_t len)
{
	snprintf(buf, len, "%d", mm_ncpus());
	return buf;
}

struct pageout_params {
	long long instances;
	long long size_mb;
	double duration_s;
	const char *dir;
	int backing;		/* a word of MM_BACKING_CHOICES */
};

#define P struct pageout_params
static const struct mm_param params[] = {
	{ MM_PINT(P, instances), .def_fn = def_instances,
	  .min = 1, .max = 4096,
	  .help = "processes, one file each, pinned round-robin (default: CPUs)" },
	{ MM_PINT(P, size_mb), .def = "64", .min = 1, .max = 1 << 20,
	  .help = "size of each instance's file/mapping in MiB" },
	{ MM_PDOUBLE(P, duration_s), .def = "5", .min = 0.05,
	  .max = 86400,
	  .help = "seconds of looping per iteration, after a common start" },
	{ MM_PSTRING(P, dir), .def = "",
	  .help = "directory for the files (default: scratch dir in the run dir)" },
	{ MM_PENUM(P, backing), .def = "file",
	  .choices = MM_BACKING_CHOICES,
	  .help = "file: MAP_PRIVATE file; anon, shmem: need swap" },
	MM_PARAM_END,
};
#undef P

/*
 * The experiment's evidence (EXPERIMENTS.md section 1). The rmap call
 * counts come from --probe (names differ across releases: page_remove_rmap
 * until 6.2, folio_remove_rmap_ptes since 6.9).
 */
#define RMAP_CLAIM "rmap removed once per large folio range, not once per page: fewer calls per paged-out page"
static const struct mm_metric metrics[] = {
	{ .name = "loops_per_s", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "batched rmap removal: more read + MADV_PAGEOUT loops per second (posted +10 % with 96 instances; here each loop timed, not whole loops in a second)" },
	{ .name = "pages_out_per_s", .better = MM_HIGHER, .role = MM_EVIDENCE,
	  .claim = "pages paged out per second by MADV_PAGEOUT" },
	{ .name = "calls_per_page_out:try_to_unmap_one", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = "try_to_unmap_one() handles a large folio in one call, not one per page (posted 19.97 % -> 9.50 % of cycles)" },
	{ .name = "calls_per_page_out:page_remove_rmap", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = RMAP_CLAIM },
	{ .name = "calls_per_page_out:folio_remove_rmap_range", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = RMAP_CLAIM },
	{ .name = "calls_per_page_out:folio_remove_rmap_ptes", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = RMAP_CLAIM },
	{ .name = "calls_per_page_out:__mod_lruvec_page_state", .better = MM_LOWER,
	  .role = MM_EVIDENCE, .claim = "the lruvec statistics updated once per folio range (posted 11.39 % of cycles before)" },
	{ .name = "loops_per_s_per_instance", .better = MM_HIGHER, .role = MM_CONTEXT },
	{ .name = "pages_out_per_loop_pct", .better = MM_INFO, .role = MM_CONTEXT },
	/* Counts over duration_s of wall time, and a share of it: timed. */
	{ .name = "loops", .better = MM_HIGHER, .role = MM_CONTEXT, .timed = true },
	{ .name = "pages_out", .better = MM_INFO, .role = MM_CONTEXT, .timed = true },
	{ .name = "instance_loops_min", .better = MM_INFO, .role = MM_CONTEXT,
	  .timed = true },
	{ .name = "instance_loops_max", .better = MM_INFO, .role = MM_CONTEXT,
	  .timed = true },
	{ .name = "harness_user_outside_loop_pct", .better = MM_INFO,
	  .role = MM_CONTEXT, .timed = true },
	/* Shares of the instances' time (mincore() counts; on a CPU, waiting
	 * on a runqueue): time ratios. */
	{ .name = "check_pct", .better = MM_INFO, .role = MM_CONTEXT, .timed = true },
	{ .name = "loop_oncpu_pct", .better = MM_INFO, .role = MM_CONTEXT, .timed = true },
	{ .name = "loop_runq_wait_pct", .better = MM_INFO, .role = MM_CONTEXT,
	  .timed = true },
	{ .name = "loop_time_mean", .better = MM_LOWER, .role = MM_CONTEXT },
	/* Information; loop_*: the measured phase's rows (time, faults, vmstat). */
	{ .name = "loops_per_s_excl_runq", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "instance_loops_per_s_min", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "minflt", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "majflt", .better = MM_INFO, .role = MM_CONTEXT },
	{ .name = "loop_*", .better = MM_INFO, .role = MM_CONTEXT },
	MM_METRIC_END,
};

static const char *data_dir(struct mm_ctx *ctx)
{
	const struct pageout_params *p = ctx->params;

	return *p->dir ? p->dir : ctx->scratch_dir;
}

/* Refuse, before any work, what cannot run safely here. */
static int pageout_precheck(struct mm_ctx *ctx)
{
	const struct pageout_params *pp = ctx->params;
	char word[16];
	const struct mm_backing *b = mm_backing_find(mm_enum_word(MM_BACKING_CHOICES,
						pp->backing, word, sizeof(word)));
	unsigned long long need = (unsigned long long)pp->instances *
				  (unsigned long long)pp->size_mb << 20;
	long long avail_kb = mm_mem_available_kb();
	long pg = sysconf(_SC_PAGESIZE);
	struct statvfs sv;
	void *p;

	if (b->needs_swap && mm_swap_total_kb() <= 0)
		return mm_skip(ctx, "backing=%s: paging out anon/shmem needs swap, and this machine has none",
			       b->name);
	if (avail_kb > 0 && need / 1024 > (unsigned long long)avail_kb / 2)
		return mm_fail(ctx, "instances x size_mb = %llu MiB is more than half of MemAvailable (%lld MiB)",
			       need >> 20, avail_kb >> 10);
	if (!b->needs_swap) {
		const char *d = data_dir(ctx);

		if (access(d, W_OK) < 0)
			return mm_err(ctx, "dir '%s' is not writable", d);
		if (statvfs(d, &sv) == 0 &&
		    (unsigned long long)sv.f_bavail * sv.f_frsize < need + need / 20)
			return mm_fail(ctx, "dir '%s': %llu MiB free, the files need %llu MiB",
				       d, (unsigned long long)sv.f_bavail * sv.f_frsize >> 20,
				       need >> 20);
	}
	/* MADV_PAGEOUT arrived in 5.4; older kernels answer EINVAL. */
	p = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return mm_err(ctx, "mmap");
	if (madvise(p, (size_t)pg, MADV_PAGEOUT) < 0 && errno == EINVAL) {
		munmap(p, (size_t)pg);
		return mm_skip(ctx, "MADV_PAGEOUT not supported by this kernel (EINVAL)");
	}
	munmap(p, (size_t)pg);
	return MM_PASS;
}

/*
 * The file system decides whether the page cache holds large folios (the
 * series' benefit needs them): record it next to the results.
 */
static const char *fs_name(unsigned long magic)
{
	static const struct { unsigned long magic; const char *name; } fs[] = {
		{ 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" },
		{ 0x01021994, "tmpfs" }, { 0x6969, "nfs" }, { 0x2FC12FC1, "zfs" },
		{ 0x858458f6, "ramfs" },
	};
	static char hex[24];

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (magic == fs[i].magic)
			return fs[i].name;
	snprintf(hex, sizeof(hex), "0x%lx", magic);
	return hex;
}

static void note_fs(struct mm_ctx *ctx, const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) == 0)
		mm_note(ctx, "pageout_fs", "%s", fs_name((unsigned long)sf.f_type));
}

static void pageout_cleanup(struct mm_ctx *ctx)
{
	struct state *s = ctx->priv;

	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		if (s->r[i].addr || s->r[i].fd >= 0)
			s->b->release(&s->r[i]);
	free(s->r);
	free(s->vec);
	free(s);
	ctx->priv = NULL;
}

static int pageout_prepare(struct mm_ctx *ctx)
{
	const struct pageout_params *p = ctx->params;
	size_t len = (size_t)p->size_mb << 20;
	struct state *s = calloc(1, sizeof(*s));
	char word[16];
	int ret;

	if (!s)
		return mm_err(ctx, "calloc");
	ctx->priv = s;
	s->b = mm_backing_find(mm_enum_word(MM_BACKING_CHOICES, p->backing, word,
					   sizeof(word)));
	s->n = (int)p->instances;
	s->npages = len / (size_t)sysconf(_SC_PAGESIZE);
	s->r = calloc((size_t)s->n, sizeof(*s->r));
	s->vec = malloc(s->npages);
	if (!s->r || !s->vec)
		return mm_err(ctx, "calloc");
	for (int i = 0; i < s->n; i++)
		s->r[i].fd = -1;
	if (!s->b->needs_swap)
		note_fs(ctx, data_dir(ctx));
	for (int i = 0; i < s->n; i++) {
		ret = s->b->create(&s->r[i], len, data_dir(ctx), i);
		if (ret < 0) {
			errno = -ret;
			return mm_err(ctx, "creating %s backing %d of %zu MiB in '%s'",
				      s->b->name, i, len >> 20, data_dir(ctx));
		}
	}
	return MM_PASS;
}

static uint64_t utime_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
	       (uint64_t)ru.ru_utime.tv_usec * 1000ull;
}

static size_t resident(const struct mm_region *r, unsigned char *vec, size_t npages)
{
	size_t n = 0;

	if (mincore(r->addr, r->len, vec) < 0)
		return (size_t)-1;
	for (size_t i = 0; i < npages; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * One instance: read a byte per page, page everything out, repeat. The
 * clock is read once after each pageout: a loop's time runs from the end
 * of the previous count (or the start) to the end of its madvise(). The
 * deadline is looked at between loops only, so the loop in progress when
 * it passes is finished and counted with its own time.
 */
static int pageout_task(struct mm_task *t)
{
	struct mm_ctx *ctx = t->arg;
	struct state *s = ctx->priv;
	struct mm_region *r = &s->r[t->id];
	struct slot *sl = t->slot;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int sfd = mm_schedstat_open();
	uint64_t u0, t0, t1, run0 = 0, wait0 = 0, run1, wait1;
	struct rusage r0, r1;

	getrusage(RUSAGE_SELF, &r0);
	mm_task_start(t);
	u0 = utime_ns();
	sl->sched = mm_schedstat_read(sfd, &run0, &wait0) == 0;
	t0 = mm_now_ns();
	while (!mm_task_stop(t)) {
		size_t res;

		for (size_t off = 0; off < r->len; off += pg)
			(void)*(volatile char *)(r->addr + off);
		if (madvise(r->addr, r->len, MADV_PAGEOUT) < 0) {
			sl->err = errno;
			break;
		}
		t1 = mm_now_ns();
		sl->loop_ns += t1 - t0;
		sl->loops++;
		/* Not part of the posted loop: counted, outside the clock. */
		if (sl->sched && mm_schedstat_read(sfd, &run1, &wait1) == 0) {
			sl->oncpu_ns += run1 - run0;
			sl->runq_ns += wait1 - wait0;
		} else {
			sl->sched = false;
		}
		res = resident(r, s->vec, s->npages);
		if (res == (size_t)-1) {
			sl->err = errno;
			break;
		}
		sl->paged_out += s->npages - res;
		if (sl->sched && mm_schedstat_read(sfd, &run0, &wait0) < 0)
			sl->sched = false;
		t0 = mm_now_ns();
		sl->check_ns += t0 - t1;
	}
	if (sfd >= 0)
		close(sfd);
	sl->loop_utime_ns = utime_ns() - u0;
	getrusage(RUSAGE_SELF, &r1);
	sl->minflt = r1.ru_minflt - r0.ru_minflt;
	sl->majflt = r1.ru_majflt - r0.ru_majflt;
	return sl->err ? MM_FAIL : MM_PASS;
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

/* User time of this process and its reaped children, in ns. */
static double all_utime_ns(void)
{
	struct rusage a, b;

	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return tv_ns(&a.ru_utime) + tv_ns(&b.ru_utime);
}

/*
 * Rates from the timed loops: an instance's loops (pages) over its loop
 * nanoseconds, summed over the instances (the posted figure is the total
 * count of all instances in a second). No whole-loop quantisation.
 */
static int emit_results(struct mm_ctx *ctx, struct mm_team *team, int n,
			size_t npages, double outside_ns, double wall_ns)
{
	uint64_t loops = 0, out = 0, lmin = UINT64_MAX, lmax = 0, loop_ns = 0, chk = 0;
	uint64_t oncpu = 0, runq = 0;
	double rate = 0, prate = 0, rmin = 0, xrate = 0;
	bool sched = true;
	long minflt = 0, majflt = 0;

	for (int i = 0; i < n; i++) {
		struct slot *sl = mm_team_slot(team, i);
		double secs = (double)sl->loop_ns / 1e9;
		double ri = secs > 0 ? (double)sl->loops / secs : 0;

		rate += ri;
		sched = sched && sl->sched && sl->loop_ns > sl->runq_ns;
		if (sched)
			xrate += (double)sl->loops / ((double)(sl->loop_ns - sl->runq_ns) / 1e9);
		oncpu += sl->oncpu_ns;
		runq += sl->runq_ns;
		prate += secs > 0 ? (double)sl->paged_out / secs : 0;
		rmin = i == 0 || ri < rmin ? ri : rmin;
		loops += sl->loops;
		out += sl->paged_out;
		loop_ns += sl->loop_ns;
		chk += sl->check_ns;
		minflt += sl->minflt;
		majflt += sl->majflt;
		lmin = sl->loops < lmin ? sl->loops : lmin;
		lmax = sl->loops > lmax ? sl->loops : lmax;
		outside_ns -= (double)sl->loop_utime_ns;
	}
	mm_emit(ctx, "loops", (double)loops, "loops");
	mm_emit(ctx, "loops_per_s", rate, "loops/s");
	mm_emit(ctx, "loops_per_s_per_instance", rate / n, "loops/s");
	mm_emit(ctx, "instance_loops_per_s_min", rmin, "loops/s");
	mm_emit(ctx, "instance_loops_min", (double)lmin, "loops");
	mm_emit(ctx, "instance_loops_max", (double)lmax, "loops");
	mm_emit(ctx, "loop_time_mean", loops ? (double)loop_ns / (double)loops : 0,
		"ns");
	mm_emit(ctx, "pages_out", (double)out, "pages");
	mm_emit(ctx, "pages_out_per_s", prate, "pages/s");
	mm_emit(ctx, "pages_out_per_loop_pct",
		loops ? 100.0 * (double)out / ((double)loops * (double)npages) : 0.0,
		"pct");
	if (sched && loop_ns) {
		mm_emit(ctx, "loop_oncpu_pct", 100.0 * (double)oncpu / (double)loop_ns,
			"pct");
		mm_emit(ctx, "loop_runq_wait_pct", 100.0 * (double)runq / (double)loop_ns,
			"pct");
		mm_emit(ctx, "loops_per_s_excl_runq", xrate, "loops/s");
	}
	mm_emit(ctx, "check_pct", loop_ns + chk ? 100.0 * (double)chk / (double)(loop_ns + chk) : 0,
		"pct");
	mm_emit(ctx, "minflt", (double)minflt, "faults");
	mm_emit(ctx, "majflt", (double)majflt, "faults");
	mm_emit(ctx, "harness_user_outside_loop_pct",
		outside_ns > 0 ? 100.0 * outside_ns / wall_ns : 0.0, "pct");
	return MM_PASS;
}

/*
 * The precondition of the measurement: MADV_PAGEOUT paged out what the
 * loop read. Where it pages out nothing (a file on tmpfs or ramfs without
 * swap: shmem pages need swap; pages mapped by another process are left
 * alone), the loop measured reads of resident pages and no reclaim, the
 * same in every try: the case fails with the reason, nothing emitted.
 */
static int check_paged_out(struct mm_ctx *ctx, struct state *s, struct mm_team *team)
{
	uint64_t loops = 0, out = 0;
	struct statfs sf;
	char fs[32] = "?";

	for (int i = 0; i < s->n; i++) {
		struct slot *sl = mm_team_slot(team, i);

		loops += sl->loops;
		out += sl->paged_out;
	}
	if (out > 0 || loops == 0)
		return MM_PASS;
	if (!s->b->needs_swap && statfs(data_dir(ctx), &sf) == 0)
		snprintf(fs, sizeof(fs), "%s", fs_name((unsigned long)sf.f_type));
	return mm_fail(ctx, "precondition failed in %siteration %d: MADV_PAGEOUT paged out none of the %zu pages read in each of %llu loops (backing=%s%s%s, swap %lld kB): the loop measured no reclaim",
		       ctx->warmup ? "warm-up " : "", ctx->iteration, s->npages,
		       (unsigned long long)loops, s->b->name,
		       s->b->needs_swap ? "" : ", dir on ", s->b->needs_swap ? "" : fs,
		       mm_swap_total_kb());
}

static int pageout_run(struct mm_ctx *ctx)
{
	struct state *s = ctx->priv;
	double secs = ((const struct pageout_params *)ctx->params)->duration_s;
	struct mm_team_opts o = {
		.ntasks = s->n, .threads = false, .pin = true,
		.slot_size = sizeof(struct slot),
		.duration_ns = (uint64_t)(secs * 1e9),
		.fn = pageout_task, .arg = ctx,
	};
	struct mm_team *team = NULL;
	struct mm_phase ph;
	double u0 = all_utime_ns();
	int ret;

	mm_phase_begin(&ph, "loop", RUSAGE_CHILDREN, counters);
	mm_measure_begin(ctx);
	ret = mm_team_run(ctx, &o, &team);
	mm_phase_end(&ph);
	if (ret != MM_PASS) {
		for (int i = 0; team && i < s->n; i++) {
			struct slot *sl = mm_team_slot(team, i);

			if (sl->err) {
				errno = sl->err;
				mm_team_free(team);
				return mm_err(ctx, "instance %d: madvise(MADV_PAGEOUT)/mincore failed", i);
			}
		}
		mm_team_free(team);
		return mm_fail(ctx, "an instance failed");
	}
	ret = check_paged_out(ctx, s, team);
	if (ret != MM_PASS) {
		mm_team_free(team);
		return ret;
	}
	{
		uint64_t out = 0;

		for (int i = 0; i < s->n; i++)
			out += ((struct slot *)mm_team_slot(team, i))->paged_out;
		mm_measure_end(ctx, (double)out, "page_out");
	}
	emit_results(ctx, team, s->n, s->npages, all_utime_ns() - u0,
		     (double)mm_phase_ns(&ph));
	mm_phase_emit(ctx, &ph);
	mm_team_free(team);
	return MM_PASS;
}

const struct workload wl_pageout = {
	.name = "pageout",
	.desc = "MADV_PAGEOUT loops over private file mappings (batched rmap removal)",
	.params = params,
	.params_size = sizeof(struct pageout_params),
	.metrics = metrics,
	.needs = 0,
	.precheck = pageout_precheck,
	.prepare = pageout_prepare,
	.run = pageout_run,
	.cleanup = pageout_cleanup,
};
