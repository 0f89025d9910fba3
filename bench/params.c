// SPDX-License-Identifier: GPL-2.0
/*
 * Parameters: validation against a workload's table, list expansion into
 * cases (the cartesian product of every list), the canonical case string
 * "k=v;k=v" with keys sorted, which lines results up across runs, the
 * typed struct each case fills, and the self-check of the tables.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core.h"
#include "driver.h"
#include "params.h"

static const struct mm_param *param_def(const struct workload *wl,
					const char *name, int *idx)
{
	for (int i = 0; wl->params && wl->params[i].name; i++) {
		if (strcmp(wl->params[i].name, name) == 0) {
			if (idx)
				*idx = i;
			return &wl->params[i];
		}
	}
	return NULL;
}

int mm_nparams(const struct workload *wl)
{
	int n = 0;

	while (wl->params && wl->params[n].name)
		n++;
	return n;
}

static int parse_bool(const char *s)
{
	static const char *const t[] = { "1", "on", "yes", "true" };
	static const char *const f[] = { "0", "off", "no", "false" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, t[i]) == 0)
			return 1;
		if (strcasecmp(s, f[i]) == 0)
			return 0;
	}
	return -1;
}

static bool enum_has(const char *choices, const char *s)
{
	size_t n = strlen(s);

	for (const char *p = choices; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, s, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/*
 * Check one scalar value; on success store its canonical text in out.
 * The error names the workload, the parameter and what is wrong.
 */
int mm_param_check(const struct workload *wl, const struct mm_param *p,
		   const char *s, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	char *end;

	if (*s == '\0' && p->type != MM_P_STRING) {
		snprintf(err, errlen, "%s: parameter '%s': empty value",
			 wl->name, p->name);
		return -1;
	}
	switch (p->type) {
	case MM_P_INT: {
		long long v;

		int e = 0;

		/* "cpus": this machine's online CPUs (a suite for any machine) */
		if (!strcmp(s, "cpus"))
			v = mm_ncpus();
		else
			e = mm_parse_decimal(s, &v);
		if (e == -ERANGE) {
			snprintf(err, errlen,
				 "%s: parameter '%s': '%s' is out of range", wl->name,
				 p->name, s);
			return -1;
		}
		if (e) {
			snprintf(err, errlen,
				 "%s: parameter '%s': '%s' is not a decimal integer (or cpus)",
				 wl->name, p->name, s);
			return -1;
		}
		if (p->min <= p->max && ((double)v < p->min || (double)v > p->max)) {
			snprintf(err, errlen,
				 "%s: parameter '%s': %lld is outside [%g, %g]",
				 wl->name, p->name, v, p->min, p->max);
			return -1;
		}
		snprintf(out, outlen, "%lld", v);
		return 0;
	}
	case MM_P_DOUBLE: {
		double v;

		errno = 0;
		v = mm_decimal_real(s) ? strtod(s, &end) : NAN;
		if (errno || !isfinite(v)) {
			snprintf(err, errlen,
				 "%s: parameter '%s': '%s' is not a decimal number",
				 wl->name, p->name, s);
			return -1;
		}
		if (p->min <= p->max && (v < p->min || v > p->max)) {
			snprintf(err, errlen,
				 "%s: parameter '%s': %g is outside [%g, %g]",
				 wl->name, p->name, v, p->min, p->max);
			return -1;
		}
		snprintf(out, outlen, "%g", v);
		return 0;
	}
	case MM_P_BOOL: {
		int b = parse_bool(s);

		if (b < 0) {
			snprintf(err, errlen,
				 "%s: parameter '%s': '%s' is not a boolean (0/1, on/off)",
				 wl->name, p->name, s);
			return -1;
		}
		snprintf(out, outlen, "%d", b);
		return 0;
	}
	case MM_P_ENUM:
		if (!enum_has(p->choices, s)) {
			snprintf(err, errlen,
				 "%s: parameter '%s': '%s' is not one of %s",
				 wl->name, p->name, s, p->choices);
			return -1;
		}
		break;
	case MM_P_STRING:
		if (strpbrk(s, ";=\n")) {
			snprintf(err, errlen,
				 "%s: parameter '%s': '%s' may not contain ';', '=' or a newline",
				 wl->name, p->name, s);
			return -1;
		}
		break;
	}
	if (strlen(s) >= outlen) {
		snprintf(err, errlen, "%s: parameter '%s': value too long",
			 wl->name, p->name);
		return -1;
	}
	strcpy(out, s);
	return 0;
}

