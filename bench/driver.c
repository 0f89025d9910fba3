// SPDX-License-Identifier: GPL-2.0
/*
 * The run engine: one forked child per case, in its own process group,
 * under a timeout. The child runs precheck/prepare/iterations/cleanup; the
 * parent waits, records the outcome in cases.csv (a signal, a timeout or an
 * OOM kill is a failed case and the run goes on), and restores every knob
 * the case changed from the settings journal. SIGINT/SIGTERM/SIGHUP stop
 * the child's whole group, restore, and exit.
 *
 * A case dies with the driver: the child asks for SIGKILL when its parent
 * dies (PR_SET_PDEATHSIG, then checks the parent is still the driver, as
 * the driver may have died before the request), and holds the settings
 * lock that every restore waits for, so no knob changes after a restore.
 * A failed write or sync of a result file fails the case with the reason,
 * and a case whose started.csv or cases.csv row is not on disk does not
 * count as passed.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "driver.h"
#include "params.h"
#include "precision.h"
#include "profile.h"

/*
 * Shared with the child: why it skipped or failed, and how far its measured
 * iterations got (updated after each one, so a case killed later still
 * says how many completed).
 */
struct child_report {
	char reason[512];
	int iterations;
	double pct;
	char metric[MM_METRIC_MAX + 1];
	int nwatched;
	int stop;	/* enum mm_stop */
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

/* One iteration: MM_PASS, or why the case ends. */
static int run_iteration(struct mm_ctx *ctx, int i, bool warmup)
{
	int ret;

	ctx->iteration = i;
	ctx->warmup = warmup;
	ret = ctx->wl->run(ctx);
	mm_csv_sync();
	/* An iteration whose rows are not all on disk ends the case. */
	if (mm_csv_error(NULL, 0))
		return MM_FAIL;
	mm_stop_point("iteration");
	return ret;
}

static int run_iterations(struct mm_ctx *ctx, int n, bool warmup)
{
	for (int i = 0; i < n; i++) {
		int ret = run_iteration(ctx, i, warmup);

		if (ret != MM_PASS)
			return ret;
	}
	return MM_PASS;
}

/*
 * Whether the measured iterations stop after n of them, and why (enum
 * mm_stop), or MM_STOP_NONE to run another. Without --precision: at -i.
 * With it, from the minimum (-i) on: when no watched metric was emitted
 * (nothing timed to wait for), when every watched metric's half-width is
 * at most P% (the rule never looks at a comparison's p value), or at a
 * limit: --max-iterations, or --max-time (the measured iterations' time so
 * far, plus one more at their mean length, would pass it).
 */
static int measured_stop(const struct mm_opts *o, int n, uint64_t elapsed_ns,
			 struct child_report *rep)
{
	double limit = (double)o->max_time * 1e9;

	rep->nwatched = mm_prec_worst(&rep->pct, rep->metric, sizeof(rep->metric));
	if (n < o->iterations)
		return MM_STOP_NONE;
	if (o->precision <= 0)
		return MM_STOP_FIXED;
	if (rep->nwatched == 0)
		return MM_STOP_NOTHING;
	if (!isnan(rep->pct) && rep->pct <= o->precision)
		return MM_STOP_PRECISION;
	if (n >= o->max_iterations)
		return MM_STOP_MAX_ITER;
	if (o->max_time && (double)elapsed_ns + (double)elapsed_ns / n > limit)
		return MM_STOP_MAX_TIME;
	return MM_STOP_NONE;
}

/* The measured iterations: -i of them, or as many as --precision asks. */
static int run_measured(struct mm_ctx *ctx, const struct mm_opts *o,
			struct child_report *rep)
{
	uint64_t t0 = mm_now_ns();

