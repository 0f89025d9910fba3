// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel function call counts over the measured phase (--probe FUNC,...).
 *
 * Kernel path: tracefs kprobe_events -> trace_kprobe (a kprobe per
 * function, registered disarmed) and events/GROUP/EVENT/trigger -> the
 * hist trigger (kernel/trace/trace_events_hist.c). Attaching a hist
 * trigger soft-enables the event, which arms the kprobe; every hit then
 * goes into the trigger's tracing_map (keyed on common_pid) and never into
 * the ring buffer. Removing the trigger disarms the kprobe again.
 *
 * Life of a probe:
 *  - the case child creates the events under a group of its own,
 *    mmbench_<pgid>, the first time a workload calls mm_measure_begin();
 *  - mm_measure_begin() attaches "hist:keys=common_pid" to every event,
 *    mm_measure_end() reads the map's totals (hits + dropped: a call that
 *    found the map full still happened) and removes the trigger, so only
 *    the measured phase is counted. Counts are system-wide: every task's
 *    calls, as perf -a would see them; mm_measure_discard() removes the
 *    triggers without emitting (a disturbed attempt the workload retries);
 *  - the parent driver calls mm_probe_after_case(pid) after every case,
 *    also after a timeout kill: it removes the triggers and events of
 *    mmbench_<pid>, and those of any mmbench_<pid> group whose process is
 *    gone (a crashed run), then unmounts tracefs if the child mounted it.
 *
 * Where nothing has mounted tracefs, the child mounts it on a directory
 * it creates itself: mkdtemp() (never an existing directory) named
 * mmbench-tracefs.<pgid>.XXXXXX, checked to be ours (0700, our uid, not a
 * symlink) through an O_PATH descriptor, and mounted through that very
 * descriptor, so nothing planted under the name is used or followed.
 *
 * Opening kprobe_events with O_TRUNC deletes every kprobe event of the
 * system, other tools' included: it is only ever opened with O_APPEND.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "profile.h"

#define MAX_FUNCS 16
#define FUNC_LEN 96
#define HIST_SPEC "hist:keys=common_pid"
#define GROUP_PREFIX "mmbench_"

struct probe_fn {
	char name[FUNC_LEN];
	char event[64];		/* event name inside our group */
	bool ok;		/* event created, can be counted */
	bool armed;		/* trigger attached now */
};

static struct {
	struct probe_fn f[MAX_FUNCS];
	int n;
	bool none;		/* --probe none: not even workload defaults */
	bool setup_done;	/* per case child: events created */
	char tracefs[256];	/* mount point in use, "" if none */
	char group[64];
	char defaults[MAX_FUNCS * 8];	/* the workload's, armed or not (--probe none) */
} pr;

