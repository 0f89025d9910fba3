// SPDX-License-Identifier: GPL-2.0
/*
 * The run options' table: every option of `mmbench run` and `mmbench
 * suite` is one row here. getopt's tables, the usage text, the check of
 * each value and `mmbench options` (the same rows as data, for the shell
 * front doors) are made from it, so a new option is a new row.
 */
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "cmd/cmd.h"
#include "profile.h"
#include "runopts.h"

struct run_opt;

/* What a row's set() works on: the options of the command, the plan of
 * the line (NULL on a suite's command line) and where the words are. */
struct ro_ctx {
	struct run_opts *ro;
	struct plan *pn;
	bool global;
};

typedef int ro_set_fn(const struct ro_ctx *x, const struct run_opt *r,
		      const char *arg);

enum ro_has { RO_FLAG, RO_VALUE, RO_OPTIONAL };

#define RO_LINE 1u	/* also on a suite line */
#define RO_FRONT 2u	/* the front doors (run.sh, the labs) pass it on */
#define RO_UNLISTED 4u	/* not in the usage's list (said in its synopsis) */

struct run_opt {
	const char *name;	/* --NAME */
	char key;		/* -KEY, or 0 */
	enum ro_has has;
	const char *arg;	/* the value's placeholder: "N", "[=callgraph]" */
	const char *type;	/* for `mmbench options`: count, text, ... */
	int min, max;		/* a count's range */
	const char *def;	/* the default, as said to users ("-": none) */
	unsigned int flags;	/* RO_* */
	const char *family;	/* a front door accepts it with this one */
	int col;		/* the help's first column when not 23 */
	const char *help;	/* its lines, '\n' between them */
	ro_set_fn *set;		/* check the value, keep it; 0 or -1 */
	int (*keep)(const char *arg);	/* set_service: the service's own */
	size_t at;		/* set_string: where in struct run_opts */
};

static ro_set_fn set_param, set_iterations, set_warmups, set_precision,
	set_max_iter, set_max_time, set_string, set_label, set_timeout,
	set_probe, set_service, set_set, set_meta, set_dry_run, set_verbose,
	set_help;

#define AT(field) offsetof(struct run_opts, field)

