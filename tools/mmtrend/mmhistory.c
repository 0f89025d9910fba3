// SPDX-License-Identifier: GPL-2.0
/*
 * mmhistory: every CSV read and write of the nightly job (tools/nightly),
 * through libcsv: history.csv, the regressions ledger, meta.csv additions,
 * run lookups by host, and the digest of an mmcompare --csv comparison.
 * Schema and crash-safety rules: history.h, bench/csvio.h.
 *
 * Exit: 0 ok, 1 a check failed, 2 usage or bad input, 3 (digest) a judged
 * line is significantly worse, or missing from NEW.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_csv.h"
#include "history.h"
#include "judge.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_WORSE 3
#define LOCK_TIMEOUT_S 60
#define MAX_LIST 4096

static const char *prog = "mmhistory";

#define die_usage hist_usage_error

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
static void flatten(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static bool in_list(const char *const *list, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

static int parse_long(const char *s, const char *what, long min, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (!*s || *end || errno || *out < min)
		return die_usage("%s '%s': want a whole number >= %ld", what, s, min);
	return 0;
}

static int parse_pct(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	if (!*s || *end || !(*out >= 0 && *out < 1e6))
		return die_usage("--min-change '%s': want a percentage >= 0", s);
	return 0;
}

/* ------------------------------------------------------------ append */

static int cmd_append(int argc, char **argv)
{
	char *f[H_NCOLS], root[PATH_MAX], rel[PATH_MAX], err[1024], warn[1024];
	char *hdr = NULL, *line = NULL;
	int i, c, fd, rc = EXIT_USAGE;

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

static bool file_nonempty(const char *p)
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
		return EXIT_FAIL;
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
	return torn || missing ? EXIT_FAIL : 0;
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
		return EXIT_USAGE;
	ncols = o.fields ? field_list(o.fields, cols, H_NCOLS) : H_NCOLS;
	if (ncols <= 0)
		return die_usage("select: --fields '%s': not a list of history columns", o.fields);
	for (i = 0; !o.fields && i < H_NCOLS; i++)
		cols[i] = i;
	if (hist_load(&t, argv[optind])) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return EXIT_USAGE;
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

/* ------------------------------------------------------------ retention */

struct keep {
	const char *dir[MAX_LIST];
	int ndir;
	const char *label[64];
	int nlabel;
	const char *ledger;
	const char *host;
	long days, now;
};

static int keep_ledger(struct keep *k, const char *root, char (*store)[PATH_MAX], int *nstore)
{
	static const int cols[] = { L_FIRST_RUN, L_LAST_GOOD, L_LATEST_RUN };
	struct tab t;
	size_t i;
	int j;

	if (led_load(&t, k->ledger)) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return -1;
	}
	for (i = 0; i < t.nrows; i++) {
		if (strcmp(t.rows[i].f[L_STATE], "open"))
			continue;
		for (j = 0; j < 3 && *nstore < MAX_LIST && k->ndir < MAX_LIST; j++) {
			if (!*t.rows[i].f[cols[j]])
				continue;
			hist_rel(root, t.rows[i].f[cols[j]], store[*nstore], PATH_MAX);
			k->dir[k->ndir++] = store[(*nstore)++];
		}
	}
	tab_free(&t);
	return 0;
}

static int expired_opts(int argc, char **argv, struct keep *k)
{
	static const struct option lo[] = {
		{ "host", required_argument, NULL, 'H' }, { "days", required_argument, NULL, 'd' },
		{ "now", required_argument, NULL, 'n' }, { "keep", required_argument, NULL, 'k' },
		{ "keep-label", required_argument, NULL, 'l' },
		{ "keep-ledger", required_argument, NULL, 'L' }, { NULL, 0, NULL, 0 },
	};
	int c;

	k->now = time(NULL);
	k->days = -1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'H': k->host = optarg; break;
		case 'd': if (parse_long(optarg, "--days", 1, &k->days)) return -1; break;
		case 'n': if (parse_long(optarg, "--now", 0, &k->now)) return -1; break;
		case 'k':
			if (k->ndir == MAX_LIST)
				return die_usage("expired: too many --keep");
			k->dir[k->ndir++] = optarg;
			break;
		case 'l':
			if (k->nlabel == 64)
				return die_usage("expired: too many --keep-label");
			k->label[k->nlabel++] = optarg;
			break;
		case 'L': k->ledger = optarg; break;
		default: return die_usage("expired: bad option (see mmhistory --help)");
		}
	}
	if (!k->host || k->days < 0 || optind != argc - 1)
		return die_usage("expired: need HISTORY, --host and --days");
	return 0;
}

static bool kept(const struct keep *k, const char *root, char **f)
{
	char rel[PATH_MAX];
	int i;

	if (in_list(k->label, k->nlabel, f[H_LABEL]))
		return true;
	for (i = 0; i < k->ndir; i++)
		if (!strcmp(hist_rel(root, k->dir[i], rel, sizeof(rel)), f[H_RUN_DIR]))
			return true;
	return false;
}

