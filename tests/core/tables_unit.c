// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the workload tables (ASan+UBSan): the registry's
 * self-check passes on every real workload and refuses each kind of
 * malformed table with a message naming the row; each real workload's
 * struct is filled from its default case through the row offsets; unset
 * values; the needs table; the team stop flag. Prints PASS:/FAIL: lines.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "params.h"

static int fails;

#define CHECK(name, cond) do {						\
	if (cond)							\
		printf("PASS: %s\n", name);				\
	else {								\
		printf("FAIL: %s - %s (line %d)\n", name, #cond, __LINE__); \
		fails++;						\
	}								\
} while (0)

/* ---------------------------------------------------------------- real */

/* Every field of wl's struct, filled from its default case, matches the case. */
static bool filled_as_case(const struct workload *wl, char *why, size_t len)
{
	struct mm_plist pl;
	struct mm_case c;
	char err[512], word[MM_VALUE_LEN];
	unsigned char *buf;
	bool ok = true;

	mm_plist_init(&pl, wl);
	if (mm_plist_expand(&pl, err, sizeof(err)) < 0) {
		snprintf(why, len, "%s", err);
		return false;
	}
	mm_plist_case(&pl, 0, &c);
	buf = calloc(1, wl->params_size);
	mm_params_fill(wl, &c, buf);
	for (int i = 0; ok && wl->params[i].name; i++) {
		const struct mm_param *p = &wl->params[i];
		const char *v = c.val[i];
		const void *f = buf + p->off;

		switch (p->type) {
		case MM_P_INT:
			ok = *v ? *(const long long *)f == strtoll(v, NULL, 10) :
				  *(const long long *)f == MM_UNSET_INT;
			break;
		case MM_P_DOUBLE:
			ok = *v ? *(const double *)f == strtod(v, NULL) :
				  isnan(*(const double *)f);
			break;
		case MM_P_BOOL:
			ok = *(const bool *)f == !strcmp(v, "1");
			break;
		case MM_P_ENUM:
			ok = !strcmp(mm_enum_word(p->choices, *(const int *)f, word,
						  sizeof(word)), v);
			break;
		case MM_P_STRING:
			ok = !strcmp(*(const char *const *)f, v);
			break;
		}
		if (!ok)
			snprintf(why, len, "%s: '%s' (value '%s')", wl->name, p->name, v);
	}
	free(buf);
	mm_plist_free(&pl);
	return ok;
}

static void test_registry(void)
{
	char err[512] = "";

	CHECK("tables: the registry passes its self-check",
	      mm_registry_check(err, sizeof(err)) == 0);
	if (err[0])
		printf("  %s\n", err);
	for (int i = 0; mm_workloads[i]; i++) {
		char name[128], why[512] = "";

		snprintf(name, sizeof(name), "tables: %s's struct is filled from its default case",
			 mm_workloads[i]->name);
		CHECK(name, filled_as_case(mm_workloads[i], why, sizeof(why)));
		if (why[0])
			printf("  %s\n", why);
	}
}

/* ---------------------------------------------------------------- bad tables */

struct tp {
	long long n;
	double d;
	bool b;
	int e;
	const char *s;
};

static int trun(struct mm_ctx *ctx)
{
	(void)ctx;
	return MM_PASS;
}

#define GOOD_N { MM_PINT(struct tp, n), .def = "1", .min = 1, .max = 9, .help = "n" }
#define GOOD_E { MM_PENUM(struct tp, e), .def = "a", .choices = "a|b", .help = "e" }

/* mm_workload_check() refuses the table with a message holding want. */
static bool refused(const struct mm_param *params, size_t size,
		    const struct mm_metric *metrics, unsigned int needs,
		    const char *want)
{
	struct workload wl = { .name = "bad", .desc = "bad tables",
			       .params = params, .params_size = size,
			       .metrics = metrics, .needs = needs, .run = trun };
	char err[512] = "";

	if (mm_workload_check(&wl, err, sizeof(err)) == 0) {
		printf("  accepted; wanted '%s'\n", want);
		return false;
	}
	if (!strstr(err, want) || strncmp(err, "bad: ", 5)) {
		printf("  message '%s' lacks 'bad: ...%s'\n", err, want);
		return false;
	}
	return true;
}

