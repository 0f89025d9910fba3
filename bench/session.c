// SPDX-License-Identifier: GPL-2.0
/*
 * A run of `mmbench run` or `mmbench suite` once its options and plans are
 * parsed: the run directory and its facts (meta.csv, topology.xml), every
 * case of every plan with its progress line, --dry-run's list of cases.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "precision.h"
#include "session.h"

/*
 * A run directory someone else owns or may write (an -o into a shared
 * place): its files could be swapped for links between our checks.
 */
static bool run_dir_foreign(const char *dir, char *why, size_t len)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return true;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, len, "owned by uid %u with mode %04o: not ours alone "
			 "(a run directory must belong to uid %u and be writable by it only)",
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
			 (unsigned)geteuid());
		return true;
	}
	return false;
}

/* The exit status of a setup_run() that failed. */
int run_setup_status(int err)
{
	if (err == -3)
		return 128 + mm_driver_interrupted();
	return err == -2 ? MM_FAIL : MM_USAGE;
}

int run_setup(struct run_opts *ro, int argc, char **argv)
{
	struct utsname u;
	char stamp[32], host[64];
	time_t now = time(NULL);
	char why[700];
	bool existing;
	int ret;

	uname(&u);
	snprintf(mm_run.kernel, sizeof(mm_run.kernel), "%s", u.release);
	snprintf(host, sizeof(host), "%s", u.nodename);
	snprintf(mm_run.host, sizeof(mm_run.host), "%s", host);
	if (mm_label_check(ro->label ? ro->label : u.release, why, sizeof(why)) < 0) {
		fprintf(stderr, "mmbench: %s%s\n", ro->label ? "--label: " :
			"the kernel release is no label, give --label: ", why);
		return -1;
	}
	snprintf(mm_run.label, sizeof(mm_run.label), "%s",
		 ro->label ? ro->label : u.release);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	if (ro->out)
		snprintf(mm_run.dir, sizeof(mm_run.dir), "%s", ro->out);
	else
		snprintf(mm_run.dir, sizeof(mm_run.dir), "%s/%s/%s-%s",
			 ro->root ? ro->root : "results", mm_run.label, stamp, host);
	if (mm_mkdir_p(mm_run.dir) < 0 || access(mm_run.dir, W_OK) < 0) {
		fprintf(stderr, "mmbench: run directory '%s': %s\n", mm_run.dir,
			strerror(errno));
		return -1;
	}
	if (run_dir_foreign(mm_run.dir, why, sizeof(why))) {
		fprintf(stderr, "mmbench: run directory '%s': %s\n", mm_run.dir, why);
		return -1;
	}
	existing = mm_meta_get(mm_run.dir, "run_id", mm_run.run_id,
			       sizeof(mm_run.run_id))[0] != '\0';
	/* The run_id of an existing directory goes into every row: a name. */
	if (existing && mm_label_check(mm_run.run_id, why, sizeof(why)) < 0) {
		mm_escape(mm_run.run_id, why, sizeof(why));
		fprintf(stderr, "mmbench: %s/meta.csv: run_id '%s' is not a run id\n",
			mm_run.dir, why);
		return -1;
	}
	if (!existing)
		snprintf(mm_run.run_id, sizeof(mm_run.run_id), "%s-%s", stamp, host);
	if (!ro->mirror)
		ro->mirror = getenv("MMBENCH_MIRROR");
	if (ro->mirror && mm_mirror_open(ro->mirror) < 0) {
		fprintf(stderr, "mmbench: --mirror '%s': %s\n", ro->mirror,
			strerror(errno));
		return -1;
	}
	ret = mm_settings_init(mm_run.dir);
	if (ret < 0) {
		fprintf(stderr, "mmbench: %s/settings.lock: %s\n", mm_run.dir,
			strerror(-ret));
		return -2;
	}
	/* A journal left by a killed run in this directory: put it right. */
	mm_settings_restore(mm_run.dir, true);
	if (!existing) {
		char topo[4200];

		/*
		 * The facts describe the run: with every --set in effect (and
		 * a --set the kernel refuses stops the run here, not in every
		 * case). Restored at once; each case sets them again.
		 */
		mm_driver_signals();
		if (mm_apply_sets(&ro->o, why, sizeof(why)) != MM_PASS) {
			mm_settings_restore(mm_run.dir, false);
			fprintf(stderr, "mmbench: %s\n", why);
			return -1;
		}
		ret = mm_sysinfo_write("meta.csv", argc, argv, ro->meta, ro->nmeta);
		if (mm_settings_restore(mm_run.dir, ro->o.verbose))
			fprintf(stderr, "mmbench: some settings could not be restored; see above\n");
		if (mm_driver_interrupted()) {
			fprintf(stderr, "mmbench: interrupted by signal %d; settings restored\n",
				mm_driver_interrupted());
			return -3;
		}
		if (ret < 0) {
			fprintf(stderr, "mmbench: cannot write %s/meta.csv: %s\n", mm_run.dir,
				strerror(-ret));
			return -2;
		}
		snprintf(topo, sizeof(topo), "%s/topology.xml", mm_run.dir);
		if (mm_topology_xml(topo) < 0)
			mm_logf("mmbench: hwloc could not export %s", topo);
	}
	/* A TCG guest's times are emulated: not judged, not watched. */
	mm_run.emulated = !strcmp(mm_meta_get(mm_run.dir, "vm_accel", why, sizeof(why)),
				  "tcg");
	return 0;
}