static int cmd_expired(int argc, char **argv)
{
	static char store[MAX_LIST][PATH_MAX];
	char root[PATH_MAX];
	struct keep k = { 0 };
	struct tab t;
	time_t d;
	size_t i;
	int nstore = 0;

	if (expired_opts(argc, argv, &k))
		return EXIT_USAGE;
	hist_root(argv[optind], root, sizeof(root));
	if (k.ledger && keep_ledger(&k, root, store, &nstore))
		return EXIT_USAGE;
	if (hist_load(&t, argv[optind])) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return EXIT_USAGE;
	}
	for (i = 0; i < t.nrows; i++) {
		char **f = t.rows[i].f;

		if (strcmp(f[H_HOST], k.host) || !*f[H_RUN_DIR])
			continue;
		hist_date_parse(f[H_DATE], &d);
		if ((long)d >= k.now - k.days * 86400L || kept(&k, root, f))
			continue;
		printf("%s\n", f[H_RUN_DIR]);
	}
	tab_free(&t);
	return 0;
}

static int drop_opts(int argc, char **argv, const char **host, time_t *before)
{
	static const struct option lo[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "empty-before", required_argument, NULL, 'e' }, { NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'H': *host = optarg; break;
		case 'e':
			if (!hist_date_parse(optarg, before))
				return die_usage("drop: --empty-before '%s': not YYYY-MM-DDTHH:MM:SSZ",
						 optarg);
			break;
		default: return die_usage("drop: bad option (see mmhistory --help)");
		}
	}
	if (!*host || optind >= argc)
		return die_usage("drop: need HISTORY and --host");
	return 0;
}

static bool drop_row(char **f, const char *host, time_t before, const char *root,
		     char **dirs, int ndirs)
{
	char rel[PATH_MAX];
	time_t d;
	int i;

	if (strcmp(f[H_HOST], host))
		return false;
	if (!*f[H_RUN_DIR])
		return hist_date_parse(f[H_DATE], &d) && d < before;
	for (i = 0; i < ndirs; i++)
		if (!strcmp(hist_rel(root, dirs[i], rel, sizeof(rel)), f[H_RUN_DIR]))
			return true;
	return false;
}

static int cmd_drop(int argc, char **argv)
{
	const char *host = NULL, *hist;
	char root[PATH_MAX], err[1024];
	struct tab_row **keep;
	time_t before = 0;
	struct tab t;
	size_t i, n = 0;
	int fd, rc = EXIT_USAGE;

	if (drop_opts(argc, argv, &host, &before))
		return EXIT_USAGE;
	hist = argv[optind];
	hist_root(hist, root, sizeof(root));
	fd = tab_lock(hist, LOCK_TIMEOUT_S, err, sizeof(err));
	if (fd < 0)
		return die_usage("drop: %s", err);
	if (hist_load(&t, hist)) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		goto out;
	}
	keep = calloc(t.nrows + 1, sizeof(*keep));
	for (i = 0; keep && i < t.nrows; i++)
		if (!drop_row(t.rows[i].f, host, before, root, argv + optind + 1,
			      argc - optind - 1))
			keep[n++] = &t.rows[i];
	if (keep && tab_rewrite(hist, hist_cols, H_NCOLS, (const struct tab_row *const *)keep,
				n, err, sizeof(err)))
		fprintf(stderr, "%s: drop: %s\n", prog, err);
	else if (keep)
		rc = printf("dropped %zu row(s)\n", t.nrows - n) < 0;
	free(keep);
out:
	tab_free(&t);
	tab_unlock(fd);
	return rc;
}

/* ------------------------------------------------------------ runs */

static const char *meta_host(const char *run, char *buf, size_t len)
{
	if (!mm_meta_get(run, "host", buf, len)[0]) {	/* no meta.csv: the run_id suffix, YYYYmmdd-HHMMSS-HOST */
		const char *b = strrchr(run, '/');

		b = b ? b + 1 : run;
		if (strlen(b) > 16 && b[8] == '-' && b[15] == '-')
			snprintf(buf, len, "%s", b + 16);
	}
	return buf;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* HIST has a row for run directory P whose status is not ok. */
static bool run_not_ok(const struct tab *h, const char *root, const char *p)
{
	char q[PATH_MAX];
	size_t i;

	for (i = 0; i < h->nrows; i++) {
		const char *d = h->rows[i].f[H_RUN_DIR];

		if (!*d || hist_measured(h->rows[i].f[H_STATUS]))
			continue;
		snprintf(q, sizeof(q), "%s/%s", d[0] == '/' ? "" : root, d);
		if (same_file(q, p))
			return true;
	}
	return false;
}

static int cmd_runs(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "history", required_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *host = NULL, *history = NULL, *exclude[64];
	char p[PATH_MAX], h[256], root[PATH_MAX];
	struct dirent **ents;
	struct tab hist = { .nrows = 0 };
	int c, n, i, k, nex = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'H')
			host = optarg;
		else if (c == 'x' && nex < 64)
			exclude[nex++] = optarg;
		else if (c == 'h')
			history = optarg;
		else
			return die_usage("runs: bad option (see mmhistory --help)");
	}
	if (optind != argc - 1)
		return die_usage("runs: need exactly one DIR");
	/* A run the history records as failed, skipped or refused is no
	 * baseline run; a run made by hand (no row) is. */
	if (history) {
		if (hist_load(&hist, history)) {
			fprintf(stderr, "%s: runs: %s\n", prog, hist.err);
			tab_free(&hist);
			return EXIT_USAGE;
		}
		hist_root(history, root, sizeof(root));
	}
	n = scandir(argv[optind], &ents, NULL, alphasort);
	if (n < 0) {
		if (history)
			tab_free(&hist);
		return die_usage("runs: %s: %s", argv[optind], strerror(errno));
	}
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s/results.csv", argv[optind], ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && file_nonempty(p)) {
			p[strlen(p) - strlen("/results.csv")] = '\0';
			for (k = 0; k < nex && !same_file(p, exclude[k]); k++)
				;
			if ((!host || !strcmp(meta_host(p, h, sizeof(h)), host)) && k == nex &&
			    !(history && run_not_ok(&hist, root, p)))
				printf("%s\n", p);
		}
		free(ents[i]);
	}
	free(ents);
	if (history)
		tab_free(&hist);
	return 0;
}

