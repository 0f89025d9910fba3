// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel profiles over the measured phase (--profile[=callgraph]).
 *
 * Kernel path: perf_event_open(2) -> kernel/events/core.c, one sampling
 * event per CPU, system-wide (perf record -a): cycles where the CPU has a
 * cycles counter, else cpu-clock (PERF_COUNT_SW_CPU_CLOCK, an hrtimer per
 * CPU: this machine and QEMU TCG guests have no counters). Samples carry
 * CLOCK_MONOTONIC times (perf -k monotonic), the clock the windows below
 * are taken with, so one perf.data per case holds every iteration and the
 * windows pick each iteration's samples out of it.
 *
 * Life of a profile:
 *  - the driver checks once that perf runs, that the kernel lets it sample
 *    system-wide (a cpu-clock perf_event_open on CPU 0) and whether a
 *    cycles counter exists; meta.csv says which event and why. Where perf
 *    cannot sample, cases run unprofiled and every measured iteration's
 *    row in profile_iterations.csv says why: a skip, never a failure;
 *  - the case child starts `perf record -a -D -1 --control fd:C,A` before
 *    its first iteration (events off) and waits for the ack of a first
 *    command, so perf has finished setting up before any phase;
 *  - mm_measure_begin() of a measured iteration notes the time and writes
 *    "enable" to perf's control pipe without waiting (the phase is not
 *    delayed; samples before perf acts on it are simply not taken);
 *    mm_measure_end() notes the time, writes "disable" and waits for the
 *    acks (after the phase). Only samples between the two times count;
 *  - after the last iteration the child stops perf (SIGINT), reads the
 *    samples with `perf script`, appends each iteration's symbol shares to
 *    profile.csv and then the iteration's row to profile_iterations.csv
 *    (the commit: readers take an iteration's symbol rows only when this
 *    row says ok), and renames the raw data from its temporary name.
 *
 * Raw data: perf writes profile/.<workload>-<pid>.perf.data.tmp (zstd
 * compressed by perf -z where perf has zstd), kept as
 * profile/<workload>-<pid>.perf.data once perf has finished it. The cap
 * (--profile-cap): no iteration starts profiling once the file holds 3/4
 * of it, perf stops by itself at the first write past it (--max-size), and
 * a file over the cap is not kept (its rows are). A case that is killed
 * leaves only the temporary name, which the driver (or the next case that
 * finds its process gone) removes.
 *
 * Shares: samples of the idle task (pid 0: cpu-clock keeps sampling idle
 * CPUs, cycles does not) are counted apart (idle_samples); self_pct and
 * children_pct are shares of the other samples of the window.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "core.h"
#include "driver.h"
#include "profile.h"
#include "profile_int.h"

const char *const stat_name[] = { "ok", "skipped", "capped", "incomplete",
				  "lost" };

struct pf_state pf = { .freq = MM_PROFILE_DEFAULT_FREQ, .cap = MM_PROFILE_DEFAULT_CAP,
	 .ctl_fd = -1, .ack_fd = -1 };

/* ---------------------------------------------------------------- options */

int mm_profile_set(const char *mode)
{
	if (!mode || !strcmp(mode, "flat")) {
		pf.callgraph = false;
	} else if (!strcmp(mode, "callgraph")) {
		pf.callgraph = true;
	} else if (!strcmp(mode, "none")) {
		pf.on = false;
		return 0;
	} else {
		fprintf(stderr, "mmbench: --profile=%s: expected flat, callgraph or none\n",
			mode);
		return -1;
	}
	pf.on = true;
	return 0;
}

int mm_profile_set_freq(const char *hz)
{
	long long v;

	if (mm_parse_decimal(hz, &v) < 0 || v < 1 || v > 100000) {
		fprintf(stderr, "mmbench: --profile-freq: '%s' is not a number in [1, 100000]\n",
			hz);
		return -1;
	}
	pf.freq = (int)v;
	return 0;
}

/* SIZE: decimal bytes, or with K, M or G (powers of 1024); at least 1K. */
int mm_profile_set_cap(const char *size)
{
	char digits[32];
	size_t n = strlen(size);
	unsigned long long mul = 1;
	long long v;

	if (n > 0 && strchr("KMG", size[n - 1])) {
		mul = size[n - 1] == 'K' ? 1ull << 10 : size[n - 1] == 'M' ? 1ull << 20 : 1ull << 30;
		n--;
	}
	if (n == 0 || n >= sizeof(digits))
		goto bad;
	snprintf(digits, sizeof(digits), "%.*s", (int)n, size);
	if (mm_parse_decimal(digits, &v) < 0 || v < 1 || (unsigned long long)v > (1ull << 40) / mul)
		goto bad;
	if ((unsigned long long)v * mul < 1024)
		goto bad;
	pf.cap = (unsigned long long)v * mul;
	return 0;
bad:
	fprintf(stderr, "mmbench: --profile-cap: '%s' is not a size of 1K to 1024G (bytes, or a number with K, M or G)\n",
		size);
	return -1;
}

