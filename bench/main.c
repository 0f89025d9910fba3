// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench: the command-line front door.
 *   mmbench list | info WORKLOAD | run WORKLOAD [opts] | suite FILE [opts]
 *   mmbench sysinfo [-o FILE] | restore DIR
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "driver.h"
#include "params.h"
#include "precision.h"
#include "profile.h"

#define MAX_META 64
#define MAX_LINES 256

static void usage(FILE *f)
{
	fputs("usage: mmbench list\n"
	      "       mmbench info WORKLOAD\n"
	      "       mmbench run WORKLOAD [-p key=value[,value...]]... [options]\n"
	      "       mmbench suite FILE [options]\n"
	      "       mmbench sysinfo [-o CSV_FILE] [-x TOPOLOGY_XML]\n"
	      "       mmbench restore RUN_DIR\n"
	      "       mmbench summary RUN_DIR\n"
	      "       mmbench precision [--precision P] RUN_DIR...\n"
	      "       mmbench check-label LABEL\n"
	      "       mmbench field [--where COL=VALUE] [--last] [--lines] FILE COLUMN...\n"
	      "       mmbench field --header FILE | --csv VALUE... | --schema\n"
	      "options for run and suite:\n"
	      "  -i, --iterations N   measured iterations per case (default 5)\n"
	      "      --precision P    add iterations after -i (the minimum) until the\n"
	      "                       95% half-width of every judged timed evidence\n"
	      "                       metric is at most P% of its mean (0 < P <= 100)\n"
	      "      --max-iterations N  ... or N iterations (default 50)\n"
	      "      --max-time SEC   ... or no iteration added past SEC of measured\n"
	      "                       iterations (default: half of --timeout)\n"
	      "  -w, --warmups N      warm-up iterations per case, reported in\n"
	      "                       warmup.csv, never in results.csv (default 1)\n"
	      "  -o, --out DIR        the run directory (default\n"
	      "                       ROOT/LABEL/YYYYmmdd-HHMMSS-HOST)\n"
	      "      --root DIR       results root (default ./results)\n"
	      "      --label LABEL    run label (default: kernel release): 1-100 of\n"
	      "                       A-Z a-z 0-9 . _ - +, no '..', starts alnum\n"
	      "      --timeout SEC    per-case time limit (default 900)\n"
	      "      --probe F[,F]    count calls of kernel functions in the\n"
	      "                       measured phase (tracefs kprobes; root)\n"
	      "      --profile[=callgraph]  system-wide perf samples of the measured\n"
	      "                       phase: per iteration, each symbol's share\n"
	      "                       (profile.csv) and the raw data (profile/)\n"
	      "      --profile-freq HZ   sampling frequency (default 499)\n"
	      "      --profile-cap SIZE  raw data kept per case, bytes or K/M/G\n"
	      "                       (default 64M)\n"
	      "      --profile-kallsyms FILE  kernel symbols (System.map) instead\n"
	      "                       of /proc/kallsyms\n"
	      "      --set PATH=VAL   set a sysfs/procfs knob for every case; the\n"
	      "                       original is journalled and restored\n"
	      "      --meta KEY=VAL   add or override a fact in meta.csv\n"
	      "      --mirror PATH    copy every output line to PATH as\n"
	      "                       '@@MM FILE LINE' (VM lab serial port)\n"
	      "      --dry-run        print the cases as CSV (workload,case,\n"
	      "                       iterations,warmups) and exit; nothing runs\n"
	      "  -v, --verbose        log restored settings\n"
	      "exit status: 0 ran, 1 a case failed, 2 usage error, 4 all skipped\n",
	      f);
}

static int cmd_list(void)
{
	printf("%-12s %-22s %-8s %s\n", "WORKLOAD", "NEEDS", "HERE",
	       "DESCRIPTION");
	for (int i = 0; mm_workloads[i]; i++) {
		const struct workload *wl = mm_workloads[i];
		char needs[128], why[512];
		bool ok = mm_needs_met(wl->needs, why, sizeof(why));

		mm_needs_words(wl->needs, needs, sizeof(needs));
		printf("%-12s %-22s %-8s %s\n", wl->name, needs, ok ? "yes" : "no",
		       wl->desc);
		if (!ok)
			printf("%-12s   (not here: %s%s%s)\n", "", why,
			       wl->needs_except ? "; but " : "",
			       wl->needs_except ? wl->needs_except : "");
	}
	return MM_PASS;
}