static bool valid_func(const char *s, size_t len)
{
	if (len == 0 || len >= FUNC_LEN || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* Add the names of a comma list; an invalid name is returned in bad. */
static int add_funcs(const char *funcs, char *bad, size_t badlen)
{
	for (const char *p = funcs; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool dup = false;

		if (!valid_func(p, len)) {
			snprintf(bad, badlen, "'%.*s' is not a kernel function name", (int)len, p);
			return -1;
		}
		for (int i = 0; i < pr.n; i++)
			dup |= strlen(pr.f[i].name) == len && !strncmp(pr.f[i].name, p, len);
		if (!dup) {
			if (pr.n == MAX_FUNCS) {
				snprintf(bad, badlen, "more than %d functions", MAX_FUNCS);
				return -1;
			}
			snprintf(pr.f[pr.n++].name, FUNC_LEN, "%.*s", (int)len, p);
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* In the driver, from --probe: bad input ends the run before any case. */
int mm_probe_set(const char *funcs)
{
	char bad[160];

	pr.n = 0;
	pr.none = funcs && !strcmp(funcs, "none");
	if (funcs && !pr.none && add_funcs(funcs, bad, sizeof(bad)) < 0) {
		fprintf(stderr, "mmbench: --probe '%s': %s\n", funcs, bad);
		return -1;
	}
	return 0;
}

void mm_probe_default(struct mm_ctx *ctx, const char *funcs)
{
	char bad[160];

	snprintf(pr.defaults, sizeof(pr.defaults), "%s", funcs);
	if (!pr.none && add_funcs(funcs, bad, sizeof(bad)) < 0)
		mm_log(ctx, "default probe '%s': %s", funcs, bad);
}

/* The names of pr.f (all, or only those with an event) as a comma list. */
static size_t names(char *buf, size_t len, bool made)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < pr.n && n < len; i++)
		if (!made || pr.f[i].ok)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", pr.f[i].name);
	return n < len ? n : len - 1;
}

void mm_probe_profile_notes(struct mm_ctx *ctx)
{
	char buf[MAX_FUNCS * FUNC_LEN];

	if (pr.none)
		snprintf(buf, sizeof(buf), "%s", pr.defaults);
	else
		names(buf, sizeof(buf), false);
	if (buf[0])
		mm_note(ctx, "profile_focus", "%s: %s", ctx->wl->name, buf);
	if (names(buf, sizeof(buf), true) > 0)
		mm_note(ctx, "profile_probes", "%s: %s", ctx->wl->name, buf);
}

/* ---------------------------------------------------------------- tracefs */

static int tf_write(const char *dir, const char *file, const char *s)
{
	char path[512];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	return n < 0 ? -e : 0;
}

static bool tf_exists(const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* Where a case child mounts tracefs when nothing has: private, by pid. */
static void private_mount_prefix(char *buf, size_t len, long pid)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/mmbench-tracefs.%ld.", tmp && *tmp ? tmp : "/tmp", pid);
}

/*
 * A tracefs mount point from /proc/mounts; false if none. The private
 * mount of another case (of a concurrent run) is not used: its driver
 * unmounts it when that case ends. own: the case whose private mount may
 * be used.
 */
static bool tracefs_mounted(char *out, size_t len, long own)
{
	char dev[64], mnt[256], type[64], line[1024], mine[300];
	const char *base;
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return false;
	private_mount_prefix(mine, sizeof(mine), own);
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %255s %63s", dev, mnt, type) != 3 ||
		    strcmp(type, "tracefs") != 0)
			continue;
		base = strrchr(mnt, '/');
		base = base ? base + 1 : mnt;
		if (!strncmp(base, "mmbench-tracefs.", 16) && strncmp(mnt, mine, strlen(mine)))
			continue;
		snprintf(out, len, "%s", mnt);
		found = true;
	}
	fclose(f);
	return found;
}

/* Create a fresh directory and mount tracefs on it, through its fd. */
static int private_mount(char *why, size_t len)
{
	char mnt[64];
	struct stat st;
	int fd, e;

	private_mount_prefix(pr.tracefs, sizeof(pr.tracefs) - 6, (long)getpgrp());
	strcat(pr.tracefs, "XXXXXX");
	if (!mkdtemp(pr.tracefs)) {
		e = errno;
		snprintf(why, len, "cannot create a directory %s: %s", pr.tracefs,
			 strerror(e));
		return -e;
	}
	fd = open(pr.tracefs, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700) {
		e = fd < 0 ? errno : EPERM;
		snprintf(why, len, "%s is not the directory just created: %s",
			 pr.tracefs, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	snprintf(mnt, sizeof(mnt), "/proc/self/fd/%d", fd);
	e = mount("nodev", mnt, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ?
	    errno : 0;
	close(fd);
	if (e) {
		snprintf(why, len, "cannot mount tracefs on %s: %s", pr.tracefs,
			 strerror(e));
		rmdir(pr.tracefs);
		return -e;
	}
	return 0;
}

static int tracefs_get(char *why, size_t len)
{
	if (tracefs_mounted(pr.tracefs, sizeof(pr.tracefs), (long)getpgrp()))
		return 0;
	if (private_mount(why, len) < 0) {
		pr.tracefs[0] = '\0';
		return -1;
	}
	return 0;
}

int mm_tracefs(char *dir, size_t len, char *why, size_t whylen)
{
	if (!pr.tracefs[0] && tracefs_get(why, whylen) < 0)
		return -1;
	snprintf(dir, len, "%s", pr.tracefs);
	return 0;
}

/* How many text symbols carry each probed name in /proc/kallsyms. */
static int ksym_counts(int *cnt)
{
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");

	memset(cnt, 0, sizeof(int) * MAX_FUNCS);
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		for (int i = 0; i < pr.n; i++)
			cnt[i] += strcmp(name, pr.f[i].name) == 0;
	}
	fclose(f);
	return 0;
}

/* The kernel's own words for the last refused tracefs command. */
static void last_error_log(const char *tfs, char *buf, size_t len)
{
	char path[512], line[512];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/error_log", tfs);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *e = strstr(line, "error: ");

		if (e) {
			e[strcspn(e, "\n")] = '\0';
			snprintf(buf, len, " (%s)", e);
		}
	}
	fclose(f);
}

/* ---------------------------------------------------------------- removal */

/*
 * Remove every trigger of an event: the kernel matches a "!" + spec
 * against the attached triggers, so the spec as the trigger file shows it
 * ("hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]",
 * without the state) removes it whatever version of us attached it.
 */
static void event_untrigger(const char *evdir)
{
	char path[600], lines[8][512], cmd[520];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trigger", evdir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (n < 8 && fgets(lines[n], sizeof(lines[n]), f)) {
		if (lines[n][0] == '#' || lines[n][0] == '\n')
			continue;
		lines[n][strcspn(lines[n], "\n")] = '\0';
		if (strstr(lines[n], " ["))
			*strstr(lines[n], " [") = '\0';
		n++;
	}
	fclose(f);
	for (int i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "!%s", lines[i]);
		tf_write(evdir, "trigger", cmd);
	}
}

