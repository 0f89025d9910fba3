// SPDX-License-Identifier: GPL-2.0
/*
 * `mmbench field`: result files for shell scripts, through the core's CSV
 * library, so no script splits CSV with cut or awk (a quoted case such as
 * "mthp=64kB,512kB" holds a comma).
 *
 *   mmbench field [--where COL=VALUE] [--last] [--lines] FILE COLUMN...
 *	the named columns of every row (or of the rows whose COL is VALUE;
 *	--last: only the last of them), tab-separated, one row a line;
 *	--lines: one value a line (for mapfile: bash's read merges the tabs
 *	around an empty field). A tab, CR or LF inside a value prints as a
 *	space. Exit 1 when no row matched.
 *   mmbench field --header FILE
 *	the schema's header of a result file (results.csv, cases.csv, ...).
 *   mmbench field --csv VALUE...
 *	the values as one CSV row, quoted as mmbench writes rows.
 *   mmbench field --schema
 *	the schema version this mmbench writes.
 *   mmbench field --channel
 *	the VM lab's results channel on stdin ("@@MM FILE ROW" lines, a
 *	quoted line break continued on the next line, "@@MMVM ..." lines) as
 *	events on stdout, one a line as soon as its record is complete, five
 *	fields separated by US (\037): "plan" rows counted, "run N" at
 *	"@@MMVM start", "start N WORKLOAD CASE" per started.csv row, "end
 *	WORKLOAD CASE STATUS REASON" per cases.csv row, "exit RC" at "@@MMVM
 *	exit" (tools/vm/progress).
 *
 * Exit 2 for bad input, naming the file and line: a row whose field count
 * is not the header's, a column the header does not have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static void field_usage(FILE *f)
{
	fputs("usage: mmbench field [--where COL=VALUE] [--last] [--lines] FILE COLUMN...\n"
	      "       mmbench field --header FILE\n"
	      "       mmbench field --csv VALUE...\n"
	      "       mmbench field --schema\n"
	      "       mmbench field --channel\n", f);
}

static void put_value(const char *v)
{
	for (; *v; v++)
		putchar(*v == '\t' || *v == '\n' || *v == '\r' ? ' ' : *v);
}

static int field_header(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *h = mm_schema_header(slash ? slash + 1 : name);

	if (!h) {
		fprintf(stderr, "mmbench field: '%s' is not a file of the result schema\n", name);
		return MM_USAGE;
	}
	printf("%s\n", h);
	return MM_PASS;
}

static int field_csv(int n, char **v)
{
	char *line = tab_line((const char *const *)v, n);

	if (!line) {
		fprintf(stderr, "mmbench field: out of memory\n");
		return MM_FAIL;
	}
	fputs(line, stdout);
	free(line);
	return MM_PASS;
}

/* Row r's values: tab-separated on one line, or one a line. */
static void put_row(const struct tab *t, size_t r, const int *cols, int ncols, bool lines)
{
	for (int i = 0; i < ncols; i++) {
		if (i && !lines)
			putchar('\t');
		put_value(t->rows[r].f[cols[i]]);
		if (lines)
			putchar('\n');
	}
	if (!lines)
		putchar('\n');
}

static int field_get(const char *path, const char *where, bool last, bool lines,
		     int ncols, char **names)
{
	int *cols = calloc((size_t)ncols + 1, sizeof(*cols)), wcol = -1, ret = MM_USAGE;
	const char *wval = NULL;
	size_t first = 0, matched = 0;
	char wname[256];
	struct tab t;

	if (!cols) {
		fprintf(stderr, "mmbench field: out of memory\n");
		return MM_FAIL;
	}
	if (tab_load(&t, path, NULL, false)) {
		fprintf(stderr, "mmbench field: %s\n", t.err);
		goto out;
	}
	if (t.torn)
		fprintf(stderr, "mmbench field: %s:%ld: incomplete last line (a torn write) "
			"left out\n", path, t.torn_line);
	if (!t.hdr) {
		fprintf(stderr, "mmbench field: %s: empty: not even a header\n", path);
		goto out;
	}
	for (int i = 0; i < ncols; i++) {
		cols[i] = tab_col(&t, names[i]);
		if (cols[i] < 0) {
			fprintf(stderr, "mmbench field: %s:1: no column '%s' in the header\n",
				path, names[i]);
			goto out;
		}
	}
	if (where) {
		const char *eq = strchr(where, '=');

		if (!eq || eq == where || (size_t)(eq - where) >= sizeof(wname)) {
			fprintf(stderr, "mmbench field: --where '%s': expected COLUMN=VALUE\n",
				where);
			goto out;
		}
		snprintf(wname, sizeof(wname), "%.*s", (int)(eq - where), where);
		wval = eq + 1;
		wcol = tab_col(&t, wname);
		if (wcol < 0) {
			fprintf(stderr, "mmbench field: %s:1: no column '%s' in the header\n",
				path, wname);
			goto out;
		}
	}
	for (size_t r = 0; r < t.nrows; r++) {
		if (wcol >= 0 && strcmp(t.rows[r].f[wcol], wval))
			continue;
		if (!matched++ || last)
			first = r;
		if (!last)
			put_row(&t, r, cols, ncols, lines);
	}
	if (last && matched)
		put_row(&t, first, cols, ncols, lines);
	ret = matched ? MM_PASS : MM_FAIL;
out:
	tab_free(&t);
	free(cols);
	return ret;
}

/* ---- --channel */

struct chan {
	long planned;
	char cur[16];		/* the file whose record is still open, or "" */
	char *buf;
	size_t len, cap;
	struct mm_csv_in in;
};

