// SPDX-License-Identifier: GPL-2.0
/*
 * Teams of tasks: N processes or threads pinned round-robin to PUs with
 * hwloc, released together by one process-shared barrier, and stopped
 * together by a shared flag the coordinator raises at the deadline. Result
 * slots live in one MAP_SHARED region, each on its own cache lines so
 * tasks do not false-share while they count.
 * A task process dies with the case process that forked it
 * (PR_SET_PDEATHSIG), which dies with the driver: no task of a killed run
 * goes on measuring, or holds the settings lock, as an orphan.
 */
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core.h"

#define CACHELINE 64

/* The team's shared header (the tasks see only .stop, via mm_task.stop). */
struct mm_team_shared {
	volatile int stop;
	uint64_t start_ns;
	uint64_t end_ns;
};

struct mm_team {
	struct mm_team_shared *hdr;	/* shared: stop flag, start/end */
	pthread_barrier_t *barrier;	/* shared, PTHREAD_PROCESS_SHARED */
	char *slots;			/* shared */
	size_t slot_stride;
	size_t map_len;
	void *map;
	int ntasks;
	int *status;			/* shared: per-task return value */
};

static hwloc_topology_t topo;
static int topo_ok;

static int topo_load(void)
{
	if (topo_ok)
		return topo_ok > 0 ? 0 : -1;
	if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0) {
		topo_ok = -1;
		return -1;
	}
	topo_ok = 1;
	return 0;
}

int mm_pin_self(int idx)
{
	hwloc_obj_t pu;
	int npu;

	if (topo_load() < 0)
		return -ENOSYS;
	npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (npu <= 0)
		return -ENODEV;
	pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned int)(idx % npu));
	if (!pu || hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD) < 0)
		return -errno;
	return 0;
}

void *mm_team_slot(struct mm_team *t, int id)
{
	return t->slots + (size_t)id * t->slot_stride;
}

uint64_t mm_team_start_ns(const struct mm_team *t)
{
	return t->hdr->start_ns;
}

uint64_t mm_team_end_ns(const struct mm_team *t)
{
	return t->hdr->end_ns;
}

/*
 * Every task and the coordinator meet at the barrier; the last one to
 * arrive releases all. The coordinator stamps the common start.
 */
uint64_t mm_task_start(struct mm_task *t)
{
	pthread_barrier_wait(t->team->barrier);
	/* Second meeting: the coordinator has written start_ns in between. */
	pthread_barrier_wait(t->team->barrier);
	return t->team->hdr->start_ns;
}

struct thread_arg {
	struct mm_task task;
	const struct mm_team_opts *o;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;

	if (a->o->pin)
		mm_pin_self(a->task.id);
	a->task.team->status[a->task.id] = a->o->fn(&a->task);
	return NULL;
}

static int team_alloc(const struct mm_team_opts *o, struct mm_team **tp)
{
	struct mm_team *t = calloc(1, sizeof(*t));
	pthread_barrierattr_t ba;
	size_t hdr_len = 4096, st_len, slot_off;
	char *m;

	if (!t)
		return -ENOMEM;
	t->ntasks = o->ntasks;
	t->slot_stride = (o->slot_size + CACHELINE - 1) / CACHELINE * CACHELINE;
	if (!t->slot_stride)
		t->slot_stride = CACHELINE;
	st_len = (size_t)o->ntasks * sizeof(int);
	slot_off = hdr_len + (st_len + CACHELINE - 1) / CACHELINE * CACHELINE;
	t->map_len = slot_off + (size_t)o->ntasks * t->slot_stride;
	m = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		free(t);
		return -errno;
	}
	t->map = m;
	t->hdr = (void *)m;
	t->barrier = (void *)(m + 256);
	t->status = (void *)(m + hdr_len);
	t->slots = m + slot_off;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(t->barrier, &ba, (unsigned int)o->ntasks + 1);
	pthread_barrierattr_destroy(&ba);
	*tp = t;
	return 0;
}

