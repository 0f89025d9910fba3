// SPDX-License-Identifier: GPL-2.0
/*
 * history.csv and regressions.csv: schema and validation. See history.h.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "history.h"

const char *const hist_cols[H_NCOLS + 1] = {
	"schema", "date", "host", "label", "kernel", "run_dir", "status", "duration_s",
	"worse_vs_baseline", "worse_vs_previous", "reason", NULL,
};

const char *const led_cols[L_NCOLS + 1] = {
	"schema", "host", "baseline", "workload", "case", "metric", "state", "first_date",
	"first_run", "first_kernel", "last_good_run", "latest_date", "latest_run",
	"change_pct", "p_value", "resolved_run", NULL,
};

bool hist_date_parse(const char *s, time_t *out)
{
	struct tm tm = { 0 };
	const char *end;

	if (strlen(s) != 20)
		return false;
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return false;
	*out = timegm(&tm);
	return *out != (time_t)-1;
}

void hist_date_fmt(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static bool is_uint(const char *s)
{
	if (!*s || strlen(s) > 12)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_host(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

static bool dotdot(const char *p)
{
	const char *q = strstr(p, "..");

	for (; q; q = strstr(q + 1, ".."))
		if ((q == p || q[-1] == '/') && (q[2] == '/' || !q[2]))
			return true;
	return false;
}

static int bad(char *err, size_t len, const char *col, const char *v, const char *why)
{
	snprintf(err, len, "%s '%.80s': %s", col, v, why);
	return -1;
}

static int check_run_dir(const char *const *f, char *err, size_t len)
{
	const char *d = f[H_RUN_DIR], *st = f[H_STATUS];

	if (!*d && strcmp(st, "refused") && strcmp(st, "failed"))
		return bad(err, len, "run_dir", d, "empty, but the status is not refused or failed");
	if (has_ctl(d) || dotdot(d))
		return bad(err, len, "run_dir", d, "control characters or a '..' component");
	return 0;
}

int hist_check(const char *const *f, char *err, size_t len)
{
	static const char *const statuses[] = { "ok", "not_measured", "failed", "skipped", "refused",
						NULL };
	time_t t;
	int i;

	if (strcmp(f[H_SCHEMA], "1"))
		return bad(err, len, "schema", f[H_SCHEMA], "only schema 1 is known");
	if (!hist_date_parse(f[H_DATE], &t))
		return bad(err, len, "date", f[H_DATE], "not YYYY-MM-DDTHH:MM:SSZ (UTC)");
	if (!is_host(f[H_HOST]))
		return bad(err, len, "host", f[H_HOST], "not a host name");
	if (!*f[H_LABEL] || strpbrk(f[H_LABEL], "/ ,\"") || has_ctl(f[H_LABEL]))
		return bad(err, len, "label", f[H_LABEL], "empty, or holds '/', ' ', ',' or quotes");
	if (!*f[H_KERNEL] || has_ctl(f[H_KERNEL]))
		return bad(err, len, "kernel", f[H_KERNEL], "empty or control characters");
	for (i = 0; statuses[i]; i++)
		if (!strcmp(f[H_STATUS], statuses[i]))
			break;
	if (!statuses[i])
		return bad(err, len, "status", f[H_STATUS],
			   "not ok, not_measured, failed, skipped or refused");
	if (check_run_dir(f, err, len))
		return -1;
	if (!is_uint(f[H_DURATION]))
		return bad(err, len, "duration_s", f[H_DURATION], "not a whole number of seconds");
	if (*f[H_WORSE_BASE] && !is_uint(f[H_WORSE_BASE]))
		return bad(err, len, "worse_vs_baseline", f[H_WORSE_BASE], "not a count");
	if (*f[H_WORSE_PREV] && !is_uint(f[H_WORSE_PREV]))
		return bad(err, len, "worse_vs_previous", f[H_WORSE_PREV], "not a count");
	if (has_ctl(f[H_REASON]))
		return bad(err, len, "reason", f[H_REASON], "control characters");
	return 0;
}

bool hist_measured(const char *status)
{
	return !strcmp(status, "ok") || !strcmp(status, "not_measured");
}

int hist_load(struct tab *t, const char *path)
{
	char why[512];
	size_t i;

	if (tab_load(t, path, hist_cols, true))
		return -1;
	for (i = 0; i < t->nrows; i++) {
		if (hist_check((const char *const *)t->rows[i].f, why, sizeof(why))) {
			snprintf(t->err, sizeof(t->err), "%s:%ld: %s", path, t->rows[i].line, why);
			return -1;
		}
	}
	return 0;
}

int led_load(struct tab *t, const char *path)
{
	static const char *const states[] = { "open", "resolved", "superseded", NULL };
	time_t d;
	size_t i;
	int k;

	if (tab_load(t, path, led_cols, true))
		return -1;
	for (i = 0; i < t->nrows; i++) {
		char **f = t->rows[i].f;
		const char *why = NULL;

		for (k = 0; states[k] && strcmp(f[L_STATE], states[k]); k++)
			;
		if (strcmp(f[L_SCHEMA], "1"))
			why = "schema is not 1";
		else if (!is_host(f[L_HOST]))
			why = "host is not a host name";
		else if (!states[k])
			why = "state is not open, resolved or superseded";
		else if (!hist_date_parse(f[L_FIRST_DATE], &d) ||
			 !hist_date_parse(f[L_LATEST_DATE], &d))
			why = "first_date or latest_date is not YYYY-MM-DDTHH:MM:SSZ";
		else if (!*f[L_WORKLOAD] || !*f[L_METRIC] || !*f[L_FIRST_RUN])
			why = "workload, metric or first_run is empty";
		if (why) {
			snprintf(t->err, sizeof(t->err), "%s:%ld: %s", path, t->rows[i].line, why);
			return -1;
		}
	}
	return 0;
}

static void trim_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
}

const char *hist_rel(const char *root, const char *path, char *buf, size_t len)
{
	char rr[PATH_MAX], rp[PATH_MAX];
	size_t n;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path[0] != '/') {
		snprintf(buf, len, "%s", path);
		trim_slashes(buf);
		return buf;
	}
	if (!realpath(path, rp))
		snprintf(rp, sizeof(rp), "%s", path);
	trim_slashes(rp);
	if (realpath(root, rr)) {
		n = strlen(rr);
		if (!strncmp(rp, rr, n) && rp[n] == '/') {
			snprintf(buf, len, "%s", rp + n + 1);
			return buf;
		}
	}
	snprintf(buf, len, "%s", rp);
	return buf;
}

void hist_root(const char *history, char *buf, size_t len)
{
	const char *slash = strrchr(history, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == history)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - history), history);
}

const char *hist_prog = "mmtrend";

int hist_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", hist_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return MM_USAGE;
}

int hist_dispatch(const struct hist_command *cmds, int argc, char **argv, int min_argc,
		  void (*usage)(FILE *f))
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return MM_PASS;
	}
	if (argc < min_argc) {
		usage(stderr);
		return MM_USAGE;
	}
	for (const struct hist_command *c = cmds; c->name; c++)
		if (!strcmp(cmd, c->name))
			return c->fn(argc - 1, argv + 1);
	return hist_usage_error("unknown command '%s' (see %s --help)", cmd, hist_prog);
}
