// SPDX-License-Identifier: GPL-2.0
/*
 * The facts that decide whether two runs can be compared (meta.csv), the
 * hwloc topology (topology.xml), and the requirement checks behind
 * `mmbench list`.
 */
#include <dirent.h>
#include <stdarg.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core.h"
#include "profile.h"

#ifndef MMBENCH_VERSION
#define MMBENCH_VERSION "unknown"
#endif

#define THP "/sys/kernel/mm/transparent_hugepage"

struct kv_out {
	const char *path;
	char **extra;	/* "key=value" overrides from --meta */
	int nextra;
	int err;
};

/* --meta KEY=VALUE: the value for key, or NULL. */
static const char *override(struct kv_out *o, const char *key)
{
	size_t kl = strlen(key);

	for (int i = 0; i < o->nextra; i++)
		if (strncmp(o->extra[i], key, kl) == 0 && o->extra[i][kl] == '=')
			return o->extra[i] + kl + 1;
	return NULL;
}

static void kv(struct kv_out *o, const char *key, const char *val)
{
	const char *f[2] = { key, val };
	const char *ov = override(o, key);
	char line[8192];
	int n;

	if (ov)
		f[1] = ov;
	n = mm_csv_line(line, sizeof(line), f, 2);
	if (n < 0) {
		o->err = n;
		return;
	}
	if (strcmp(o->path, "meta.csv") == 0) {
		int ret = mm_csv_append("meta.csv", MM_META_HEADER, line);

		if (ret < 0 && !o->err)
			o->err = ret;
	} else {
		fputs(line, stdout);
	}
}

static void kv_any(void *o, const char *key, const char *val)
{
	kv(o, key, val);
}

static void kv_file(struct kv_out *o, const char *key, const char *path)
{
	char buf[4096];

	if (mm_setting_get(path, buf, sizeof(buf)) == 0)
		kv(o, key, buf);
}

static void kv_fmt(struct kv_out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv_fmt(struct kv_out *o, const char *key, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kv(o, key, buf);
}

static void cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && c) {
			c++;
			while (*c == ' ')
				c++;
			c[strcspn(c, "\n")] = '\0';
			snprintf(buf, len, "%s", c);
			break;
		}
	}
	fclose(f);
}

/* Node memory from libnuma and from hwloc, "node:MiB;node:MiB". */
static void node_mem(struct kv_out *o)
{
	char a[1024] = "", b[1024] = "";
	size_t off = 0;
	hwloc_topology_t t;

	if (numa_available() >= 0) {
		for (int i = 0; i <= numa_max_node(); i++) {
			long long sz = numa_node_size64(i, NULL);

			if (sz > 0 && off < sizeof(a))
				off += (size_t)snprintf(a + off, sizeof(a) - off,
							"%s%d:%lld", off ? ";" : "",
							i, sz >> 20);
		}
	}
	kv(o, "node_mem_mb", a);
	off = 0;
	if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
		int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);

		for (int i = 0; i < n; i++) {
			hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE,
								(unsigned int)i);

			if (obj && off < sizeof(b))
				off += (size_t)snprintf(b + off, sizeof(b) - off,
						"%s%u:%llu", off ? ";" : "",
						obj->os_index,
						(unsigned long long)(obj->attr->numanode.local_memory >> 20));
		}
		kv_fmt(o, "hwloc_numa_nodes", "%d", n);
		kv_fmt(o, "hwloc_pus", "%d", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
		hwloc_topology_destroy(t);
	}
	kv(o, "hwloc_node_mem_mb", b);
}