int mm_profile_set_kallsyms(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, R_OK) < 0) {
		fprintf(stderr, "mmbench: --profile-kallsyms '%s': not a readable file\n", path);
		return -1;
	}
	if (strlen(path) >= sizeof(pf.kallsyms)) {
		fprintf(stderr, "mmbench: --profile-kallsyms: path too long\n");
		return -1;
	}
	snprintf(pf.kallsyms, sizeof(pf.kallsyms), "%s", path);
	return 0;
}

bool mm_profile_enabled(void)
{
	return pf.on;
}

/* ---------------------------------------------------------------- checks */

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);
}

/* Open a sampling event on CPU 0 for all tasks: 0 or -errno. */
static int probe_event(unsigned int type, unsigned long long config)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = type, .config = config, .disabled = 1,
		.freq = 1, .sample_freq = 100, .sample_type = PERF_SAMPLE_IP,
	};
	long fd = sys_perf_event_open(&a, -1, 0);

	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/* perf from $MMBENCH_PERF, else the first `perf` in PATH. */
static bool find_perf(void)
{
	const char *env = getenv("MMBENCH_PERF"), *path = getenv("PATH");
	char buf[PATH_MAX];

	if (env && *env) {
		snprintf(pf.perf, sizeof(pf.perf), "%s", env);
		return access(pf.perf, X_OK) == 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if (len > 0 && len < sizeof(buf) - 6) {
			snprintf(buf, sizeof(buf), "%.*s/perf", (int)len, p);
			if (access(buf, X_OK) == 0) {
				snprintf(pf.perf, sizeof(pf.perf), "%s", buf);
				return true;
			}
		}
		p = colon ? colon + 1 : NULL;
	}
	snprintf(pf.perf, sizeof(pf.perf), "perf");
	return false;
}

/*
 * Run argv (never through a shell) with stdout into out (NUL-terminated,
 * cut at len) and stderr to /dev/null. Returns the wait status or -errno.
 */