/* ---------------------------------------------------------------- execute */

static void progress(int done, int total, uint64_t t0, const char *what)
{
	double el = (double)(mm_now_ns() - t0) / 1e9;

	if (isatty(STDERR_FILENO) && done > 0) {
		double eta = el / done * (total - done);

		fprintf(stderr, "[%d/%d %02d:%02d elapsed, ETA %02d:%02d] %s\n",
			done + 1, total, (int)el / 60, (int)el % 60,
			(int)eta / 60, (int)eta % 60, what);
	} else {
		mm_logf("[%d/%d] %s", done + 1, total, what);
	}
}

/* One CSV field on stdout, quoted when it holds a quote, comma or newline. */
static void put_field(const char *v, const char *sep)
{
	if (strpbrk(v, "\",\r\n")) {
		putchar('"');
		for (; *v; v++) {
			if (*v == '"')
				putchar('"');
			putchar(*v);
		}
		putchar('"');
	} else {
		fputs(v, stdout);
	}
	fputs(sep, stdout);
}

/*
 * --dry-run: the cases the run would run, in order, as CSV on stdout. The
 * VM lab's guest prints it before the run: the host learns the number of
 * cases from the guest's own expansion (cpus, defaults sized to its memory).
 */
int run_dry(struct plan *plans, int nplans, struct run_opts *ro)
{
	puts("workload,case,iterations,warmups");
	for (int i = 0; i < nplans; i++) {
		int it = ro->iter_set ? ro->o.iterations : plans[i].iterations;
		int wu = ro->warm_set ? ro->o.warmups : plans[i].warmups;

		for (int k = 0; k < plans[i].pl.ncases; k++) {
			struct mm_case *c = malloc(sizeof(*c));

			if (!c)
				return MM_FAIL;
			mm_plist_case(&plans[i].pl, k, c);
			put_field(plans[i].pl.wl->name, ",");
			put_field(mm_case_string(c), ",");
			printf("%d,%d\n", it, wu);
			free(c);
		}
	}
	return fflush(stdout) ? MM_FAIL : MM_PASS;
}

/* What --precision came to, over the cases of the run. */
struct prec_tally {
	int reached, nothing, limited;
	char limited_list[1024];
};

/*
 * After a case under --precision: how its iterations stopped, on its own
 * line below the case's progress line ("[k/N] ... stopped by
 * --max-iterations 50 before --precision 3%: 4.21% (loops_per_s)").
 */
static void precision_line(int done, int total, const char *what,
			   const struct mm_case_outcome *oc, const struct mm_opts *o,
			   struct prec_tally *t)
{
	char pct[96] = "", lim[64] = "";