/* One event: five fields, US-separated; US, tab and line breaks as spaces. */
static void chan_emit(const char *const v[5])
{
	for (int i = 0; i < 5; i++) {
		if (i)
			putchar('\037');
		for (const char *c = v[i] ? v[i] : ""; *c; c++)
			putchar(*c == '\037' || *c == '\t' || *c == '\n' ? ' ' : *c);
	}
	putchar('\n');
	fflush(stdout);
}

static const char *chan_f(const struct chan *c, int i)
{
	return i < c->in.nf && i < MM_CSV_MAXF ? c->in.f[i] : "";
}

/* A complete record of a followed file: true; false while a quote is open. */
static bool chan_take(struct chan *c, const char *name)
{
	char n[32];

	if (mm_csv_record(&c->in, c->buf, c->len) < 0)
		return false;
	if (!strcmp(name, "plan.csv")) {
		if (strcmp(chan_f(c, 0), "workload") || strcmp(chan_f(c, 1), "case"))
			c->planned++;
	} else if (!strcmp(name, "started.csv")) {
		snprintf(n, sizeof(n), "%ld", c->planned);
		if (strcmp(chan_f(c, 0), "schema") && c->in.nf >= 6)
			chan_emit((const char *[5]){ "start", n, chan_f(c, 4), chan_f(c, 5) });
	} else if (strcmp(chan_f(c, 0), "schema") && c->in.nf >= 8) {
		chan_emit((const char *[5]){ "end", chan_f(c, 4), chan_f(c, 5), chan_f(c, 6),
					     chan_f(c, 7) });
	}
	return true;
}

/* Append s[0..n) (after a line break when nl) to the open record. */
static int chan_add(struct chan *c, const char *s, size_t n, bool nl)
{
	if (c->len + n + 2 > c->cap) {
		size_t cap = (c->len + n + 2) * 2;
		char *b = realloc(c->buf, cap);

		if (!b)
			return -1;
		c->buf = b;
		c->cap = cap;
	}
	if (nl)
		c->buf[c->len++] = '\n';
	memcpy(c->buf + c->len, s, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return 0;
}

static void chan_vm(struct chan *c, char *line)
{
	char *save, *w2, *w3, n[32];

	strtok_r(line, " \t", &save);
	w2 = strtok_r(NULL, " \t", &save);
	w3 = strtok_r(NULL, " \t", &save);
	snprintf(n, sizeof(n), "%ld", c->planned);
	if (w2 && !strcmp(w2, "start"))
		chan_emit((const char *[5]){ "run", n });
	else if (w2 && !strcmp(w2, "exit"))
		chan_emit((const char *[5]){ "exit", w3 });
}

static int chan_line(struct chan *c, char *line)
{
	char *name, *sp;

	if (!strncmp(line, "@@MMVM ", 7)) {
		c->cur[0] = '\0';
		chan_vm(c, line);
	} else if (!strncmp(line, "@@MM ", 5)) {
		c->cur[0] = '\0';
		name = line + 5;
		sp = strchr(name, ' ');
		if (sp)
			*sp = '\0';
		if (strcmp(name, "plan.csv") && strcmp(name, "started.csv") &&
		    strcmp(name, "cases.csv"))
			return 0;
		c->len = 0;
		if (chan_add(c, sp ? sp + 1 : "", sp ? strlen(sp + 1) : 0, false))
			return -1;
		if (!chan_take(c, name))
			snprintf(c->cur, sizeof(c->cur), "%s", name);
	} else if (c->cur[0]) {
		/* a quoted line break: the record goes on */
		if (chan_add(c, line, strlen(line), true))
			return -1;
		if (chan_take(c, c->cur))
			c->cur[0] = '\0';
	}
	return 0;
}

static int field_channel(void)
{
	struct chan c = { .in = { .max_field = 65536 } };
	char *line = NULL, *r, *w;
	size_t cap = 0;
	int ret = MM_PASS;

	while (getline(&line, &cap, stdin) > 0) {
		/* CRs dropped, the line's end too */
		for (r = w = line; *r; r++)
			if (*r != '\r' && *r != '\n')
				*w++ = *r;
		*w = '\0';
		if (chan_line(&c, line)) {
			fprintf(stderr, "mmbench field: out of memory\n");
			ret = MM_FAIL;
			break;
		}
	}
	free(line);
	free(c.buf);
	mm_csv_free(&c.in);
	return ret;
}

int mm_field(int argc, char **argv)
{
	const char *where = NULL;
	bool last = false, lines = false;
	int i = 1;

	if (argc >= 2 && !strcmp(argv[1], "--header"))
		return argc == 3 ? field_header(argv[2]) : (field_usage(stderr), MM_USAGE);
	if (argc == 2 && !strcmp(argv[1], "--schema")) {
		printf("%s\n", MM_SCHEMA_STR);
		return MM_PASS;
	}
	if (argc >= 2 && !strcmp(argv[1], "--csv"))
		return field_csv(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "--channel"))
		return field_channel();
	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--where") && i + 1 < argc) {
			where = argv[++i];
		} else if (!strcmp(argv[i], "--last")) {
			last = true;
		} else if (!strcmp(argv[i], "--lines")) {
			lines = true;
		} else {
			field_usage(stderr);
			return MM_USAGE;
		}
	}
	if (argc - i < 2) {
		field_usage(stderr);
		return MM_USAGE;
	}
	return field_get(argv[i], where, last, lines, argc - i - 1, argv + i + 1);
}