	mm_prec_reset();
	for (int i = 0;; i++) {
		int ret = run_iteration(ctx, i, false);

		if (ret != MM_PASS)
			return ret;
		rep->iterations = i + 1;
		rep->stop = measured_stop(o, i + 1, mm_now_ns() - t0, rep);
		if (rep->stop != MM_STOP_NONE)
			return MM_PASS;
	}
}

int mm_apply_sets(const struct mm_opts *o, char *why, size_t len)
{
	for (int i = 0; i < o->nsets; i++) {
		char path[512];
		const char *eq = strchr(o->sets[i], '=');
		int err;

		snprintf(path, sizeof(path), "%.*s", (int)(eq - o->sets[i]),
			 o->sets[i]);
		err = mm_setting_set(path, eq + 1);
		if (err < 0) {
			snprintf(why, len, "--set %s: %s", o->sets[i], strerror(-err));
			return MM_FAIL;
		}
	}
	return MM_PASS;
}

/*
 * The child dies with the driver. PR_SET_PDEATHSIG only covers a parent
 * that dies after the call: a driver killed between fork() and here is
 * caught by getppid(), which then names the reaper instead.
 */
static int die_with_driver(pid_t driver, char *why, size_t len)
{
	mm_stop_point("start");
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		snprintf(why, len, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
		return -1;
	}
	if (getppid() != driver)
		_exit(MM_FAIL);
	mm_stop_point("armed");
	return 0;
}

/* In the child: the whole life of one case. */
static int child_main(struct mm_ctx *ctx, const struct mm_opts *o,
		      struct child_report *rep, pid_t driver)
{
	const struct workload *wl = ctx->wl;
	char werr[160];
	int ret = MM_PASS, err;

	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	mm_stop_role = "case";
	if (die_with_driver(driver, rep->reason, sizeof(rep->reason)) < 0)
		return MM_FAIL;
	err = mm_settings_case_lock();
	if (err < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "settings lock: %s",
			 strerror(-err));
		return MM_FAIL;
	}
	mm_stop_point("locked");
	if (mm_apply_sets(o, rep->reason, sizeof(rep->reason)) != MM_PASS) {
		mm_logf("mmbench: %s", rep->reason);
		return MM_FAIL;
	}
	if (wl->precheck)
		ret = wl->precheck(ctx);
	if (ret == MM_PASS && wl->prepare)
		ret = wl->prepare(ctx);
	if (ret == MM_PASS && !mm_csv_error(NULL, 0)) {
		mm_profile_case_begin(ctx);
		ret = run_iterations(ctx, o->warmups, true);
		if (ret == MM_PASS)
			ret = run_measured(ctx, o, rep);
		if (wl->cleanup)
			wl->cleanup(ctx);
		if (mm_profile_case_end(ctx) > 0)
			mm_probe_profile_notes(ctx);
	}
	mm_csv_sync();
	if (mm_csv_error(werr, sizeof(werr))) {
		/* Whatever the workload said: its rows are not all on disk. */
		snprintf(rep->reason, sizeof(rep->reason), "%s%s%s", werr,
			 ret != MM_PASS && ret != MM_SKIP && mm_last_error[0] ? "; " : "",
			 ret != MM_PASS && ret != MM_SKIP ? mm_last_error : "");
		return MM_FAIL;
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
 * 0, or -errno with the reason in why.
 */
static int case_row(const struct mm_ctx *ctx, const char *file, const char *header,
		    const char **f, int n, char *why, size_t len)
{
	int ret;

	mm_row_ident(f, ctx->wl, ctx->c);
	ret = mm_csv_append_fields(file, header, f, n);
	if (ret == 0)
		ret = mm_csv_sync();
	if (ret < 0)
		snprintf(why, len, "cannot write %s: %s", file, strerror(-ret));
	return ret;
}

static int record_case(const struct mm_ctx *ctx, const char *status,
		       const char *reason, int sig, double secs,
		       const struct mm_case_outcome *oc, double target, char *why,
		       size_t len)
{
	char sigs[16], dur[32], it[16] = "0", tgt[32] = "", pct[32] = "";
	const char *f[MM_CASE_NCOLS] = {
		[MM_CASE_STATUS] = status, [MM_CASE_REASON] = reason,
		[MM_CASE_SIGNAL] = sigs, [MM_CASE_DURATION] = dur,
		[MM_CASE_ITERATIONS] = it, [MM_CASE_PREC_TARGET] = tgt,
		[MM_CASE_PREC_PCT] = pct, [MM_CASE_PREC_METRIC] = "",
		[MM_CASE_STOPPED_BY] = "",
	};

	snprintf(sigs, sizeof(sigs), "%d", sig);
	snprintf(dur, sizeof(dur), "%.3f", secs);
	if (oc) {
		snprintf(it, sizeof(it), "%d", oc->iterations);
		if (isfinite(oc->pct)) {
			snprintf(pct, sizeof(pct), "%.4g", oc->pct);
			f[MM_CASE_PREC_METRIC] = oc->metric;
		}
		f[MM_CASE_STOPPED_BY] = mm_stop_word(oc->stop);
	}
	if (target > 0)
		snprintf(tgt, sizeof(tgt), "%g", target);
	return case_row(ctx, "cases.csv", MM_CASES_HEADER, f, MM_CASE_NCOLS, why, len);
}

/*
 * The case is about to run: a row in started.csv, on disk before the case
 * can take the machine down. A case that crashes the kernel (the reason to
 * test a patch) gets no cases.csv row; its started.csv row names it, and
 * the VM lab or `mmbench summary` reports it.
 */
static int record_start(const struct mm_ctx *ctx, char *why, size_t len)
{
	char when[32];
	time_t now = time(NULL);
	const char *f[7] = { [6] = when };

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	return case_row(ctx, "started.csv", MM_STARTED_HEADER, f, 7, why, len);
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

/*
 * A fresh scratch directory: whatever a crashed run (or anyone else) left
 * under that name goes first, and mkdir must then create it, so the
 * workload's files land in a directory nobody else prepared.
 */
static int make_scratch(const char *path)
{
	rm_rf(path);
	return mkdir(path, 0700) < 0 ? -errno : 0;
}

/*
 * Record the outcome (with the measured iterations' record oc, when the
 * case got that far); a row that cannot be written makes the case fail.
 */
static int finish_case(const struct mm_ctx *ctx, int ret, const char *status,
		       const char *reason, int sig, uint64_t t0,
		       const struct mm_case_outcome *oc, double target)
{
	char why[200];

	if (record_case(ctx, status, reason, sig, (double)(mm_now_ns() - t0) / 1e9,
			oc, target, why, sizeof(why)) < 0) {
		mm_logf("mmbench: %s: the outcome of %s [%s] (%s%s%s) is not on disk",
			why, ctx->wl->name, mm_case_string(ctx->c), status,
			reason[0] ? ": " : "", reason);
		return MM_FAIL;
	}
	if (ret != MM_PASS)
		mm_logf("%s [%s]: %s%s%s", ctx->wl->name, mm_case_string(ctx->c),
			status, reason[0] ? ": " : "", reason);
	return ret;
}

static int run_case(const struct workload *wl, const struct mm_case *c,
		    const struct mm_opts *o, const void *params,
		    struct mm_case_outcome *oc)
{
	struct mm_ctx ctx = { .wl = wl, .c = c };
	struct child_report *rep;
	char scratch[4200], reason[600] = "";
	const char *status;
	uint64_t t0 = mm_now_ns();
	bool timed_out;
	int st = 0, sig = 0, ret;
	pid_t pid, driver = getpid();

	ctx.params = params;
	ctx.run_dir = mm_run.dir;
	ctx.ncpus = mm_ncpus();
	ctx.nnodes = mm_nnodes_with_memory();
	snprintf(scratch, sizeof(scratch), "%s/scratch", mm_run.dir);
	ctx.scratch_dir = scratch;
	mm_stop_point("case-begin");
	if (record_start(&ctx, reason, sizeof(reason)) < 0) {
		/* A case that could crash the machine unnamed does not run. */
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "; the case was not run");
		return finish_case(&ctx, MM_FAIL, "fail", reason, 0, t0, NULL, o->precision);
	}
	ret = make_scratch(scratch);
	if (ret < 0) {
		snprintf(reason, sizeof(reason), "scratch directory %s: %s", scratch,
			 strerror(-ret));
		return finish_case(&ctx, MM_FAIL, "fail", reason, 0, t0, NULL, o->precision);
	}
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED) {
		snprintf(reason, sizeof(reason), "mmap: %s", strerror(errno));
		return finish_case(&ctx, MM_FAIL, "fail", reason, 0, t0, NULL, o->precision);
	}
	rep->pct = NAN;
	mm_stop_point("case-start");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(reason, sizeof(reason), "fork: %s", strerror(errno));
		munmap(rep, sizeof(*rep));
		return finish_case(&ctx, MM_FAIL, "fail", reason, 0, t0, NULL, o->precision);
	}
	if (pid == 0)
		_exit(child_main(&ctx, o, rep, driver));
	setpgid(pid, pid);	/* also here: no race with kill(-pid) */
	wait_child(pid, o->timeout, &st, &timed_out);
	/* Waits until no process of the case is left, then restores. */
	if (mm_settings_restore(mm_run.dir, o->verbose))
		mm_logf("mmbench: some settings could not be restored; see above");
	rm_rf(scratch);
	mm_probe_after_case((long)pid);
	mm_profile_after_case((long)pid);
	mm_stop_point("case-end");

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
	oc->status = ret;
	oc->iterations = rep->iterations;
	oc->pct = rep->pct;
	snprintf(oc->metric, sizeof(oc->metric), "%s", rep->metric);
	oc->nwatched = rep->nwatched;
	/* how the iterations stopped: only for a case that ended well */
	oc->stop = ret == MM_PASS ? rep->stop : MM_STOP_NONE;
	munmap(rep, sizeof(*rep));
	return finish_case(&ctx, ret, status, reason, sig, t0, oc, o->precision);
}

int mm_run_case(const struct workload *wl, const struct mm_case *c,
		const struct mm_opts *o, struct mm_case_outcome *out)
{
	/* The workload's typed parameters, read from the case once. */
	void *params = calloc(1, wl->params_size ? wl->params_size : 1);
	struct mm_case_outcome oc = { .pct = NAN };
	int ret;

	if (!params) {
		struct mm_ctx ctx = { .wl = wl, .c = c };

		ret = finish_case(&ctx, MM_FAIL, "fail", "out of memory for the parameters",
				  0, mm_now_ns(), NULL, o->precision);
	} else {
		mm_params_fill(wl, c, params);
		ret = run_case(wl, c, o, params, &oc);
		free(params);
	}
	oc.status = ret;
	if (out)
		*out = oc;
	return ret;
}