static const char *type_name(enum mm_ptype t)
{
	static const char *const n[] = { "int", "double", "bool", "enum",
					 "string" };

	return n[t];
}

/*
 * The workload's metric table: evidence (the experiment's claim, with its
 * direction) first, then the listed context metrics.
 */
static void info_metrics(const struct workload *wl)
{
	static const char *const better[] = { "lower", "higher", "info" };
	const struct mm_metric *m;

	if (!wl->metrics || !wl->metrics->name)
		return;
	printf("\n%-44s %-8s %-6s %s\n", "METRIC", "ROLE", "BETTER", "CLAIM");
	for (int role = MM_EVIDENCE; role >= MM_CONTEXT; role--)
		for (m = wl->metrics; m->name; m++)
			if ((int)m->role == role)
				printf("%-44s %-8s %-6s %s%s\n", m->name,
				       role == MM_EVIDENCE ? "evidence" : "context",
				       better[m->better], m->timed ? "(timed) " : "",
				       m->claim ? m->claim : "");
	printf("Metrics not listed are not written (the case fails); a name ending in\n"
	       "'*' is a family: the metrics that begin with it. A unit of time or a rate\n"
	       "per second marks a timed one. --probe adds calls:FUNC (context, info)\n"
	       "and calls_per_UNIT:FUNC (evidence, lower).\n");
}

static int cmd_info(const char *name)
{
	const struct workload *wl = mm_workload_find(name);
	char needs[128], why[512], buf[MM_VALUE_LEN], range[64];

	if (!wl) {
		fprintf(stderr, "mmbench: unknown workload '%s' (see: mmbench list)\n",
			name);
		return MM_USAGE;
	}
	mm_needs_words(wl->needs, needs, sizeof(needs));
	printf("%s: %s\nneeds: %s (%s", wl->name, wl->desc, needs,
	       mm_needs_met(wl->needs, why, sizeof(why)) ? "met here" : why);
	if (wl->needs_except)
		printf("; %s", wl->needs_except);
	printf(")\n\n");
	printf("%-14s %-7s %-18s %-16s %s\n", "PARAMETER", "TYPE", "DEFAULT",
	       "RANGE", "HELP");
	for (const struct mm_param *p = wl->params; p && p->name; p++) {
		const char *def = mm_param_default(p, buf, sizeof(buf));

		if (p->type == MM_P_ENUM)
			snprintf(range, sizeof(range), "%s", p->choices);
		else if ((p->type == MM_P_INT || p->type == MM_P_DOUBLE) &&
			 p->min <= p->max)
			snprintf(range, sizeof(range), p->type == MM_P_INT ? "%.0f..%.0f" : "%g..%g", p->min, p->max);
		else
			snprintf(range, sizeof(range), "-");
		printf("%-14s %-7s %-18s %-16s %s%s\n", p->name, type_name(p->type),
		       *def ? def : "(auto)", range, p->help,
		       p->nolist ? " (',' is part of the value)" : "");
	}
	printf("\nA list value (-p name=a,b,c) runs one case per value; an int value\n"
	       "may be 'cpus', the number of online CPUs here.\n");
	info_metrics(wl);
	return MM_PASS;
}

/* ---------------------------------------------------------------- run setup */

struct run_opts {
	struct mm_opts o;
	bool iter_set, warm_set, dry_run, max_iter_set, max_time_set;
	const char *out, *root, *label, *mirror, *probe;
	char *meta[MAX_META];
	int nmeta;
	char *sets[MAX_META];
};

/* One planned invocation: a workload and its expanded parameters. */
struct plan {
	struct mm_plist pl;
	int iterations, warmups;
	char where[300];	/* "suite:LINE" for messages */
};

