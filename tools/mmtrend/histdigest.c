// SPDX-License-Identifier: GPL-2.0
/*
 * mmhistory digest: the summary of an mmcompare --csv comparison
 * (compare.csv, read by its columns' names: compare_csv.h), its NEW side
 * judged under --judge and --min-change.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numbers.h"
#include "compare_csv.h"
#include "mmhistory.h"

/* ------------------------------------------------------------ comparisons */

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
	return s && !mm_parse_real(s, v);
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
int cmpfile_load(struct cmpfile *c, const char *path, const struct judge_opts *jo)
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

void cmpfile_free(struct cmpfile *c)
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

int judge_opt(int c, const char *arg, struct judge_opts *jo)
{
	if (c == 'j')
		return judge_add_patterns(jo, arg) ? die_usage("--judge: too many patterns") : 0;
	return parse_pct(arg, &jo->min_change);
}

int cmd_digest(int argc, char **argv)
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
	int o, rc = MM_USAGE;

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
	if (cmpfile_load(&c, argv[optind], &jo))
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
	rc = cnt[JV_WORSE] || gone ? MM_WORSE : 0;
out:
	cmpfile_free(&c);
out_opts:
	notmeas_free(&nm);
	judge_free(&jo);
	return rc;
}