/* The usage lists the listed rows in this order. */
static const struct run_opt run_opts[] = {
	{ "param", 'p', RO_VALUE, "key=value[,value...]", "param", 0, 0, "-",
	  RO_LINE | RO_UNLISTED, NULL, 0,
	  "a workload parameter; a list runs one case per value", set_param, NULL, 0 },
	{ "iterations", 'i', RO_VALUE, "N", "count", 1, 100000, "5",
	  RO_LINE | RO_FRONT, NULL, 0,
	  "measured iterations per case (default 5)", set_iterations, NULL, 0 },
	{ "precision", 0, RO_VALUE, "P", "percent", 0, 100, "-", RO_FRONT, NULL, 0,
	  "add iterations after -i (the minimum) until the\n"
	  "95% half-width of every judged timed evidence\n"
	  "metric is at most P% of its mean (0 < P <= 100)", set_precision, NULL, 0 },
	{ "max-iterations", 0, RO_VALUE, "N", "count", 1, 100000, "50", RO_FRONT,
	  "precision", 0, "... or N iterations (default 50)", set_max_iter, NULL, 0 },
	{ "max-time", 0, RO_VALUE, "SEC", "count", 1, 86400 * 7,
	  "half of --timeout", RO_FRONT, "precision", 0,
	  "... or no iteration added past SEC of measured\n"
	  "iterations (default: half of --timeout)", set_max_time, NULL, 0 },
	{ "warmups", 'w', RO_VALUE, "N", "count", 0, 100000, "1",
	  RO_LINE | RO_FRONT, NULL, 0,
	  "warm-up iterations per case, reported in\n"
	  "warmup.csv, never in results.csv (default 1)", set_warmups, NULL, 0 },
	{ "out", 'o', RO_VALUE, "DIR", "path", 0, 0, "ROOT/LABEL/YYYYmmdd-HHMMSS-HOST",
	  0, NULL, 0, "the run directory (default\n"
	  "ROOT/LABEL/YYYYmmdd-HHMMSS-HOST)", set_string, NULL, AT(out) },
	{ "root", 0, RO_VALUE, "DIR", "path", 0, 0, "./results", 0, NULL, 0,
	  "results root (default ./results)", set_string, NULL, AT(root) },
	{ "label", 0, RO_VALUE, "LABEL", "label", 0, 0, "the kernel release", 0,
	  NULL, 0, "run label (default: kernel release): 1-100 of\n"
	  "A-Z a-z 0-9 . _ - +, no '..', starts alnum", set_label, NULL, 0 },
	{ "timeout", 0, RO_VALUE, "SEC", "count", 1, 86400 * 7, "900", RO_FRONT,
	  NULL, 0, "per-case time limit (default 900)", set_timeout, NULL, 0 },
	{ "probe", 0, RO_VALUE, "F[,F]", "functions", 0, 0, "-", RO_FRONT, NULL, 0,
	  "count calls of kernel functions in the\n"
	  "measured phase (tracefs kprobes; root)", set_probe, NULL, 0 },
	{ "profile", 0, RO_OPTIONAL, "[=callgraph]", "mode", 0, 0, "-", RO_FRONT,
	  NULL, 0, "system-wide perf samples of the measured\n"
	  "phase: per iteration, each symbol's share\n"
	  "(profile.csv) and the raw data (profile/)", set_service, mm_profile_set, 0 },
	{ "profile-freq", 0, RO_VALUE, "HZ", "hz", 0, 0, "499", RO_FRONT, "profile",
	  26, "sampling frequency (default 499)", set_service, mm_profile_set_freq, 0 },
	{ "profile-cap", 0, RO_VALUE, "SIZE", "size", 0, 0, "64M", RO_FRONT,
	  "profile", 0, "raw data kept per case, bytes or K/M/G\n"
	  "(default 64M)", set_service, mm_profile_set_cap, 0 },
	{ "profile-kallsyms", 0, RO_VALUE, "FILE", "path", 0, 0, "/proc/kallsyms",
	  0, NULL, 0, "kernel symbols (System.map) instead\n"
	  "of /proc/kallsyms", set_service, mm_profile_set_kallsyms, 0 },
	{ "set", 0, RO_VALUE, "PATH=VAL", "knob", 0, 0, "-", 0, NULL, 0,
	  "set a sysfs/procfs knob for every case; the\n"
	  "original is journalled and restored", set_set, NULL, 0 },
	{ "meta", 0, RO_VALUE, "KEY=VAL", "fact", 0, 0, "-", 0, NULL, 0,
	  "add or override a fact in meta.csv", set_meta, NULL, 0 },
	{ "mirror", 0, RO_VALUE, "PATH", "path", 0, 0, "-", 0, NULL, 0,
	  "copy every output line to PATH as\n"
	  "'@@MM FILE LINE' (VM lab serial port)", set_string, NULL, AT(mirror) },
	{ "dry-run", 0, RO_FLAG, "", "flag", 0, 0, "-", 0, NULL, 0,
	  "print the cases as CSV (workload,case,\n"
	  "iterations,warmups) and exit; nothing runs", set_dry_run, NULL, 0 },
	{ "verbose", 'v', RO_FLAG, "", "flag", 0, 0, "-", RO_FRONT, NULL, 0,
	  "log restored settings; a pair (VM lab,\n"
	  "kernel build) also prints each run's\n"
	  "whole summary before the verdict", set_verbose, NULL, 0 },
	{ "help", 'h', RO_FLAG, "", "flag", 0, 0, "-", RO_UNLISTED, NULL, 0,
	  "print this usage and exit", set_help, NULL, 0 },
};

#define N_RUN_OPTS (sizeof(run_opts) / sizeof(run_opts[0]))
/* getopt's value of a row without a letter: above every char */
#define RO_VAL0 256

/* ---------------------------------------------------------------- checks */

