// SPDX-License-Identifier: GPL-2.0
/*
 * mmprofile: the kernel profiles of mmbench runs (--profile) side by side.
 *
 *   mmprofile [options] BASE NEW [NEW2...]     the profile difference
 *   mmprofile --unpack RUN_DIR                 raw data from the VM lab
 *
 * Inputs as mmcompare's: a run directory, a file in one (results.csv), or
 * a directory of runs; runs with one label are pooled into one side
 * (--per-arg: one side per argument). Each run's profile_iterations.csv
 * says which iterations were profiled; profile.csv rows count only for an
 * iteration whose row there says "ok" (the commit row, written after the
 * iteration's symbol rows: a run killed between them leaves rows that are
 * not counted), and a last line without its newline (a torn write) is
 * left out.
 *
 * Per case and side, a symbol's share is the mean over the profiled
 * iterations of its share of the window's non-idle samples (an iteration
 * without a row for it counts 0). The difference lists, per case and NEW
 * side: first the functions that stopped ("gone": no row on NEW) or
 * started ("new") running although both kernels have a function of that
 * name (each run's profile/kernel_functions.fnv32), then the union of each
 * side's top symbols and the largest changes by the size of the change,
 * last the functions only one kernel has ("base-fn", "new-fn": renamed,
 * inlined, removed). With call graphs on both sides the shares are
 * children shares (the symbol and its callees), else self shares. Shares
 * are evidence shown next to the verdict, never judged.
 *
 * --plot DIR draws one chart (DIR/profile.png, .svg, .gp, .dat): per case
 * (up to six) the shares of its largest changes, a bar per side. Text from
 * the inputs reaches the chart only through gptext.h.
 *
 * --unpack RUN_DIR: the guest sent each raw perf.data as base64 lines
 * (profile.NAME.b64, ended by "=end BYTES FNV1A64"); every whole file whose
 * size and hash check out becomes RUN_DIR/profile/NAME (a temporary name,
 * then rename) and its .b64 goes; a torn one is reported and removed.
 *
 * Exit: 0 ok, 1 a failure (gnuplot, unpack), 2 usage or bad input.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csvio.h"
#include "gptext.h"
#include "results.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define FIELD_MAX 2048
#define MAX_SIDES 16
#define PANELS_MAX 6
#define BARS_PER_PANEL 8

/* The columns read, found by name in the headers of results.h. */
static struct {
	int label, wl, kase, prof, iter, event;		/* both files */
	int sym, dso, self, child;			/* profile.csv */
	int freq, cg, status, reason;			/* profile_iterations.csv */
} col;

static void find_cols(void)
{
	const char *p = MM_PROFILE_HEADER, *it = MM_PROFILE_ITER_HEADER;

	col.label = mm_schema_col(p, "label");
	col.wl = mm_schema_col(p, "workload");
	col.kase = mm_schema_col(p, "case");
	col.prof = mm_schema_col(p, "profile");
	col.iter = mm_schema_col(p, "iteration");
	col.event = mm_schema_col(p, "event");
	col.sym = mm_schema_col(p, "symbol");
	col.dso = mm_schema_col(p, "dso");
	col.self = mm_schema_col(p, "self_pct");
	col.child = mm_schema_col(p, "children_pct");
	col.freq = mm_schema_col(it, "freq_hz");
	col.cg = mm_schema_col(it, "callgraph");
	col.status = mm_schema_col(it, "status");
	col.reason = mm_schema_col(it, "reason");
}

struct opts {
	bool per_arg, markdown, summary;
	int top;
	const char *plot_dir, *gnuplot, *prefix;
};

struct symagg {
	char *sym, *dso;
	double self, child;	/* sums of shares over profiled iterations */
	bool present;
};

struct kase {
	char *wl, *cs;
	int n_ok, n_other;
	char why[300];		/* the first reason of an unprofiled iteration */
	char event[32];
	int freq;
	int cg;			/* 1 every iteration had call graphs, 0 none, 2 mixed */
	struct symagg *s;
	int ns, caps;
};

struct side {
	char label[256];
	char event[32];
	struct kase *k;
	int nk, capk;
	int nruns;
	/* hashes of the kernel's function names (profile/kernel_functions.fnv32
	 * of its runs); nfn 0: unknown, every function counts as present */
	unsigned int *fn;
	size_t nfn;
};

static struct side sides[MAX_SIDES];
static int nsides;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "mmprofile: out of memory\n");
		exit(EXIT_FAIL);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "mmprofile: out of memory\n");
		exit(EXIT_FAIL);
	}
	return d;
}

/* ------------------------------------------------------------ CSV reading */

/*
 * Read a CSV file by the core's reader (strict libcsv, the header of the
 * schema, every row its field count). 0, 1 when absent, -1 with a message
 * printed. A last line without its newline is a torn write: left out, and
 * said.
 */