/* ------------------------------------------------------------ meta-add */

static int cmd_meta_add(int argc, char **argv)
{
	static const char *const cols[] = { "key", "value", NULL };
	char err[1024], *buf = NULL, *line;
	size_t len = 0;
	struct tab t;
	int i, rc = EXIT_USAGE;

	if (argc < 3)
		return die_usage("meta-add: need META_CSV and KEY=VALUE arguments");
	if (tab_load(&t, argv[1], cols, false)) {
		fprintf(stderr, "%s: meta-add: %s\n", prog, t.err);
		goto out;
	}
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *kv[2];

		if (!eq || eq == argv[i]) {
			fprintf(stderr, "%s: meta-add: '%s': not KEY=VALUE\n", prog, argv[i]);
			goto out;
		}
		*eq = '\0';
		flatten(eq + 1);
		kv[0] = argv[i];
		kv[1] = eq + 1;
		line = tab_line(kv, 2);
		buf = line ? realloc(buf, len + strlen(line) + 1) : NULL;
		if (!buf) {
			free(line);
			goto out;
		}
		memcpy(buf + len, line, strlen(line) + 1);
		len += strlen(line);
		free(line);
	}
	/* All facts in one write: a kill leaves all or none of them. */
	if (tab_append(argv[1], "key,value\n", buf, err, sizeof(err), NULL, 0))
		fprintf(stderr, "%s: meta-add: %s\n", prog, err);
	else
		rc = 0;
out:
	free(buf);
	tab_free(&t);
	return rc;
}

static int cmd_meta_get(int argc, char **argv)
{
	static const char *const cols[] = { "key", "value", NULL };
	const char *v = NULL;
	struct tab t;
	size_t i;

	if (argc != 3)
		return die_usage("meta-get: usage: meta-get META_CSV KEY");
	if (tab_load(&t, argv[1], cols, false)) {
		fprintf(stderr, "%s: meta-get: %s\n", prog, t.err);
		tab_free(&t);
		return EXIT_USAGE;
	}
	for (i = 0; i < t.nrows; i++)	/* the last row wins, as --meta overrides */
		if (!strcmp(t.rows[i].f[0], argv[2]))
			v = t.rows[i].f[1];
	if (v)
		printf("%s\n", v);
	tab_free(&t);
	return v ? 0 : EXIT_FAIL;
}

/* ------------------------------------------------------------ comparisons */

/* One line of an mmcompare --csv: the NEW side (1) with its base mean. */
struct cline {
	const char *workload, *kase, *metric, *unit, *mean_type, *verdict;
	double mean, base_mean, pct, p;
	bool pct_ok, p_ok, base_ok;
	/* a judged metric the BASE side measured and the NEW side did not:
	 * nothing can be claimed about it, so the night is not "not worse" */
	bool gone;
	bool exact;		/* no spread on either side: exact evidence */
	enum judge_verdict jv;
};

struct cmpfile {
	struct tab t;
	struct cline *l;
	size_t n;
};

/* The columns of compare.csv (compare_csv.h) a digest needs. */
static const enum compare_csv_col cmp_need[] = {
	CC_WORKLOAD, CC_CASE, CC_METRIC, CC_UNIT, CC_BETTER, CC_SIDE, CC_N, CC_MEAN_TYPE,
	CC_MEAN, CC_CHANGE_PCT, CC_P_VALUE, CC_VERDICT,
};

/* Row r's value in column c of compare.csv, found by its name in the header. */
static const char *cc_get(const struct tab *t, const struct tab_row *r, enum compare_csv_col c)
{
	return tab_get(t, r, compare_csv_name(c));
}

static bool num(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return false;
	*v = strtod(s, &end);
	return !*end;
}