/* A count in [lo, hi]: mmbench's decimal rule (params.c). */
static int parse_count(const char *where, const struct run_opt *r,
		       const char *s, int *out)
{
	long long v;

	if (mm_parse_decimal(s, &v) < 0 || v < r->min || v > r->max) {
		fprintf(stderr, "mmbench: %s--%s: '%s' is not a number in [%d, %d]\n",
			where, r->name, s, r->min, r->max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Where an option of this invocation stands, for messages. */
static const char *where_of(const struct ro_ctx *x)
{
	return x->pn ? x->pn->where : "";
}

/* A one-line value: no control character. */
static int one_line(const char *opt, const char *shown, const char *v)
{
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			fprintf(stderr, "mmbench: %s '%s': control character in the value\n",
				opt, shown);
			return -1;
		}
	return 0;
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
	return one_line("--set", shown, eq + 1);
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
	if (one_line("--meta", shown, eq + 1) < 0)
		return -1;
	if (!strncmp(arg, "label=", 6) && mm_label_check(eq + 1, why, sizeof(why)) < 0) {
		fprintf(stderr, "mmbench: --meta: %s\n", why);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- setters */

static int set_param(const struct ro_ctx *x, const struct run_opt *r,
		     const char *arg)
{
	char err[512];

	(void)r;
	if (!x->pn) {
		fprintf(stderr, "mmbench: -p belongs on a suite line\n");
		return -1;
	}
	if (mm_plist_set(&x->pn->pl, arg, err, sizeof(err)) < 0) {
		fprintf(stderr, "mmbench: %s%s\n", x->pn->where, err);
		return -1;
	}
	return 0;
}

/* -i and -w: the command line's (global), and the plan's of its line. */
static int set_line_count(const struct ro_ctx *x, const struct run_opt *r,
			  const char *arg, int *global, bool *given, int *line)
{
	int v;

	if (parse_count(where_of(x), r, arg, &v) < 0)
		return -1;
	if (x->global) {
		*global = v;
		*given = true;
	}
	if (line)
		*line = v;
	return 0;
}

static int set_iterations(const struct ro_ctx *x, const struct run_opt *r,
			  const char *arg)
{
	return set_line_count(x, r, arg, &x->ro->o.iterations, &x->ro->iter_set,
			      x->pn ? &x->pn->iterations : NULL);
}

static int set_warmups(const struct ro_ctx *x, const struct run_opt *r,
		       const char *arg)
{
	return set_line_count(x, r, arg, &x->ro->o.warmups, &x->ro->warm_set,
			      x->pn ? &x->pn->warmups : NULL);
}

/* --precision P: a decimal in (0, 100]. */
static int set_precision(const struct ro_ctx *x, const struct run_opt *r,
			 const char *arg)
{
	double v = mm_decimal_real(arg) ? strtod(arg, NULL) : NAN;

	if (!(v > r->min && v <= r->max)) {
		fprintf(stderr, "mmbench: --precision: '%s' is not a percentage above 0 "
			"and at most 100\n", arg);
		return -1;
	}
	x->ro->o.precision = v;
	return 0;
}

static int set_max_iter(const struct ro_ctx *x, const struct run_opt *r,
			const char *arg)
{
	x->ro->max_iter_set = true;
	return parse_count("", r, arg, &x->ro->o.max_iterations);
}

static int set_max_time(const struct ro_ctx *x, const struct run_opt *r,
			const char *arg)
{
	int v;

	if (parse_count("", r, arg, &v) < 0)
		return -1;
	x->ro->o.max_time = (unsigned int)v;
	x->ro->max_time_set = true;
	return 0;
}

static int set_timeout(const struct ro_ctx *x, const struct run_opt *r,
		       const char *arg)
{
	int v;

	if (parse_count("", r, arg, &v) < 0)
		return -1;
	x->ro->o.timeout = (unsigned int)v;
	return 0;
}

/* -o, --root, --mirror: kept as given (setup_run uses them). */
static int set_string(const struct ro_ctx *x, const struct run_opt *r,
		      const char *arg)
{
	*(const char **)((char *)x->ro + r->at) = arg;
	return 0;
}

static int set_label(const struct ro_ctx *x, const struct run_opt *r,
		     const char *arg)
{
	char err[512];

	(void)r;
	/* Checked now: --dry-run and the lab's plan too. */
	if (mm_label_check(arg, err, sizeof(err)) < 0) {
		fprintf(stderr, "mmbench: --label: %s\n", err);
		return -1;
	}
	x->ro->label = arg;
	return 0;
}

static int set_probe(const struct ro_ctx *x, const struct run_opt *r,
		     const char *arg)
{
	(void)r;
	/* Checked now: a bad name must not create a run dir. */
	if (mm_probe_set(arg) < 0)
		return -1;
	x->ro->probe = arg;
	return 0;
}

/* --profile*: the profiler checks and keeps its own settings. */
static int set_service(const struct ro_ctx *x, const struct run_opt *r,
		       const char *arg)
{
	(void)x;
	return r->keep(arg);
}

/* One more --set or --meta into LIST (N of them so far). */
static int keep_in(char **list, int *n, const char *opt, const char *arg)
{
	if (*n == MAX_META) {
		fprintf(stderr, "mmbench: %s: more than %d\n", opt, MAX_META);
		return -1;
	}
	list[(*n)++] = (char *)arg;
	return 0;
}

static int set_set(const struct ro_ctx *x, const struct run_opt *r, const char *arg)
{
	struct run_opts *ro = x->ro;

	(void)r;
	if (check_set(arg) < 0 || keep_in(ro->sets, &ro->o.nsets, "--set", arg) < 0)
		return -1;
	ro->o.sets = ro->sets;
	return 0;
}

static int set_meta(const struct ro_ctx *x, const struct run_opt *r, const char *arg)
{
	(void)r;
	if (check_meta(arg) < 0)
		return -1;
	return keep_in(x->ro->meta, &x->ro->nmeta, "--meta", arg);
}

static int set_dry_run(const struct ro_ctx *x, const struct run_opt *r,
		       const char *arg)
{
	(void)r, (void)arg;
	x->ro->dry_run = true;
	return 0;
}

static int set_verbose(const struct ro_ctx *x, const struct run_opt *r,
		       const char *arg)
{
	(void)r, (void)arg;
	x->ro->o.verbose = true;
	return 0;
}

static int set_help(const struct ro_ctx *x, const struct run_opt *r,
		    const char *arg)
{
	(void)x, (void)r, (void)arg;
	mm_usage(stdout);
	exit(0);
}

/* ---------------------------------------------------------------- parsing */

static struct option ro_longs[N_RUN_OPTS + 1];
static char ro_shorts[2 + 3 * N_RUN_OPTS];

/* getopt's tables from the rows, once. */
static void getopt_tables(void)
{
	static const int has[] = { no_argument, required_argument, optional_argument };
	static const char *const colons[] = { "", ":", "::" };
	size_t n = 0;

	if (ro_shorts[0])
		return;
	ro_shorts[n++] = '+';	/* stop at the first word that is no option */
	for (size_t i = 0; i < N_RUN_OPTS; i++) {
		const struct run_opt *r = &run_opts[i];

		ro_longs[i] = (struct option){ r->name, has[r->has], NULL,
					       r->key ? r->key : RO_VAL0 + (int)i };
		if (r->key)
			n += (size_t)sprintf(ro_shorts + n, "%c%s", r->key, colons[r->has]);
	}
}

/* The row of getopt's value C, or NULL (an unknown option: '?'). */
static const struct run_opt *row_of(int c)
{
	if (c >= RO_VAL0 && c < RO_VAL0 + (int)N_RUN_OPTS)
		return &run_opts[c - RO_VAL0];
	for (size_t i = 0; i < N_RUN_OPTS; i++)
		if (run_opts[i].key && run_opts[i].key == c)
			return &run_opts[i];
	return NULL;
}

/* "only -p, -i and -w belong on a suite line" */
static void line_only(const char *where)
{
	char keys[64] = "";
	int n = 0, k = 0;

	for (size_t i = 0; i < N_RUN_OPTS; i++)
		n += (run_opts[i].flags & RO_LINE) != 0;
	for (size_t i = 0; i < N_RUN_OPTS; i++)
		if (run_opts[i].flags & RO_LINE)
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s-%c",
				 !k++ ? "" : k == n ? " and " : ", ", run_opts[i].key);
	fprintf(stderr, "mmbench: %sonly %s belong on a suite line\n", where, keys);
}

int parse_opts(int argc, char **argv, struct run_opts *ro, struct plan *pn,
	       bool global)
{
	struct ro_ctx x = { ro, pn, global };
	const struct run_opt *r;
	int c;

	getopt_tables();
	optind = 0;	/* glibc: full re-initialisation for a new argv */
	while ((c = getopt_long(argc, argv, ro_shorts, ro_longs, NULL)) != -1) {
		r = row_of(c);
		if (!global && !(r && (r->flags & RO_LINE))) {
			line_only(where_of(&x));
			return -1;
		}
		if (!r) {
			mm_usage(stderr);
			return -1;
		}
		if (r->set(&x, r, optarg) < 0)
			return -1;
	}
	return optind;
}

/*
 * Defaults: 50 iterations, half of --timeout (at least 1 s).
 */
int check_precision(struct run_opts *ro)
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

/* ---------------------------------------------------------------- help */

/* "-i, --iterations N", "    --profile[=callgraph]" */
static void synopsis(const struct run_opt *r, char *buf, size_t len)
{
	char key[8] = "    ";

	if (r->key)
		snprintf(key, sizeof(key), "-%c, ", r->key);
	snprintf(buf, len, "%s--%s%s%s", key, r->name, r->has == RO_VALUE ? " " : "",
		 r->arg);
}

#define HELP_COL 23

void run_opts_help(FILE *f)
{
	char syn[96];

	for (size_t i = 0; i < N_RUN_OPTS; i++) {
		const struct run_opt *r = &run_opts[i];
		int at, col = r->col ? r->col : HELP_COL;

		if (r->flags & RO_UNLISTED)
			continue;
		synopsis(r, syn, sizeof(syn));
		at = fprintf(f, "  %s", syn);
		fprintf(f, "%*s", col - at < 2 ? 2 : col - at, "");
		for (const char *c = r->help; *c; c++) {
			fputc(*c, f);
			if (*c == '\n')
				fprintf(f, "%*s", HELP_COL, "");
		}
		fputc('\n', f);
	}
}

/*
 * `mmbench options`: a header line, then one line per option, fields
 * separated by tabs (no field is empty or holds a tab: "-" for none):
 * name short arg type min max default scope front family help-line...
 * (bench/README.md, "The run options as data").
 */
void run_opts_export(FILE *f)
{
	fputs("name\tshort\targ\ttype\tmin\tmax\tdefault\tscope\tfront\tfamily\thelp\n", f);
	for (size_t i = 0; i < N_RUN_OPTS; i++) {
		const struct run_opt *r = &run_opts[i];
		bool ranged = !strcmp(r->type, "count") || !strcmp(r->type, "percent");

		fprintf(f, "%s\t%c\t%s\t%s\t", r->name, r->key ? r->key : '-',
			r->has == RO_FLAG ? "-" : r->arg, r->type);
		if (ranged)
			fprintf(f, "%d\t%d\t", r->min, r->max);
		else
			fputs("-\t-\t", f);
		fprintf(f, "%s\t%s\t%s\t%s\t", r->def, r->flags & RO_LINE ? "line" : "run",
			r->flags & RO_FRONT ? "yes" : "no", r->family ? r->family : "-");
		for (const char *c = r->help; *c; c++)
			fputc(*c == '\n' ? '\t' : *c, f);
		fputc('\n', f);
	}
}

/* ---------------------------------------------------------------- plans */

int plan_init(struct plan *pn, const char *wlname, const char *where)
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

int plan_expand(struct plan *pn)
{
	char err[512];

	if (mm_plist_expand(&pn->pl, err, sizeof(err)) < 0) {
		fprintf(stderr, "mmbench: %s%s\n", pn->where, err);
		return -1;
	}
	return 0;
}
