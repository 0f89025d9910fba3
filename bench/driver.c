// SPDX-License-Identifier: GPL-2.0
/*
 * The run engine: one forked child per case, in its own process group,
 * under a timeout. The child runs probe/prepare/iterations/cleanup; the
 * parent waits, records the outcome in cases.csv (a signal, a timeout or an
 * OOM kill is a failed case and the run goes on), and restores every knob
 * the case changed from the settings journal. SIGINT/SIGTERM/SIGHUP stop
 * the child's whole group, restore, and exit.
 */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "driver.h"

/* Shared with the child: why it skipped or failed. */
struct child_report {
	char reason[512];
};

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_alarm;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_alarm(int sig)
{
	(void)sig;
	got_alarm = 1;
}

void mm_driver_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: waitpid() must return to look at the flags. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
}

int mm_driver_interrupted(void)
{
	return got_signal;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int run_iterations(struct mm_ctx *ctx, int n, bool warmup)
{
	for (int i = 0; i < n; i++) {
		int ret;

		ctx->iteration = i;
		ctx->warmup = warmup;
		ret = ctx->wl->run(ctx);
		mm_csv_sync();
		if (ret != MM_PASS)
			return ret;
	}
	return MM_PASS;
}

/* In the child: the whole life of one case. */
static int child_main(struct mm_ctx *ctx, const struct mm_opts *o,
		      struct child_report *rep)
{
	const struct workload *wl = ctx->wl;
	int ret = MM_PASS;

	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	for (int i = 0; i < o->nsets; i++) {
		char path[512];
		const char *eq = strchr(o->sets[i], '=');
		int err;

		snprintf(path, sizeof(path), "%.*s", (int)(eq - o->sets[i]),
			 o->sets[i]);
		err = mm_setting_set(path, eq + 1);
		if (err < 0) {
			snprintf(rep->reason, sizeof(rep->reason),
				 "--set %s: %s", o->sets[i], strerror(-err));
			mm_logf("mmbench: %s", rep->reason);
			return MM_FAIL;
		}
	}
	if (wl->probe)
		ret = wl->probe(ctx);
	if (ret == MM_PASS && wl->prepare)
		ret = wl->prepare(ctx);
	if (ret == MM_PASS) {
		ret = run_iterations(ctx, o->warmups, true);
		if (ret == MM_PASS)
			ret = run_iterations(ctx, o->iterations, false);
		if (wl->cleanup)
			wl->cleanup(ctx);
	}
	if (ret == MM_SKIP)
		snprintf(rep->reason, sizeof(rep->reason), "%s",
			 ctx->skip_reason[0] ? ctx->skip_reason : "skipped");
	else if (ret != MM_PASS)
		snprintf(rep->reason, sizeof(rep->reason), "%s", mm_last_error);
	return ret;
}

static void kill_group(pid_t pid)
{
	int st;

	kill(-pid, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			goto reaped;
		usleep(100000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
reaped:
	/* Stray tasks of the group (a team's processes) go too. */
	kill(-pid, SIGKILL);
}

/*
 * One row of cases.csv or started.csv: the row's identity, then fields
 * f[6..n), written and synced at once (it must survive a crash).
 */
static void case_row(const struct mm_ctx *ctx, const char *file, const char *header,
		     const char **f, int n)
{
	mm_row_ident(f, ctx->wl, ctx->c);
	if (mm_csv_append_fields(file, header, f, n) < 0)
		mm_logf("mmbench: cannot write %s: %s", file, strerror(errno));
	mm_csv_sync();
}

static void record_case(const struct mm_ctx *ctx, const char *status,
			const char *reason, int sig, double secs)
{
	char sigs[16], dur[32];
	const char *f[10] = { [6] = status, [7] = reason, [8] = sigs, [9] = dur };

	snprintf(sigs, sizeof(sigs), "%d", sig);
	snprintf(dur, sizeof(dur), "%.3f", secs);
	case_row(ctx, "cases.csv", MM_CASES_HEADER, f, 10);
}

/*
 * The case is about to run: a row in started.csv, on disk before the case
 * can take the machine down. A case that crashes the kernel (the reason to
 * test a patch) gets no cases.csv row; its started.csv row names it, and
 * the VM lab or `mmbench summary` reports it.
 */
static void record_start(const struct mm_ctx *ctx)
{
	char when[32];
	time_t now = time(NULL);
	const char *f[7] = { [6] = when };

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	case_row(ctx, "started.csv", MM_STARTED_HEADER, f, 7);
}

/* Wait for the child, honouring the timeout and our own signals. */
static int wait_child(pid_t pid, unsigned int timeout, int *st, bool *timed_out)
{
	*timed_out = false;
	got_alarm = 0;
	alarm(timeout);
	for (;;) {
		if (waitpid(pid, st, 0) == pid)
			break;
		if (errno != EINTR)
			return -1;
		if (got_alarm) {
			*timed_out = true;
			kill_group(pid);
			*st = 0;
			break;
		}
		if (got_signal) {
			kill_group(pid);
			*st = 0;
			break;
		}
	}
	alarm(0);
	kill(-pid, SIGKILL);	/* orphans of a crashed team */
	return 0;
}

int mm_run_case(const struct workload *wl, const struct mm_case *c,
		const struct mm_opts *o)
{
	struct mm_ctx ctx = { .wl = wl, .c = c };
	struct child_report *rep;
	char scratch[4200], reason[600] = "";
	const char *status;
	uint64_t t0 = mm_now_ns();
	bool timed_out;
	int st = 0, sig = 0, ret;
	pid_t pid;

	ctx.run_dir = mm_run.dir;
	ctx.ncpus = mm_ncpus();
	ctx.nnodes = mm_nnodes_with_memory();
	snprintf(scratch, sizeof(scratch), "%s/scratch", mm_run.dir);
	ctx.scratch_dir = scratch;
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED)
		return MM_FAIL;
	mkdir(scratch, 0755);
	record_start(&ctx);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		munmap(rep, sizeof(*rep));
		return MM_FAIL;
	}
	if (pid == 0)
		_exit(child_main(&ctx, o, rep));
	setpgid(pid, pid);	/* also here: no race with kill(-pid) */
	wait_child(pid, o->timeout, &st, &timed_out);
	rm_rf(scratch);
	if (mm_settings_restore(mm_run.dir, o->verbose))
		mm_logf("mmbench: some settings could not be restored; see above");
	mm_probe_after_case((long)pid);

	if (timed_out) {
		status = "timeout";
		snprintf(reason, sizeof(reason), "no result after %u s (--timeout)",
			 o->timeout);
		ret = MM_FAIL;
	} else if (got_signal) {
		status = "fail";
		snprintf(reason, sizeof(reason), "interrupted by signal %d",
			 (int)got_signal);
		ret = MM_FAIL;
	} else if (WIFSIGNALED(st)) {
		sig = WTERMSIG(st);
		status = "fail";
		snprintf(reason, sizeof(reason), "killed by signal %d (%s)%s", sig,
			 strsignal(sig), sig == SIGKILL ? "; OOM kill?" : "");
		ret = MM_FAIL;
	} else {
		ret = WEXITSTATUS(st);
		status = ret == MM_PASS ? "pass" : ret == MM_SKIP ? "skip" : "fail";
		snprintf(reason, sizeof(reason), "%s", rep->reason);
		if (ret != MM_PASS && ret != MM_SKIP)
			ret = MM_FAIL;
	}
	record_case(&ctx, status, reason, sig,
		    (double)(mm_now_ns() - t0) / 1e9);
	if (ret != MM_PASS)
		mm_logf("%s [%s]: %s%s%s", wl->name, mm_case_string(c), status,
			reason[0] ? ": " : "", reason);
	munmap(rep, sizeof(*rep));
	return ret;
}