static int run_capture(char *const argv[], char *out, size_t len)
{
	int p[2], st = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(p[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + got, len - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
		if (got == len - 1) {
			char sink[512];

			while (read(p[0], sink, sizeof(sink)) > 0)
				;
			break;
		}
	}
	out[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}

static void check_perf_runs(void)
{
	char out[4096], *nl;
	char *argv[] = { pf.perf, "version", "--build-options", NULL };
	int st;

	if (!find_perf()) {
		snprintf(pf.skip_why, sizeof(pf.skip_why),
			 "perf not found (%s%s: Debian package linux-perf)",
			 getenv("MMBENCH_PERF") && *getenv("MMBENCH_PERF") ?
			 "MMBENCH_PERF=" : "no perf in PATH", getenv("MMBENCH_PERF") &&
			 *getenv("MMBENCH_PERF") ? pf.perf : "");
		return;
	}
	st = run_capture(argv, out, sizeof(out));
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    strncmp(out, "perf version ", 13)) {
		snprintf(pf.skip_why, sizeof(pf.skip_why), "%s does not run as perf (`perf version` %s %d)",
			 pf.perf, st < 0 ? "failed:" : WIFEXITED(st) ? "exited" : "killed by signal",
			 st < 0 ? -st : WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return;
	}
	nl = strchr(out, '\n');
	snprintf(pf.perf_version, sizeof(pf.perf_version), "%.*s",
		 nl ? (int)(nl - out) : (int)strlen(out), out);
	/* "                  zstd: [ on  ]  # HAVE_ZSTD_SUPPORT" */
	pf.zstd = strstr(out, "zstd: [ on") != NULL;
}

static void check_kernel(void)
{
	int e;

	if (mm_read_file("/proc/sys/kernel/perf_event_paranoid", pf.paranoid,
			 sizeof(pf.paranoid)) < 0) {
		snprintf(pf.paranoid, sizeof(pf.paranoid), "absent");
		snprintf(pf.skip_why, sizeof(pf.skip_why),
			 "this kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid: CONFIG_PERF_EVENTS off)");
		return;
	}
	e = probe_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	if (e == -EACCES || e == -EPERM) {
		snprintf(pf.skip_why, sizeof(pf.skip_why),
			 "the kernel refuses system-wide sampling: perf_event_open(cpu-clock, all tasks, CPU 0): %s "
			 "(kernel.perf_event_paranoid=%s; it needs root, CAP_PERFMON, or perf_event_paranoid <= 0)",
			 strerror(-e), pf.paranoid);
		return;
	}
	if (e < 0) {
		snprintf(pf.skip_why, sizeof(pf.skip_why),
			 "no usable perf events: perf_event_open(cpu-clock, all tasks, CPU 0): %s",
			 strerror(-e));
		return;
	}
	e = probe_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (e == 0) {
		snprintf(pf.event, sizeof(pf.event), "cycles");
		snprintf(pf.event_why, sizeof(pf.event_why), "hardware cycles counter");
	} else {
		snprintf(pf.event, sizeof(pf.event), "cpu-clock");
		snprintf(pf.event_why, sizeof(pf.event_why),
			 "software clock: no hardware cycles counter here (perf_event_open PERF_COUNT_HW_CPU_CYCLES: %s)",
			 strerror(-e));
	}
}

/* Once per process tree: in the driver before the first case. */
static void prepare(void)
{
	if (pf.prepared)
		return;
	pf.prepared = true;
	snprintf(pf.event, sizeof(pf.event), "none");
	check_perf_runs();
	if (!pf.skip_why[0])
		check_kernel();
	else if (mm_read_file("/proc/sys/kernel/perf_event_paranoid", pf.paranoid,
			      sizeof(pf.paranoid)) < 0)
		snprintf(pf.paranoid, sizeof(pf.paranoid), "absent");
	if (pf.skip_why[0]) {
		snprintf(pf.event, sizeof(pf.event), "none");
		mm_logf("mmbench: --profile skipped: %s", pf.skip_why);
	}
}

void mm_profile_facts(void (*kv)(void *o, const char *key, const char *val), void *o)
{
	char buf[PATH_MAX + 200];

	if (!pf.on)
		return;
	prepare();
	kv(o, "profile", pf.callgraph ? "callgraph" : "flat");
	kv(o, "profile_event", pf.event);
	kv(o, "profile_event_why", pf.skip_why[0] ? "profiling skipped" : pf.event_why);
	snprintf(buf, sizeof(buf), "%d", pf.freq);
	kv(o, "profile_freq_hz", buf);
	snprintf(buf, sizeof(buf), "%llu", pf.cap);
	kv(o, "profile_cap_bytes", buf);
	snprintf(buf, sizeof(buf), "%s%s%s%s", pf.perf, pf.perf_version[0] ? " (" : "",
		 pf.perf_version, pf.perf_version[0] ? ")" : "");
	kv(o, "profile_perf", buf);
	kv(o, "profile_compression", pf.skip_why[0] ? "-" : pf.zstd ? "zstd (perf -z)" :
	   "none (perf without zstd)");
	kv(o, "perf_event_paranoid", pf.paranoid[0] ? pf.paranoid : "unknown");
	kv(o, "profile_kallsyms", pf.kallsyms[0] ? pf.kallsyms : "/proc/kallsyms");
	snprintf(buf, sizeof(buf), "%s%s", pf.skip_why[0] ? "skipped: " : "ok",
		 pf.skip_why);
	kv(o, "profile_status", buf);
}

/* ---------------------------------------------------------------- iterations */

static struct piter *iter_get(int iteration)
{
	struct piter *p;

	for (int i = pf.nit - 1; i >= 0; i--)
		if (pf.it[i].iteration == iteration)
			return &pf.it[i];
	if (pf.nit == pf.capit) {
		int cap = pf.capit ? pf.capit * 2 : 16;

		p = realloc(pf.it, (size_t)cap * sizeof(*p));
		if (!p)
			return NULL;
		pf.it = p;
		pf.capit = cap;
	}
	p = &pf.it[pf.nit++];
	memset(p, 0, sizeof(*p));
	p->iteration = iteration;
	return p;
}

static void mark(struct piter *p, enum pstat st, const char *why)
{
	if (p->status != ST_OK)
		return;		/* the first reason stays */
	p->status = st;
	snprintf(p->reason, sizeof(p->reason), "%s", why);
}

/* ---------------------------------------------------------------- perf control */

/* The last non-empty lines of perf's stderr, for a reason. */
void pf_perf_log_tail(char *buf, size_t len)
{
	char line[512], last[2][512] = { "", "" };
	FILE *f = fopen(pf.log, "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || !strncmp(line, "[ perf record: Woken up", 23) ||
		    !strncmp(line, "[ perf record: Captured", 23))
			continue;
		snprintf(last[0], sizeof(last[0]), "%s", last[1]);
		snprintf(last[1], sizeof(last[1]), "%s", line);
	}
	fclose(f);
	snprintf(buf, len, "%s%s%s", last[0], last[0][0] ? " " : "", last[1]);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? -1 : (long long)st.st_size;
}

static void perf_reap(bool block)
{
	struct rusage ru;
	int st;
	pid_t r;

	if (pf.reaped || pf.perf_pid <= 0)
		return;
	do
		r = wait4(pf.perf_pid, &st, block ? 0 : WNOHANG, &ru);
	while (r < 0 && errno == EINTR);
	if (r == pf.perf_pid) {
		pf.reaped = true;
		pf.perf_status = st;
		pf.running = false;
		/* perf's own CPU time: the cost of sampling outside the tasks */
		pf.perf_cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	}
}

/* Why perf is gone: its own words, or the cap it stopped at. */
static void perf_gone_why(char *buf, size_t len)
{
	char tail[600];
	long long sz = file_size(pf.tmp);

	pf_perf_log_tail(tail, sizeof(tail));
	if (strstr(tail, "size limit reached") || (sz >= 0 && (unsigned long long)sz >= pf.cap))
		snprintf(buf, len, "perf stopped: its output reached the cap (--profile-cap %llu bytes)",
			 pf.cap);
	else if (pf.reaped && WIFSIGNALED(pf.perf_status))
		snprintf(buf, len, "perf was killed by signal %d%s%s", WTERMSIG(pf.perf_status),
			 tail[0] ? ": " : "", tail);
	else
		snprintf(buf, len, "perf exited%s%s", tail[0] ? ": " : "", tail);
}

/*
 * One command to perf's control pipe. perf may have exited (it stops by
 * itself at the cap): the write then fails with EPIPE, and the SIGPIPE it
 * raises, which would kill the case, is blocked and taken back here.
 */
static int ctl_send(const char *cmd)
{
	static const struct timespec zero;
	size_t n = strlen(cmd);
	sigset_t pipe_set, old;
	ssize_t w;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	do
		w = write(pf.ctl_fd, cmd, n);
	while (w < 0 && errno == EINTR);
	e = errno;
	if (w < 0 && e == EPIPE && !sigismember(&old, SIGPIPE))
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (w != (ssize_t)n)
		return w < 0 ? -e : -EIO;
	pf.pending++;
	return 0;
}

/*
 * Wait until every command sent has its "ack\n" (one newline each). 0, or
 * -EPIPE when perf closed the pipe (exited), -ETIMEDOUT.
 */
static int ack_wait(int timeout_ms)
{
	uint64_t deadline = mm_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	char buf[256];

	while (pf.pending > 0) {
		struct pollfd p = { .fd = pf.ack_fd, .events = POLLIN };
		uint64_t now = mm_now_ns();
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		n = read(pf.ack_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EPIPE;
		for (ssize_t i = 0; i < n; i++)
			pf.pending -= buf[i] == '\n';
	}
	return 0;
}

static void fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The child side of the fork: perf record, dying with the case. */
static void perf_exec(char **argv, int ctl, int ack, pid_t parent)
{
	int log = open(pf.log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	/* SIGTERM, not SIGKILL: perf then finishes its file (a temp name). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(126);
	if (log >= 0) {
		dup2(log, STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
	}
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	/* The two pipe ends perf is told about survive exec; nothing else. */
	fcntl(ctl, F_SETFD, 0);
	fcntl(ack, F_SETFD, 0);
	execv(argv[0], argv);
	_exit(127);
}

static int perf_start(char *why, size_t len)
{
	char freq[16], control[64], maxsz[32];
	char *argv[32];
	int ctl[2], ack[2], n = 0, e;
	pid_t parent = getpid();

	if (pipe2(ctl, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	snprintf(freq, sizeof(freq), "%d", pf.freq);
	snprintf(control, sizeof(control), "fd:%d,%d", ctl[0], ack[1]);
	snprintf(maxsz, sizeof(maxsz), "%lluB", pf.cap);
	argv[n++] = pf.perf;
	argv[n++] = "record";
	argv[n++] = "-a";
	argv[n++] = "-e";
	argv[n++] = pf.event;
	argv[n++] = "-F";
	argv[n++] = freq;
	if (pf.callgraph)
		argv[n++] = "-g";
	argv[n++] = "-k";
	argv[n++] = "monotonic";
	argv[n++] = "-D";
	argv[n++] = "-1";
	argv[n++] = "--control";
	argv[n++] = control;
	argv[n++] = "-N";	/* no build-id cache under $HOME: the run dir only */
	if (pf.zstd)
		argv[n++] = "-z";
	argv[n++] = "--max-size";
	argv[n++] = maxsz;
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = pf.tmp;
	argv[n] = NULL;
	fflush(NULL);
	pf.perf_pid = fork();
	if (pf.perf_pid == 0)
		perf_exec(argv, ctl[0], ack[1], parent);
	e = errno;
	close(ctl[0]);
	close(ack[1]);
	pf.ctl_fd = ctl[1];
	pf.ack_fd = ack[0];
	if (pf.perf_pid < 0) {
		snprintf(why, len, "fork: %s", strerror(e));
		fd_close(&pf.ctl_fd);
		fd_close(&pf.ack_fd);
		return -1;
	}
	pf.running = true;
	pf.reaped = false;
	pf.pending = 0;
	/* Events are off (-D -1); the ack of this command says perf is set up. */
	if (ctl_send("disable\n") < 0 || (e = ack_wait(READY_TIMEOUT_MS)) < 0) {
		if (e == -ETIMEDOUT) {
			kill(pf.perf_pid, SIGKILL);
			perf_reap(true);
			snprintf(why, len, "perf was not ready after %d s", READY_TIMEOUT_MS / 1000);
		} else {
			perf_reap(true);
			perf_gone_why(why, len);
		}
		return -1;
	}
	fcntl(pf.ctl_fd, F_SETFL, O_NONBLOCK);
	fcntl(pf.ack_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* SIGINT: perf finishes the file and exits. 0 when it did so cleanly. */
static int perf_stop(char *why, size_t len)
{
	if (!pf.reaped && pf.perf_pid > 0) {
		kill(pf.perf_pid, SIGINT);
		for (int i = 0; i < STOP_TIMEOUT_S * 10 && !pf.reaped; i++) {
			perf_reap(false);
			if (!pf.reaped)
				usleep(100000);
		}
		if (!pf.reaped) {
			kill(pf.perf_pid, SIGKILL);
			perf_reap(true);
			snprintf(why, len, "perf did not finish its file within %d s", STOP_TIMEOUT_S);
			return -1;
		}
	}
	fd_close(&pf.ctl_fd);
	fd_close(&pf.ack_fd);
	pf.running = false;
	/* perf record finishes its file on SIGINT or SIGTERM, then dies of it. */
	if ((WIFSIGNALED(pf.perf_status) && WTERMSIG(pf.perf_status) != SIGINT &&
	     WTERMSIG(pf.perf_status) != SIGTERM) ||
	    (WIFEXITED(pf.perf_status) && WEXITSTATUS(pf.perf_status) != 0)) {
		perf_gone_why(why, len);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- files */

static void profile_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/profile", mm_run.dir);
}

/* No such process, or a zombie nobody has reaped yet (its parent was killed). */
static bool pid_gone(long pid)
{
	char path[64], buf[256], *rp;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (mm_read_file(path, buf, sizeof(buf)) < 0)
		return true;
	rp = strrchr(buf, ')');
	return rp && (rp[2] == 'Z' || rp[2] == 'X');
}

/* ".<workload>-<pid>.perf.data.tmp" and ".log.tmp": pid, if its process is gone. */
static bool stale_tmp(const char *name, long only_pid)
{
	const char *dash, *dot;
	char *end;
	long pid;

	if (name[0] != '.' || strlen(name) < 5 || strcmp(name + strlen(name) - 4, ".tmp"))
		return false;
	if (!strcmp(name, ".kernel_functions.fnv32.tmp"))
		return only_pid <= 0;
	dot = strstr(name, ".perf.");
	if (!dot)
		dot = strstr(name, ".kallsyms.");
	if (!dot)
		return false;
	for (dash = dot; dash > name && dash[-1] != '-'; dash--)
		;
	if (dash == name)
		return false;
	errno = 0;
	pid = strtol(dash, &end, 10);
	if (errno || end != dot || pid <= 0)
		return false;
	if (only_pid > 0)
		return pid == only_pid;
	return pid_gone(pid);
}

static void remove_tmp(long only_pid)
{
	char dir[4200], path[4500];
	struct dirent *de;
	DIR *d;

	profile_dir(dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (stale_tmp(de->d_name, only_pid)) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	closedir(d);
}

void mm_profile_after_case(long pid)
{
	if (pf.on && mm_run.dir[0])
		remove_tmp(pid);
}

static int sync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The finished perf.data under its own name: synced, renamed, dir synced. */
static int keep_raw(char *why, size_t len)
{
	char dir[4200];
	long long sz = file_size(pf.tmp);
	int ret;

	if (sz < 0) {
		snprintf(why, len, "raw data not kept: %s", strerror(errno));
		return -1;
	}
	if ((unsigned long long)sz > pf.cap) {
		snprintf(why, len, "raw data not kept: %lld bytes, over the cap of %llu (--profile-cap)",
			 sz, pf.cap);
		unlink(pf.tmp);
		return -1;
	}
	ret = sync_path(pf.tmp, O_RDONLY);
	if (ret == 0 && rename(pf.tmp, pf.final) < 0)
		ret = -errno;
	profile_dir(dir, sizeof(dir));
	if (ret == 0)
		ret = sync_path(dir, O_RDONLY | O_DIRECTORY);
	if (ret < 0) {
		snprintf(why, len, "raw data not kept: %s", strerror(-ret));
		unlink(pf.tmp);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- mirror */

/*
 * In the VM lab the run directory lives in the guest: the raw data goes
 * home over the results channel as base64 lines of "profile.<name>.b64",
 * ended by "=end <bytes> <fnv1a64>"; the host decodes it
 * (tools/mmcompare/mmprofile --unpack), and only a whole, checked file
 * becomes profile/<name>.
 */
void pf_mirror_raw(const char *path, const char *name)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[3072];
	char out[4200], file[300];
	unsigned long h = 14695981039346656037ul;
	unsigned long long total = 0;
	size_t n;
	FILE *f;

	if (mm_run.mirror_fd < 0)
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	snprintf(file, sizeof(file), "profile.%s.b64", name);
	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		size_t o = 0;

		for (size_t i = 0; i < n; i++)
			h = (h ^ in[i]) * 1099511628211ul;
		total += n;
		for (size_t i = 0; i < n; i += 3) {
			unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
				     (i + 2 < n ? in[i + 2] : 0);

			out[o++] = b64[v >> 18 & 63];
			out[o++] = b64[v >> 12 & 63];
			out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
			out[o++] = i + 2 < n ? b64[v & 63] : '=';
		}
		out[o] = '\0';
		mm_mirror_line(file, out);
	}
	fclose(f);
	snprintf(out, sizeof(out), "=end %llu %016lx", total, h);
	mm_mirror_line(file, out);
}

/* ---------------------------------------------------------------- case */

static void case_reset(void)
{
	for (int i = 0; i < pf.nit; i++) {
		free(pf.it[i].self);
		free(pf.it[i].child);
	}
	for (int i = 0; i < pf.nsyms; i++)
		free(pf.syms[i].key);
	free(pf.it);
	free(pf.w);
	free(pf.syms);
	free(pf.htab);
	pf.it = NULL;
	pf.w = NULL;
	pf.syms = NULL;
	pf.htab = NULL;
	pf.nit = pf.capit = pf.nw = pf.capw = pf.nsyms = pf.capsyms = pf.hcap = 0;
	pf.ndiscarded = 0;
	pf.in_case = pf.running = pf.open = false;
	pf.case_status = ST_OK;
	pf.case_why[0] = '\0';
	pf.name[0] = '\0';
	pf.perf_pid = 0;
	pf.perf_cpu_s = 0;
}

void mm_profile_case_begin(struct mm_ctx *ctx)
{
	char dir[4200], why[600];

	if (!pf.on)
		return;
	prepare();
	case_reset();
	pf.in_case = true;
	if (pf.skip_why[0]) {
		pf.case_status = ST_SKIPPED;
		snprintf(pf.case_why, sizeof(pf.case_why), "%s", pf.skip_why);
		return;
	}
	profile_dir(dir, sizeof(dir));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		pf.case_status = ST_SKIPPED;
		snprintf(pf.case_why, sizeof(pf.case_why), "cannot create %s: %s", dir,
			 strerror(errno));
		mm_log(ctx, "profile skipped: %s", pf.case_why);
		return;
	}
	remove_tmp(0);
	snprintf(pf.name, sizeof(pf.name), "%s-%ld", ctx->wl->name, (long)getpid());
	snprintf(pf.tmp, sizeof(pf.tmp), "%s/.%s.perf.data.tmp", dir, pf.name);
	snprintf(pf.log, sizeof(pf.log), "%s/.%s.perf.log.tmp", dir, pf.name);
	snprintf(pf.final, sizeof(pf.final), "%s/%s.perf.data", dir, pf.name);
	/* A case of an earlier run in this directory had our pid: keep its file. */
	for (int k = 2; access(pf.final, F_OK) == 0 && k < 1000; k++) {
		snprintf(pf.name, sizeof(pf.name), "%s-%ld.%d", ctx->wl->name, (long)getpid(), k);
		snprintf(pf.final, sizeof(pf.final), "%s/%s.perf.data", dir, pf.name);
	}
	unlink(pf.tmp);
	if (perf_start(why, sizeof(why)) < 0) {
		bool capped = strstr(why, "reached the cap") != NULL;

		pf.case_status = capped ? ST_CAPPED : ST_SKIPPED;
		snprintf(pf.case_why, sizeof(pf.case_why), "%s%s", why,
			 capped ? " before the first measured phase" : "");
		mm_log(ctx, "profile: %s", pf.case_why);
		fd_close(&pf.ctl_fd);
		fd_close(&pf.ack_fd);
		pf.running = false;
	}
}

void mm_profile_begin(struct mm_ctx *ctx)
{
	struct piter *p;
	long long sz;
	int ret;

	if (!pf.on || !pf.in_case || ctx->warmup || pf.open)
		return;
	p = iter_get(ctx->iteration);
	if (!p)
		return;
	if (pf.case_status != ST_OK)
		return mark(p, pf.case_status, pf.case_why);
	if (p->status != ST_OK)
		return;
	perf_reap(false);
	if (!pf.running) {
		char why[600];

		perf_gone_why(why, sizeof(why));
		return mark(p, ST_INCOMPLETE, why);
	}
	sz = file_size(pf.tmp);
	if (sz >= 0 && (unsigned long long)sz >= pf.cap / 4 * 3) {
		char why[200];

		snprintf(why, sizeof(why), "not profiled: the raw data holds %lld bytes, 3/4 of the cap (--profile-cap %llu)",
			 sz, pf.cap);
		return mark(p, ST_CAPPED, why);
	}
	pf.open_t0 = mm_now_ns();
	ret = ctl_send("enable\n");
	if (ret < 0) {
		char why[600];

		perf_reap(false);
		if (ret == -EPIPE)
			perf_gone_why(why, sizeof(why));
		else
			snprintf(why, sizeof(why), "cannot write perf's control pipe: %s",
				 strerror(-ret));
		return mark(p, ST_INCOMPLETE, why);
	}
	pf.open = true;
	pf.open_it = (int)(p - pf.it);
}

/* Close the open window; keep it (its samples count) or not. */
static void window_close(bool keep)
{
	uint64_t t1;
	struct piter *p;
	struct window *w;
	int ret;

	if (!pf.open)
		return;
	t1 = mm_now_ns();
	pf.open = false;
	p = &pf.it[pf.open_it];
	ret = ctl_send("disable\n");
	if (ret == 0)
		ret = ack_wait(ACK_TIMEOUT_MS);
	if (ret < 0) {
		char why[600];

		perf_reap(ret != -ETIMEDOUT);
		if (ret == -ETIMEDOUT)
			snprintf(why, sizeof(why), "perf did not acknowledge the end of the window within %d s",
				 ACK_TIMEOUT_MS / 1000);
		else
			perf_gone_why(why, sizeof(why));
		return mark(p, ST_INCOMPLETE, why);
	}
	if (!keep) {
		pf.ndiscarded++;
		return;
	}
	if (pf.nw == pf.capw) {
		int cap = pf.capw ? pf.capw * 2 : 16;

		w = realloc(pf.w, (size_t)cap * sizeof(*w));
		if (!w)
			return mark(p, ST_LOST, "out of memory");
		pf.w = w;
		pf.capw = cap;
	}
	pf.w[pf.nw++] = (struct window){ .it = pf.open_it, .t0 = pf.open_t0, .t1 = t1 };
	if (!p->windowed)
		p->t0 = pf.open_t0;
	p->t1 = t1;
	p->windowed = true;
}

void mm_profile_end(struct mm_ctx *ctx)
{
	(void)ctx;
	window_close(true);
}

void mm_profile_discard(struct mm_ctx *ctx)
{
	(void)ctx;
	window_close(false);
}

/* Every measured iteration's rows: symbols first, its commit row last. */
static void write_rows(struct mm_ctx *ctx, bool raw_kept)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "profile/%s.perf.data", pf.name);
	for (int i = 0; i < pf.nit; i++) {
		struct piter *p = &pf.it[i];

		if (p->status == ST_OK && !p->windowed)
			mark(p, ST_LOST, "no measured window closed in this iteration");
		if (p->status == ST_OK && pf_symbol_rows(ctx, p) < 0)
			return;
		mm_stop_point("profile-commit");
		if (pf_iteration_row(ctx, p, raw_kept && p->status == ST_OK ? rel : "") < 0)
			return;
	}
}

/*
 * With a software clock, the interrupt-enable point holding the largest
 * mean share of the profiled iterations' samples, when it holds at least
 * MM_IRQ_POINT_PCT (see mm_irq_on_point): said in run.log and meta.csv.
 */
static void irq_point_note(struct mm_ctx *ctx)
{
	double best = 0;
	int ok = 0, at = -1;

	if (!mm_soft_clock(pf.event))
		return;
	for (int i = 0; i < pf.nit; i++)
		ok += pf.it[i].status == ST_OK && pf.it[i].total > 0;
	for (int k = 0; ok && k < pf.nsyms; k++) {
		double sum = 0;

		if (!mm_irq_on_point(pf.syms[k].key))
			continue;
		for (int i = 0; i < pf.nit; i++) {
			struct piter *p = &pf.it[i];

			if (p->status == ST_OK && p->total > 0 && k < p->nalloc)
				sum += 100.0 * (double)p->self[k] / (double)p->total;
		}
		if (sum / ok > best) {
			best = sum / ok;
			at = k;
		}
	}
	if (at >= 0 && best >= MM_IRQ_POINT_PCT) {
		mm_note(ctx, "profile_irq_point", "%s [%s]: %.1f%% of the samples at %s, where "
			"interrupts are turned back on: %s cannot interrupt code that runs with "
			"them off, so that code's time is charged there and its own share is understated",
			ctx->wl->name, mm_case_string(ctx->c), best, pf.syms[at].key, pf.event);
		mm_log(ctx, "profile: %.1f%% of the samples at %s (interrupts turned back on): "
		       "the time of code that ran with them off, which %s cannot sample",
		       best, pf.syms[at].key, pf.event);
	}
}

int mm_profile_case_end(struct mm_ctx *ctx)
{
	char why[700] = "", kept_why[300] = "", kfile[4400];
	long long outside = 0;
	bool raw = false, any = false, ksyms = false;
	int ok = 0, nit = pf.nit;

	if (!pf.on || !pf.in_case)
		return 0;
	if (pf.open)
		mm_profile_end(ctx);
	if (pf.perf_pid > 0) {
		if (perf_stop(why, sizeof(why)) < 0) {
			for (int i = 0; i < pf.nit; i++)
				mark(&pf.it[i], ST_LOST, why);
			unlink(pf.tmp);
		} else {
			for (int i = 0; i < pf.nit; i++)
				any |= pf.it[i].status == ST_OK && pf.it[i].windowed;
			if (any && pf_perf_script(why, sizeof(why), &outside) < 0)
				for (int i = 0; i < pf.nit; i++)
					mark(&pf.it[i], ST_LOST, why);
			raw = file_size(pf.tmp) >= 0 && keep_raw(kept_why, sizeof(kept_why)) == 0;
			ksyms = raw && pf_write_kallsyms(kfile, sizeof(kfile)) == 0;
			if (raw)
				pf_write_function_hashes();
		}
	}
	write_rows(ctx, raw);
	mm_csv_sync();
	irq_point_note(ctx);
	for (int i = 0; i < pf.nit; i++)
		ok += pf.it[i].status == ST_OK;
	if (pf.nit > 0 && ok == 0)
		mm_note(ctx, "profile", "%s [%s]: no iteration profiled: %s", ctx->wl->name,
			mm_case_string(ctx->c), pf.it[0].reason);
	else if (pf.nit > 0)
		mm_note(ctx, "profile", "%s [%s]: %d of %d iteration(s) profiled (%s, %d Hz%s); "
			"perf record used %.3f s of CPU%s%s%s%s%s",
			ctx->wl->name, mm_case_string(ctx->c), ok, pf.nit, pf.event, pf.freq,
			pf.callgraph ? ", call graphs" : "", pf.perf_cpu_s,
			raw ? "; raw data profile/" : "", raw ? pf.name : "", raw ? ".perf.data" : "",
			kept_why[0] ? "; " : "", kept_why);
	if (raw) {
		char base[300];

		snprintf(base, sizeof(base), "%s.perf.data", pf.name);
		pf_mirror_raw(pf.final, base);
		snprintf(base, sizeof(base), "%s.kallsyms", pf.name);
		if (ksyms)
			pf_mirror_raw(kfile, base);
	}
	if (outside > 0)
		mm_log(ctx, "profile: %lld sample(s) outside the measured windows left out "
		       "(taken while perf switched events on or off, or in %d discarded window(s))",
		       outside, pf.ndiscarded);
	unlink(pf.log);
	case_reset();
	return nit;
}