/* where: "FILE:LINE: " for an option on a suite line, else "" */
static int parse_count_at(const char *where, const char *opt, const char *s, int lo, int hi,
			  int *out)
{
	long long v;

	if (mm_parse_decimal(s, &v) < 0 || v < lo || v > hi) {
		fprintf(stderr, "mmbench: %s%s: '%s' is not a number in [%d, %d]\n",
			where, opt, s, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_count(const char *opt, const char *s, int lo, int hi, int *out)
{
	return parse_count_at("", opt, s, lo, hi, out);
}

/* --set PATH=VALUE: PATH must be a knob (sysfs, /proc/sys), VALUE one line. */
static int check_set(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char path[4096], why[600], shown[600];

	mm_escape(arg, shown, sizeof(shown));
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(path)) {
		fprintf(stderr, "mmbench: --set '%s': expected /ABSOLUTE/PATH=VALUE\n", shown);
		return -1;
	}
	snprintf(path, sizeof(path), "%.*s", (int)(eq - arg), arg);
	if (mm_setting_path_check(path, why, sizeof(why)) < 0) {
		fprintf(stderr, "mmbench: --set '%s': %s\n", shown, why);
		return -1;
	}
	for (const char *c = eq + 1; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			fprintf(stderr, "mmbench: --set '%s': control character in the value\n",
				shown);
			return -1;
		}
	return 0;
}

/* --meta KEY=VALUE: a key of [a-z0-9_], a one-line value; label: the rule. */
static int check_meta(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char shown[600], why[600];

	mm_escape(arg, shown, sizeof(shown));
	if (!eq || eq == arg || eq - arg > 64) {
		fprintf(stderr, "mmbench: --meta '%s': expected KEY=VALUE\n", shown);
		return -1;
	}
	for (const char *c = arg; c < eq; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) {
			fprintf(stderr, "mmbench: --meta '%s': a key is made of a-z, 0-9 and _\n",
				shown);
			return -1;
		}
	for (const char *c = eq + 1; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			fprintf(stderr, "mmbench: --meta '%s': control character in the value\n",
				shown);
			return -1;
		}
	if (!strncmp(arg, "label=", 6) && mm_label_check(eq + 1, why, sizeof(why)) < 0) {
		fprintf(stderr, "mmbench: --meta: %s\n", why);
		return -1;
	}
	return 0;
}

enum { OPT_ROOT = 256, OPT_LABEL, OPT_TIMEOUT, OPT_PROBE, OPT_META, OPT_MIRROR,
       OPT_SET, OPT_DRY_RUN, OPT_PROFILE, OPT_PROFILE_FREQ, OPT_PROFILE_CAP,
       OPT_PROFILE_KALLSYMS, OPT_PRECISION, OPT_MAX_ITER, OPT_MAX_TIME };

/* --precision P: a decimal in (0, 100]. */
static int parse_precision(const char *s, double *out)
{
	double v = mm_decimal_real(s) ? strtod(s, NULL) : NAN;

	if (!(v > 0 && v <= 100)) {
		fprintf(stderr, "mmbench: --precision: '%s' is not a percentage above 0 "
			"and at most 100\n", s);
		return -1;
	}
	*out = v;
	return 0;
}

static const struct option long_opts[] = {
	{ "iterations", required_argument, NULL, 'i' },
	{ "warmups", required_argument, NULL, 'w' },
	{ "out", required_argument, NULL, 'o' },
	{ "param", required_argument, NULL, 'p' },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "meta", required_argument, NULL, OPT_META },
	{ "mirror", required_argument, NULL, OPT_MIRROR },
	{ "set", required_argument, NULL, OPT_SET },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "profile", optional_argument, NULL, OPT_PROFILE },
	{ "profile-freq", required_argument, NULL, OPT_PROFILE_FREQ },
	{ "profile-cap", required_argument, NULL, OPT_PROFILE_CAP },
	{ "profile-kallsyms", required_argument, NULL, OPT_PROFILE_KALLSYMS },
	{ "precision", required_argument, NULL, OPT_PRECISION },
	{ "max-iterations", required_argument, NULL, OPT_MAX_ITER },
	{ "max-time", required_argument, NULL, OPT_MAX_TIME },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Parse options of one invocation (the command line, or one suite line).
 * -p goes into pl when given; global options into ro (only when global).
 */
static int parse_opts(int argc, char **argv, struct run_opts *ro,
		      struct plan *pn, bool global)
{
	char err[512];
	int c, v;

	optind = 0;	/* glibc: full re-initialisation for a new argv */
	while ((c = getopt_long(argc, argv, "+i:w:o:p:vh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_count_at(pn ? pn->where : "", "--iterations", optarg, 1, 100000, &v) < 0)
				return -1;
			if (global) {
				ro->o.iterations = v;
				ro->iter_set = true;
			}
			if (pn)
				pn->iterations = v;
			break;
		case 'w':
			if (parse_count_at(pn ? pn->where : "", "--warmups", optarg, 0, 100000, &v) < 0)
				return -1;
			if (global) {
				ro->o.warmups = v;
				ro->warm_set = true;
			}
			if (pn)
				pn->warmups = v;
			break;
		case 'p':
			if (!pn) {
				fprintf(stderr, "mmbench: -p belongs on a suite line\n");
				return -1;
			}
			if (mm_plist_set(&pn->pl, optarg, err, sizeof(err)) < 0) {
				fprintf(stderr, "mmbench: %s%s\n", pn->where, err);
				return -1;
			}
			break;
		case 'h':
			if (!global) {
				fprintf(stderr, "mmbench: %sonly -p, -i and -w belong on a suite line\n",
					pn ? pn->where : "");
				return -1;
			}
			usage(stdout);
			exit(0);
		default:
			if (!global) {
				fprintf(stderr, "mmbench: %sonly -p, -i and -w belong on a suite line\n",
					pn ? pn->where : "");
				return -1;
			}
			switch (c) {
			case 'o': ro->out = optarg; break;
			case 'v': ro->o.verbose = true; break;
			case OPT_ROOT: ro->root = optarg; break;
			case OPT_LABEL:
				/* Checked now: --dry-run and the lab's plan too. */
				if (mm_label_check(optarg, err, sizeof(err)) < 0) {
					fprintf(stderr, "mmbench: --label: %s\n", err);
					return -1;
				}
				ro->label = optarg;
				break;
			case OPT_MIRROR: ro->mirror = optarg; break;
			case OPT_DRY_RUN: ro->dry_run = true; break;
			case OPT_PROBE:
				/* Checked now: a bad name must not create a run dir. */
				if (mm_probe_set(optarg) < 0)
					return -1;
				ro->probe = optarg;
				break;
			case OPT_PROFILE:
				if (mm_profile_set(optarg) < 0)
					return -1;
				break;
			case OPT_PROFILE_FREQ:
				if (mm_profile_set_freq(optarg) < 0)
					return -1;
				break;
			case OPT_PROFILE_CAP:
				if (mm_profile_set_cap(optarg) < 0)
					return -1;
				break;
			case OPT_PROFILE_KALLSYMS:
				if (mm_profile_set_kallsyms(optarg) < 0)
					return -1;
				break;
			case OPT_TIMEOUT:
				if (parse_count("--timeout", optarg, 1, 86400 * 7, &v) < 0)
					return -1;
				ro->o.timeout = (unsigned int)v;
				break;
			case OPT_PRECISION:
				if (parse_precision(optarg, &ro->o.precision) < 0)
					return -1;
				break;
			case OPT_MAX_ITER:
				if (parse_count("--max-iterations", optarg, 1, 100000, &v) < 0)
					return -1;
				ro->o.max_iterations = v;
				ro->max_iter_set = true;
				break;
			case OPT_MAX_TIME:
				if (parse_count("--max-time", optarg, 1, 86400 * 7, &v) < 0)
					return -1;
				ro->o.max_time = (unsigned int)v;
				ro->max_time_set = true;
				break;
			case OPT_SET:
				if (check_set(optarg) < 0 || ro->o.nsets == MAX_META) {
					if (ro->o.nsets == MAX_META)
						fprintf(stderr, "mmbench: --set: more than %d\n",
							MAX_META);
					return -1;
				}
				ro->sets[ro->o.nsets++] = optarg;
				ro->o.sets = ro->sets;
				break;
			case OPT_META:
				if (check_meta(optarg) < 0 || ro->nmeta == MAX_META) {
					if (ro->nmeta == MAX_META)
						fprintf(stderr, "mmbench: --meta: more than %d\n",
							MAX_META);
					return -1;
				}
				ro->meta[ro->nmeta++] = optarg;
				break;
			default:
				usage(stderr);
				return -1;
			}
		}
	}
	return optind;
}

/*
 * The precision options together, after parsing: the limits need
 * --precision, --max-time must end before --timeout kills the case, and
 * an -i above --max-iterations is a contradiction. Defaults: 50
 * iterations, half of --timeout.
 */
static int check_precision(struct run_opts *ro)
{
	struct mm_opts *o = &ro->o;

	if (o->precision <= 0) {
		if (ro->max_iter_set || ro->max_time_set) {
			fprintf(stderr, "mmbench: %s limits --precision P, which is not given\n",
				ro->max_iter_set ? "--max-iterations" : "--max-time");
			return -1;
		}
		return 0;
	}
	if (!ro->max_iter_set)
		o->max_iterations = 50;
	if (!ro->max_time_set)
		o->max_time = o->timeout / 2 ? o->timeout / 2 : 1;
	if (o->max_time >= o->timeout) {
		fprintf(stderr, "mmbench: --max-time %u is not below --timeout %u: the case "
			"would be killed first\n", o->max_time, o->timeout);
		return -1;
	}
	if (ro->iter_set && ro->max_iter_set && o->iterations > o->max_iterations) {
		fprintf(stderr, "mmbench: --iterations %d (the minimum) is above "
			"--max-iterations %d\n", o->iterations, o->max_iterations);
		return -1;
	}
	return 0;
}

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
static int setup_status(int err)
{
	if (err == -3)
		return 128 + mm_driver_interrupted();
	return err == -2 ? MM_FAIL : MM_USAGE;
}

static int setup_run(struct run_opts *ro, int argc, char **argv)
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
static int dry_run(struct plan *plans, int nplans, struct run_opts *ro)
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
static int execute(struct plan *plans, int nplans, struct run_opts *ro)
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

static int plan_init(struct plan *pn, const char *wlname, const char *where)
{
	const struct workload *wl = mm_workload_find(wlname);

	snprintf(pn->where, sizeof(pn->where), "%s", where);
	pn->iterations = 5;
	pn->warmups = 1;
	if (!wl) {
		fprintf(stderr, "mmbench: %sunknown workload '%s' (see: mmbench list)\n",
			where, wlname);
		return -1;
	}
	mm_plist_init(&pn->pl, wl);
	return 0;
}

static int plan_expand(struct plan *pn)
{
	char err[512];

	if (mm_plist_expand(&pn->pl, err, sizeof(err)) < 0) {
		fprintf(stderr, "mmbench: %s%s\n", pn->where, err);
		return -1;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts ro = { .o = { .iterations = 5, .warmups = 1, .timeout = 900 } };
	struct plan *pn = calloc(1, sizeof(*pn));
	int ret = MM_USAGE, idx;

	if (!pn)
		return MM_FAIL;
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "mmbench run: which workload? (see: mmbench list)\n");
		goto out;
	}
	if (plan_init(pn, argv[1], "") < 0)
		goto out;
	idx = parse_opts(argc - 1, argv + 1, &ro, pn, true);
	if (idx < 0 || check_precision(&ro) < 0)
		goto out;
	if (idx < argc - 1) {
		fprintf(stderr, "mmbench run: unexpected argument '%s'\n", argv[idx + 1]);
		goto out;
	}
	if (plan_expand(pn) < 0)
		goto out;
	if (ro.dry_run) {
		ret = dry_run(pn, 1, &ro);
		goto out;
	}
	idx = setup_run(&ro, argc, argv);
	if (idx < 0) {
		ret = setup_status(idx);
		goto out;
	}
	ret = execute(pn, 1, &ro);
out:
	mm_plist_free(&pn->pl);
	free(pn);
	return ret;
}

/*
 * Suite files: read whole, never cut. A line of any length up to
 * SUITE_LINE_MAX is one line (a longer one is an error, not two lines),
 * every word counts, and a NUL or a control character is an error: each
 * error names FILE:LINE, the line counted in newlines.
 */
#define SUITE_LINE_MAX 65536
#define SUITE_WORDS_MAX 1024

/* Split a suite line into words (no quoting: values have no spaces);
 * -1 when there are more than max - 2. */
static int split_words(char *line, char **words, int max)
{
	char *save = NULL;
	int n = 0;

	words[n++] = "suite-line";
	for (char *s = strtok_r(line, " \t\r", &save); s;
	     s = strtok_r(NULL, " \t\r", &save)) {
		if (n == max - 1)
			return -1;
		words[n++] = s;
	}
	words[n] = NULL;
	return n;
}

/*
 * The next line of f into buf (SUITE_LINE_MAX + 1 bytes, without the
 * newline). Returns its length (NULs included), -1 at the end of the
 * file, -2 when it is too long (an error: nothing more is read, so an
 * endless file such as /dev/zero ends here too).
 */
static long suite_line(FILE *f, char *buf)
{
	long len = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (len == SUITE_LINE_MAX)
			return -2;
		buf[len++] = (char)c;
	}
	if (c == EOF && len == 0)
		return -1;
	buf[len] = '\0';
	return len;
}

