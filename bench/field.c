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
	      "       mmbench field --schema\n", f);
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
