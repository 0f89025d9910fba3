// SPDX-License-Identifier: GPL-2.0
/*
 * The one reader of a results.csv row (resrow.h): its fields checked by
 * the schema's rules (results.h: the metric name, the direction;
 * numbers.h: the decimal grammar) into struct mm_resrow, with how strict
 * to be given by the caller's flags, and each message written once.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numbers.h"
#include "resrow.h"

static int chk_err(struct mm_rowchk *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int chk_err(struct mm_rowchk *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

const char *mm_row_show(const struct mm_rowchk *c, struct mm_field f, char *out, size_t len)
{
	size_t i, o = 0;

	if (c->flags & MM_ROW_SHOW40) {
		snprintf(out, len, "%.40s", f.p);
		return out;
	}
	for (i = 0; i < f.n && o + 4 < len; i++)
		out[o++] = (f.p[i] >= 0x20 && f.p[i] < 0x7f) ? f.p[i] : '?';
	if (i < f.n && o + 4 <= len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

int mm_row_schema(struct mm_rowchk *c, struct mm_field f)
{
	char b[64];

	if (strcmp(f.p, MM_SCHEMA_STR))
		return chk_err(c, "schema version '%s', this tool reads version %s",
			       mm_row_show(c, f, b, sizeof(b)), MM_SCHEMA_STR);
	return 0;
}

int mm_row_nonempty(struct mm_rowchk *c, struct mm_field f, const char *what)
{
	if (!f.n)
		return chk_err(c, "%s is empty", what);
	return 0;
}

/* "k=v;k=v": every part names a key. An empty case is a workload without
 * parameters. */
int mm_row_case(struct mm_rowchk *c, struct mm_field f)
{
	const char *p = f.p, *end;
	char b[64];

	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if (!memchr(p, '=', end - p) || *p == '=')
			return chk_err(c, "case '%s' is not of the form k=v;k=v",
				       mm_row_show(c, f, b, sizeof(b)));
		p = *end ? end + 1 : end;
	}
	return 0;
}

int mm_row_count(struct mm_rowchk *c, struct mm_field f, const char *what, long *out)
{
	char *end, b[64];

	errno = 0;
	*out = strtol(f.p, &end, 10);
	if (!*f.p || *end || errno || *out < 0)
		return chk_err(c, "%s '%s' is not a non-negative integer", what,
			       mm_row_show(c, f, b, sizeof(b)));
	return 0;
}

int mm_row_metric(struct mm_rowchk *c, struct mm_field f)
{
	char b[64];

	/* the schema's rule (results.h); the message says which part failed */
	if (mm_metric_name_okn(f.p, f.n))
		return 0;
	if (!f.n)
		return chk_err(c, "metric is empty");
	if (f.n > MM_METRIC_MAX)
		return chk_err(c, "metric '%s' is longer than %d characters",
			       mm_row_show(c, f, b, sizeof(b)), MM_METRIC_MAX);
	return chk_err(c, "metric '%s' has characters outside [A-Za-z0-9_.:]",
		       mm_row_show(c, f, b, sizeof(b)));
}

int mm_row_better(struct mm_rowchk *c, struct mm_field f, enum mm_better *b)
{
	char sb[64];

	if (mm_better_parse(f.p, b))
		return chk_err(c, "better '%s' is not " MM_BETTER_WORDS,
			       mm_row_show(c, f, sb, sizeof(sb)));
	return 0;
}

/* nan and inf as a workload's printf writes them */
static bool nonfinite_word(const char *p)
{
	return !strcmp(p, "nan") || !strcmp(p, "-nan") || !strcmp(p, "inf") ||
	       !strcmp(p, "-inf");
}

int mm_row_value(struct mm_rowchk *c, struct mm_field f, const char *what, double *out,
		 bool *nonfinite)
{
	bool ok = c->flags & MM_ROW_NONFINITE;
	char *end, b[64];

	*nonfinite = false;
	if (!mm_decimal_real(f.p)) {
		*out = NAN;
		*nonfinite = ok && nonfinite_word(f.p);
		if (*nonfinite)
			return 0;
		return chk_err(c, "%s '%s' is not a decimal number", what,
			       mm_row_show(c, f, b, sizeof(b)));
	}
	*out = strtod(f.p, &end);
	if (!*f.p || *end || end == f.p)
		return chk_err(c, "%s '%s' is not a number", what, mm_row_show(c, f, b, sizeof(b)));
	*nonfinite = ok && !isfinite(*out);
	if (!isfinite(*out) && !ok)
		return chk_err(c, "%s '%s' is not a finite number", what,
			       mm_row_show(c, f, b, sizeof(b)));
	return 0;
}

/* schema, workload, case, iteration, metric */
static int row_keys(struct mm_rowchk *c, struct mm_resrow *r)
{
	return mm_row_schema(c, r->f[MM_COL_SCHEMA]) ||
	       mm_row_nonempty(c, r->f[MM_COL_WORKLOAD], "workload") ||
	       mm_row_case(c, r->f[MM_COL_CASE]) ||
	       mm_row_count(c, r->f[MM_RES_ITERATION], "iteration", &r->iteration) ||
	       mm_row_metric(c, r->f[MM_RES_METRIC]) ? -1 : 0;
}

int mm_resrow_read(struct mm_rowchk *c, struct mm_resrow *r)
{
	bool keys = c->flags & MM_ROW_KEYS;

	r->iteration = -1;
	r->better = MM_INFO;
	if (keys ? row_keys(c, r) : mm_row_better(c, r->f[MM_RES_BETTER], &r->better))
		return -1;
	if (mm_row_value(c, r->f[MM_RES_VALUE], "value", &r->value, &r->nonfinite))
		return -1;
	if (keys && mm_row_better(c, r->f[MM_RES_BETTER], &r->better))
		return -1;
	if ((c->flags & MM_ROW_OLD_CALLS) && r->better == MM_INFO &&
	    !strncmp(r->f[MM_RES_METRIC].p, "calls_per_", 10))
		r->better = MM_LOWER;
	return 0;
}