/* Why a line is not suite text, or NULL. */
static const char *line_invalid(const char *line, long len, char *why, size_t wlen)
{
	for (long i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == '\0')
			return snprintf(why, wlen, "NUL byte at column %ld", i + 1), why;
		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
			return snprintf(why, wlen, "control character 0x%02x at column %ld",
					c, i + 1), why;
	}
	return NULL;
}

static int load_suite(const char *file, struct plan *plans, int *nplans,
		      struct run_opts *ro)
{
	char *line = malloc(SUITE_LINE_MAX + 1), **words = NULL, where[300], why[128];
	const char *bad;
	bool suite_probe = false;
	int lineno = 0, n = 0, nw, idx;
	FILE *f = fopen(file, "re");
	long len;

	words = calloc(SUITE_WORDS_MAX, sizeof(*words));
	if (!f || !line || !words) {
		fprintf(stderr, "mmbench: suite '%s': %s\n", file, strerror(errno));
		goto fail;
	}
	while ((len = suite_line(f, line)) != -1) {
		char *hash;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d: ", file, lineno);
		if (len == -2) {
			fprintf(stderr, "mmbench: %sline longer than %d bytes\n", where,
				SUITE_LINE_MAX);
			goto fail;
		}
		bad = line_invalid(line, len, why, sizeof(why));
		if (bad) {
			fprintf(stderr, "mmbench: %s%s\n", where, bad);
			goto fail;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		nw = split_words(line, words, SUITE_WORDS_MAX);
		if (nw < 0) {
			fprintf(stderr, "mmbench: %smore than %d words\n", where,
				SUITE_WORDS_MAX - 2);
			goto fail;
		}
		if (nw < 2)
			continue;
		/*
		 * "--probe F[,F]": count these functions in every case, as the
		 * option does; checked here, replaced by a --probe given on
		 * the command line (parsed before the suite).
		 */
		if (!strcmp(words[1], "--probe")) {
			if (nw != 3 || suite_probe) {
				fprintf(stderr, "mmbench: %s%s\n", where, suite_probe ?
					"a second --probe line" : "expected --probe F[,F...]");
				goto fail;
			}
			suite_probe = true;
			if (mm_probe_set(words[2]) < 0 ||
			    (ro->probe && mm_probe_set(ro->probe) < 0)) {
				fprintf(stderr, "mmbench: %sin this --probe line\n", where);
				goto fail;
			}
			continue;
		}
		if (n == MAX_LINES) {
			fprintf(stderr, "mmbench: %smore than %d workload lines\n", where,
				MAX_LINES);
			goto fail;
		}
		/* plans[n] is initialised from here on: freed by the caller */
		*nplans = n + 1;
		if (plan_init(&plans[n], words[1], where) < 0)
			goto fail;
		idx = parse_opts(nw - 1, words + 1, ro, &plans[n], false);
		if (idx < 0)
			goto fail;
		if (idx < nw - 1) {
			fprintf(stderr, "mmbench: %sunexpected word '%s'\n", where,
				words[idx + 1]);
			goto fail;
		}
		if (plan_expand(&plans[n]) < 0)
			goto fail;
		n++;
	}
	if (ferror(f)) {
		fprintf(stderr, "mmbench: suite '%s': %s\n", file, strerror(errno));
		goto fail;
	}
	fclose(f);
	free(line);
	free(words);
	*nplans = n;
	if (n == 0) {
		fprintf(stderr, "mmbench: suite '%s' has no workload lines\n", file);
		return -1;
	}
	return 0;
fail:
	if (f)
		fclose(f);
	free(line);
	free(words);
	return -1;
}

static int cmd_suite(int argc, char **argv)
{
	struct run_opts ro = { .o = { .iterations = 5, .warmups = 1, .timeout = 900 } };
	struct plan *plans = calloc(MAX_LINES, sizeof(*plans));
	int nplans = 0, ret = MM_USAGE, idx;

	if (!plans)
		return MM_FAIL;
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "mmbench suite: expected a suite FILE first\n");
		goto out;
	}
	/* argv[1] (the file) stands where getopt expects the program name. */
	idx = parse_opts(argc - 1, argv + 1, &ro, NULL, true);
	if (idx < 0 || check_precision(&ro) < 0)
		goto out;
	if (idx != argc - 1) {
		fprintf(stderr, "mmbench suite: unexpected argument '%s'\n", argv[idx + 1]);
		goto out;
	}
	idx = 1;
	if (load_suite(argv[idx], plans, &nplans, &ro) < 0)
		goto out;
	if (ro.dry_run) {
		ret = dry_run(plans, nplans, &ro);
		goto out;
	}
	idx = setup_run(&ro, argc, argv);
	if (idx < 0) {
		ret = setup_status(idx);
		goto out;
	}
	ret = execute(plans, nplans, &ro);