/* The default text of a parameter on this machine. */
const char *mm_param_default(const struct mm_param *p, char *buf, size_t len)
{
	if (p->def)
		return p->def;
	if (p->def_fn)
		return p->def_fn(buf, len);
	return "";
}

void mm_plist_init(struct mm_plist *pl, const struct workload *wl)
{
	memset(pl, 0, sizeof(*pl));
	pl->wl = wl;
}

void mm_plist_free(struct mm_plist *pl)
{
	for (int i = 0; i < MM_MAX_PARAMS; i++)
		free(pl->given[i]);
	memset(pl->given, 0, sizeof(pl->given));
}

/* Record "-p key=value" (the value may be a comma list). */
int mm_plist_set(struct mm_plist *pl, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	char name[64];
	int idx;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(name)) {
		snprintf(err, errlen, "%s: bad parameter '%s': expected key=value",
			 pl->wl->name, kv);
		return -1;
	}
	memcpy(name, kv, (size_t)(eq - kv));
	name[eq - kv] = '\0';
	if (!param_def(pl->wl, name, &idx)) {
		snprintf(err, errlen,
			 "%s: unknown parameter '%s' (see: mmbench info %s)",
			 pl->wl->name, name, pl->wl->name);
		return -1;
	}
	/* "" is a parameter left unset: that is said by leaving it out */
	if (eq[1] == '\0') {
		snprintf(err, errlen, "%s: parameter '%s': empty value "
			 "(leave the parameter out for its default)", pl->wl->name, name);
		return -1;
	}
	free(pl->given[idx]);
	pl->given[idx] = strdup(eq + 1);
	return pl->given[idx] ? 0 : -1;
}

static bool has_value(const struct mm_pvals *pv, int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(pv->v[i], v))
			return true;
	return false;
}

/* Split one parameter's text into checked values. */
static int expand_one(const struct workload *wl, const struct mm_param *p,
		      const char *text, struct mm_pvals *pv, char *err,
		      size_t errlen)
{
	char *dup = strdup(text), *save = NULL, *tok;
	int ret = 0;

	if (!dup)
		return -1;
	pv->n = 0;
	if (*text == '\0' || p->nolist) {
		/* "" is "unset": the workload decides at run time. */
		free(dup);
		pv->n = 1;
		pv->v[0][0] = '\0';
		return *text ? mm_param_check(wl, p, text, pv->v[0],
					      sizeof(pv->v[0]), err, errlen) : 0;
	}
	/* strtok would skip the empty element of "1,,2" or "1,": refuse it */
	if (text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,")) {
		snprintf(err, errlen, "%s: parameter '%s': '%s' has an empty list element",
			 wl->name, p->name, text);
		free(dup);
		return -1;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (pv->n == MM_MAX_VALUES) {
			snprintf(err, errlen, "%s: parameter '%s': more than %d values",
				 wl->name, p->name, MM_MAX_VALUES);
			ret = -1;
			break;
		}
		if (mm_param_check(wl, p, tok, pv->v[pv->n], sizeof(pv->v[0]),
				   err, errlen) < 0) {
			ret = -1;
			break;
		}
		/* 1,cpus on one CPU: the same case once */
		pv->n += !has_value(pv, pv->n, pv->v[pv->n]);
	}
	if (ret == 0 && pv->n == 0) {
		snprintf(err, errlen, "%s: parameter '%s': empty list",
			 wl->name, p->name);
		ret = -1;
	}
	free(dup);
	return ret;
}