/* Remove a whole event group: triggers off, events disabled, deleted. */
static int group_remove(const char *tfs, const char *group)
{
	char dir[512], evdir[800], cmd[256], names[MAX_FUNCS * 4][64];
	struct dirent *de;
	int n = 0, fails = 0, ret;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/events/%s", tfs, group);
	d = opendir(dir);
	if (!d)
		return 0;
	/* Collect first: deleting events changes the directory being read. */
	while ((de = readdir(d)) && n < MAX_FUNCS * 4) {
		snprintf(evdir, sizeof(evdir), "%s/%s", dir, de->d_name);
		if (de->d_name[0] != '.' && stat(evdir, &st) == 0 && S_ISDIR(st.st_mode))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	}
	closedir(d);
	for (int i = 0; i < n; i++) {
		snprintf(evdir, sizeof(evdir), "%s/%s", dir, names[i]);
		event_untrigger(evdir);
		tf_write(evdir, "enable", "0");
		snprintf(cmd, sizeof(cmd), "-:%s/%s", group, names[i]);
		ret = tf_write(tfs, "kprobe_events", cmd);
		if (ret < 0) {
			mm_logf("mmbench: probe cleanup: cannot delete kprobe event %s/%s: %s",
				group, names[i], strerror(-ret));
			fails++;
		}
	}
	return fails;
}

/* A pid in a name ("mmbench_123", "mmbench-tracefs.123") that is gone. */
static bool dead_pid_suffix(const char *s, long *pidp)
{
	char *end;
	long pid;

	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno || end == s || *end || pid <= 0)
		return false;
	*pidp = pid;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* Groups left by a case child that died without its parent's cleanup. */
static void remove_dead_groups(const char *tfs)
{
	char dir[512], names[32][64];
	struct dirent *de;
	int n = 0;
	long pid;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/events", tfs);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && n < 32)
		if (!strncmp(de->d_name, GROUP_PREFIX, strlen(GROUP_PREFIX)) &&
		    dead_pid_suffix(de->d_name + strlen(GROUP_PREFIX), &pid))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	closedir(d);
	for (int i = 0; i < n; i++) {
		mm_logf("mmbench: removing kprobe events of a dead run: %s", names[i]);
		group_remove(tfs, names[i]);
	}
}

/* "mmbench-tracefs.<pid>.XXXXXX": the pid, when that process is gone. */
static bool private_of_dead(const char *base, long *pidp)
{
	char digits[24];
	const char *dot;

	if (strncmp(base, "mmbench-tracefs.", 16))
		return false;
	base += 16;
	dot = strchr(base, '.');
	if (!dot || dot == base || (size_t)(dot - base) >= sizeof(digits) ||
	    strlen(dot + 1) != 6)
		return false;
	snprintf(digits, sizeof(digits), "%.*s", (int)(dot - base), base);
	return dead_pid_suffix(digits, pidp);
}

