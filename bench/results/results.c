// SPDX-License-Identifier: GPL-2.0
/*
 * The result schema's tables and rules (results.h). Uses nothing but libc,
 * so every tool that reads or writes result files links it.
 */
#include <stdio.h>
#include <string.h>

#include "results.h"

const struct mm_schema_file mm_schema_files[] = {
	{ "results.csv", MM_RESULTS_HEADER },
	{ "warmup.csv", MM_RESULTS_HEADER },
	{ "cases.csv", MM_CASES_HEADER },
	{ "started.csv", MM_STARTED_HEADER },
	{ "samples.csv", MM_SAMPLES_HEADER },
	{ "metrics.csv", MM_METRICS_HEADER },
	{ "meta.csv", MM_META_HEADER },
	{ "profile.csv", MM_PROFILE_HEADER },
	{ "profile_iterations.csv", MM_PROFILE_ITER_HEADER },
	{ NULL, NULL },
};

/* Each header, and an earlier form of it that readers still take. */
static const struct {
	const char *header, *earlier;
} schema_earlier[] = {
	{ MM_CASES_HEADER, MM_CASES_HEADER_10 },
};

int mm_schema_earlier(const char *header, const char *file_header)
{
	for (size_t i = 0; i < sizeof(schema_earlier) / sizeof(schema_earlier[0]); i++)
		if (!strcmp(header, schema_earlier[i].header) &&
		    !strcmp(file_header, schema_earlier[i].earlier))
			return mm_schema_ncols(file_header);
	return -1;
}

static const char *const better_words[] = {
	[MM_LOWER] = "lower", [MM_HIGHER] = "higher", [MM_INFO] = "info",
};

int mm_better_parse(const char *s, enum mm_better *b)
{
	for (int i = MM_LOWER; i <= MM_INFO; i++)
		if (!strcmp(s, better_words[i])) {
			*b = (enum mm_better)i;
			return 0;
		}
	return -1;
}

const char *mm_better_str(enum mm_better b)
{
	return better_words[b];
}

const char *mm_schema_header(const char *file)
{
	for (const struct mm_schema_file *f = mm_schema_files; f->name; f++)
		if (!strcmp(f->name, file))
			return f->header;
	return NULL;
}

int mm_schema_col(const char *header, const char *name)
{
	size_t n = strlen(name);
	int col = 0;

	for (const char *p = header; p; col++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !memcmp(p, name, n))
			return col;
		p = end ? end + 1 : NULL;
	}
	return -1;
}

const char *mm_schema_colname(const char *header, int col, char *buf, size_t len)
{
	const char *p = header, *end;

	for (; col > 0 && p; col--)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p || col < 0) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	end = strchr(p, ',');
	snprintf(buf, len, "%.*s", (int)(end ? (size_t)(end - p) : strlen(p)), p);
	return buf;
}

int mm_schema_ncols(const char *header)
{
	int n = 1;

	for (const char *c = header; *c; c++)
		n += *c == ',';
	return n;
}

static bool metric_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':';
}

bool mm_metric_name_okn(const char *metric, unsigned long len)
{
	if (len == 0 || len > MM_METRIC_MAX)
		return false;
	for (unsigned long i = 0; i < len; i++)
		if (!metric_char((unsigned char)metric[i]))
			return false;
	return true;
}

bool mm_metric_name_ok(const char *metric)
{
	return mm_metric_name_okn(metric, strlen(metric));
}

bool mm_unit_timed(const char *unit)
{
	size_t n = strlen(unit);

	return !strcmp(unit, "ns") || !strcmp(unit, "us") || !strcmp(unit, "ms") ||
	       !strcmp(unit, "s") || (n > 2 && !strcmp(unit + n - 2, "/s"));
}

unsigned int mm_fnv32(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

bool mm_irq_on_point(const char *sym)
{
	static const char *const has[] = { "irq_enable", "irqrestore", "irq_restore" };
	size_t n = strlen(sym);

	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		if (strstr(sym, has[i]))
			return true;
	return n > 11 && !strcmp(sym + n - 11, "_unlock_irq");
}

bool mm_soft_clock(const char *event)
{
	return !strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10);
}

size_t mm_text_printable(char *s, size_t n)
{
	size_t nl = 0;

	for (size_t i = 0; i < n; i++)
		if ((s[i] > 0 && s[i] < 0x20) || s[i] == 0x7f) {
			nl += s[i] == '\n';
			s[i] = '?';
		}
	return nl;
}