static void cline_fill(struct cmpfile *c, const struct tab_row *r, const struct tab_row *base,
		       const struct judge_opts *jo)
{
	struct cline *l = &c->l[c->n++];
	const struct tab *t = &c->t;

	l->workload = cc_get(t, r, CC_WORKLOAD);
	l->kase = cc_get(t, r, CC_CASE);
	l->metric = cc_get(t, r, CC_METRIC);
	l->unit = cc_get(t, r, CC_UNIT);
	l->mean_type = cc_get(t, r, CC_MEAN_TYPE);
	l->verdict = cc_get(t, r, CC_VERDICT);
	num(cc_get(t, r, CC_MEAN), &l->mean);
	l->pct_ok = num(cc_get(t, r, CC_CHANGE_PCT), &l->pct);
	l->p_ok = num(cc_get(t, r, CC_P_VALUE), &l->p);
	l->base_ok = base && num(cc_get(t, base, CC_MEAN), &l->base_mean);
	l->jv = judge_apply(jo, l->workload, l->metric, l->verdict, l->pct, l->pct_ok);
	/* mmcompare marks a line present on one side only "missing" on both
	 * rows; NEW lacks it when its own row counts no value. */
	l->gone = !strcmp(l->verdict, "missing") && !strcmp(cc_get(t, r, CC_N), "0") &&
		  strcmp(cc_get(t, r, CC_BETTER), "info") &&
		  judge_metric(jo, l->workload, l->metric);
	l->exact = cc_get(t, r, CC_EXACT) && !strcmp(cc_get(t, r, CC_EXACT), "1");
}

/* Cases the host kept from being measured tonight: "WORKLOAD<TAB>CASE"
 * lines. Their metrics are not missing, they were not measured. */
struct notmeas {
	char **w, **c;
	int n;
};

static int notmeas_load(struct notmeas *nm, const char *path)
{
	char line[8192];
	FILE *f = fopen(path, "r");

	if (!f)
		return die_usage("--not-measured %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		char **w, **c;

		if (nl)
			*nl = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		w = realloc(nm->w, (nm->n + 1) * sizeof(*w));
		if (w)
			nm->w = w;
		c = realloc(nm->c, (nm->n + 1) * sizeof(*c));
		if (c)
			nm->c = c;
		if (!w || !c || !(nm->w[nm->n] = strdup(line)) ||
		    !(nm->c[nm->n] = strdup(tab + 1))) {
			fclose(f);
			return die_usage("out of memory");
		}
		nm->n++;
	}
	fclose(f);
	return 0;
}

static bool notmeas_has(const struct notmeas *nm, const char *w, const char *c)
{
	int i;

	for (i = 0; i < nm->n; i++)
		if (!strcmp(nm->w[i], w) && !strcmp(nm->c[i], c))
			return true;
	return false;
}

static void notmeas_free(struct notmeas *nm)
{
	while (nm->n-- > 0) {
		free(nm->w[nm->n]);
		free(nm->c[nm->n]);
	}
	free(nm->w);
	free(nm->c);
}

static bool same_line(const struct tab *t, const struct tab_row *a, const struct tab_row *b)
{
	static const enum compare_csv_col k[] = { CC_WORKLOAD, CC_CASE, CC_METRIC };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(cc_get(t, a, k[i]), cc_get(t, b, k[i])))
			return false;
	return true;
}

/* Load an mmcompare --csv and judge its NEW side (side 1) under jo. */
static int cmp_load(struct cmpfile *c, const char *path, const struct judge_opts *jo)
{
	const struct tab_row *base = NULL;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (tab_load(&c->t, path, NULL, false))
		return die_usage("%s", c->t.err);
	for (i = 0; i < sizeof(cmp_need) / sizeof(cmp_need[0]); i++)
		if (tab_col(&c->t, compare_csv_name(cmp_need[i])) < 0)
			return die_usage("%s: no column '%s': not an mmcompare --csv output", path,
					 compare_csv_name(cmp_need[i]));
	c->l = calloc(c->t.nrows + 1, sizeof(*c->l));
	if (!c->l)
		return die_usage("out of memory");
	for (i = 0; i < c->t.nrows; i++) {
		const struct tab_row *r = &c->t.rows[i];
		const char *side = cc_get(&c->t, r, CC_SIDE);

		if (!strcmp(side, "0"))
			base = r;
		else if (!strcmp(side, "1"))
			cline_fill(c, r, base && same_line(&c->t, base, r) ? base : NULL, jo);
	}
	return 0;
}

static void cmp_free(struct cmpfile *c)
{
	free(c->l);
	tab_free(&c->t);
}

static void print_cline(const struct cline *l, const char *tag)
{
	printf("  %-6s %s %s [%s]: ", tag, l->workload, l->metric, l->kase);
	if (l->pct_ok)
		printf("%+.2f%%", l->pct);
	else
		printf("change n/a");
	printf(" (%s ", l->mean_type);
	if (l->base_ok)
		printf("%.4g -> ", l->base_mean);
	printf("%.4g %s", l->mean, l->unit);
	if (l->p_ok)
		printf(", p=%.2g", l->p);
	printf(")\n");
}

static int judge_opt(int c, const char *arg, struct judge_opts *jo)
{
	if (c == 'j')
		return judge_add_patterns(jo, arg) ? die_usage("--judge: too many patterns") : 0;
	return parse_pct(arg, &jo->min_change);
}