	if (oc->status != MM_PASS)
		return;
	if (isfinite(oc->pct))
		snprintf(pct, sizeof(pct), "%.3g%% (%s)", oc->pct, oc->metric);
	else
		snprintf(pct, sizeof(pct), "not measurable (a mean of 0, or one value)");
	switch (oc->stop) {
	case MM_STOP_PRECISION:
		t->reached++;
		mm_logf("[%d/%d] %s: precision %s <= %g%% after %d iterations", done, total,
			what, pct, o->precision, oc->iterations);
		return;
	case MM_STOP_NOTHING:
		t->nothing++;
		mm_logf("[%d/%d] %s: no judged timed evidence metric (counts, or emulated "
			"times): stopped at the minimum, %d iterations", done, total, what,
			oc->iterations);
		return;
	case MM_STOP_MAX_ITER:
		snprintf(lim, sizeof(lim), "--max-iterations %d", o->max_iterations);
		break;
	case MM_STOP_MAX_TIME:
		snprintf(lim, sizeof(lim), "--max-time %u s", o->max_time);
		break;
	default:
		return;
	}
	t->limited++;
	mm_logf("[%d/%d] %s: stopped by %s before --precision %g%%: reached %s after "
		"%d iterations", done, total, what, lim, o->precision, pct, oc->iterations);
	if (strlen(t->limited_list) < sizeof(t->limited_list) - 200)
		snprintf(t->limited_list + strlen(t->limited_list),
			 sizeof(t->limited_list) - strlen(t->limited_list), "%s%.120s (%s)",
			 t->limited_list[0] ? "; " : "", what, oc->stop == MM_STOP_MAX_ITER ?
			 "--max-iterations" : "--max-time");
}

/* Run every case of every plan; returns the exit status of the run. */
int run_execute(struct plan *plans, int nplans, struct run_opts *ro)
{
	int total = 0, done = 0, passed = 0, failed = 0, skipped = 0;
	struct prec_tally tally = { 0 };
	uint64_t t0 = mm_now_ns();

	for (int i = 0; i < nplans; i++)
		total += plans[i].pl.ncases;
	mm_driver_signals();
	for (int i = 0; i < nplans && !mm_driver_interrupted(); i++) {
		struct mm_opts o = ro->o;

		o.iterations = ro->iter_set ? ro->o.iterations : plans[i].iterations;
		o.warmups = ro->warm_set ? ro->o.warmups : plans[i].warmups;
		/* a suite line's -i above --max-iterations: its -i */
		if (o.max_iterations < o.iterations)
			o.max_iterations = o.iterations;
		for (int k = 0; k < plans[i].pl.ncases && !mm_driver_interrupted(); k++) {
			struct mm_case *c = malloc(sizeof(*c));
			struct mm_case_outcome oc;
			char what[2200];
			int ret;

			if (!c)
				return MM_FAIL;
			mm_plist_case(&plans[i].pl, k, c);
			snprintf(what, sizeof(what), "%s %s", plans[i].pl.wl->name,
				 mm_case_string(c));
			progress(done, total, t0, what);
			ret = mm_run_case(plans[i].pl.wl, c, &o, &oc);
			passed += ret == MM_PASS;
			skipped += ret == MM_SKIP;
			failed += ret != MM_PASS && ret != MM_SKIP;
			done++;
			if (o.precision > 0)
				precision_line(done, total, what, &oc, &o, &tally);
			free(c);
		}
	}
	mm_logf("mmbench: %d case(s): %d passed, %d failed, %d skipped; results in %s",
		done, passed, failed, skipped, mm_run.dir);
	if (mm_mirror_error()) {
		/* the rows are on disk; the mirror's reader has not got them all */
		mm_logf("mmbench: --mirror: a line could not be written: %s; the mirror "
			"lacks lines of this run", strerror(mm_mirror_error()));
	}
	if (ro->o.precision > 0)
		mm_logf("mmbench: --precision %g%%: %d case(s) reached it, %d had no judged "
			"timed evidence (stopped at the minimum), %d stopped by a limit first%s%s",
			ro->o.precision, tally.reached, tally.nothing, tally.limited,
			tally.limited ? ": " : "", tally.limited_list);
	if (mm_driver_interrupted()) {
		mm_logf("mmbench: interrupted by signal %d; settings restored",
			mm_driver_interrupted());
		return 128 + mm_driver_interrupted();
	}
	if (failed || mm_mirror_error())
		return MM_FAIL;
	return passed == 0 && skipped > 0 ? MM_SKIP : MM_PASS;
}

