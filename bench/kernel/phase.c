// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/vmstat counters, and phases: a named stretch of a workload's iteration measured as wall time,
 * getrusage() faults and CPU time, and /proc/vmstat counter deltas, then
 * emitted as metrics (PHASE_time, PHASE_minflt, PHASE_vm_COUNTER, ...).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbench.h"

/* ---------------------------------------------------------------- vmstat */

long long mm_vmstat_get(const char *name)
{
	const char *names[2] = { name, NULL };
	struct mm_vmstat v;

	if (mm_vmstat_read(&v, names) < 0)
		return -1;
	return v.val[0];
}

int mm_vmstat_read(struct mm_vmstat *v, const char *const *names)
{
	char line[256];
	FILE *f;

	v->n = 0;
	for (; names && names[v->n] && v->n < MM_VMSTAT_MAX; v->n++) {
		v->names[v->n] = names[v->n];
		v->val[v->n] = -1;
	}
	if (v->n == 0)
		return 0;
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		for (int i = 0; i < v->n; i++) {
			if (strcmp(line, v->names[i]) == 0) {
				v->val[i] = strtoll(sp + 1, NULL, 10);
				break;
			}
		}
	}
	fclose(f);
	return 0;
}

/* ---------------------------------------------------------------- phase */

void mm_phase_begin(struct mm_phase *p, const char *name, int who,
		    const char *const *counters)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->who = who;
	p->counters = counters;
	mm_vmstat_read(&p->v0, counters);
	getrusage(who, &p->r0);
	p->t0 = mm_now_ns();
}

void mm_phase_end(struct mm_phase *p)
{
	p->t1 = mm_now_ns();
	getrusage(p->who, &p->r1);
	mm_vmstat_read(&p->v1, p->counters);
}

uint64_t mm_phase_ns(const struct mm_phase *p)
{
	return p->t1 - p->t0;
}

long long mm_phase_minflt(const struct mm_phase *p)
{
	return p->r1.ru_minflt - p->r0.ru_minflt;
}

long long mm_phase_majflt(const struct mm_phase *p)
{
	return p->r1.ru_majflt - p->r0.ru_majflt;
}

long long mm_phase_vmstat(const struct mm_phase *p, const char *name)
{
	for (int i = 0; i < p->v0.n; i++) {
		if (strcmp(p->v0.names[i], name) == 0) {
			if (p->v0.val[i] < 0 || p->v1.val[i] < 0)
				return -1;
			return p->v1.val[i] - p->v0.val[i];
		}
	}
	return -1;
}

static double tv_ns(const struct timeval *a, const struct timeval *b)
{
	return ((double)(b->tv_sec - a->tv_sec) * 1e9 +
		(double)(b->tv_usec - a->tv_usec) * 1e3);
}

int mm_phase_emit(struct mm_ctx *ctx, const struct mm_phase *p)
{
	char m[128];
	int ret = 0;

	snprintf(m, sizeof(m), "%s_time", p->name);
	ret |= mm_emit(ctx, m, (double)mm_phase_ns(p), "ns");
	snprintf(m, sizeof(m), "%s_minflt", p->name);
	ret |= mm_emit(ctx, m, (double)mm_phase_minflt(p), "faults");
	snprintf(m, sizeof(m), "%s_majflt", p->name);
	ret |= mm_emit(ctx, m, (double)mm_phase_majflt(p), "faults");
	snprintf(m, sizeof(m), "%s_utime", p->name);
	ret |= mm_emit(ctx, m, tv_ns(&p->r0.ru_utime, &p->r1.ru_utime), "ns");
	snprintf(m, sizeof(m), "%s_stime", p->name);
	ret |= mm_emit(ctx, m, tv_ns(&p->r0.ru_stime, &p->r1.ru_stime), "ns");
	for (int i = 0; i < p->v0.n; i++) {
		long long d = mm_phase_vmstat(p, p->v0.names[i]);

		if (d < 0)
			continue;	/* counter absent on this kernel */
		snprintf(m, sizeof(m), "%s_vm_%s", p->name, p->v0.names[i]);
		ret |= mm_emit(ctx, m, (double)d, "count");
	}
	return ret;
}