static void test_bad_tables(void)
{
	static const struct mm_param good[] = { GOOD_N, GOOD_E,
		{ MM_PDOUBLE(struct tp, d), .def = "", .min = 0, .max = 1, .help = "d" },
		{ MM_PBOOL(struct tp, b), .def = "on", .help = "b" },
		{ MM_PSTRING(struct tp, s), .def = "", .help = "s" }, MM_PARAM_END };
	static const struct mm_param twice[] = { GOOD_N, GOOD_N, MM_PARAM_END };
	static const struct mm_param shared[] = { GOOD_N,
		{ .name = "m", .type = MM_P_INT, .off = offsetof(struct tp, n),
		  .def = "1", .min = 1, .max = 9, .help = "m" }, MM_PARAM_END };
	static const struct mm_param no_range[] = {
		{ MM_PINT(struct tp, n), .def = "1", .min = 1, .max = 0, .help = "n" },
		MM_PARAM_END };
	static const struct mm_param bad_def[] = {
		{ MM_PINT(struct tp, n), .def = "1,10", .min = 1, .max = 9, .help = "n" },
		MM_PARAM_END };
	static const struct mm_param bad_enum_def[] = {
		{ MM_PENUM(struct tp, e), .def = "c", .choices = "a|b", .help = "e" },
		MM_PARAM_END };
	static const struct mm_param empty_word[] = {
		{ MM_PENUM(struct tp, e), .def = "a", .choices = "a||b", .help = "e" },
		MM_PARAM_END };
	static const struct mm_param word_twice[] = {
		{ MM_PENUM(struct tp, e), .def = "a", .choices = "a|b|a", .help = "e" },
		MM_PARAM_END };
	static const struct mm_param unset_bool[] = {
		{ MM_PBOOL(struct tp, b), .def = "", .help = "b" }, MM_PARAM_END };
	static const struct mm_param bad_name[] = {
		{ .name = "Size-MB", .type = MM_P_INT, .off = offsetof(struct tp, n),
		  .def = "1", .min = 1, .max = 9, .help = "n" }, MM_PARAM_END };
	static const struct mm_param no_help[] = {
		{ MM_PINT(struct tp, n), .def = "1", .min = 1, .max = 9 }, MM_PARAM_END };
	static const struct mm_metric metric_twice[] = {
		{ .name = "x_ns", .better = MM_LOWER }, { .name = "x_ns", .better = MM_LOWER },
		MM_METRIC_END };
	static const struct mm_metric metric_bad[] = {
		{ .name = "x ns", .better = MM_LOWER }, MM_METRIC_END };
	static const struct mm_metric family_inside[] = {
		{ .name = "x_*_ns", .better = MM_LOWER }, MM_METRIC_END };
	static const struct mm_metric families[] = {
		{ .name = "x_*", .better = MM_LOWER }, { .name = "*", .better = MM_INFO },
		MM_METRIC_END };
	struct workload wl = { .name = "ok", .desc = "d", .params = good,
			       .params_size = sizeof(struct tp), .run = trun };
	char err[512] = "";

	CHECK("tables: a good table passes", mm_workload_check(&wl, err, sizeof(err)) == 0);
	if (err[0])
		printf("  %s\n", err);
	CHECK("tables: a field outside .params_size is refused",
	      refused(good, offsetof(struct tp, s), NULL, 0, "parameter 's': no field"));
	CHECK("tables: a parameter twice is refused",
	      refused(twice, sizeof(struct tp), NULL, 0, "parameter 'n' is listed twice"));
	CHECK("tables: two parameters on one field are refused",
	      refused(shared, sizeof(struct tp), NULL, 0, "'n' and 'm' share a field"));
	CHECK("tables: an int without a range is refused",
	      refused(no_range, sizeof(struct tp), NULL, 0, "parameter 'n': an int needs a range"));
	CHECK("tables: a default outside the range is refused",
	      refused(bad_def, sizeof(struct tp), NULL, 0,
		      "parameter 'n': 10 is outside [1, 9] (the default in the table)"));
	CHECK("tables: an enum default not in the choices is refused",
	      refused(bad_enum_def, sizeof(struct tp), NULL, 0, "'c' is not one of a|b"));
	CHECK("tables: an empty enum word is refused",
	      refused(empty_word, sizeof(struct tp), NULL, 0, "empty word"));
	CHECK("tables: an enum word twice is refused",
	      refused(word_twice, sizeof(struct tp), NULL, 0, "enum word 'a' is listed twice"));
	CHECK("tables: a bool defaulting to unset is refused",
	      refused(unset_bool, sizeof(struct tp), NULL, 0, "a bool cannot default to unset"));
	CHECK("tables: a parameter name outside a-z 0-9 _ is refused",
	      refused(bad_name, sizeof(struct tp), NULL, 0, "name 'Size-MB'"));
	CHECK("tables: a parameter without help is refused",
	      refused(no_help, sizeof(struct tp), NULL, 0, "parameter 'n' has no help"));
	CHECK("tables: a metric twice is refused",
	      refused(NULL, 0, metric_twice, 0, "metric 'x_ns' is listed twice"));
	CHECK("tables: a metric name outside the rule is refused",
	      refused(NULL, 0, metric_bad, 0, "metric 'x ns'"));
	CHECK("tables: a '*' inside a metric row's name is refused",
	      refused(NULL, 0, family_inside, 0, "metric 'x_*_ns'"));
	wl.metrics = families;
	CHECK("tables: family rows (a prefix, then '*'; '*' alone) pass",
	      mm_workload_check(&wl, err, sizeof(err)) == 0);
	wl.metrics = mm_probe_metrics;
	CHECK("tables: the rows --probe adds pass the table check",
	      mm_workload_check(&wl, err, sizeof(err)) == 0);
	wl.metrics = NULL;
	CHECK("tables: a needs bit outside MM_NEEDS is refused",
	      refused(NULL, 0, NULL, 1u << MM_NEED_COUNT, "no MM_NEED_"));
	wl.run = NULL;
	CHECK("tables: a workload without run is refused",
	      mm_workload_check(&wl, err, sizeof(err)) < 0 && strstr(err, ".run"));
}