static int cmd_digest(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "judge", required_argument, NULL, 'j' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "max-lines", required_argument, NULL, 'M' },
		{ "exact-only", no_argument, NULL, 'e' },
		{ "not-measured", required_argument, NULL, 'n' }, { NULL, 0, NULL, 0 },
	};
	struct judge_opts jo = { .npattern = 0 };
	size_t cnt[JV_SKIP + 1] = { 0 }, i, shown = 0, gone = 0, spread = 0;
	struct notmeas nm = { .n = 0 };
	struct cmpfile c;
	bool exact_only = false;
	long max = 20;
	int o, rc = EXIT_USAGE;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (o == 'e') {
			exact_only = true;
			continue;
		}
		if (o == 'n' ? notmeas_load(&nm, optarg) :
		    o == 'M' ? parse_long(optarg, "--max-lines", 0, &max) :
		    o == '?' ? die_usage("digest: bad option") : judge_opt(o, optarg, &jo))
			goto out_opts;
	}
	if (optind != argc - 1) {
		die_usage("digest: need exactly one CMP_CSV");
		goto out_opts;
	}
	if (cmp_load(&c, argv[optind], &jo))
		goto out;
	for (i = 0; i < c.n; i++) {
		struct cline *l = &c.l[i];

		if (l->gone && notmeas_has(&nm, l->workload, l->kase))
			l->gone = false;
		/* a judged line with a spread: its history judges it */
		if (exact_only && l->jv != JV_SKIP && !l->exact) {
			l->jv = JV_SKIP;
			spread++;
			continue;
		}
		cnt[l->jv]++;
		gone += l->gone;
	}
	if (exact_only)
		printf("%zu significantly worse, %zu significantly better, %zu same (exact evidence); "
		       "%zu with a spread (judged by their history); %zu not judged",
		       cnt[JV_WORSE], cnt[JV_BETTER], cnt[JV_SAME] + cnt[JV_TOO_FEW], spread,
		       cnt[JV_SKIP]);
	else
		printf("%zu significantly worse, %zu significantly better, %zu same, "
		       "%zu without claim (n<3), %zu not judged", cnt[JV_WORSE], cnt[JV_BETTER],
		       cnt[JV_SAME], cnt[JV_TOO_FEW], cnt[JV_SKIP]);
	if (gone)
		printf("; %zu judged missing from NEW", gone);
	putchar('\n');
	for (i = 0; i < c.n; i++)
		if (c.l[i].gone && shown++ < (size_t)max) {
			printf("  MISSING %s %s [%s]: ", c.l[i].workload, c.l[i].metric, c.l[i].kase);
			if (c.l[i].base_ok)
				printf("%.4g %s on BASE, ", c.l[i].base_mean, c.l[i].unit);
			printf("no value on NEW\n");
		}
	for (o = JV_WORSE; o <= JV_BETTER; o++)
		for (i = 0; i < c.n; i++)
			if (c.l[i].jv == (enum judge_verdict)o && shown++ < (size_t)max)
				print_cline(&c.l[i], o == JV_WORSE ? "WORSE" : "better");
	if (shown > (size_t)max)
		printf("  ... and %zu more (see the report)\n", shown - max);
	rc = cnt[JV_WORSE] || gone ? EXIT_WORSE : 0;
out:
	cmp_free(&c);
out_opts:
	notmeas_free(&nm);
	judge_free(&jo);
	return rc;
}

/* ------------------------------------------------------------ ledger */

struct ledger_ctx {
	const char *host, *baseline, *run, *date, *kernel, *last_good;
	bool exact_only;	/* only lines of exact evidence; others' rows superseded */
	struct tab t;
	struct tab_row *extra;	/* new rows */
	size_t nextra;
	char root[PATH_MAX];
};

static int set_field(struct tab_row *r, int col, const char *v)
{
	char *d = strdup(v ? v : "");

	if (!d)
		return -1;
	free(r->f[col]);
	r->f[col] = d;
	return 0;
}

static struct tab_row *led_find(struct ledger_ctx *x, const struct cline *l)
{
	size_t i;

	for (i = 0; i < x->t.nrows + x->nextra; i++) {
		struct tab_row *r = i < x->t.nrows ? &x->t.rows[i] : &x->extra[i - x->t.nrows];
		char **f = r->f;

		if (!strcmp(f[L_STATE], "open") && !strcmp(f[L_HOST], x->host) &&
		    !strcmp(f[L_BASELINE], x->baseline) && !strcmp(f[L_WORKLOAD], l->workload) &&
		    !strcmp(f[L_CASE], l->kase) && !strcmp(f[L_METRIC], l->metric))
			return r;
	}
	return NULL;
}

static struct tab_row *led_new(struct ledger_ctx *x, const struct cline *l)
{
	struct tab_row *e = realloc(x->extra, (x->nextra + 1) * sizeof(*e)), *r;
	const char *v[L_NCOLS] = {
		[L_SCHEMA] = "1", [L_HOST] = x->host, [L_BASELINE] = x->baseline,
		[L_WORKLOAD] = l->workload, [L_CASE] = l->kase, [L_METRIC] = l->metric,
		[L_STATE] = "open", [L_FIRST_DATE] = x->date, [L_FIRST_RUN] = x->run,
		[L_FIRST_KERNEL] = x->kernel, [L_LAST_GOOD] = x->last_good,
	};
	int i;