/* Validate everything and compute the value lists of every parameter. */
int mm_plist_expand(struct mm_plist *pl, char *err, size_t errlen)
{
	const struct workload *wl = pl->wl;
	int n = mm_nparams(wl);
	char buf[MM_VALUE_LEN];

	if (n > MM_MAX_PARAMS) {
		snprintf(err, errlen, "%s: too many parameters", wl->name);
		return -1;
	}
	pl->ncases = 1;
	for (int i = 0; i < n; i++) {
		const char *text = pl->given[i] ? pl->given[i] :
			mm_param_default(&wl->params[i], buf, sizeof(buf));

		if (expand_one(wl, &wl->params[i], text, &pl->vals[i], err,
			       errlen) < 0)
			return -1;
		pl->ncases *= pl->vals[i].n;
		if (pl->ncases > MM_MAX_CASES) {
			snprintf(err, errlen, "%s: more than %d cases", wl->name,
				 MM_MAX_CASES);
			return -1;
		}
	}
	return 0;
}

static int cmp_idx_name(const void *a, const void *b, void *arg)
{
	const struct mm_param *ps = arg;

	return strcmp(ps[*(const int *)a].name, ps[*(const int *)b].name);
}

/*
 * Case number k of the cartesian product. The last parameter varies
 * slowest, so a list given for the first-declared parameter sweeps
 * fastest within one setting of the others.
 */
void mm_plist_case(const struct mm_plist *pl, int k, struct mm_case *c)
{
	const struct workload *wl = pl->wl;
	int n = mm_nparams(wl), order[MM_MAX_PARAMS];
	size_t off = 0;

	memset(c, 0, sizeof(*c));
	c->wl = wl;
	for (int i = 0; i < n; i++) {
		int nv = pl->vals[i].n;

		snprintf(c->val[i], sizeof(c->val[i]), "%s", pl->vals[i].v[k % nv]);
		k /= nv;
		order[i] = i;
	}
	qsort_r(order, (size_t)n, sizeof(int), cmp_idx_name, (void *)wl->params);
	for (int j = 0; j < n; j++) {
		int i = order[j];

		off += (size_t)snprintf(c->str + off, sizeof(c->str) - off,
					"%s%s=%s", j ? ";" : "",
					wl->params[i].name, c->val[i]);
		if (off >= sizeof(c->str))
			off = sizeof(c->str) - 1;
	}
}

/* ---------------------------------------------------------------- fill */

/* Index of word s in "a|b|c", or -1. */
static int enum_index(const char *choices, const char *s)
{
	size_t n = strlen(s);
	int idx = 0;

	for (const char *p = choices; p && *p; idx++) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, s, n) == 0)
			return idx;
		p = bar ? bar + 1 : NULL;
	}
	return -1;
}

const char *mm_enum_word(const char *choices, int idx, char *buf, size_t len)
{
	const char *p = choices;

	for (int k = 0; p && k < idx; k++)
		p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
	snprintf(buf, len, "%.*s", p && idx >= 0 ? (int)strcspn(p, "|") : 0,
		 p && idx >= 0 ? p : "");
	return buf;
}

/*
 * The values were checked and canonicalised when the case was made, so
 * each converts without error here; "" is unset (MM_UNSET_INT and co.).
 */