/* ---------------------------------------------------------------- values */

static void test_fill(void)
{
	static const struct mm_param ps[] = { GOOD_N, GOOD_E,
		{ MM_PDOUBLE(struct tp, d), .def = "", .min = 0, .max = 1, .help = "d" },
		{ MM_PBOOL(struct tp, b), .def = "on", .help = "b" },
		{ MM_PSTRING(struct tp, s), .def = "x", .help = "s" }, MM_PARAM_END };
	/* the same parameters defaulting to unset ("": the workload decides) */
	static const struct mm_param unset_ps[] = {
		{ MM_PINT(struct tp, n), .def = "", .min = 1, .max = 9, .help = "n" },
		{ MM_PENUM(struct tp, e), .def = "", .choices = "a|b", .help = "e" },
		{ MM_PDOUBLE(struct tp, d), .def = "", .min = 0, .max = 1, .help = "d" },
		{ MM_PBOOL(struct tp, b), .def = "on", .help = "b" },
		{ MM_PSTRING(struct tp, s), .def = "", .help = "s" }, MM_PARAM_END };
	static const struct workload wl = { .name = "t", .desc = "d", .params = ps,
					    .params_size = sizeof(struct tp), .run = trun };
	static const struct workload unset_wl = { .name = "t", .desc = "d", .params = unset_ps,
						  .params_size = sizeof(struct tp), .run = trun };
	struct mm_plist pl;
	struct mm_case c;
	struct tp t;
	char err[512], w[16];

	/* unset is a default's, never given: -p n= is a usage error */
	mm_plist_init(&pl, &wl);
	CHECK("fill: an empty value given is refused, named",
	      mm_plist_set(&pl, "n=", err, sizeof(err)) < 0 &&
	      strstr(err, "parameter 'n': empty value"));
	mm_plist_free(&pl);
	mm_plist_init(&pl, &unset_wl);
	CHECK("fill: unset values expand", mm_plist_expand(&pl, err, sizeof(err)) == 0);
	mm_plist_case(&pl, 0, &c);
	mm_params_fill(&unset_wl, &c, &t);
	CHECK("fill: unset int, enum, double and string",
	      t.n == MM_UNSET_INT && t.e == MM_UNSET_ENUM && isnan(t.d) && !strcmp(t.s, "") &&
	      t.b);
	mm_plist_free(&pl);
	mm_plist_init(&pl, &wl);
	mm_plist_set(&pl, "e=b", err, sizeof(err));
	mm_plist_set(&pl, "b=no", err, sizeof(err));
	mm_plist_set(&pl, "d=0.25", err, sizeof(err));
	mm_plist_expand(&pl, err, sizeof(err));
	mm_plist_case(&pl, 0, &c);
	mm_params_fill(&wl, &c, &t);
	CHECK("fill: given values", t.n == 1 && t.e == 1 && t.d == 0.25 && !t.b &&
	      !strcmp(t.s, "x"));
	mm_plist_free(&pl);
	CHECK("enum word: by index", !strcmp(mm_enum_word("a|bb|c", 1, w, sizeof(w)), "bb") &&
	      !strcmp(mm_enum_word("a|bb|c", 2, w, sizeof(w)), "c") &&
	      !strcmp(mm_enum_word("a|bb|c", 3, w, sizeof(w)), "") &&
	      !strcmp(mm_enum_word("a|bb|c", MM_UNSET_ENUM, w, sizeof(w)), ""));
}