	if (!e)
		return NULL;
	x->extra = e;
	r = &e[x->nextra];
	r->n = L_NCOLS;
	r->line = 0;
	r->f = calloc(L_NCOLS, sizeof(*r->f));
	if (!r->f)
		return NULL;
	x->nextra++;
	for (i = 0; i < L_NCOLS; i++)
		if (set_field(r, i, v[i]))
			return NULL;
	return r;
}

/* A worse line opens or extends a streak; a measured, not worse one ends it. */
static int led_line(struct ledger_ctx *x, const struct cline *l)
{
	struct tab_row *r = led_find(x, l);
	char pct[32], p[32];

	/* a line with a spread is judged by its history now: an open row of it
	 * against the baseline (from before) no longer applies */
	if (x->exact_only && !l->exact) {
		if (r && l->jv != JV_SKIP)
			return set_field(r, L_STATE, "superseded") ||
			       set_field(r, L_RESOLVED_RUN, x->run);
		return 0;
	}

	if (l->jv == JV_WORSE) {
		if (!r && !(r = led_new(x, l)))
			return -1;
		snprintf(pct, sizeof(pct), "%.4g", l->pct);
		snprintf(p, sizeof(p), "%.3g", l->p);
		return set_field(r, L_LATEST_DATE, x->date) || set_field(r, L_LATEST_RUN, x->run) ||
		       set_field(r, L_CHANGE, l->pct_ok ? pct : "") ||
		       set_field(r, L_P, l->p_ok ? p : "");
	}
	if (r && (l->jv == JV_SAME || l->jv == JV_BETTER))
		return set_field(r, L_STATE, "resolved") || set_field(r, L_RESOLVED_RUN, x->run);
	return 0;
}

/* Open streaks of this host against another baseline no longer apply. */
static int led_supersede(struct ledger_ctx *x)
{
	size_t i;

	for (i = 0; i < x->t.nrows; i++) {
		struct tab_row *r = &x->t.rows[i];

		if (!strcmp(r->f[L_STATE], "open") && !strcmp(r->f[L_HOST], x->host) &&
		    strcmp(r->f[L_BASELINE], x->baseline) &&
		    strcmp(r->f[L_BASELINE], LEDGER_HISTORY) &&
		    (set_field(r, L_STATE, "superseded") || set_field(r, L_RESOLVED_RUN, x->run)))
			return -1;
	}
	return 0;
}

static void led_print_open(const struct tab *t, const struct tab_row *r)
{
	char **f = r->f;

	(void)t;
	if (!strcmp(f[L_BASELINE], LEDGER_HISTORY))
		printf("  %s %s [%s]: worse in its history since %s (first bad run %s, kernel %s",
		       f[L_WORKLOAD], f[L_METRIC], f[L_CASE], f[L_FIRST_DATE], f[L_FIRST_RUN],
		       f[L_FIRST_KERNEL]);
	else
		printf("  %s %s [%s]: worse than %s since %s (run %s, kernel %s",
		       f[L_WORKLOAD], f[L_METRIC], f[L_CASE], f[L_BASELINE], f[L_FIRST_DATE],
		       f[L_FIRST_RUN], f[L_FIRST_KERNEL]);
	if (*f[L_LAST_GOOD])
		printf("; last good run %s", f[L_LAST_GOOD]);
	printf("); latest %s%%%s%s\n", *f[L_CHANGE] ? f[L_CHANGE] : "n/a",
	       *f[L_P] ? ", p=" : "", f[L_P]);
}

static int led_write(struct ledger_ctx *x, const char *path)
{
	size_t n = x->t.nrows + x->nextra, i;
	struct tab_row **rows = calloc(n + 1, sizeof(*rows));
	char err[1024];
	int rc;

	if (!rows)
		return die_usage("out of memory");
	for (i = 0; i < n; i++)
		rows[i] = i < x->t.nrows ? &x->t.rows[i] : &x->extra[i - x->t.nrows];
	rc = tab_rewrite(path, led_cols, L_NCOLS, (const struct tab_row *const *)rows, n, err,
			 sizeof(err));
	if (rc)
		fprintf(stderr, "%s: ledger: %s\n", prog, err);
	free(rows);
	return rc;
}

static int ledger_opts(int argc, char **argv, struct ledger_ctx *x, struct judge_opts *jo)
{
	static const struct option lo[] = {
		{ "host", required_argument, NULL, 'H' }, { "baseline", required_argument, NULL, 'b' },
		{ "run", required_argument, NULL, 'r' }, { "date", required_argument, NULL, 'd' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "last-good", required_argument, NULL, 'g' },
		{ "judge", required_argument, NULL, 'j' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "exact-only", no_argument, NULL, 'e' }, { NULL, 0, NULL, 0 },
	};
	time_t d;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'H': x->host = optarg; break;
		case 'b': x->baseline = optarg; break;
		case 'r': x->run = optarg; break;
		case 'd': x->date = optarg; break;
		case 'k': x->kernel = optarg; break;
		case 'g': x->last_good = optarg; break;
		case 'j': case 'm': if (judge_opt(c, optarg, jo)) return -1; break;
		case 'e': x->exact_only = true; break;
		default: return die_usage("ledger-update: bad option (see mmhistory --help)");
		}
	}
	if (!x->host || !x->baseline || !x->run || !x->date || !x->kernel ||
	    optind != argc - 2)
		return die_usage("ledger-update: need LEDGER CMP_CSV --host --baseline --run "
				 "--date --kernel");
	if (!strcmp(x->baseline, LEDGER_HISTORY))
		return die_usage("ledger-update: --baseline '%s' is the name of the history's own "
				 "rows", x->baseline);
	if (!hist_date_parse(x->date, &d))
		return die_usage("ledger-update: --date '%s': not YYYY-MM-DDTHH:MM:SSZ", x->date);
	return 0;
}

