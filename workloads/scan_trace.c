// SPDX-License-Identifier: GPL-2.0
/* The migrate scanner's PFN ranges from a trace instance: scan_trace.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan_trace.h"

#define EVENT "events/compaction/mm_compaction_isolate_migratepages"
#define PREFIX "mmbench_compact_"

static int put(const struct scan_trace *t, const char *file, const char *v, int flags,
	       char *why, size_t len)
{
	char path[800];
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/%s", t->inst, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0 || write(fd, v, strlen(v)) < 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	if (e)
		snprintf(why, len, "writing '%s' to %s: %s", v, path, strerror(e));
	return e ? -1 : 0;
}

int st_open(struct scan_trace *t, const char *tracefs, char *why, size_t len)
{
	char dir[300], path[700];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/" EVENT, tracefs);
	if (access(dir, F_OK) < 0) {
		snprintf(why, len, "no tracepoint compaction:mm_compaction_isolate_migratepages in %s",
			 tracefs);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/instances", tracefs);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		int pid;

		if (sscanf(de->d_name, PREFIX "%d", &pid) == 1 && kill(pid, 0) < 0 &&
		    errno == ESRCH) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			rmdir(path);
		}
	}
	if (d)
		closedir(d);
	snprintf(t->inst, sizeof(t->inst), "%s/" PREFIX "%d", dir, getpid());
	if (mkdir(t->inst, 0700) < 0 && errno != EEXIST) {
		snprintf(why, len, "creating the trace instance %s: %s", t->inst, strerror(errno));
		t->inst[0] = '\0';
		return -1;
	}
	return 0;
}

int st_arm(struct scan_trace *t, uint64_t lo, uint64_t hi, size_t span_blocks,
	   char *why, size_t len)
{
	char val[128];
	/* a call per COMPACT_CLUSTER_MAX (32) pages isolated: up to 16 events
	 * of about 48 bytes per pageblock, a quarter more for the headers */
	size_t kb = (span_blocks + 1) * 16 * 64 / 1024;

	kb = kb < 1024 ? 1024 : kb > 16384 ? 16384 : kb;
	snprintf(val, sizeof(val), "%zu", kb);
	if (put(t, "buffer_size_kb", val, 0, why, len) < 0)
		return -1;
	snprintf(val, sizeof(val), "end_pfn > %llu && start_pfn <= %llu",
		 (unsigned long long)lo, (unsigned long long)hi);
	if (put(t, EVENT "/filter", val, 0, why, len) < 0 ||
	    put(t, "trace", "", O_TRUNC, why, len) < 0)
		return -1;
	return put(t, EVENT "/enable", "1", 0, why, len);
}

static int cmp_range(const void *a, const void *b)
{
	const struct scan_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Events the ring buffer lost, over every CPU's stats. */
static uint64_t lost_events(const struct scan_trace *t)
{
	char path[800], line[256];
	unsigned long long v, n = 0;
	FILE *f;

	for (int cpu = 0; cpu < 8192; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", t->inst, cpu);
		if (!(f = fopen(path, "re")))
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				n += v;
		fclose(f);
	}
	return n;
}

int st_collect(struct scan_trace *t, char *why, size_t len)
{
	char path[800], line[512];
	unsigned long long lo, hi;
	size_t m = 0;
	FILE *f;

	put(t, EVENT "/enable", "0", 0, why, len);
	t->nr = 0;
	t->lost = lost_events(t);
	snprintf(path, sizeof(path), "%s/trace", t->inst);
	if (!(f = fopen(path, "re"))) {
		snprintf(why, len, "opening %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *r = strstr(line, "range=(0x");

		if (!r || sscanf(r, "range=(0x%llx ~ 0x%llx)", &lo, &hi) != 2 || hi <= lo)
			continue;
		if (t->nr == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 1024;
			struct scan_range *n = realloc(t->r, cap * sizeof(*n));

			if (!n) {
				fclose(f);
				snprintf(why, len, "out of memory for %zu ranges", cap);
				return -1;
			}
			t->r = n;
			t->cap = cap;
		}
		t->r[t->nr++] = (struct scan_range){ lo, hi };
	}
	fclose(f);
	if (t->nr)
		qsort(t->r, t->nr, sizeof(*t->r), cmp_range);
	for (size_t i = 0; i < t->nr; i++)
		if (m && t->r[i].lo <= t->r[m - 1].hi)
			t->r[m - 1].hi = t->r[i].hi > t->r[m - 1].hi ? t->r[i].hi : t->r[m - 1].hi;
		else
			t->r[m++] = t->r[i];
	t->nr = m;
	return 0;
}

bool st_covered(const struct scan_trace *t, uint64_t pfn)
{
	size_t a = 0, b = t->nr;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (t->r[mid].hi <= pfn)
			a = mid + 1;
		else
			b = mid;
	}
	return a < t->nr && t->r[a].lo <= pfn;
}

void st_close(struct scan_trace *t)
{
	if (t->inst[0])
		rmdir(t->inst);
	t->inst[0] = '\0';
	free(t->r);
	t->r = NULL;
	t->nr = t->cap = 0;
}