/* Unmount the private tracefs of pid, and those of dead processes. */
static void unmount_private(long pid)
{
	char dev[64], mnt[256], type[64], line[1024], want[300], mnts[8][256];
	const char *base;
	int n = 0;
	long p;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return;
	private_mount_prefix(want, sizeof(want), pid);
	while (n < 8 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %255s %63s", dev, mnt, type) != 3 ||
		    strcmp(type, "tracefs"))
			continue;
		base = strrchr(mnt, '/');
		base = base ? base + 1 : mnt;
		if (!strncmp(mnt, want, strlen(want)) || private_of_dead(base, &p))
			snprintf(mnts[n++], sizeof(mnts[0]), "%s", mnt);
	}
	fclose(f);
	for (int i = 0; i < n; i++) {
		/* UMOUNT_NOFOLLOW: a symlink put in its place is not followed */
		if (umount2(mnts[i], UMOUNT_NOFOLLOW) < 0 &&
		    umount2(mnts[i], UMOUNT_NOFOLLOW | MNT_DETACH) < 0) {
			mm_logf("mmbench: cannot unmount %s: %s", mnts[i], strerror(errno));
			continue;
		}
		rmdir(mnts[i]);
	}
}

/* In the driver, after every case: nothing of the child's probes stays. */
void mm_probe_after_case(long pid)
{
	char tfs[256], group[64];

	if (tracefs_mounted(tfs, sizeof(tfs), pid) && tf_exists(tfs, "kprobe_events")) {
		snprintf(group, sizeof(group), GROUP_PREFIX "%ld", pid);
		group_remove(tfs, group);
		remove_dead_groups(tfs);
	}
	unmount_private(pid);
}

/* ---------------------------------------------------------------- setup */

static void probe_skip(struct mm_ctx *ctx, struct probe_fn *f, const char *why)
{
	f->ok = false;
	mm_log(ctx, "probe %s skipped: %s", f->name, why);
	mm_note(ctx, "probe", "%s [%s]: %s skipped: %s", ctx->wl->name,
		mm_case_string(ctx->c), f->name, why);
}

static void event_create(struct mm_ctx *ctx, int i, int nsym)
{
	struct probe_fn *f = &pr.f[i];
	char cmd[256], why[512], elog[300];
	int ret;

	if (nsym == 0)
		return probe_skip(ctx, f, "no such function in /proc/kallsyms of this kernel (renamed, inlined or not built in?)");
	snprintf(f->event, sizeof(f->event), "f%d_%.48s", i, f->name);
	for (char *c = f->event; *c; c++)
		*c = *c == '.' ? '_' : *c;
	snprintf(cmd, sizeof(cmd), "p:%s/%s %s", pr.group, f->event, f->name);
	ret = tf_write(pr.tracefs, "kprobe_events", cmd);
	if (ret < 0) {
		last_error_log(pr.tracefs, elog, sizeof(elog));
		snprintf(why, sizeof(why), "kprobe_events refused '%s': %s%s", cmd,
			 strerror(-ret), elog);
		return probe_skip(ctx, f, why);
	}
	snprintf(cmd, sizeof(cmd), "events/%s/%s/hist", pr.group, f->event);
	if (!tf_exists(pr.tracefs, cmd))
		return probe_skip(ctx, f, "this kernel has no hist triggers (CONFIG_HIST_TRIGGERS off)");
	if (nsym > 1)
		mm_note(ctx, "probe", "%s: %d text symbols of that name; the kprobe is on the one the kernel resolved",
			f->name, nsym);
	f->ok = true;
}

static void skip_all(struct mm_ctx *ctx, const char *why)
{
	for (int i = 0; i < pr.n; i++)
		probe_skip(ctx, &pr.f[i], why);
}

/* In the case child, on the first measured phase: create the events. */
static void probe_setup(struct mm_ctx *ctx)
{
	char why[512];
	int cnt[MAX_FUNCS], ret;

	pr.setup_done = true;
	if (!mm_is_root())
		return skip_all(ctx, "not root (kprobe events need CAP_SYS_ADMIN)");
	if (tracefs_get(why, sizeof(why)) < 0)
		return skip_all(ctx, why);
	if (!tf_exists(pr.tracefs, "kprobe_events"))
		return skip_all(ctx, "this kernel has no kprobe events (no kprobe_events in tracefs: CONFIG_KPROBE_EVENTS off)");
	snprintf(pr.group, sizeof(pr.group), GROUP_PREFIX "%ld", (long)getpgrp());
	/* Our pid on a group: left by a dead run that had the same pid. */
	group_remove(pr.tracefs, pr.group);
	remove_dead_groups(pr.tracefs);
	ret = ksym_counts(cnt);
	if (ret < 0) {
		snprintf(why, sizeof(why), "cannot read /proc/kallsyms: %s", strerror(-ret));
		return skip_all(ctx, why);
	}
	for (int i = 0; i < pr.n; i++)
		event_create(ctx, i, cnt[i]);
}

