// SPDX-License-Identifier: GPL-2.0
/*
 * mmhistory: every CSV read and write of the nightly job (tools/nightly),
 * through libcsv: history.csv, the regressions ledger, meta.csv additions,
 * run lookups by host, and the digest of an mmcompare --csv comparison.
 * Schema and crash-safety rules: history.h, bench/results/csvio.h; the
 * file of each command: mmhistory.h.
 *
 * Exit: 0 ok, 1 a check failed, 2 usage or bad input, 3 (digest) a judged
 * line is significantly worse, or missing from NEW.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "numbers.h"
#include "history.h"
#include "judge.h"
#include "mmhistory.h"

static const char *prog = "mmhistory";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmhistory COMMAND ARGS\n"
		"  append HISTORY COL=VALUE...        append one validated row (locked, fsync'd)\n"
		"  check [--dirs] HISTORY             validate; --dirs: every run_dir exists\n"
		"  select HISTORY [--host H] [--status S[,S]] [--label L] [--with-results]\n"
		"         [--exclude DIR]... [--last N] [--fields C[,C]]\n"
		"                                     matching rows, oldest first, tab-separated\n"
		"  expired HISTORY --host H --days N [--now EPOCH] [--keep DIR]...\n"
		"         [--keep-label L]... [--keep-ledger LEDGER]\n"
		"                                     run_dirs of H older than N days, not kept\n"
		"  drop HISTORY --host H [--empty-before DATE] DIR...\n"
		"                                     remove those rows (atomic rewrite)\n"
		"  runs DIR [--host H] [--exclude DIR]... [--history HISTORY]\n"
		"                                     run directories under DIR of host H\n"
		"                                     (--history: not those it records as not ok)\n"
		"  meta-add META_CSV KEY=VALUE...     append facts to a run's meta.csv\n"
		"  meta-get META_CSV KEY              a fact (exit 1 when absent)\n"
		"  digest CMP_CSV [--judge PATTERNS] [--min-change PCT] [--exact-only]\n"
		"         [--not-measured FILE]\n"
		"                                     summary of mmcompare --csv (exit 3: a judged\n"
		"                                     line worse, or measured on BASE only)\n"
		"  ledger-update LEDGER CMP_CSV --host H --baseline B --run DIR --date D\n"
		"         --kernel K [--last-good DIR] [--judge PATTERNS] [--min-change PCT]\n"
		"         [--exact-only]              the lines of exact evidence against a baseline\n"
		"  ledger-changes LEDGER CHANGES_CSV --host H --run DIR --date D\n"
		"                                     the history's regressions (mmchange detect --csv)\n"
		"  ledger-open LEDGER [--host H]      open regressions, one line each\n"
		"  ledger-runs LEDGER                 run_dirs named in open regressions\n");
}

/* ------------------------------------------------------------ helpers */

static int hist_col_of(const char *name, size_t n)
{
	int i;

	for (i = 0; i < H_NCOLS; i++)
		if (strlen(hist_cols[i]) == n && !strncmp(hist_cols[i], name, n))
			return i;
	return -1;
}