/* ---------------------------------------------------------------- needs */

static void test_needs(void)
{
	char buf[128], why[512];
	unsigned int all = mm_needs_known();

	mm_needs_words(0, buf, sizeof(buf));
	CHECK("needs: none is '-'", !strcmp(buf, "-"));
	mm_needs_words(MM_NEED_THP | MM_NEED_ROOT, buf, sizeof(buf));
	CHECK("needs: words in table order", !strcmp(buf, "root,thp"));
	mm_needs_words(all, buf, sizeof(buf));
	CHECK("needs: every row has a word", !strcmp(buf, "root,numa2,thp,swap,tracefs"));
	CHECK("needs: one bit per row", all == (1u << MM_NEED_COUNT) - 1);
	CHECK("needs: nothing needed is met", mm_needs_met(0, why, sizeof(why)) && !why[0]);
	CHECK("needs: an unmet need says why",
	      mm_needs_met(MM_NEED_NUMA2, why, sizeof(why)) ==
	      (mm_nnodes_with_memory() >= 2) &&
	      (mm_nnodes_with_memory() >= 2 || strstr(why, "NUMA node(s) with memory")));
}

/* ---------------------------------------------------------------- stop */

/* Loops until the coordinator raises the flag: ends only through it. */
static int spin(struct mm_task *t)
{
	mm_task_start(t);
	while (!mm_task_stop(t))
		;
	return MM_PASS;
}

static void test_stop(void)
{
	int flag = 0;
	struct mm_task t = { .stop = &flag };
	struct mm_team_opts o = { .ntasks = 2, .threads = true, .duration_ns = 1000000,
				  .fn = spin };
	struct mm_team *team = NULL;

	CHECK("stop: mm_task_stop reads the task's flag", !mm_task_stop(&t) &&
	      (flag = 1, mm_task_stop(&t)));
	CHECK("stop: a team's tasks see the deadline", mm_team_run(NULL, &o, &team) == MM_PASS);
	mm_team_free(team);
}

int main(void)
{
	test_registry();
	test_bad_tables();
	test_fill();
	test_needs();
	test_stop();
	return fails ? 1 : 0;
}