void mm_params_fill(const struct workload *wl, const struct mm_case *c,
		    void *dst)
{
	for (int i = 0; wl->params && wl->params[i].name; i++) {
		const struct mm_param *p = &wl->params[i];
		const char *v = c->val[i];
		char *field = (char *)dst + p->off;
		bool unset = *v == '\0';

		switch (p->type) {
		case MM_P_INT:
			*(long long *)field = unset ? MM_UNSET_INT : strtoll(v, NULL, 10);
			break;
		case MM_P_DOUBLE:
			*(double *)field = unset ? NAN : strtod(v, NULL);
			break;
		case MM_P_BOOL:
			*(bool *)field = parse_bool(v) == 1;
			break;
		case MM_P_ENUM:
			*(int *)field = unset ? MM_UNSET_ENUM : enum_index(p->choices, v);
			break;
		case MM_P_STRING:
			*(const char **)field = v;
			break;
		}
	}
}

/* ---------------------------------------------------------------- self-check */

static size_t field_size(enum mm_ptype t)
{
	switch (t) {
	case MM_P_INT:
		return sizeof(long long);
	case MM_P_DOUBLE:
		return sizeof(double);
	case MM_P_BOOL:
		return sizeof(bool);
	case MM_P_ENUM:
		return sizeof(int);
	case MM_P_STRING:
		return sizeof(const char *);
	}
	return 0;
}

/* 1 to max characters, each in the set (a metric or parameter name). */
static bool name_ok(const char *s, const char *set, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 1 && n <= max && strspn(s, set) == n;
}

#define LOWER_SET "abcdefghijklmnopqrstuvwxyz0123456789_"
#define METRIC_SET LOWER_SET "ABCDEFGHIJKLMNOPQRSTUVWXYZ.:"

/* Enum words: none empty, none twice, none holding a separator. */
static int check_choices(const struct workload *wl, const struct mm_param *p,
			 char *err, size_t len)
{
	const char *c = p->choices, *w;
	int k = 0;

	if (!c || !*c || *c == '|' || c[strlen(c) - 1] == '|' || strstr(c, "||")) {
		snprintf(err, len, "%s: parameter '%s': enum choices '%s' are empty or have an empty word",
			 wl->name, p->name, c ? c : "(null)");
		return -1;
	}
	for (w = c; w; k++) {
		char word[MM_VALUE_LEN];
		const char *bar = strchr(w, '|');

		snprintf(word, sizeof(word), "%.*s", (int)(bar ? bar - w : (long)strlen(w)), w);
		if (strpbrk(word, ",;= \n")) {
			snprintf(err, len, "%s: parameter '%s': enum word '%s' holds a separator",
				 wl->name, p->name, word);
			return -1;
		}
		if (enum_index(c, word) != k) {
			snprintf(err, len, "%s: parameter '%s': enum word '%s' is listed twice",
				 wl->name, p->name, word);
			return -1;
		}
		w = bar ? bar + 1 : NULL;
	}
	return 0;
}