static void ledger_ctx_free(struct ledger_ctx *x)
{
	size_t i;
	int j;

	for (i = 0; i < x->nextra; i++) {
		for (j = 0; x->extra[i].f && j < L_NCOLS; j++)
			free(x->extra[i].f[j]);
		free(x->extra[i].f);
	}
	free(x->extra);
	tab_free(&x->t);
}

static int ledger_apply(struct ledger_ctx *x, const struct cmpfile *c, const char *path)
{
	char run[PATH_MAX], good[PATH_MAX];
	size_t i;

	hist_root(path, x->root, sizeof(x->root));
	x->run = hist_rel(x->root, x->run, run, sizeof(run));
	x->last_good = x->last_good ? hist_rel(x->root, x->last_good, good, sizeof(good)) : "";
	if (led_supersede(x))
		return die_usage("out of memory");
	for (i = 0; i < c->n; i++)
		if (led_line(x, &c->l[i]))
			return die_usage("out of memory");
	if (led_write(x, path))
		return EXIT_USAGE;
	for (i = 0; i < x->t.nrows + x->nextra; i++) {
		struct tab_row *r = i < x->t.nrows ? &x->t.rows[i] : &x->extra[i - x->t.nrows];

		if (!strcmp(r->f[L_STATE], "open") && !strcmp(r->f[L_HOST], x->host))
			led_print_open(&x->t, r);
	}
	return 0;
}

static int cmd_ledger_update(int argc, char **argv)
{
	struct judge_opts jo = { .npattern = 0 };
	struct ledger_ctx x = { .host = NULL };
	struct cmpfile c = { .n = 0 };
	char err[1024];
	int fd, rc = EXIT_USAGE;

	if (ledger_opts(argc, argv, &x, &jo)) {
		judge_free(&jo);
		return EXIT_USAGE;
	}
	if (cmp_load(&c, argv[optind + 1], &jo))
		goto out_cmp;
	fd = tab_lock(argv[optind], LOCK_TIMEOUT_S, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s: ledger-update: %s\n", prog, err);
		goto out_cmp;
	}
	if (led_load(&x.t, argv[optind]))
		fprintf(stderr, "%s: %s\n", prog, x.t.err);
	else
		rc = ledger_apply(&x, &c, argv[optind]);
	tab_unlock(fd);
	ledger_ctx_free(&x);
out_cmp:
	cmp_free(&c);
	judge_free(&jo);
	return rc;
}

/*
 * The history's regressions from mmchange detect --csv: "new" opens a row,
 * "update" moves the open row (its bracket, its latest run), "resolves"
 * closes one. Prints this host's open rows of both kinds.
 */
static struct tab_row *hrow_find(struct ledger_ctx *x, const char *w, const char *c,
				 const char *m, const char *first)
{
	size_t i;

	for (i = 0; i < x->t.nrows + x->nextra; i++) {
		struct tab_row *r = i < x->t.nrows ? &x->t.rows[i] : &x->extra[i - x->t.nrows];
		char **f = r->f;

		if (!strcmp(f[L_STATE], "open") && !strcmp(f[L_HOST], x->host) &&
		    !strcmp(f[L_BASELINE], LEDGER_HISTORY) && !strcmp(f[L_WORKLOAD], w) &&
		    !strcmp(f[L_CASE], c) && !strcmp(f[L_METRIC], m) && !strcmp(f[L_FIRST_RUN], first))
			return r;
	}
	return NULL;
}

