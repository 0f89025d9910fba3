// SPDX-License-Identifier: GPL-2.0
/*
 * mmhistory's regressions ledger (regressions.csv, history.h): ledger-update
 * from a comparison with the baseline, ledger-changes from the history's
 * change points (mmchange), ledger-open and ledger-runs.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmhistory.h"

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

/* S in single quotes for a shell: ' becomes '\''. */
static void put_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	putchar('\'');
}

/* KEY of the meta.csv of RUN (as the ledger records it: under ROOT). */
static const char *run_meta(const char *root, const char *run, const char *key, char *buf,
			    size_t len)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s%s%s", *run == '/' ? "" : root, *run == '/' ? "" : "/", run);
	return mm_meta_get(dir, key, buf, len);
}

/* The commit of a kbuild_tree_id "git:<commit>", or NULL. */
static const char *git_commit(const char *id)
{
	size_t n;

	if (strncmp(id, "git:", 4))
		return NULL;
	n = strspn(id + 4, "0123456789abcdef");
	return n >= 7 && n <= 64 && !id[4 + n] ? id + 4 : NULL;
}

/*
 * When the last good and the first bad run of a row measured kernels that
 * tools/kbuild built from one git tree (meta.csv kbuild_tree and
 * kbuild_tree_id git:<commit>), the command that bisects between them:
 * the row's workload and case as the suite line, its metric deciding.
 */
static void led_print_bisect(const char *root, char **f)
{
	char gid[128], bid[128], gtree[PATH_MAX], btree[PATH_MAX], line[4096], *c, *kv, *save;
	const char *g, *b;
	size_t n;

	if (!*f[L_LAST_GOOD])
		return;
	g = git_commit(run_meta(root, f[L_LAST_GOOD], "kbuild_tree_id", gid, sizeof(gid)));
	b = git_commit(run_meta(root, f[L_FIRST_RUN], "kbuild_tree_id", bid, sizeof(bid)));
	run_meta(root, f[L_LAST_GOOD], "kbuild_tree", gtree, sizeof(gtree));
	run_meta(root, f[L_FIRST_RUN], "kbuild_tree", btree, sizeof(btree));
	if (!g || !b || !strcmp(g, b) || !*gtree || strcmp(gtree, btree))
		return;
	c = strdup(f[L_CASE]);
	if (!c)
		return;
	n = (size_t)snprintf(line, sizeof(line), "%s", f[L_WORKLOAD]);
	for (kv = strtok_r(c, ";", &save); kv && n < sizeof(line); kv = strtok_r(NULL, ";", &save))
		if (strchr(kv, '=') && strchr(kv, '=')[1])	/* "dir=": the default */
			n += (size_t)snprintf(line + n, sizeof(line) - n, " -p %s", kv);
	free(c);
	printf("    bisect: ./run.sh bisect --tree ");
	put_quoted(gtree);
	printf(" --good %s --bad %s --suite-line ", g, b);
	put_quoted(line);
	printf(" --metric ");
	put_quoted(f[L_METRIC]);
	putchar('\n');
}

static void led_print_open(const char *root, const struct tab_row *r)
{
	char **f = r->f;

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
	led_print_bisect(root, f);
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
		fprintf(stderr, "%s: ledger: %s\n", hist_prog, err);
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
		return MM_USAGE;
	for (i = 0; i < x->t.nrows + x->nextra; i++) {
		struct tab_row *r = i < x->t.nrows ? &x->t.rows[i] : &x->extra[i - x->t.nrows];

		if (!strcmp(r->f[L_STATE], "open") && !strcmp(r->f[L_HOST], x->host))
			led_print_open(x->root, r);
	}
	return 0;
}

int cmd_ledger_update(int argc, char **argv)
{
	struct judge_opts jo = { .npattern = 0 };
	struct ledger_ctx x = { .host = NULL };
	struct cmpfile c = { .n = 0 };
	char err[1024];
	int fd, rc = MM_USAGE;

	if (ledger_opts(argc, argv, &x, &jo)) {
		judge_free(&jo);
		return MM_USAGE;
	}
	if (cmpfile_load(&c, argv[optind + 1], &jo))
		goto out_cmp;
	fd = tab_lock(argv[optind], LOCK_TIMEOUT_S, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s: ledger-update: %s\n", hist_prog, err);
		goto out_cmp;
	}
	if (led_load(&x.t, argv[optind]))
		fprintf(stderr, "%s: %s\n", hist_prog, x.t.err);
	else
		rc = ledger_apply(&x, &c, argv[optind]);
	tab_unlock(fd);
	ledger_ctx_free(&x);
out_cmp:
	cmpfile_free(&c);
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

int cmd_ledger_changes(int argc, char **argv)
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
	int c, fd, rc = MM_USAGE, k;
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
		return MM_USAGE;
	}
	for (k = 0; need[k]; k++)
		if (tab_col(&ch, need[k]) < 0) {
			die_usage("%s: no column '%s': not an mmchange detect --csv output",
				  argv[optind + 1], need[k]);
			tab_free(&ch);
			return MM_USAGE;
		}
	fd = tab_lock(argv[optind], LOCK_TIMEOUT_S, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s: ledger-changes: %s\n", hist_prog, err);
		tab_free(&ch);
		return MM_USAGE;
	}
	if (led_load(&x.t, argv[optind])) {
		fprintf(stderr, "%s: %s\n", hist_prog, x.t.err);
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
			led_print_open(x.root, r);
	}
	rc = 0;
out:
	tab_unlock(fd);
	ledger_ctx_free(&x);
	tab_free(&ch);
	return rc;
}

int cmd_ledger_list(int argc, char **argv, bool runs)
{
	const char *host = NULL;
	char root[PATH_MAX];
	struct tab t;
	size_t i;

	if (argc == 4 && !strcmp(argv[2], "--host"))
		host = argv[3];
	else if (argc != 2)
		return die_usage("%s: usage: %s LEDGER%s", argv[0], argv[0],
				 runs ? "" : " [--host H]");
	if (led_load(&t, argv[1])) {
		fprintf(stderr, "%s: %s\n", hist_prog, t.err);
		tab_free(&t);
		return MM_USAGE;
	}
	hist_root(argv[1], root, sizeof(root));
	for (i = 0; i < t.nrows; i++) {
		char **f = t.rows[i].f;

		if (strcmp(f[L_STATE], "open") || (host && strcmp(f[L_HOST], host)))
			continue;
		if (!runs)
			led_print_open(root, &t.rows[i]);
		else
			printf("%s\n%s%s%s\n", f[L_FIRST_RUN], f[L_LATEST_RUN],
			       *f[L_LAST_GOOD] ? "\n" : "", f[L_LAST_GOOD]);
	}
	tab_free(&t);
	return 0;
}