/* One row: its name, field, range, choices and static default. */
static int check_param(const struct workload *wl, int i, char *err, size_t len)
{
	const struct mm_param *p = &wl->params[i];
	size_t sz = field_size(p->type);
	struct mm_pvals *pv;
	char why[512];
	int ret;

	if (!name_ok(p->name, LOWER_SET, 63)) {
		snprintf(err, len, "%s: parameter %d: name '%s' is not 1-63 of a-z 0-9 _",
			 wl->name, i, p->name ? p->name : "(null)");
		return -1;
	}
	for (int j = 0; j < i; j++) {
		const struct mm_param *q = &wl->params[j];

		if (!strcmp(q->name, p->name)) {
			snprintf(err, len, "%s: parameter '%s' is listed twice",
				 wl->name, p->name);
			return -1;
		}
		if (p->off < q->off + field_size(q->type) && q->off < p->off + sz) {
			snprintf(err, len, "%s: parameters '%s' and '%s' share a field",
				 wl->name, q->name, p->name);
			return -1;
		}
	}
	if (!sz || p->off + sz > wl->params_size) {
		snprintf(err, len, "%s: parameter '%s': no field of its type inside .params_size (%zu bytes)",
			 wl->name, p->name, wl->params_size);
		return -1;
	}
	if (!p->help) {
		snprintf(err, len, "%s: parameter '%s' has no help", wl->name, p->name);
		return -1;
	}
	/* An INT range keeps MM_UNSET_INT out of the values a user can give. */
	if (p->type == MM_P_INT && !(p->min <= p->max && p->min > (double)LLONG_MIN)) {
		snprintf(err, len, "%s: parameter '%s': an int needs a range (min <= max)",
			 wl->name, p->name);
		return -1;
	}
	if (p->type == MM_P_ENUM && check_choices(wl, p, err, len) < 0)
		return -1;
	if (!p->def && !p->def_fn) {
		snprintf(err, len, "%s: parameter '%s' has neither .def nor .def_fn",
			 wl->name, p->name);
		return -1;
	}
	if (p->type == MM_P_BOOL && p->def && !*p->def) {
		snprintf(err, len, "%s: parameter '%s': a bool cannot default to unset",
			 wl->name, p->name);
		return -1;
	}
	/* .def_fn's value depends on the machine: checked when a case is made */
	if (!p->def)
		return 0;
	pv = malloc(sizeof(*pv));
	if (!pv) {
		snprintf(err, len, "%s: out of memory", wl->name);
		return -1;
	}
	ret = expand_one(wl, p, p->def, pv, why, sizeof(why));
	free(pv);
	if (ret < 0)
		snprintf(err, len, "%s (the default in the table)", why);
	return ret;
}

static int check_metrics(const struct workload *wl, char *err, size_t len)
{
	for (int i = 0; wl->metrics && wl->metrics[i].name; i++) {
		const struct mm_metric *m = &wl->metrics[i];

		if (!name_ok(m->name, METRIC_SET, 200)) {
			snprintf(err, len, "%s: metric '%s' is not 1-200 of A-Z a-z 0-9 _ . :",
				 wl->name, m->name);
			return -1;
		}
		if ((unsigned int)m->better > MM_INFO || (unsigned int)m->role > MM_EVIDENCE) {
			snprintf(err, len, "%s: metric '%s': bad .better or .role",
				 wl->name, m->name);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(wl->metrics[j].name, m->name)) {
				snprintf(err, len, "%s: metric '%s' is listed twice",
					 wl->name, m->name);
				return -1;
			}
	}
	return 0;
}

int mm_workload_check(const struct workload *wl, char *err, size_t len)
{
	int n = mm_nparams(wl);

	if (!name_ok(wl->name, LOWER_SET, 32)) {
		snprintf(err, len, "workload name '%s' is not 1-32 of a-z 0-9 _",
			 wl->name ? wl->name : "(null)");
		return -1;
	}
	if (!wl->desc || !*wl->desc || !wl->run) {
		snprintf(err, len, "%s: a workload needs .desc and .run", wl->name);
		return -1;
	}
	if (n > MM_MAX_PARAMS) {
		snprintf(err, len, "%s: %d parameters, more than %d", wl->name, n,
			 MM_MAX_PARAMS);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (check_param(wl, i, err, len) < 0)
			return -1;
	if (check_metrics(wl, err, len) < 0)
		return -1;
	if (wl->needs & ~mm_needs_known()) {
		snprintf(err, len, "%s: .needs has bits that are no MM_NEED_*", wl->name);
		return -1;
	}
	return 0;
}

int mm_registry_check(char *err, size_t len)
{
	for (int i = 0; mm_workloads[i]; i++) {
		if (mm_workload_check(mm_workloads[i], err, len) < 0)
			return -1;
		for (int j = 0; j < i; j++)
			if (!strcmp(mm_workloads[j]->name, mm_workloads[i]->name)) {
				snprintf(err, len, "workload '%s' is registered twice",
					 mm_workloads[i]->name);
				return -1;
			}
	}
	return 0;
}

const char *mm_case_string(const struct mm_case *c)
{
	return c->str;
}
