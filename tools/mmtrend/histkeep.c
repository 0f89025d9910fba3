// SPDX-License-Identifier: GPL-2.0
/*
 * mmhistory's commands over the run directories: expired and drop (the
 * retention of tools/nightly), runs (a host's run directories), meta-add and
 * meta-get (a run's meta.csv).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmhistory.h"

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
		fprintf(stderr, "%s: %s\n", hist_prog, t.err);
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

int cmd_expired(int argc, char **argv)
{
	static char store[MAX_LIST][PATH_MAX];
	char root[PATH_MAX];
	struct keep k = { 0 };
	struct tab t;
	time_t d;
	size_t i;
	int nstore = 0;

	if (expired_opts(argc, argv, &k))
		return MM_USAGE;
	hist_root(argv[optind], root, sizeof(root));
	if (k.ledger && keep_ledger(&k, root, store, &nstore))
		return MM_USAGE;
	if (hist_load(&t, argv[optind])) {
		fprintf(stderr, "%s: %s\n", hist_prog, t.err);
		tab_free(&t);
		return MM_USAGE;
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

int cmd_drop(int argc, char **argv)
{
	const char *host = NULL, *hist;
	char root[PATH_MAX], err[1024];
	struct tab_row **keep;
	time_t before = 0;
	struct tab t;
	size_t i, n = 0;
	int fd, rc = MM_USAGE;

	if (drop_opts(argc, argv, &host, &before))
		return MM_USAGE;
	hist = argv[optind];
	hist_root(hist, root, sizeof(root));
	fd = tab_lock(hist, LOCK_TIMEOUT_S, err, sizeof(err));
	if (fd < 0)
		return die_usage("drop: %s", err);
	if (hist_load(&t, hist)) {
		fprintf(stderr, "%s: %s\n", hist_prog, t.err);
		goto out;
	}
	keep = calloc(t.nrows + 1, sizeof(*keep));
	for (i = 0; keep && i < t.nrows; i++)
		if (!drop_row(t.rows[i].f, host, before, root, argv + optind + 1,
			      argc - optind - 1))
			keep[n++] = &t.rows[i];
	if (keep && tab_rewrite(hist, hist_cols, H_NCOLS, (const struct tab_row *const *)keep,
				n, err, sizeof(err)))
		fprintf(stderr, "%s: drop: %s\n", hist_prog, err);
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

int cmd_runs(int argc, char **argv)
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
			fprintf(stderr, "%s: runs: %s\n", hist_prog, hist.err);
			tab_free(&hist);
			return MM_USAGE;
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

int cmd_meta_add(int argc, char **argv)
{
	static const char *const cols[] = { "key", "value", NULL };
	char err[1024], *buf = NULL, *line;
	size_t len = 0;
	struct tab t;
	int i, rc = MM_USAGE;

	if (argc < 3)
		return die_usage("meta-add: need META_CSV and KEY=VALUE arguments");
	if (tab_load(&t, argv[1], cols, false)) {
		fprintf(stderr, "%s: meta-add: %s\n", hist_prog, t.err);
		goto out;
	}
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *kv[2];

		if (!eq || eq == argv[i]) {
			fprintf(stderr, "%s: meta-add: '%s': not KEY=VALUE\n", hist_prog, argv[i]);
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
		fprintf(stderr, "%s: meta-add: %s\n", hist_prog, err);
	else
		rc = 0;
out:
	free(buf);
	tab_free(&t);
	return rc;
}

int cmd_meta_get(int argc, char **argv)
{
	static const char *const cols[] = { "key", "value", NULL };
	const char *v = NULL;
	struct tab t;
	size_t i;

	if (argc != 3)
		return die_usage("meta-get: usage: meta-get META_CSV KEY");
	if (tab_load(&t, argv[1], cols, false)) {
		fprintf(stderr, "%s: meta-get: %s\n", hist_prog, t.err);
		tab_free(&t);
		return MM_USAGE;
	}
	for (i = 0; i < t.nrows; i++)	/* the last row wins, as --meta overrides */
		if (!strcmp(t.rows[i].f[0], argv[2]))
			v = t.rows[i].f[1];
	if (v)
		printf("%s\n", v);
	tab_free(&t);
	return v ? 0 : MM_FAIL;
}