out:
	for (int i = 0; i < nplans; i++)
		mm_plist_free(&plans[i].pl);
	free(plans);
	return ret;
}

/*
 * Standard output flushed and closed at the end of a command that prints
 * its result there: a write that failed (a full disk, /dev/full) is the
 * command's failure, said with NAME (the file of -o, or standard output).
 */
static int close_stdout(const char *cmd, const char *name, int ret)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err)
		return ret;
	fprintf(stderr, "mmbench %s: writing %s: %s\n", cmd, name, strerror(err));
	return ret == MM_PASS ? MM_FAIL : ret;
}

static int cmd_sysinfo(int argc, char **argv)
{
	const char *out = NULL, *xml = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc) {
			xml = argv[++i];
		} else {
			fprintf(stderr, "usage: mmbench sysinfo [-o CSV_FILE] [-x TOPOLOGY_XML]\n");
			return MM_USAGE;
		}
	}
	if (out && !freopen(out, "w", stdout)) {
		fprintf(stderr, "mmbench sysinfo: -o '%s': %s\n", out, strerror(errno));
		return MM_FAIL;
	}
	if (xml && mm_topology_xml(xml) < 0) {
		fprintf(stderr, "mmbench sysinfo: -x '%s': hwloc could not write it\n", xml);
		return MM_FAIL;
	}
	return close_stdout("sysinfo", out ? out : "standard output",
			    mm_sysinfo_write("-", argc, argv, NULL, 0) < 0 ? MM_FAIL : MM_PASS);
}