/* Control characters (a multi-line message) become spaces. */
void flatten(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

bool in_list(const char *const *list, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

int parse_long(const char *s, const char *what, long min, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (!*s || *end || errno || *out < min)
		return die_usage("%s '%s': want a whole number >= %ld", what, s, min);
	return 0;
}

int parse_pct(const char *s, double *out)
{
	if (mm_parse_real(s, out) || !(*out >= 0 && *out < 1e6))
		return die_usage("--min-change '%s': want a percentage >= 0", s);
	return 0;
}

/* ------------------------------------------------------------ append */

static int cmd_append(int argc, char **argv)
{
	char *f[H_NCOLS], root[PATH_MAX], rel[PATH_MAX], err[1024], warn[1024];
	char *hdr = NULL, *line = NULL;
	int i, c, fd, rc = MM_USAGE;

	if (argc < 3)
		return die_usage("append: need HISTORY and COL=VALUE arguments");
	for (i = 0; i < H_NCOLS; i++)
		f[i] = "";
	f[H_SCHEMA] = "1";
	hist_root(argv[1], root, sizeof(root));
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		c = eq ? hist_col_of(argv[i], eq - argv[i]) : -1;
		if (c < 0)
			return die_usage("append: '%s': not COL=VALUE with a history column", argv[i]);
		f[c] = eq + 1;
		flatten(f[c]);
	}
	if (*f[H_RUN_DIR])
		f[H_RUN_DIR] = (char *)hist_rel(root, f[H_RUN_DIR], rel, sizeof(rel));
	if (hist_check((const char *const *)f, err, sizeof(err)))
		return die_usage("append: %s: %s", argv[1], err);
	hdr = tab_line(hist_cols, H_NCOLS);
	line = tab_line((const char *const *)f, H_NCOLS);
	fd = tab_lock(argv[1], LOCK_TIMEOUT_S, err, sizeof(err));
	if (!hdr || !line || fd < 0) {
		fprintf(stderr, "%s: append: %s\n", prog, fd < 0 ? err : "out of memory");
		goto out;
	}
	if (tab_append(argv[1], hdr, line, err, sizeof(err), warn, sizeof(warn)))
		fprintf(stderr, "%s: append: %s\n", prog, err);
	else
		rc = 0;
	if (warn[0])
		fprintf(stderr, "%s: warning: %s\n", prog, warn);
	tab_unlock(fd);
out:
	free(hdr);
	free(line);
	return rc;
}

/* ------------------------------------------------------------ check */

static bool run_exists(const char *root, const char *run_dir)
{
	char p[PATH_MAX];
	struct stat st;

	if (run_dir[0] == '/')
		snprintf(p, sizeof(p), "%s", run_dir);
	else
		snprintf(p, sizeof(p), "%s/%s", root, run_dir);
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

bool file_nonempty(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static bool has_results(const char *root, const char *run_dir)
{
	char p[PATH_MAX];

	if (!*run_dir)
		return false;
	if (run_dir[0] == '/')
		snprintf(p, sizeof(p), "%s/results.csv", run_dir);
	else
		snprintf(p, sizeof(p), "%s/%s/results.csv", root, run_dir);
	return file_nonempty(p);
}

static int cmd_check(int argc, char **argv)
{
	const char *path = argc == 2 ? argv[1] : NULL;
	char root[PATH_MAX];
	struct tab t;
	size_t i, missing = 0;
	bool dirs = false, torn;

	if (argc == 3 && !strcmp(argv[1], "--dirs"))
		path = argv[2];
	else if (argc == 3 && !strcmp(argv[2], "--dirs"))
		path = argv[1];
	if (!path)
		return die_usage("check: usage: check [--dirs] HISTORY");
	dirs = argc == 3;
	argv[1] = (char *)path;
	if (hist_load(&t, argv[1])) {
		printf("%s: INVALID: %s\n", argv[1], t.err);
		tab_free(&t);
		return MM_FAIL;
	}
	hist_root(argv[1], root, sizeof(root));
	for (i = 0; dirs && i < t.nrows; i++) {
		const char *d = t.rows[i].f[H_RUN_DIR];

		if (*d && !run_exists(root, d)) {
			printf("%s:%ld: run_dir '%s' does not exist\n", argv[1], t.rows[i].line, d);
			missing++;
		}
	}
	torn = t.torn;
	if (torn)
		printf("%s:%ld: INVALID: torn last line (no newline)\n", argv[1], t.torn_line);
	else if (!missing)
		printf("%s: valid, %zu rows\n", argv[1], t.nrows);
	tab_free(&t);
	return torn || missing ? MM_FAIL : 0;
}

/* ------------------------------------------------------------ select */

struct sel {
	const char *host[64];
	int nhost;
	char *status;		/* "a,b" */
	const char *label, *fields;
	const char *exclude[64];
	int nexclude;
	bool with_results;
	long last;
};

static bool status_match(const char *list, const char *s)
{
	size_t n = strlen(s);
	const char *p = list;

	if (!list)
		return true;
	while (p && *p) {
		if (!strncmp(p, s, n) && (p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

static bool sel_match(const struct sel *o, const char *root, char **f)
{
	char rel[PATH_MAX];

	if (o->nhost && !in_list(o->host, o->nhost, f[H_HOST]))
		return false;
	if (!status_match(o->status, f[H_STATUS]))
		return false;
	if (o->label && strcmp(o->label, f[H_LABEL]))
		return false;
	if (o->with_results && !has_results(root, f[H_RUN_DIR]))
		return false;
	for (int k = 0; k < o->nexclude; k++)
		if (!strcmp(hist_rel(root, o->exclude[k], rel, sizeof(rel)), f[H_RUN_DIR]))
			return false;
	return true;
}

static int date_cmp(const void *a, const void *b)
{
	const struct tab_row *x = *(const struct tab_row *const *)a;
	const struct tab_row *y = *(const struct tab_row *const *)b;
	int c = strcmp(x->f[H_DATE], y->f[H_DATE]);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Column indexes of "a,b,c" into cols; returns the count or -1. */
static int field_list(const char *spec, int *cols, int max)
{
	const char *p = spec;
	int n = 0, c;

	while (*p && n < max) {
		size_t len = strcspn(p, ",");

		c = hist_col_of(p, len);
		if (c < 0)
			return -1;
		cols[n++] = c;
		p += len + (p[len] == ',');
	}
	return n;
}

static void print_rows(struct tab_row **rows, size_t n, const int *cols, int ncols)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < ncols; k++)
			printf("%s%s", k ? "\t" : "", rows[i]->f[cols[k]]);
		putchar('\n');
	}
}

static int sel_opts(int argc, char **argv, struct sel *o)
{
	static const struct option lo[] = {
		{ "host", required_argument, NULL, 'H' }, { "status", required_argument, NULL, 's' },
		{ "label", required_argument, NULL, 'l' }, { "exclude", required_argument, NULL, 'x' },
		{ "with-results", no_argument, NULL, 'r' }, { "last", required_argument, NULL, 'n' },
		{ "fields", required_argument, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (o->nhost == 64)
				return die_usage("select: too many --host");
			o->host[o->nhost++] = optarg;
			break;
		case 's': o->status = optarg; break;
		case 'l': o->label = optarg; break;
		case 'x':
			if (o->nexclude == 64)
				return die_usage("select: too many --exclude");
			o->exclude[o->nexclude++] = optarg;
			break;
		case 'r': o->with_results = true; break;
		case 'n': if (parse_long(optarg, "--last", 1, &o->last)) return -1; break;
		case 'f': o->fields = optarg; break;
		default: return die_usage("select: bad option (see mmhistory --help)");
		}
	}
	return optind == argc - 1 ? 0 : die_usage("select: need exactly one HISTORY");
}

static int cmd_select(int argc, char **argv)
{
	struct sel o = { .last = 0 };
	int cols[H_NCOLS], ncols, i, rc = 0;
	char root[PATH_MAX];
	struct tab_row **m;
	struct tab t;
	size_t k, n = 0;

	if (sel_opts(argc, argv, &o))
		return MM_USAGE;
	ncols = o.fields ? field_list(o.fields, cols, H_NCOLS) : H_NCOLS;
	if (ncols <= 0)
		return die_usage("select: --fields '%s': not a list of history columns", o.fields);
	for (i = 0; !o.fields && i < H_NCOLS; i++)
		cols[i] = i;
	if (hist_load(&t, argv[optind])) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return MM_USAGE;
	}
	hist_root(argv[optind], root, sizeof(root));
	m = calloc(t.nrows + 1, sizeof(*m));
	for (k = 0; m && k < t.nrows; k++)
		if (sel_match(&o, root, t.rows[k].f))
			m[n++] = &t.rows[k];
	if (m) {
		qsort(m, n, sizeof(*m), date_cmp);
		if (o.last && (size_t)o.last < n)
			print_rows(m + n - o.last, o.last, cols, ncols);
		else
			print_rows(m, n, cols, ncols);
	} else {
		rc = die_usage("out of memory");
	}
	free(m);
	tab_free(&t);
	return rc;
}

/* ------------------------------------------------------------ main */

static int cmd_ledger_open(int argc, char **argv)
{
	return cmd_ledger_list(argc, argv, false);
}

static int cmd_ledger_runs(int argc, char **argv)
{
	return cmd_ledger_list(argc, argv, true);
}

static const struct hist_command commands[] = {
	{ "append", cmd_append },
	{ "check", cmd_check },
	{ "select", cmd_select },
	{ "expired", cmd_expired },
	{ "drop", cmd_drop },
	{ "runs", cmd_runs },
	{ "meta-add", cmd_meta_add },
	{ "meta-get", cmd_meta_get },
	{ "digest", cmd_digest },
	{ "ledger-update", cmd_ledger_update },
	{ "ledger-changes", cmd_ledger_changes },
	{ "ledger-open", cmd_ledger_open },
	{ "ledger-runs", cmd_ledger_runs },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	hist_prog = prog;
	return hist_dispatch(commands, argc, argv, 3, usage);
}