static int read_csv(const char *path, const char *header,
		    void (*row)(struct mm_csv_in *, void *), void *arg)
{
	struct mm_csv_in in = {
		.prog = "mmprofile", .header = header, .max_field = FIELD_MAX - 1,
		.row = row, .arg = arg,
	};
	int ret = mm_csv_read(&in, NULL, path);

	mm_csv_free(&in);
	if (ret == -ENOENT)
		return 1;
	if (ret < 0) {
		fprintf(stderr, "mmprofile: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	if (ret) {
		fprintf(stderr, "mmprofile: %s:%ld: %s\n", in.path, in.err_line, in.err);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ aggregation */

static struct kase *kase_get(struct side *s, const char *wl, const char *cs)
{
	struct kase *k;

	for (int i = 0; i < s->nk; i++)
		if (!strcmp(s->k[i].wl, wl) && !strcmp(s->k[i].cs, cs))
			return &s->k[i];
	if (s->nk == s->capk)
		s->k = xrealloc(s->k, (size_t)(s->capk = s->capk * 2 + 8) * sizeof(*s->k));
	k = &s->k[s->nk++];
	memset(k, 0, sizeof(*k));
	k->wl = xstrdup(wl);
	k->cs = xstrdup(cs);
	k->cg = -1;
	return k;
}

static struct symagg *sym_get(struct kase *k, const char *sym, const char *dso)
{
	struct symagg *a;

	for (int i = 0; i < k->ns; i++)
		if (!strcmp(k->s[i].sym, sym) && !strcmp(k->s[i].dso, dso))
			return &k->s[i];
	if (k->ns == k->caps)
		k->s = xrealloc(k->s, (size_t)(k->caps = k->caps * 2 + 64) * sizeof(*k->s));
	a = &k->s[k->ns++];
	memset(a, 0, sizeof(*a));
	a->sym = xstrdup(sym);
	a->dso = xstrdup(dso);
	return a;
}

/* The committed iterations of one run: "profile\036iteration". */
struct commits {
	char **keys;
	int n, cap;
	struct side *side;
	char label[256];
	bool bad;
};

static void commit_key(char *buf, size_t len, const char *prof, const char *iter)
{
	snprintf(buf, len, "%s\036%s", prof, iter);
}

static bool committed(const struct commits *c, const char *prof, const char *iter)
{
	char key[600];

	commit_key(key, sizeof(key), prof, iter);
	for (int i = c->n - 1; i >= 0; i--)
		if (!strcmp(c->keys[i], key))
			return true;
	return false;
}

static bool parse_double(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end && isfinite(*v);
}

#define F(c) mm_csv_get(in, col.c)

static void iter_row(struct mm_csv_in *in, void *arg)
{
	struct commits *c = arg;
	struct kase *k = kase_get(c->side, F(wl), F(kase));
	int cg = !strcmp(F(cg), "1");
	char key[600];

	if (!c->label[0])
		snprintf(c->label, sizeof(c->label), "%s", F(label));
	if (strcmp(F(status), "ok")) {
		k->n_other++;
		if (!k->why[0])
			snprintf(k->why, sizeof(k->why), "%s: %s", F(status), F(reason));
		return;
	}
	k->n_ok++;
	k->cg = k->cg < 0 ? cg : k->cg != cg ? 2 : cg;
	if (!k->event[0])
		snprintf(k->event, sizeof(k->event), "%s", F(event));
	else if (strcmp(k->event, F(event)))
		snprintf(k->event, sizeof(k->event), "mixed");
	k->freq = atoi(F(freq));
	if (!c->side->event[0])
		snprintf(c->side->event, sizeof(c->side->event), "%s", F(event));
	else if (strcmp(c->side->event, F(event)))
		snprintf(c->side->event, sizeof(c->side->event), "mixed");
	commit_key(key, sizeof(key), F(prof), F(iter));
	if (c->n == c->cap)
		c->keys = xrealloc(c->keys, (size_t)(c->cap = c->cap * 2 + 64) * sizeof(*c->keys));
	c->keys[c->n++] = xstrdup(key);
}

static void prof_row(struct mm_csv_in *in, void *arg)
{
	struct commits *c = arg;
	struct symagg *a;
	struct kase *k;
	double self, child = 0;

	if (!strcmp(F(sym), "[other]") || !committed(c, F(prof), F(iter)))
		return;
	if (!parse_double(F(self), &self) ||
	    (F(child)[0] && !parse_double(F(child), &child))) {
		mm_csv_bad(in, "a share that is not a number");
		return;
	}
	k = kase_get(c->side, F(wl), F(kase));
	a = sym_get(k, F(sym), F(dso));
	a->self += self;
	a->child += child;
	a->present = true;
}

static bool is_run(const char *dir)
{
	static const char *const files[] = { "profile_iterations.csv", "results.csv", "meta.csv",
					     NULL };
	char p[4200];

	for (int i = 0; files[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		if (access(p, F_OK) == 0)
			return true;
	}
	return false;
}

static int by_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

static unsigned int fnv32(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* A run's profile/kernel_functions.fnv32 added to its side's table. */
static void load_functions(struct side *sd, const char *dir)
{
	char p[4300];
	unsigned char b[4];
	size_t u = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/profile/kernel_functions.fnv32", dir);
	f = fopen(p, "re");
	if (!f)
		return;
	while (fread(b, 1, 4, f) == 4) {
		if (sd->nfn % 65536 == 0)
			sd->fn = xrealloc(sd->fn, (sd->nfn + 65536) * sizeof(*sd->fn));
		sd->fn[sd->nfn++] = (unsigned)b[0] | (unsigned)b[1] << 8 | (unsigned)b[2] << 16 |
				    (unsigned)b[3] << 24;
	}
	fclose(f);
	qsort(sd->fn, sd->nfn, sizeof(*sd->fn), by_u32);
	for (size_t i = 0; i < sd->nfn; i++)
		if (i == 0 || sd->fn[i] != sd->fn[i - 1])
			sd->fn[u++] = sd->fn[i];
	sd->nfn = u;
}

/* Does the side's kernel have a function of this name? (unknown: yes) */
static bool has_function(const struct side *sd, const char *sym, const char *dso)
{
	unsigned int h = fnv32(sym);

	if (sd->nfn == 0 || dso[0] != '[' || !strcmp(dso, "[unknown]"))
		return true;
	return bsearch(&h, sd->fn, sd->nfn, sizeof(h), by_u32) != NULL;
}

/* One run into the side of its label (or side `fixed` with --per-arg). */
static int add_run(const char *dir, int fixed)
{
	/* static: what an error leaves behind stays reachable (no leak reports) */
	static struct commits c;
	static struct side tmp;
	char p[4200], label[256];
	int ret, si;

	memset(&c, 0, sizeof(c));
	memset(&tmp, 0, sizeof(tmp));

	mm_meta_get(dir, "label", label, sizeof(label));
	c.side = &tmp;
	snprintf(p, sizeof(p), "%s/profile_iterations.csv", dir);
	ret = read_csv(p, MM_PROFILE_ITER_HEADER, iter_row, &c);
	if (ret < 0)
		return -1;
	if (!label[0])
		snprintf(label, sizeof(label), "%s", c.label[0] ? c.label : dir);
	if (ret == 0) {
		snprintf(p, sizeof(p), "%s/profile.csv", dir);
		if (read_csv(p, MM_PROFILE_HEADER, prof_row, &c) < 0)
			return -1;
	}
	for (int i = 0; i < c.n; i++)
		free(c.keys[i]);
	free(c.keys);
	/* merge tmp into its side */
	si = fixed;
	if (si < 0)
		for (si = 0; si < nsides && strcmp(sides[si].label, label); si++)
			;
	if (si >= MAX_SIDES) {
		fprintf(stderr, "mmprofile: more than %d sides\n", MAX_SIDES);
		return -1;
	}
	if (si == nsides) {
		nsides++;
		snprintf(sides[si].label, sizeof(sides[si].label), "%s", label);
	}
	sides[si].nruns++;
	load_functions(&sides[si], dir);
	if (!sides[si].event[0])
		snprintf(sides[si].event, sizeof(sides[si].event), "%s", tmp.event);
	else if (tmp.event[0] && strcmp(sides[si].event, tmp.event))
		snprintf(sides[si].event, sizeof(sides[si].event), "mixed");
	for (int i = 0; i < tmp.nk; i++) {
		struct kase *from = &tmp.k[i], *to = kase_get(&sides[si], from->wl, from->cs);

		to->n_ok += from->n_ok;
		to->n_other += from->n_other;
		if (!to->why[0])
			snprintf(to->why, sizeof(to->why), "%s", from->why);
		if (from->cg >= 0)
			to->cg = to->cg < 0 ? from->cg : to->cg != from->cg ? 2 : to->cg;
		if (from->event[0])
			snprintf(to->event, sizeof(to->event), "%s", from->event);
		if (from->freq)
			to->freq = from->freq;
		for (int j = 0; j < from->ns; j++) {
			struct symagg *a = sym_get(to, from->s[j].sym, from->s[j].dso);

			a->self += from->s[j].self;
			a->child += from->s[j].child;
			a->present |= from->s[j].present;
			free(from->s[j].sym);
			free(from->s[j].dso);
		}
		free(from->s);
		free(from->wl);
		free(from->cs);
	}
	free(tmp.k);
	return 0;
}

/* An argument: a run directory, a file in one, or a directory of runs. */
static int add_arg(const char *arg, int fixed)
{
	char dir[4200], sub[4400];
	struct dirent **list;
	struct stat st;
	int n, found = 0;

	if (stat(arg, &st) < 0) {
		fprintf(stderr, "mmprofile: %s: %s\n", arg, strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", arg);
	if (!S_ISDIR(st.st_mode)) {
		char *slash = strrchr(dir, '/');

		if (slash)
			*slash = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
	}
	if (is_run(dir))
		return add_run(dir, fixed);
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "mmprofile: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && stat(sub, &st) == 0 && S_ISDIR(st.st_mode) &&
		    is_run(sub)) {
			if (add_run(sub, fixed) < 0)
				return -1;
			found++;
		}
		free(list[i]);
	}
	free(list);
	if (!found) {
		fprintf(stderr, "mmprofile: %s: no run directory in it\n", arg);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ difference */

struct line {
	const char *sym, *dso;
	double base, new, base_self, new_self;
	bool in_base, in_new;
	bool fn_base, fn_new;	/* the function exists in that side's kernel */
	int cat;		/* 0 stopped or started running, 1 both, 2 one kernel only */
};

/* A share that vanished below this (percent) is not "gone", just small. */
#define VANISH_MIN 0.5

static double share(const struct kase *k, const struct symagg *a, bool children)
{
	if (!k || !a || k->n_ok == 0)
		return 0;
	return (children ? a->child : a->self) / k->n_ok;
}

static struct symagg *find_sym(const struct kase *k, const char *sym, const char *dso)
{
	if (!k)
		return NULL;
	for (int i = 0; i < k->ns; i++)
		if (!strcmp(k->s[i].sym, sym) && !strcmp(k->s[i].dso, dso))
			return &k->s[i];
	return NULL;
}

static const struct kase *find_kase(const struct side *s, const char *wl, const char *cs)
{
	for (int i = 0; i < s->nk; i++)
		if (!strcmp(s->k[i].wl, wl) && !strcmp(s->k[i].cs, cs))
			return &s->k[i];
	return NULL;
}

static double bigger(const struct line *l)
{
	return l->base > l->new ? l->base : l->new;
}

/*
 * The order of the difference: first the functions that stopped (gone) or
 * started (new) running though both kernels have them, largest share
 * first; then the symbols of both profiles by the size of the change; last
 * the functions only one kernel has (renamed, inlined, removed), by share.
 */
static int by_order(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	double kx, ky;

	if (x->cat != y->cat)
		return x->cat - y->cat;
	kx = x->cat == 1 ? fabs(x->new - x->base) : bigger(x);
	ky = y->cat == 1 ? fabs(y->new - y->base) : bigger(y);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

static int by_abs_change(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	double dx = fabs(x->new - x->base), dy = fabs(y->new - y->base);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

static int by_base(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return x->base != y->base ? (x->base < y->base ? 1 : -1) : strcmp(x->sym, y->sym);
}

static int by_new(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return x->new != y->new ? (x->new < y->new ? 1 : -1) : strcmp(x->sym, y->sym);
}

static void take(struct line *out, int *no, const struct line *l)
{
	for (int j = 0; j < *no; j++)
		if (out[j].sym == l->sym && out[j].dso == l->dso)
			return;
	out[(*no)++] = *l;
}

/*
 * The lines to show for one case: every function that stopped or started
 * running (share >= VANISH_MIN), each side's top `top` symbols and the
 * `top` largest changes, in by_order(). *nout lines.
 */
static struct line *diff_lines(const struct side *sb, const struct kase *b,
			       const struct side *sn, const struct kase *n, bool children,
			       int top, int *nout)
{
	struct line *all = NULL, *out;
	int na = 0, cap = 0, no = 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct kase *k = pass ? n : b;

		for (int i = 0; k && i < k->ns; i++) {
			const struct symagg *a = &k->s[i], *ob;
			struct line *l;
			bool dup = !strcmp(a->sym, "[unknown]");	/* unresolved: left out */

			for (int j = 0; j < na && !dup; j++)
				dup = !strcmp(all[j].sym, a->sym) && !strcmp(all[j].dso, a->dso);
			if (dup)
				continue;
			if (na == cap)
				all = xrealloc(all, (size_t)(cap = cap * 2 + 64) * sizeof(*all));
			ob = find_sym(pass ? b : n, a->sym, a->dso);
			l = &all[na++];
			*l = (struct line){ .sym = a->sym, .dso = a->dso };
			l->base = share(b, pass ? ob : a, children);
			l->new = share(n, pass ? a : ob, children);
			l->base_self = share(b, pass ? ob : a, false);
			l->new_self = share(n, pass ? a : ob, false);
			l->in_base = pass ? ob && ob->present : a->present;
			l->in_new = pass ? a->present : ob && ob->present;
			l->fn_base = has_function(sb, a->sym, a->dso);
			l->fn_new = has_function(sn, a->sym, a->dso);
			if (!l->fn_base || !l->fn_new)
				l->cat = 2;
			else if ((!l->in_new && l->base >= VANISH_MIN) ||
				 (!l->in_base && l->new >= VANISH_MIN))
				l->cat = 0;
			else
				l->cat = 1;
		}
	}
	out = xrealloc(NULL, (size_t)(na ? na : 1) * sizeof(*out));
	for (int i = 0; i < na; i++)
		if (all[i].cat == 0)
			take(out, &no, &all[i]);
	qsort(all, (size_t)na, sizeof(*all), by_base);
	for (int i = 0; i < na && i < top; i++)
		if (all[i].base > 0)
			take(out, &no, &all[i]);
	qsort(all, (size_t)na, sizeof(*all), by_new);
	for (int i = 0; i < na && i < top; i++)
		if (all[i].new > 0)
			take(out, &no, &all[i]);
	qsort(all, (size_t)na, sizeof(*all), by_abs_change);
	for (int i = 0; i < na && i < top; i++)
		if (all[i].new != all[i].base)
			take(out, &no, &all[i]);
	qsort(out, (size_t)no, sizeof(*out), by_order);
	free(all);
	*nout = no;
	return out;
}

static const char *short_dso(const char *dso)
{
	return !strcmp(dso, "[kernel.kallsyms]") ? "[kernel]" : dso;
}

/*
 * gone/new: no row on NEW/BASE though that kernel has the function (it
 * stopped or started running); base-fn/new-fn: only that side's kernel has
 * a function of this name (renamed, inlined, removed or added).
 */
static const char *mark_of(const struct line *l)
{
	if (!l->fn_new)
		return "base-fn";
	if (!l->fn_base)
		return "new-fn";
	return !l->in_base && l->in_new ? "new" : l->in_base && !l->in_new ? "gone" : "";
}

/* The cases of all sides, in first-seen order. */
struct caseref {
	const char *wl, *cs;
};

static struct caseref *all_cases(int *n)
{
	struct caseref *c = NULL;
	int nc = 0, cap = 0;

	for (int s = 0; s < nsides; s++)
		for (int i = 0; i < sides[s].nk; i++) {
			bool dup = false;

			for (int j = 0; j < nc && !dup; j++)
				dup = !strcmp(c[j].wl, sides[s].k[i].wl) &&
				      !strcmp(c[j].cs, sides[s].k[i].cs);
			if (dup)
				continue;
			if (nc == cap)
				c = xrealloc(c, (size_t)(cap = cap * 2 + 16) * sizeof(*c));
			c[nc++] = (struct caseref){ sides[s].k[i].wl, sides[s].k[i].cs };
		}
	*n = nc;
	return c;
}

static bool both_callgraph(const struct kase *b, const struct kase *n)
{
	return b && n && b->cg == 1 && n->cg == 1;
}

/* "7.02" for a share in percent; "-" for no row at all. */
static void fmt_share(char *buf, size_t len, double v, bool present)
{
	if (!present && v == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
}

static void side_note(FILE *f, const struct side *s, const struct kase *k, const char *pre)
{
	fprintf(f, "%s%s: ", pre, s->label);
	if (!k)
		fprintf(f, "no such case");
	else if (k->n_ok == 0)
		fprintf(f, "not profiled (%s)", k->why[0] ? k->why : "no profile_iterations.csv row");
	else
		fprintf(f, "%d iteration(s), %s %d Hz%s%s%s", k->n_ok, k->event, k->freq,
			k->cg == 1 ? ", call graphs" : k->cg == 2 ? ", call graphs in some" : "",
			k->n_other ? "; not profiled in others: " : "", k->n_other ? k->why : "");
}

static void cut(char *buf, size_t len, const char *s, size_t max)
{
	if (strlen(s) <= max)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%.*s...", (int)(max - 3), s);
}

static void print_text(const struct opts *o)
{
	int nc;
	struct caseref *c = all_cases(&nc);

	printf("Kernel profiles (perf, measured phases): each symbol's share of the non-idle samples,\n"
	       "mean over the profiled iterations; shown, not judged. First the functions that stopped\n"
	       "(gone) or started (new) running though both kernels have them, then the largest changes,\n"
	       "then functions only one kernel has (base-fn, new-fn: renamed, inlined, removed).\n"
	       "Unresolved symbols ([unknown]) are left out.\n");
	for (int s = 1; s < nsides; s++)
		if (sides[0].event[0] && sides[s].event[0] && strcmp(sides[0].event, sides[s].event))
			printf("warning: %s sampled %s, %s sampled %s: shares of different events\n",
			       sides[0].label, sides[0].event, sides[s].label, sides[s].event);
	for (int i = 0; i < nc; i++) {
		const struct kase *b = find_kase(&sides[0], c[i].wl, c[i].cs);

		printf("\n%s  [%s]\n", c[i].wl, c[i].cs);
		side_note(stdout, &sides[0], b, "  ");
		putchar('\n');
		for (int s = 1; s < nsides; s++) {
			const struct kase *n = find_kase(&sides[s], c[i].wl, c[i].cs);
			bool ch = both_callgraph(b, n);
			struct line *l;
			int nl;

			side_note(stdout, &sides[s], n, "  ");
			putchar('\n');
			if (!b || !n || !b->n_ok || !n->n_ok)
				continue;
			l = diff_lines(&sides[0], b, &sides[s], n, ch, o->top, &nl);
			printf("    %s share, %%%s\n", ch ? "children" : "self",
			       ch ? " (self share in brackets)" : "");
			printf("    %16.16s %16.16s %9s  %-7s %s\n", sides[0].label, sides[s].label,
			       "change", "", "symbol dso");
			for (int j = 0; j < nl; j++) {
				char vb[48], vn[48], sb[24], sn[24], sym[80], dso[48];

				fmt_share(vb, sizeof(vb), l[j].base, l[j].in_base);
				fmt_share(vn, sizeof(vn), l[j].new, l[j].in_new);
				if (ch) {
					fmt_share(sb, sizeof(sb), l[j].base_self, l[j].in_base);
					fmt_share(sn, sizeof(sn), l[j].new_self, l[j].in_new);
					snprintf(vb + strlen(vb), sizeof(vb) - strlen(vb), " (%s)", sb);
					snprintf(vn + strlen(vn), sizeof(vn) - strlen(vn), " (%s)", sn);
				}
				cut(sym, sizeof(sym), l[j].sym, 60);
				cut(dso, sizeof(dso), short_dso(l[j].dso), 40);
				printf("    %16s %16s %+9.2f  %-7s %s %s%s%s\n", vb, vn, l[j].new - l[j].base,
				       mark_of(&l[j]), sym, dso[0] == '[' ? "" : "(", dso,
				       dso[0] == '[' ? "" : ")");
			}
			free(l);
		}
	}
	free(c);
}

/* Input text in markdown: the gnuplot filter, then table-breaking characters. */
static void md_text(FILE *f, const char *s)
{
	char buf[GP_TEXT_MAX + 1];

	gp_clean(buf, sizeof(buf), s);
	for (const char *p = buf; *p; p++)
		fputs(*p == '[' ? "(" : *p == ']' ? ")" : *p == '<' ? "&lt;" :
		      *p == '>' ? "&gt;" : *p == '|' ? "/" : *p == '*' ? "\\*" :
		      *p == '_' ? "\\_" : (char[2]){ *p, 0 }, f);
}

/* A TSV field: tabs and line breaks as spaces. */
static void tsv(const char *s)
{
	for (; *s; s++)
		putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/*
 * --summary: one line per case and NEW side, for a comparison's verdict
 * view: "workload<TAB>case<TAB>new label<TAB>text", the text the first
 * three lines of the difference ("profile (children %): lru_add_drain
 * 3.96 -> gone; ..."), or why there is none.
 */
static void print_summary(void)
{
	int nc;
	struct caseref *c = all_cases(&nc);

	printf("workload\tcase\tlabel\tprofile\n");
	for (int i = 0; i < nc; i++) {
		const struct kase *b = find_kase(&sides[0], c[i].wl, c[i].cs);

		for (int s = 1; s < nsides; s++) {
			const struct kase *n = find_kase(&sides[s], c[i].wl, c[i].cs);
			bool ch = both_callgraph(b, n);
			struct line *l;
			int nl;

			tsv(c[i].wl);
			putchar('\t');
			tsv(c[i].cs);
			putchar('\t');
			tsv(sides[s].label);
			putchar('\t');
			if (!b || !n || !b->n_ok || !n->n_ok) {
				printf("profile: none on %s\n", !b || !b->n_ok ? "BASE" : "this side");
				continue;
			}
			l = diff_lines(&sides[0], b, &sides[s], n, ch, 10, &nl);
			printf("profile (%s %%):", ch ? "children" : "self");
			for (int j = 0; j < nl && j < 3; j++) {
				char vb[32], vn[32];

				fmt_share(vb, sizeof(vb), l[j].base, l[j].in_base);
				fmt_share(vn, sizeof(vn), l[j].new, l[j].in_new);
				printf("%s ", j ? ";" : "");
				tsv(l[j].sym);
				printf(" %s -> %s%s%s", vb, vn, *mark_of(&l[j]) ? " " : "", mark_of(&l[j]));
			}
			putchar('\n');
			free(l);
		}
	}
	free(c);
}

static void print_markdown(const struct opts *o, bool chart)
{
	int nc;
	struct caseref *c = all_cases(&nc);

	printf("<!-- mmprofile:profiles -->\n## Kernel profiles\n\n"
	       "perf samples of the measured phases (`--profile`): each symbol's share of the\n"
	       "non-idle samples, mean over the profiled iterations. Shown, not judged. First\n"
	       "the functions that stopped (**gone**) or started (**new**) running though both\n"
	       "kernels have them, then the largest changes, then the functions only one kernel\n"
	       "has (**base-fn**, **new-fn**: renamed, inlined or removed).\n\n");
	if (chart)
		printf("![shares of the largest profile changes](%sprofile.png)\n\n[SVG](%sprofile.svg) · "
		       "[gnuplot script](%sprofile.gp) · [data](%sprofile.dat)\n\n", o->prefix, o->prefix,
		       o->prefix, o->prefix);
	for (int i = 0; i < nc; i++) {
		const struct kase *b = find_kase(&sides[0], c[i].wl, c[i].cs);

		printf("### ");
		md_text(stdout, c[i].wl);
		printf(" [");
		md_text(stdout, c[i].cs);
		printf("]\n\n");
		for (int s = 0; s < nsides; s++) {
			char note[1200];
			FILE *m = fmemopen(note, sizeof(note), "w");

			if (!m)
				continue;
			side_note(m, &sides[s], find_kase(&sides[s], c[i].wl, c[i].cs), "");
			fclose(m);
			printf("- ");
			md_text(stdout, note);
			printf("\n");
		}
		printf("\n");
		for (int s = 1; s < nsides; s++) {
			const struct kase *n = find_kase(&sides[s], c[i].wl, c[i].cs);
			bool ch = both_callgraph(b, n);
			struct line *l;
			int nl;

			if (!b || !n || !b->n_ok || !n->n_ok)
				continue;
			l = diff_lines(&sides[0], b, &sides[s], n, ch, o->top, &nl);
			printf("| symbol | dso | ");
			md_text(stdout, sides[0].label);
			printf(" %% | ");
			md_text(stdout, sides[s].label);
			printf(" %% | change (pts) | |\n|---|---|--:|--:|--:|---|\n");
			for (int j = 0; j < nl; j++) {
				char vb[48], vn[48], sb[24], sn[24];

				fmt_share(vb, sizeof(vb), l[j].base, l[j].in_base);
				fmt_share(vn, sizeof(vn), l[j].new, l[j].in_new);
				if (ch) {
					fmt_share(sb, sizeof(sb), l[j].base_self, l[j].in_base);
					fmt_share(sn, sizeof(sn), l[j].new_self, l[j].in_new);
					snprintf(vb + strlen(vb), sizeof(vb) - strlen(vb), " (self %s)", sb);
					snprintf(vn + strlen(vn), sizeof(vn) - strlen(vn), " (self %s)", sn);
				}
				printf("| ");
				md_text(stdout, l[j].sym);
				printf(" | ");
				md_text(stdout, short_dso(l[j].dso));
				printf(" | %s | %s | %+.2f | %s |\n", vb, vn, l[j].new - l[j].base,
				       mark_of(&l[j]));
			}
			printf("\n%s share.\n\n", ch ? "Children (the symbol and its callees)" : "Self");
			free(l);
		}
	}
	free(c);
}

/* ------------------------------------------------------------ chart */

static int find_gnuplot(const struct opts *o, char *out, size_t len)
{
	const char *path = getenv("PATH"), *env = getenv("MMPLOT_GNUPLOT");

	if (o->gnuplot || (env && *env)) {
		snprintf(out, len, "%s", o->gnuplot ? o->gnuplot : env);
		return access(out, X_OK);
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *colon = strchr(p, ':');
		int l = colon ? (int)(colon - p) : (int)strlen(p);

		snprintf(out, len, "%.*s/gnuplot", l, p);
		if (l > 0 && access(out, X_OK) == 0)
			return 0;
		p = colon ? colon + 1 : NULL;
	}
	return -1;
}

/* Is kv one of the ';'-separated elements of the case string cs? */
static bool has_kv(const char *cs, const char *kv)
{
	size_t l = strlen(kv);

	for (const char *p = cs; p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
		if (!strncmp(p, kv, l) && (p[l] == ';' || p[l] == '\0'))
			return true;
	return false;
}

/*
 * A case's short name for a panel: the key=value pairs of its case string
 * that differ between the cases shown (all of it, cut, when one case).
 */
static void case_short(char *buf, size_t len, const struct caseref *c, int nc, int i)
{
	char *dup = xstrdup(c[i].cs), *save = NULL;
	size_t off = 0;

	buf[0] = '\0';
	for (char *kv = strtok_r(dup, ";", &save); kv && nc > 1; kv = strtok_r(NULL, ";", &save)) {
		bool varies = false;

		for (int j = 0; j < nc && !varies; j++)
			varies = !has_kv(c[j].cs, kv);
		if (varies && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ";" : "", kv);
	}
	if (!buf[0])
		snprintf(buf, len, "%.60s%s", c[i].cs, strlen(c[i].cs) > 60 ? "..." : "");
	free(dup);
}

/*
 * DIR/profile.{gp,dat}, then gnuplot: one panel per case (up to six) with
 * the bars of its largest changes, a bar per side. 0, or -1 (said why).
 */
static int plot(const struct opts *o)
{
	char path[4200], gnuplot[4096], log[4200];
	int nc, panels = 0, cols, rows, st = 0;
	struct caseref *c = all_cases(&nc);
	FILE *gp, *dat;
	pid_t pid;

	mkdir(o->plot_dir, 0755);
	snprintf(path, sizeof(path), "%s/profile.dat", o->plot_dir);
	dat = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/profile.gp", o->plot_dir);
	gp = dat ? fopen(path, "w") : NULL;
	if (!gp) {
		fprintf(stderr, "mmprofile: %s: %s\n", path, strerror(errno));
		if (dat)
			fclose(dat);
		free(c);
		return -1;
	}
	for (int i = 0; i < nc && panels < PANELS_MAX; i++) {
		const struct kase *b = find_kase(&sides[0], c[i].wl, c[i].cs);
		const struct kase *n = nsides > 1 ? find_kase(&sides[1], c[i].wl, c[i].cs) : NULL;
		bool ch = both_callgraph(b, n);
		struct line *l;
		int nl;

		if (!b || !n || !b->n_ok || !n->n_ok)
			continue;
		l = diff_lines(&sides[0], b, &sides[1], n, ch, BARS_PER_PANEL, &nl);
		fprintf(dat, "# panel %d: ", panels);
		gp_put(dat, c[i].wl, GP_TEXT_MAX);
		fputc('\n', dat);
		for (int j = 0; j < nl && j < BARS_PER_PANEL; j++) {
			gp_datstr(dat, l[j].sym);
			for (int s = 0; s < nsides; s++) {
				const struct kase *k = find_kase(&sides[s], c[i].wl, c[i].cs);

				fprintf(dat, " %.4f", share(k, find_sym(k, l[j].sym, l[j].dso), ch));
			}
			fputc('\n', dat);
		}
		fprintf(dat, "\n\n");
		panels++;
		free(l);
	}
	fclose(dat);
	if (panels == 0) {
		fclose(gp);
		free(c);
		fprintf(stderr, "mmprofile: no case with a profile on BASE and NEW: no chart\n");
		return -1;
	}
	cols = panels == 1 ? 1 : 2;
	rows = (panels + cols - 1) / cols;
	fprintf(gp, "# mmprofile: the largest profile changes per case\n"
		"# data: profile.dat; redraw: gnuplot profile.gp\n"
		"# text from the inputs is filtered (tools/mmcompare/gptext.h)\n"
		"reset\nset style data histograms\nset style histogram clustered gap 1\n"
		"set style fill solid 0.8 border -1\nset grid ytics\nset ylabel 'share of samples, %%'\n"
		"set xtics rotate by -35 left font ',8'\nset key top right\nset yrange [0:*]\n"
		"do for [fmt in 'png svg'] {\nif (fmt eq 'png') {\n"
		"  set terminal pngcairo size %d,%d noenhanced font 'sans,9'\n} else {\n"
		"  set terminal svg size %d,%d dynamic noenhanced font 'sans,9'\n}\n"
		"set output 'profile.'.fmt\nset multiplot layout %d,%d title "
		"'Kernel profiles: share of the largest changes (shown, not judged)'\n",
		cols * 640, rows * 460, cols * 640, rows * 460, rows, cols);
	for (int i = 0, p = 0; i < nc && p < panels; i++) {
		const struct kase *b = find_kase(&sides[0], c[i].wl, c[i].cs);
		const struct kase *n = nsides > 1 ? find_kase(&sides[1], c[i].wl, c[i].cs) : NULL;
		char title[700];

		if (!b || !n || !b->n_ok || !n->n_ok)
			continue;
		char cshort[300];

		case_short(cshort, sizeof(cshort), c, nc, i);
		snprintf(title, sizeof(title), "%s [%s] (%s share)", c[i].wl, cshort,
			 both_callgraph(b, n) ? "children" : "self");
		fprintf(gp, "set title ");
		gp_textn(gp, title, 110);
		fprintf(gp, "\nplot ");
		for (int s = 0; s < nsides; s++) {
			fprintf(gp, "%s'profile.dat' index %d using %d%s title ", s ? ", " : "", p, s + 2,
				s == 0 ? ":xtic(1)" : "");
			gp_textn(gp, sides[s].label, 60);
		}
		fputc('\n', gp);
		p++;
	}
	fprintf(gp, "unset multiplot\n}\n");
	fclose(gp);
	free(c);
	if (find_gnuplot(o, gnuplot, sizeof(gnuplot)) < 0) {
		fprintf(stderr, "mmprofile: gnuplot not found (package gnuplot-nox): no chart\n");
		return -1;
	}
	snprintf(log, sizeof(log), "%s/profile-gnuplot.log", o->plot_dir);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { gnuplot, "profile.gp", NULL };

		if (!freopen(log, "w", stderr) || chdir(o->plot_dir))
			_exit(127);
		execv(gnuplot, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "mmprofile: gnuplot failed, see %s\n", log);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/profile.png", o->plot_dir);
	if (access(path, R_OK) < 0) {
		fprintf(stderr, "mmprofile: gnuplot wrote no %s\n", path);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ unpack */

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* One profile.NAME.b64 into profile/NAME; 0, or -1 with the reason printed. */
static int unpack_one(const char *dir, const char *b64name)
{
	char in[4400], out[4400], tmp[4500], name[300], pdir[4300], *line = NULL;
	unsigned long h = 14695981039346656037ul, want_h = 0;
	unsigned long long total = 0, want_n = 0;
	size_t cap = 0;
	bool ended = false, bad = false;
	FILE *fi, *fo;
	ssize_t n;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(b64name) - 12), b64name + 8);
	if (!name[0] || name[0] == '.' || strchr(name, '/')) {
		fprintf(stderr, "mmprofile: %s: not a raw data name\n", b64name);
		return -1;
	}
	snprintf(in, sizeof(in), "%s/%s", dir, b64name);
	snprintf(pdir, sizeof(pdir), "%s/profile", dir);
	snprintf(out, sizeof(out), "%s/%s", pdir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.unpack.tmp", pdir, name);
	if (mkdir(pdir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "mmprofile: %s: %s\n", pdir, strerror(errno));
		return -1;
	}
	fi = fopen(in, "re");
	fo = fi ? fopen(tmp, "we") : NULL;
	if (!fo) {
		fprintf(stderr, "mmprofile: %s: %s\n", fi ? tmp : in, strerror(errno));
		if (fi)
			fclose(fi);
		return -1;
	}
	while (!bad && (n = getline(&line, &cap, fi)) > 0) {
		unsigned v = 0;
		int k = 0, pad = 0;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (ended) {
			bad = true;	/* nothing may follow the end line */
			break;
		}
		if (!strncmp(line, "=end ", 5)) {
			ended = sscanf(line + 5, "%llu %lx", &want_n, &want_h) == 2;
			bad = !ended;
			continue;
		}
		for (ssize_t i = 0; i < n && !bad; i++) {
			int d = line[i] == '=' ? 0 : b64val((unsigned char)line[i]);

			if (d < 0 || (pad && line[i] != '=')) {
				bad = true;
				break;
			}
			pad += line[i] == '=';
			v = v << 6 | (unsigned)d;
			if (++k == 4) {
				unsigned char b[3] = { v >> 16 & 255, v >> 8 & 255, v & 255 };
				int nb = 3 - pad;

				for (int j = 0; j < nb; j++)
					h = (h ^ b[j]) * 1099511628211ul;
				if (fwrite(b, 1, (size_t)nb, fo) != (size_t)nb)
					bad = true;
				total += (unsigned long long)nb;
				k = 0;
				v = 0;
			}
		}
		bad |= k != 0;
	}
	free(line);
	fclose(fi);
	if (fflush(fo) || fsync(fileno(fo)))
		bad = true;
	fclose(fo);
	if (bad || !ended || total != want_n || h != want_h) {
		fprintf(stderr, "mmprofile: %s: %s", in,
			!ended ? "no end line (the guest died while sending it?)" :
			bad ? "not base64" : "size or hash do not match what the guest sent");
		if (ended && !bad)
			fprintf(stderr, " (%llu bytes, hash %016lx; sent: %llu, %016lx)", total, h,
				want_n, want_h);
		fprintf(stderr, "; not unpacked\n");
		unlink(tmp);
		unlink(in);
		return -1;
	}
	if (rename(tmp, out) < 0) {
		fprintf(stderr, "mmprofile: %s: %s\n", out, strerror(errno));
		unlink(tmp);
		return -1;
	}
	unlink(in);
	printf("mmprofile: unpacked %s (%llu bytes)\n", out, total);
	return 0;
}

static int unpack(const char *dir)
{
	struct dirent *de;
	int fails = 0;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "mmprofile: %s: %s\n", dir, strerror(errno));
		return EXIT_USAGE;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 12 && !strncmp(de->d_name, "profile.", 8) &&
		    !strcmp(de->d_name + l - 4, ".b64"))
			fails += unpack_one(dir, de->d_name) < 0;
	}
	closedir(d);
	return fails ? EXIT_FAIL : 0;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmprofile [options] BASE NEW [NEW2...]\n"
		"       mmprofile --unpack RUN_DIR\n"
		"  BASE, NEW: a run directory, a file in one, or a directory of runs\n"
		"  --per-arg        one side per argument (default: one per label)\n"
		"  --markdown       markdown (the report's section) instead of text\n"
		"  --top N          symbols per side and largest changes shown (default 10)\n"
		"  --plot DIR       draw DIR/profile.png and .svg (gnuplot) and link it\n"
		"  --gnuplot PATH   the gnuplot to run (default $MMPLOT_GNUPLOT, or PATH)\n"
		"  --link-prefix P  prefix of the chart's links in --markdown\n"
		"  --summary        TSV, one line per case and NEW side: the first three\n"
		"                   lines of the difference (for a verdict view)\n"
		"  --alpha A, --force  accepted and ignored (shares are not judged)\n"
		"exit: 0 ok, 1 failure (gnuplot, unpack), 2 usage or bad input\n");
}

int main(int argc, char **argv)
{
	struct opts o = { .top = 10, .prefix = "" };
	static const struct option lo[] = {
		{ "per-arg", no_argument, NULL, 'a' }, { "markdown", no_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 't' }, { "plot", required_argument, NULL, 'p' },
		{ "gnuplot", required_argument, NULL, 'g' }, { "unpack", required_argument, NULL, 'u' },
		{ "alpha", required_argument, NULL, 'A' }, { "force", no_argument, NULL, 'f' },
		{ "link-prefix", required_argument, NULL, 'l' },
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	find_cols();
	char *end;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'a': o.per_arg = true; break;
		case 'm': o.markdown = true; break;
		case 'p': o.plot_dir = optarg; break;
		case 'g': o.gnuplot = optarg; break;
		case 'l': o.prefix = optarg; break;
		case 's': o.summary = true; break;
		case 'A': case 'f': break;
		case 'u': return unpack(optarg);
		case 't':
			o.top = (int)strtol(optarg, &end, 10);
			if (*end || o.top < 1 || o.top > 1000) {
				fprintf(stderr, "mmprofile: --top '%s': a number in [1, 1000]\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++)
		if (add_arg(argv[i], o.per_arg ? i - optind : -1) < 0)
			return EXIT_USAGE;
	if (nsides < 2) {
		fprintf(stderr, "mmprofile: one label only (%s): give runs of two labels, or --per-arg\n",
			sides[0].label);
		return EXIT_USAGE;
	}
	if (o.plot_dir && plot(&o) < 0)
		rc = EXIT_FAIL;
	if (o.summary)
		print_summary();
	else if (o.markdown)
		print_markdown(&o, o.plot_dir && rc == 0);
	else
		print_text(&o);
	return fflush(stdout) ? EXIT_FAIL : rc;
}