static int cmd_restore(int argc, char **argv)
{
	char path[4200];

	if (argc != 2) {
		fprintf(stderr, "usage: mmbench restore RUN_DIR\n");
		return MM_USAGE;
	}
	snprintf(path, sizeof(path), "%s/settings.journal", argv[1]);
	if (access(path, R_OK) < 0) {
		fprintf(stderr, "mmbench restore: no settings journal in '%s': %s\n",
			argv[1], strerror(errno));
		return MM_USAGE;
	}
	return mm_settings_restore(argv[1], true);
}

/* The label rule for shell tools: exit 0, or 2 with the reason. */
static int cmd_check_label(const char *label)
{
	char why[700];

	if (mm_label_check(label, why, sizeof(why)) < 0) {
		fprintf(stderr, "mmbench: %s\n", why);
		return MM_USAGE;
	}
	return MM_PASS;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "list") == 0)
		return cmd_list();
	if (strcmp(cmd, "info") == 0 && argc == 3)
		return cmd_info(argv[2]);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(cmd, "suite") == 0)
		return cmd_suite(argc - 1, argv + 1);
	if (strcmp(cmd, "sysinfo") == 0)
		return cmd_sysinfo(argc - 1, argv + 1);
	if (strcmp(cmd, "restore") == 0)
		return cmd_restore(argc - 1, argv + 1);
	if (strcmp(cmd, "summary") == 0 && argc == 3)
		return close_stdout("summary", "standard output", mm_summary(argv[2]));
	if (strcmp(cmd, "precision") == 0)
		return mm_precision_cmd(argc - 1, argv + 1);
	if (strcmp(cmd, "check-label") == 0 && argc == 3)
		return cmd_check_label(argv[2]);
	if (strcmp(cmd, "field") == 0)
		return mm_field(argc - 1, argv + 1);
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		usage(stdout);
		return MM_PASS;
	}
	usage(stderr);
	return MM_USAGE;
}