/* The coordinator: release everyone, then raise stop at the deadline. */
static void coordinate(struct mm_team *t, const struct mm_team_opts *o)
{
	pthread_barrier_wait(t->barrier);
	t->hdr->start_ns = mm_now_ns();
	pthread_barrier_wait(t->barrier);
	if (o->duration_ns) {
		struct timespec ts = {
			.tv_sec = (time_t)(o->duration_ns / 1000000000ull),
			.tv_nsec = (long)(o->duration_ns % 1000000000ull),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
		__atomic_store_n(&t->hdr->stop, 1, __ATOMIC_RELEASE);
	}
}

/*
 * A pinned task process is born on its PU: the coordinator binds itself
 * there before fork(), so the child's memory map never runs on another
 * CPU. Which CPUs an mm has run on (mm_cpumask) decides how the kernel
 * flushes the TLB when reclaim unmaps its pages: batched at the end when
 * another CPU may cache them, one flush per page otherwise. A child that
 * started on the coordinator's CPU and then moved kept that CPU in its
 * mask until the kernel trimmed it, so MADV_PAGEOUT ran in one mode or the
 * other from one iteration to the next (measured here: 5-9 against 13-24
 * loops/s, and 12 times the kernel time per 64 MiB under a hypervisor that
 * traps every flush). The coordinator's own binding is put back after the
 * forks.
 */
static int run_procs(struct mm_team *t, const struct mm_team_opts *o)
{
	pid_t *pids = calloc((size_t)o->ntasks, sizeof(pid_t));
	pid_t coordinator = getpid();
	int ret = MM_PASS;
	cpu_set_t own;
	bool rebind = o->pin && sched_getaffinity(0, sizeof(own), &own) == 0;

	if (!pids)
		return MM_FAIL;
	for (int i = 0; i < o->ntasks; i++) {
		if (rebind)
			mm_pin_self(i);
		pids[i] = fork();
		if (pids[i] < 0) {
			ret = MM_FAIL;
			/* Tasks already waiting would block: let them die. */
			for (int k = 0; k < i; k++)
				kill(pids[k], SIGKILL);
			goto reap;
		}
		if (pids[i] == 0) {
			struct mm_task task = { .id = i, .ntasks = o->ntasks,
						.team = t, .arg = o->arg,
						.stop = &t->hdr->stop };

			task.slot = mm_team_slot(t, i);
			/* The coordinator may have died before prctl(): check. */
			mm_stop_role = "task";
			mm_stop_point("start");
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
			    getppid() != coordinator)
				_exit(MM_FAIL);
			mm_stop_point("armed");
			if (o->pin)
				mm_pin_self(i);
			_exit(o->fn(&task));
		}
	}
	if (rebind)
		sched_setaffinity(0, sizeof(own), &own);
	coordinate(t, o);
reap:
	for (int i = 0; i < o->ntasks && pids[i] > 0; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0)
			continue;
		t->status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : MM_FAIL;
	}
	t->hdr->end_ns = mm_now_ns();
	free(pids);
	return ret;
}

static int run_threads(struct mm_team *t, const struct mm_team_opts *o)
{
	struct thread_arg *a = calloc((size_t)o->ntasks, sizeof(*a));
	pthread_t *th = calloc((size_t)o->ntasks, sizeof(*th));
	int ret = MM_PASS, started = 0;

	if (!a || !th) {
		free(a);
		free(th);
		return MM_FAIL;
	}
	for (int i = 0; i < o->ntasks; i++) {
		a[i].task = (struct mm_task){ .id = i, .ntasks = o->ntasks,
					      .team = t, .arg = o->arg,
					      .stop = &t->hdr->stop };
		a[i].task.slot = mm_team_slot(t, i);
		a[i].o = o;
		if (pthread_create(&th[i], NULL, thread_main, &a[i]) != 0)
			break;
		started++;
	}
	if (started < o->ntasks) {
		/* The barrier can never fill: there is no clean way out. */
		mm_logf("mmbench: pthread_create failed after %d threads", started);
		abort();
	}
	coordinate(t, o);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	t->hdr->end_ns = mm_now_ns();
	free(a);
	free(th);
	return ret;
}

int mm_team_run(struct mm_ctx *ctx, const struct mm_team_opts *o,
		struct mm_team **teamp)
{
	struct mm_team *t = NULL;
	int ret;

	(void)ctx;
	if (o->ntasks < 1)
		return MM_FAIL;
	/* Discover the topology once, here: tasks inherit it, not redo it. */
	if (o->pin)
		topo_load();
	if (team_alloc(o, &t) < 0)
		return MM_FAIL;
	ret = o->threads ? run_threads(t, o) : run_procs(t, o);
	for (int i = 0; ret == MM_PASS && i < o->ntasks; i++)
		if (t->status[i] != MM_PASS)
			ret = t->status[i];
	*teamp = t;
	return ret;
}

void mm_team_free(struct mm_team *t)
{
	if (!t)
		return;
	pthread_barrier_destroy(t->barrier);
	munmap(t->map, t->map_len);
	free(t);
}