/* ---------------------------------------------------------------- measure */

static void event_dir(const struct probe_fn *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s/events/%s/%s", pr.tracefs, pr.group, f->event);
}

void mm_measure_begin(struct mm_ctx *ctx)
{
	char dir[512];
	int ret;

	if (pr.n == 0)
		goto profile;
	if (!pr.setup_done)
		probe_setup(ctx);
	for (int i = 0; i < pr.n; i++) {
		struct probe_fn *f = &pr.f[i];

		if (!f->ok || f->armed)
			continue;
		event_dir(f, dir, sizeof(dir));
		ret = tf_write(dir, "trigger", HIST_SPEC);
		if (ret < 0) {
			char why[300];

			snprintf(why, sizeof(why), "cannot attach '%s' to its event: %s",
				 HIST_SPEC, strerror(-ret));
			probe_skip(ctx, f, why);
			continue;
		}
		f->armed = true;
	}
profile:
	/* Last: arming the probes is not part of the profile. */
	mm_profile_begin(ctx);
}

/* Calls counted by an event's hist: hits that found or made an entry,
 * plus those dropped because the map was full. -1 if unreadable. */
static long long hist_calls(const struct probe_fn *f)
{
	char path[600], line[512];
	long long hits = -1, dropped = 0, v;
	FILE *fp;

	event_dir(f, path, sizeof(path));
	strcat(path, "/hist");
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, " Hits: %lld", &v) == 1)
			hits = v;
		else if (sscanf(line, " Dropped: %lld", &v) == 1)
			dropped = v;
	}
	fclose(fp);
	return hits < 0 ? -1 : hits + dropped;
}

const struct mm_metric mm_probe_metrics[] = {
	{ .name = "calls:*", .better = MM_INFO, .role = MM_CONTEXT },
	/* Calls per unit of work measure kernel work: judged, fewer is better,
	 * and the evidence the user asked for by naming the function. */
	{ .name = "calls_per_*", .better = MM_LOWER, .role = MM_EVIDENCE,
	  .claim = "kernel calls per unit of work (--probe): fewer is less work" },
	MM_METRIC_END,
};

static void emit_calls(struct mm_ctx *ctx, const struct probe_fn *f,
		       long long calls, double units, const char *unit_name)
{
	char m[160], u[96];

	snprintf(m, sizeof(m), "calls:%s", f->name);
	mm_emit(ctx, m, (double)calls, "calls");
	if (units <= 0) {
		mm_log(ctx, "probe %s: no %s in this phase, no per-%s rate", f->name,
		       unit_name, unit_name);
		return;
	}
	snprintf(m, sizeof(m), "calls_per_%s:%s", unit_name, f->name);
	snprintf(u, sizeof(u), "calls/%s", unit_name);
	mm_emit(ctx, m, (double)calls / units, u);
}

/*
 * Read and disarm every armed probe; emit its counts (unit_name set) or
 * drop them (NULL: a discarded window). Removing the trigger frees its
 * map, so the next window counts from 0.
 */
static void probes_close(struct mm_ctx *ctx, double units, const char *unit_name)
{
	char dir[512];

	for (int i = 0; i < pr.n; i++) {
		struct probe_fn *f = &pr.f[i];
		long long calls;

		if (!f->armed)
			continue;
		calls = hist_calls(f);
		event_dir(f, dir, sizeof(dir));
		tf_write(dir, "trigger", "!" HIST_SPEC);
		f->armed = false;
		if (!unit_name)
			mm_log(ctx, "probe %s: %lld call(s) of a discarded window left out",
			       f->name, calls);
		else if (calls < 0)
			mm_log(ctx, "probe %s: cannot read its hist: %s", f->name,
			       strerror(errno));
		else
			emit_calls(ctx, f, calls, units, unit_name);
	}
}

void mm_measure_end(struct mm_ctx *ctx, double units, const char *unit_name)
{
	/* First: reading the probes is not part of the profile. */
	mm_profile_end(ctx);
	probes_close(ctx, units, unit_name);
}

void mm_measure_discard(struct mm_ctx *ctx)
{
	mm_profile_discard(ctx);
	probes_close(ctx, 0, NULL);
}