/* Every multi-size THP setting: hugepages-<size>kB/enabled. */
static void mthp(struct kv_out *o)
{
	DIR *d = opendir(THP);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char key[300], path[600];

		if (strncmp(e->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(key, sizeof(key), "mthp_%s_enabled", e->d_name + 10);
		snprintf(path, sizeof(path), THP "/%s/enabled", e->d_name);
		kv_file(o, key, path);
		/* Sizes only shmem/tmpfs can use have shmem_enabled alone. */
		snprintf(key, sizeof(key), "mthp_%s_shmem_enabled", e->d_name + 10);
		snprintf(path, sizeof(path), THP "/%s/shmem_enabled", e->d_name);
		kv_file(o, key, path);
	}
	closedir(d);
}

/*
 * Memory the machine itself takes back while a run measures: free page
 * reporting (a guest hands free blocks of 2^order pages to its host, whose
 * next touch pays a host fault) and DAMON schemes (a kdamond that pages
 * out, or moves, memory on its own). Both change what reclaim, fault and
 * compaction measurements see, so two runs line up only if they match.
 * damon: "none", or per running kdamond its contexts' operations and
 * schemes, "kdamond0 paddr: pageout(age 12-max, accesses 0-1)".
 */
#define DAMON "/sys/kernel/mm/damon/admin/kdamonds"
static void reclaimers(struct kv_out *o)
{
	char v[64], out[2048] = "", path[512], ops[32], act[32];
	char amin[24], amax[24], nmin[24], nmax[24];
	size_t off = 0;
	long nk = 0, nc, ns;

	if (mm_read_file("/sys/module/page_reporting/parameters/page_reporting_order", v,
			 sizeof(v)) >= 0)
		kv_fmt(o, "free_page_reporting", "order %s", v);
	else
		kv(o, "free_page_reporting", "none");
	if (mm_read_file(DAMON "/nr_kdamonds", v, sizeof(v)) < 0) {
		kv(o, "damon", "none (no DAMON sysfs)");
		return;
	}
	nk = strtol(v, NULL, 10);
	for (long k = 0; k < nk && k < 16 && off < sizeof(out); k++) {
		snprintf(path, sizeof(path), DAMON "/%ld/state", k);
		if (mm_read_file(path, v, sizeof(v)) < 0 || strcmp(v, "on"))
			continue;
		snprintf(path, sizeof(path), DAMON "/%ld/contexts/nr_contexts", k);
		nc = mm_read_file(path, v, sizeof(v)) < 0 ? 0 : strtol(v, NULL, 10);
		for (long c = 0; c < nc && c < 16 && off < sizeof(out); c++) {
			snprintf(path, sizeof(path), DAMON "/%ld/contexts/%ld/operations", k, c);
			if (mm_read_file(path, ops, sizeof(ops)) < 0)
				snprintf(ops, sizeof(ops), "?");
			off += (size_t)snprintf(out + off, sizeof(out) - off, "%skdamond%ld %s:",
						off ? "; " : "", k, ops);
			snprintf(path, sizeof(path), DAMON "/%ld/contexts/%ld/schemes/nr_schemes", k, c);
			ns = mm_read_file(path, v, sizeof(v)) < 0 ? 0 : strtol(v, NULL, 10);
			if (ns == 0 && off < sizeof(out))
				off += (size_t)snprintf(out + off, sizeof(out) - off, " monitoring only");
			for (long i = 0; i < ns && i < 16 && off < sizeof(out); i++) {
#define SCHEME(f, b) (snprintf(path, sizeof(path), DAMON "/%ld/contexts/%ld/schemes/%ld/" f, k, c, i), \
		      mm_read_file(path, b, sizeof(b)) < 0 ? snprintf(b, sizeof(b), "?") : 0)
				SCHEME("action", act);
				SCHEME("access_pattern/age/min", amin);
				SCHEME("access_pattern/age/max", amax);
				SCHEME("access_pattern/nr_accesses/min", nmin);
				SCHEME("access_pattern/nr_accesses/max", nmax);
#undef SCHEME
				off += (size_t)snprintf(out + off, sizeof(out) - off,
							" %s(age %s-%s, accesses %s-%s)", act, amin,
							strlen(amax) > 9 ? "max" : amax, nmin,
							strlen(nmax) > 9 ? "max" : nmax);
			}
		}
	}
	kv(o, "damon", off ? out : "none");
}

/* Active swap devices from /proc/swaps: "path:KiB;path:KiB". */
static void swaps(struct kv_out *o)
{
	char line[512], out[2048] = "";
	size_t off = 0;
	FILE *f = fopen("/proc/swaps", "re");

	if (f) {
		if (!fgets(line, sizeof(line), f))	/* header */
			line[0] = '\0';
		while (fgets(line, sizeof(line), f) && off < sizeof(out)) {
			char dev[256];
			long long size;

			if (sscanf(line, "%255s %*s %lld", dev, &size) == 2)
				off += (size_t)snprintf(out + off, sizeof(out) - off,
							"%s%s:%lld", off ? ";" : "",
							dev, size);
		}
		fclose(f);
	}
	kv(o, "swap_devices", out);
	kv_fmt(o, "swap_total_kb", "%lld", mm_swap_total_kb());
}