static int hrow_apply(struct ledger_ctx *x, const struct tab *ch, const struct tab_row *cr)
{
	const char *act = tab_get(ch, cr, "ledger"), *res = tab_get(ch, cr, "resolves");
	const char *w = tab_get(ch, cr, "workload"), *c = tab_get(ch, cr, "case");
	const char *m = tab_get(ch, cr, "metric");
	struct tab_row *r = NULL;
	time_t t;

	if (res && *res && (r = hrow_find(x, w, c, m, res)) &&
	    (set_field(r, L_STATE, "resolved") || set_field(r, L_RESOLVED_RUN, x->run)))
		return -1;
	if (!act || !*act)
		return 0;
	if (!hist_date_parse(tab_get(ch, cr, "first_date"), &t))
		return die_usage("ledger-changes: first_date '%s': not a date",
				 tab_get(ch, cr, "first_date")), -1;
	if (!strcmp(act, "new")) {
		struct cline l = { .workload = w, .kase = c, .metric = m };
		const char *b = x->baseline;

		x->baseline = LEDGER_HISTORY;
		r = led_new(x, &l);
		x->baseline = b;
	} else if (!strcmp(act, "update")) {
		r = hrow_find(x, w, c, m, tab_get(ch, cr, "ledger_run"));
	} else {
		return die_usage("ledger-changes: ledger '%s': want new or update", act), -1;
	}
	if (!r)
		return 0;	/* an update of a row no longer open */
	return set_field(r, L_FIRST_DATE, tab_get(ch, cr, "first_date")) ||
	       set_field(r, L_FIRST_RUN, tab_get(ch, cr, "first_run")) ||
	       set_field(r, L_FIRST_KERNEL, tab_get(ch, cr, "first_kernel")) ||
	       set_field(r, L_LAST_GOOD, tab_get(ch, cr, "last_good_run")) ||
	       set_field(r, L_LATEST_DATE, x->date) || set_field(r, L_LATEST_RUN, x->run) ||
	       set_field(r, L_CHANGE, tab_get(ch, cr, "change_pct")) ||
	       set_field(r, L_P, tab_get(ch, cr, "p_value")) ? -1 : 0;
}

static int cmd_ledger_changes(int argc, char **argv)
{
	static const char *const need[] = {
		"workload", "case", "metric", "ledger", "ledger_run", "resolves", "first_date",
		"first_run", "first_kernel", "last_good_run", "change_pct", "p_value", NULL,
	};
	static const struct option lo[] = {
		{ "host", required_argument, NULL, 'H' }, { "run", required_argument, NULL, 'r' },
		{ "date", required_argument, NULL, 'd' }, { NULL, 0, NULL, 0 },
	};
	struct ledger_ctx x = { .host = NULL, .baseline = LEDGER_HISTORY, .kernel = "" };
	char err[1024], run[PATH_MAX];
	struct tab ch;
	size_t i;
	int c, fd, rc = EXIT_USAGE, k;
	time_t d;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'H': x.host = optarg; break;
		case 'r': x.run = optarg; break;
		case 'd': x.date = optarg; break;
		default: return die_usage("ledger-changes: bad option (see mmhistory --help)");
		}
	}
	if (!x.host || !x.run || !x.date || optind != argc - 2)
		return die_usage("ledger-changes: need LEDGER CHANGES_CSV --host --run --date");
	if (!hist_date_parse(x.date, &d))
		return die_usage("ledger-changes: --date '%s': not YYYY-MM-DDTHH:MM:SSZ", x.date);
	if (tab_load(&ch, argv[optind + 1], NULL, false)) {
		die_usage("%s", ch.err);
		tab_free(&ch);
		return EXIT_USAGE;
	}
	for (k = 0; need[k]; k++)
		if (tab_col(&ch, need[k]) < 0) {
			die_usage("%s: no column '%s': not an mmchange detect --csv output",
				  argv[optind + 1], need[k]);
			tab_free(&ch);
			return EXIT_USAGE;
		}
	fd = tab_lock(argv[optind], LOCK_TIMEOUT_S, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s: ledger-changes: %s\n", prog, err);
		tab_free(&ch);
		return EXIT_USAGE;
	}
	if (led_load(&x.t, argv[optind])) {
		fprintf(stderr, "%s: %s\n", prog, x.t.err);
		goto out;
	}
	hist_root(argv[optind], x.root, sizeof(x.root));
	x.run = hist_rel(x.root, x.run, run, sizeof(run));
	for (i = 0; i < ch.nrows; i++)
		if (hrow_apply(&x, &ch, &ch.rows[i]))
			goto out;
	if (led_write(&x, argv[optind]))
		goto out;
	for (i = 0; i < x.t.nrows + x.nextra; i++) {
		struct tab_row *r = i < x.t.nrows ? &x.t.rows[i] : &x.extra[i - x.t.nrows];

		if (!strcmp(r->f[L_STATE], "open") && !strcmp(r->f[L_HOST], x.host))
			led_print_open(&x.t, r);
	}
	rc = 0;
out:
	tab_unlock(fd);
	ledger_ctx_free(&x);
	tab_free(&ch);
	return rc;
}

static int cmd_ledger_list(int argc, char **argv, bool runs)
{
	const char *host = NULL;
	struct tab t;
	size_t i;

	if (argc == 4 && !strcmp(argv[2], "--host"))
		host = argv[3];
	else if (argc != 2)
		return die_usage("%s: usage: %s LEDGER%s", argv[0], argv[0],
				 runs ? "" : " [--host H]");
	if (led_load(&t, argv[1])) {
		fprintf(stderr, "%s: %s\n", prog, t.err);
		tab_free(&t);
		return EXIT_USAGE;
	}
	for (i = 0; i < t.nrows; i++) {
		char **f = t.rows[i].f;

		if (strcmp(f[L_STATE], "open") || (host && strcmp(f[L_HOST], host)))
			continue;
		if (!runs)
			led_print_open(&t, &t.rows[i]);
		else
			printf("%s\n%s%s%s\n", f[L_FIRST_RUN], f[L_LATEST_RUN],
			       *f[L_LAST_GOOD] ? "\n" : "", f[L_LAST_GOOD]);
	}
	tab_free(&t);
	return 0;
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