static void join_args(char *buf, size_t len, int argc, char **argv)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "",
					argv[i]);
}

/* path "meta.csv": append to the run's meta.csv; "-": stdout. */
int mm_sysinfo_write(const char *path, int argc, char **argv, char **extra,
		     int nextra)
{
	struct kv_out o = { .path = path, .extra = extra, .nextra = nextra };
	struct utsname u;
	char buf[4096];
	time_t now = time(NULL);

	if (strcmp(path, "-") == 0)
		fputs(MM_META_HEADER "\n", stdout);
	uname(&u);
	kv_fmt(&o, "schema", "%d", MM_SCHEMA_VERSION);
	if (mm_run.run_id[0]) {
		kv(&o, "run_id", mm_run.run_id);
		kv(&o, "label", mm_run.label);
	}
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	kv(&o, "start_time", buf);
	kv(&o, "host", u.nodename);
	kv(&o, "kernel_release", u.release);
	kv(&o, "kernel_version", u.version);
	kv(&o, "arch", u.machine);
	kv_file(&o, "kernel_cmdline", "/proc/cmdline");
	cpu_model(buf, sizeof(buf));
	kv(&o, "cpu_model", buf);
	kv_fmt(&o, "cpus", "%d", mm_ncpus());
	kv_fmt(&o, "numa_nodes", "%d", mm_nnodes_with_memory());
	node_mem(&o);
	kv_fmt(&o, "mem_total_kb", "%lld", mm_meminfo_kb("MemTotal"));
	kv_fmt(&o, "page_size", "%ld", sysconf(_SC_PAGESIZE));
	kv_file(&o, "thp_enabled", THP "/enabled");
	kv_file(&o, "thp_defrag", THP "/defrag");
	kv_file(&o, "thp_shmem_enabled", THP "/shmem_enabled");
	kv_file(&o, "thp_khugepaged_defrag", THP "/khugepaged/defrag");
	kv_file(&o, "thp_khugepaged_pages_to_scan", THP "/khugepaged/pages_to_scan");
	kv_file(&o, "thp_khugepaged_max_ptes_none", THP "/khugepaged/max_ptes_none");
	mthp(&o);
	kv_file(&o, "numa_balancing", "/proc/sys/kernel/numa_balancing");
	kv_file(&o, "compact_unevictable_allowed",
		"/proc/sys/vm/compact_unevictable_allowed");
	kv_file(&o, "extfrag_threshold", "/proc/sys/vm/extfrag_threshold");
	kv_file(&o, "zone_reclaim_mode", "/proc/sys/vm/zone_reclaim_mode");
	swaps(&o);
	reclaimers(&o);
	mm_profile_facts(kv_any, &o);
	kv(&o, "vm", "none");
	kv(&o, "mmbench_version", MMBENCH_VERSION);
	join_args(buf, sizeof(buf), argc, argv);
	kv(&o, "command_line", buf);
	/* --meta keys that are not standard facts are added as given. */
	for (int i = 0; i < nextra; i++) {
		char key[128];
		const char *eq = strchr(extra[i], '=');
		static const char *const std[] = { "vm", "label", "host", NULL };
		bool known = false;

		if (!eq || (size_t)(eq - extra[i]) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - extra[i]), extra[i]);
		for (int k = 0; std[k]; k++)
			known |= strcmp(std[k], key) == 0;
		if (!known)
			kv(&o, key, eq + 1);
	}
	return o.err;
}

/* Written through O_NOFOLLOW: a link planted under the name is not followed. */
int mm_topology_xml(const char *path)
{
	hwloc_topology_t t;
	char *xml = NULL;
	int ret = -1, len = 0, fd;

	if (hwloc_topology_init(&t) < 0)
		return -1;
	if (hwloc_topology_load(t) == 0)
		ret = hwloc_topology_export_xmlbuffer(t, &xml, &len, 0);
	if (ret == 0 && len > 0) {
		/* len counts the terminating NUL */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, xml, (size_t)len - 1) != (ssize_t)len - 1)
			ret = -1;
		if (fd >= 0 && close(fd) < 0)
			ret = -1;
	}
	if (xml)
		hwloc_free_xmlbuffer(t, xml);
	hwloc_topology_destroy(t);
	return ret;
}
