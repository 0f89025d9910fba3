// SPDX-License-Identifier: GPL-2.0
/*
 * profdiff: the kernel profiles of runs, pooled per side, and their
 * difference per case (profdiff.h). mmprofile prints all of it;
 * mmcompare's text views print the summary.
 *
 * Per case and side, a symbol's share is the mean over the profiled
 * iterations of its share of the window's non-idle samples (an iteration
 * without a row for it counts 0). The difference lists, per case and NEW
 * side: first the functions the claim names and their callees ("focus":
 * meta.csv's note_profile_focus), then the functions that stopped
 * ("gone": no row on NEW) or
 * started ("new") running although both kernels have a function of that
 * name, then the union of each side's top symbols and the largest changes
 * by the size of the change, last the functions only one kernel has
 * ("base-fn", "new-fn": renamed, inlined, removed). With call graphs on
 * both sides the shares are children shares, else self shares.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "numbers.h"
#include "csvio.h"
#include "profdiff.h"
#include "results.h"

/* Out of memory is no input's fault: the program stops, as it would. */
static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		exit(1);
	}
	return d;
}

void pd_init(struct pd_set *p, const char *prog)
{
	const char *h = MM_PROFILE_HEADER, *it = MM_PROFILE_ITER_HEADER;

	memset(p, 0, sizeof(*p));
	p->prog = prog;
	p->col.label = mm_schema_col(h, "label");
	p->col.wl = mm_schema_col(h, "workload");
	p->col.kase = mm_schema_col(h, "case");
	p->col.prof = mm_schema_col(h, "profile");
	p->col.iter = mm_schema_col(h, "iteration");
	p->col.event = mm_schema_col(h, "event");
	p->col.sym = mm_schema_col(h, "symbol");
	p->col.dso = mm_schema_col(h, "dso");
	p->col.self = mm_schema_col(h, "self_pct");
	p->col.child = mm_schema_col(h, "children_pct");
	p->col.freq = mm_schema_col(it, "freq_hz");
	p->col.cg = mm_schema_col(it, "callgraph");
	p->col.status = mm_schema_col(it, "status");
	p->col.reason = mm_schema_col(it, "reason");
}

/* A side's cases and symbols (not its function hashes). */
static void free_cases(struct pd_side *s)
{
	for (int i = 0; i < s->nk; i++) {
		for (int j = 0; j < s->k[i].ns; j++) {
			free(s->k[i].s[j].sym);
			free(s->k[i].s[j].dso);
		}
		for (int j = 0; j < s->k[i].nfocus; j++)
			free(s->k[i].focus[j]);
		free(s->k[i].focus);
		free(s->k[i].s);
		free(s->k[i].wl);
		free(s->k[i].cs);
	}
	free(s->k);
	s->k = NULL;
	s->nk = s->capk = 0;
}

void pd_free(struct pd_set *p)
{
	for (int i = 0; i < p->nsides; i++) {
		free_cases(&p->sides[i]);
		free(p->sides[i].fn);
	}
	p->nsides = 0;
}

/* ------------------------------------------------------------ CSV reading */

/*
 * Read a CSV file by the core's reader (strict libcsv, the header of the
 * schema, every row its field count). 0, 1 when absent, -1 with p->err
 * set. A last line without its newline is a torn write: left out, and
 * said (on stderr, by the reader).
 */
static int read_csv(struct pd_set *p, const char *path, const char *header,
		    void (*row)(struct mm_csv_in *, void *), void *arg)
{
	struct mm_csv_in in = {
		.prog = p->prog, .header = header, .max_field = PD_FIELD_MAX - 1,
		.row = row, .arg = arg, .printable = true,
	};
	int ret = mm_csv_read(&in, NULL, path);

	mm_csv_free(&in);
	if (ret == -ENOENT)
		return 1;
	if (ret < 0) {
		snprintf(p->err, sizeof(p->err), "%s: %s", path, strerror(-ret));
		return -1;
	}
	if (ret) {
		snprintf(p->err, sizeof(p->err), "%s:%ld: %s", in.path, in.err_line, in.err);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ aggregation */

static struct pd_case *case_get(struct pd_side *s, const char *wl, const char *cs)
{
	struct pd_case *k;

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

static struct pd_sym *sym_get(struct pd_case *k, const char *sym, const char *dso)
{
	struct pd_sym *a;

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
	const struct pd_cols *col;
	char **keys;
	int n, cap;
	struct pd_side *side;
	char label[256];
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
	return !mm_parse_real(s, v);
}

#define F(c) mm_csv_get(in, cm->col->c)

static void iter_row(struct mm_csv_in *in, void *arg)
{
	struct commits *cm = arg;
	struct pd_case *k = case_get(cm->side, F(wl), F(kase));
	int cg = !strcmp(F(cg), "1");
	char key[600];

	if (!cm->label[0])
		snprintf(cm->label, sizeof(cm->label), "%s", F(label));
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
	if (!cm->side->event[0])
		snprintf(cm->side->event, sizeof(cm->side->event), "%s", F(event));
	else if (strcmp(cm->side->event, F(event)))
		snprintf(cm->side->event, sizeof(cm->side->event), "mixed");
	commit_key(key, sizeof(key), F(prof), F(iter));
	if (cm->n == cm->cap)
		cm->keys = xrealloc(cm->keys, (size_t)(cm->cap = cm->cap * 2 + 64) *
				    sizeof(*cm->keys));
	cm->keys[cm->n++] = xstrdup(key);
}

static void prof_row(struct mm_csv_in *in, void *arg)
{
	struct commits *cm = arg;
	struct pd_sym *a;
	struct pd_case *k;
	double self, child = 0;

	if (!strcmp(F(sym), "[other]") || !committed(cm, F(prof), F(iter)))
		return;
	if (!parse_double(F(self), &self) ||
	    (F(child)[0] && !parse_double(F(child), &child))) {
		mm_csv_bad(in, "a share that is not a number");
		return;
	}
	k = case_get(cm->side, F(wl), F(kase));
	a = sym_get(k, F(sym), F(dso));
	a->self += self;
	a->child += child;
	a->present = true;
}

/* A focus function of the case, once. */
static void add_focus(struct pd_case *k, const char *fn)
{
	for (int i = 0; i < k->nfocus; i++)
		if (!strcmp(k->focus[i], fn))
			return;
	if (k->nfocus % 8 == 0)
		k->focus = xrealloc(k->focus, (size_t)(k->nfocus + 8) * sizeof(*k->focus));
	k->focus[k->nfocus++] = xstrdup(fn);
}

#undef F

/* A comma list of 1-127 characters long names of A-Z a-z 0-9 _ . */
static bool names_ok(const char *s)
{
	size_t len = 0;

	for (;; s++) {
		if (*s == ',' || !*s) {
			if (len == 0 || len > 127)
				return false;
			if (!*s)
				return true;
			len = 0;
		} else if (isalnum((unsigned char)*s) || *s == '_' || *s == '.') {
			len++;
		} else {
			return false;
		}
	}
}

/*
 * meta.csv's note_profile_focus rows, "WORKLOAD: FUNC,FUNC": the functions
 * the posting names (--probe's and the workload's default probes), for
 * every profiled case of that workload; note_profile_probes, the same
 * form: the functions kprobes were armed on while perf sampled.
 */
static void focus_row(struct mm_csv_in *in, void *arg)
{
	struct commits *cm = arg;
	const char *v = mm_csv_get(in, 1), *colon = strstr(v, ": ");
	bool armed = !strcmp(mm_csv_get(in, 0), "note_profile_probes");
	char fn[128];

	if (!armed && strcmp(mm_csv_get(in, 0), "note_profile_focus"))
		return;
	if (!colon || !names_ok(colon + 2)) {
		mm_csv_bad(in, "%s is not \"WORKLOAD: FUNC,FUNC\" (kernel function names)",
			   mm_csv_get(in, 0));
		return;
	}
	for (int i = 0; i < cm->side->nk; i++) {
		struct pd_case *k = &cm->side->k[i];

		if (strlen(k->wl) != (size_t)(colon - v) || strncmp(k->wl, v, (size_t)(colon - v)))
			continue;
		if (armed) {
			snprintf(k->armed, sizeof(k->armed), "%s", colon + 2);
			continue;
		}
		for (const char *f = colon + 2; *f;) {
			size_t len = strcspn(f, ",");

			if (len && len < sizeof(fn)) {
				memcpy(fn, f, len);
				fn[len] = '\0';
				add_focus(k, fn);
			}
			f += len + (f[len] == ',');
		}
	}
}

static bool any_file(const char *dir, const char *const *files)
{
	char p[4200];

	for (int i = 0; files[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		if (access(p, F_OK) == 0)
			return true;
	}
	return false;
}

bool pd_is_run(const char *dir)
{
	static const char *const files[] = { "profile_iterations.csv", "results.csv", "meta.csv",
					     NULL };

	return any_file(dir, files);
}

bool pd_has_profile(const char *dir)
{
	static const char *const files[] = { "profile_iterations.csv", "profile.csv", NULL };

	return any_file(dir, files);
}

static int by_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* A run's profile/kernel_functions.fnv32 added to its side's table. */
static void load_functions(struct pd_side *sd, const char *dir)
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
static bool has_function(const struct pd_side *sd, const char *sym, const char *dso)
{
	unsigned int h = mm_fnv32(sym);

	if (sd->nfn == 0 || dso[0] != '[' || !strcmp(dso, "[unknown]"))
		return true;
	return bsearch(&h, sd->fn, sd->nfn, sizeof(h), by_u32) != NULL;
}

int pd_side_add(struct pd_set *p, const char *label)
{
	struct pd_side *s;

	if (p->nsides >= PD_MAX_SIDES) {
		snprintf(p->err, sizeof(p->err), "more than %d sides", PD_MAX_SIDES);
		return -1;
	}
	s = &p->sides[p->nsides];
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	return p->nsides++;
}

/* The run read alone (tmp) into its side. */
static void merge(struct pd_side *sd, const struct pd_side *tmp)
{
	if (!sd->event[0])
		snprintf(sd->event, sizeof(sd->event), "%s", tmp->event);
	else if (tmp->event[0] && strcmp(sd->event, tmp->event))
		snprintf(sd->event, sizeof(sd->event), "mixed");
	for (int i = 0; i < tmp->nk; i++) {
		const struct pd_case *from = &tmp->k[i];
		struct pd_case *to = case_get(sd, from->wl, from->cs);

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
		for (int j = 0; j < from->nfocus; j++)
			add_focus(to, from->focus[j]);
		if (from->armed[0])
			snprintf(to->armed, sizeof(to->armed), "%s", from->armed);
		for (int j = 0; j < from->ns; j++) {
			struct pd_sym *a = sym_get(to, from->s[j].sym, from->s[j].dso);

			a->self += from->s[j].self;
			a->child += from->s[j].child;
			a->present |= from->s[j].present;
		}
	}
}

int pd_add_run(struct pd_set *p, const char *dir, int side)
{
	struct commits c = { .col = &p->col };
	struct pd_side tmp = { .label = "" };
	char path[4200], label[256];
	int ret, si;

	mm_meta_get(dir, "label", label, sizeof(label));
	c.side = &tmp;
	snprintf(path, sizeof(path), "%s/profile_iterations.csv", dir);
	ret = read_csv(p, path, MM_PROFILE_ITER_HEADER, iter_row, &c);
	if (ret == 0) {
		snprintf(path, sizeof(path), "%s/profile.csv", dir);
		if (read_csv(p, path, MM_PROFILE_HEADER, prof_row, &c) < 0)
			ret = -1;
	}
	if (ret == 0) {
		snprintf(path, sizeof(path), "%s/meta.csv", dir);
		if (read_csv(p, path, MM_META_HEADER, focus_row, &c) < 0)
			ret = -1;
	}
	for (int i = 0; i < c.n; i++)
		free(c.keys[i]);
	free(c.keys);
	if (ret < 0)
		goto out;
	if (!label[0])
		snprintf(label, sizeof(label), "%s", c.label[0] ? c.label : dir);
	si = side;
	if (si < 0)
		for (si = 0; si < p->nsides && strcmp(p->sides[si].label, label); si++)
			;
	if (si >= PD_MAX_SIDES) {
		snprintf(p->err, sizeof(p->err), "more than %d sides", PD_MAX_SIDES);
		ret = -1;
		goto out;
	}
	if (si > p->nsides) {	/* a caller's bug: sides are made in order */
		snprintf(p->err, sizeof(p->err), "side %d of %d: not the next one", si,
			 p->nsides);
		ret = -1;
		goto out;
	}
	if (si == p->nsides)
		pd_side_add(p, label);
	p->sides[si].nruns++;
	load_functions(&p->sides[si], dir);
	merge(&p->sides[si], &tmp);
	ret = 0;
out:
	free_cases(&tmp);
	return ret;
}

int pd_add_arg(struct pd_set *p, const char *arg, int side)
{
	char dir[4200], sub[4400];
	struct dirent **list;
	struct stat st;
	int n, found = 0, ret = 0;

	if (stat(arg, &st) < 0) {
		snprintf(p->err, sizeof(p->err), "%s: %s", arg, strerror(errno));
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
	if (pd_is_run(dir))
		return pd_add_run(p, dir, side);
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		snprintf(p->err, sizeof(p->err), "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, list[i]->d_name);
		if (!ret && list[i]->d_name[0] != '.' && stat(sub, &st) == 0 &&
		    S_ISDIR(st.st_mode) && pd_is_run(sub)) {
			ret = pd_add_run(p, sub, side);
			found++;
		}
		free(list[i]);
	}
	free(list);
	if (ret < 0)
		return -1;
	if (!found) {
		snprintf(p->err, sizeof(p->err), "%s: no run directory in it", arg);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ difference */

double pd_share(const struct pd_case *k, const struct pd_sym *a, bool children)
{
	if (!k || !a || k->n_ok == 0)
		return 0;
	return (children ? a->child : a->self) / k->n_ok;
}

const struct pd_sym *pd_irq_point(const struct pd_case *k, double *share)
{
	const struct pd_sym *best = NULL;

	*share = 0;
	if (!k || !k->n_ok || !mm_soft_clock(k->event))
		return NULL;
	for (int i = 0; i < k->ns; i++) {
		double v = pd_share(k, &k->s[i], false);

		if (v > *share && mm_irq_on_point(k->s[i].sym)) {
			*share = v;
			best = &k->s[i];
		}
	}
	return *share >= MM_IRQ_POINT_PCT ? best : NULL;
}

/* The armed-kprobe notes' common clause. */
#define PD_KPROBE_COST "their cost (ftrace_trampoline, kprobe_*) counts in "

void pd_armed_note(char *buf, size_t len, const struct pd_case *k)
{
	buf[0] = '\0';
	if (k && k->armed[0])
		snprintf(buf, len, "kprobes on %s were armed while perf sampled: " PD_KPROBE_COST
			 "those functions' children shares (--probe none for a clean profile)",
			 k->armed);
}

bool pd_case_note(char *buf, size_t len, const struct pd_case *b, const struct pd_case *n,
		  const char *bl, const char *nl)
{
	double sb, sn;
	const struct pd_sym *ab = pd_irq_point(b, &sb), *an = pd_irq_point(n, &sn);
	const struct pd_sym *a = ab ? ab : an, *xb, *xn;
	bool pb = b && b->armed[0], pn = n && n->armed[0];
	char vb[32], vn[32];
	size_t o = 0;

	buf[0] = '\0';
	if (a) {
		/* that function's share on each side (a side may not have it) */
		xb = b ? pd_find_sym(b, a->sym, a->dso) : NULL;
		xn = n ? pd_find_sym(n, a->sym, a->dso) : NULL;
		pd_fmt_share(vb, sizeof(vb), pd_share(b, xb, false), xb != NULL);
		pd_fmt_share(vn, sizeof(vn), pd_share(n, xn, false), xn != NULL);
		o = (size_t)snprintf(buf, len, "%s -> %s%% of the samples at %s, where interrupts "
				     "come back on: code that runs with them off is not seen by %s",
				     vb, vn, a->sym, (ab ? b : n)->event);
	}
	if ((pb || pn) && o < len)
		snprintf(buf + o, len - o, "%skprobes armed while perf sampled on %s%s%s (%s): "
			 PD_KPROBE_COST "the probed functions' children shares; --probe none for "
			 "a clean profile", o ? "; " : "",
			 pb ? bl : "", pb && pn ? " and " : "", pn ? nl : "",
			 pb ? b->armed : n->armed);
	return a || pb || pn;
}

const struct pd_sym *pd_find_sym(const struct pd_case *k, const char *sym, const char *dso)
{
	if (!k)
		return NULL;
	for (int i = 0; i < k->ns; i++)
		if (!strcmp(k->s[i].sym, sym) && !strcmp(k->s[i].dso, dso))
			return &k->s[i];
	return NULL;
}

const struct pd_case *pd_find_case(const struct pd_side *s, const char *wl, const char *cs)
{
	for (int i = 0; i < s->nk; i++)
		if (!strcmp(s->k[i].wl, wl) && !strcmp(s->k[i].cs, cs))
			return &s->k[i];
	return NULL;
}

bool pd_both_callgraph(const struct pd_case *b, const struct pd_case *n)
{
	return b && n && b->cg == 1 && n->cg == 1;
}

static double bigger(const struct pd_line *l)
{
	return l->base > l->new ? l->base : l->new;
}

/*
 * 2: sym is one of the focus functions of b or n; 1: by the kernel's
 * naming one of their callees (FUNC_cpu, FUNC_all: the focus name and an
 * underscore); 0: neither. pd_diff lists the callees first only where
 * their larger share is at least PD_VANISH_MIN.
 */
static int pd_focus(const struct pd_case *b, const struct pd_case *n, const char *sym)
{
	int best = 0;

	for (int s = 0; s < 2; s++) {
		const struct pd_case *k = s ? n : b;

		for (int i = 0; k && i < k->nfocus; i++) {
			size_t len = strlen(k->focus[i]);

			if (!strncmp(sym, k->focus[i], len) && (!sym[len] || sym[len] == '_'))
				best = sym[len] ? (best > 1 ? best : 1) : 2;
		}
	}
	return best;
}

/*
 * The order of the difference: first the focus functions and their
 * callees (the functions the posting's claim names: shown whether or not
 * their share moved), by the size of the change; then the functions that stopped running (gone) though both
 * kernels have them, then those that started (new), each largest share
 * first: what a patch takes away is what its posting claims, and a new
 * function's share can be swollen by emulation (QEMU TCG runs
 * copy_mc_enhanced_fast_string several times slower than copy_page), so
 * it must not hide what vanished; then the symbols of both profiles by
 * the size of the change; last the functions only one kernel has
 * (renamed, inlined, removed), by share. Between two unrelated releases
 * much else stops running (6.12 copies migrated pages with
 * copy_mc_enhanced_fast_string where 6.1 ran folio_copy and copy_page,
 * 7.53% and 6.78% of the samples against lru_add_drain_cpu's 2.33%): the
 * focus functions come first so that the claim is not buried under it.
 */
static int by_order(const void *a, const void *b)
{
	const struct pd_line *x = a, *y = b;
	double kx, ky;

	if (x->focus != y->focus)
		return x->focus ? -1 : 1;
	if (x->focus) {
		kx = fabs(x->new - x->base);
		ky = fabs(y->new - y->base);
		if (kx != ky)
			return kx < ky ? 1 : -1;
		return strcmp(x->sym, y->sym);
	}
	if (x->cat != y->cat)
		return x->cat - y->cat;
	if (x->cat == 0 && x->in_new != y->in_new)
		return x->in_new ? 1 : -1;
	kx = x->cat == 1 ? fabs(x->new - x->base) : bigger(x);
	ky = y->cat == 1 ? fabs(y->new - y->base) : bigger(y);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

static int by_abs_change(const void *a, const void *b)
{
	const struct pd_line *x = a, *y = b;
	double dx = fabs(x->new - x->base), dy = fabs(y->new - y->base);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

static int by_base(const void *a, const void *b)
{
	const struct pd_line *x = a, *y = b;

	return x->base != y->base ? (x->base < y->base ? 1 : -1) : strcmp(x->sym, y->sym);
}

static int by_new(const void *a, const void *b)
{
	const struct pd_line *x = a, *y = b;

	return x->new != y->new ? (x->new < y->new ? 1 : -1) : strcmp(x->sym, y->sym);
}

static void take(struct pd_line *out, int *no, const struct pd_line *l)
{
	for (int j = 0; j < *no; j++)
		if (out[j].sym == l->sym && out[j].dso == l->dso)
			return;
	out[(*no)++] = *l;
}

struct pd_line *pd_diff(const struct pd_side *sb, const struct pd_case *b,
			const struct pd_side *sn, const struct pd_case *n, bool children,
			int top, int *nout)
{
	struct pd_line *all = NULL, *out;
	int na = 0, cap = 0, no = 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct pd_case *k = pass ? n : b;

		for (int i = 0; k && i < k->ns; i++) {
			const struct pd_sym *a = &k->s[i], *ob;
			struct pd_line *l;
			int focus;
			bool dup = !strcmp(a->sym, "[unknown]");	/* unresolved: left out */

			for (int j = 0; j < na && !dup; j++)
				dup = !strcmp(all[j].sym, a->sym) && !strcmp(all[j].dso, a->dso);
			if (dup)
				continue;
			if (na == cap)
				all = xrealloc(all, (size_t)(cap = cap * 2 + 64) * sizeof(*all));
			ob = pd_find_sym(pass ? b : n, a->sym, a->dso);
			l = &all[na++];
			*l = (struct pd_line){ .sym = a->sym, .dso = a->dso };
			l->base = pd_share(b, pass ? ob : a, children);
			l->new = pd_share(n, pass ? a : ob, children);
			l->base_self = pd_share(b, pass ? ob : a, false);
			l->new_self = pd_share(n, pass ? a : ob, false);
			l->in_base = pass ? ob && ob->present : a->present;
			l->in_new = pass ? a->present : ob && ob->present;
			l->fn_base = has_function(sb, a->sym, a->dso);
			l->fn_new = has_function(sn, a->sym, a->dso);
			focus = pd_focus(b, n, a->sym);
			/* a callee by name only where it holds a share worth a line */
			l->focus = focus == 2 || (focus == 1 && bigger(l) >= PD_VANISH_MIN);
			if (!l->fn_base || !l->fn_new)
				l->cat = 2;
			else if ((!l->in_new && l->base >= PD_VANISH_MIN) ||
				 (!l->in_base && l->new >= PD_VANISH_MIN))
				l->cat = 0;
			else
				l->cat = 1;
		}
	}
	out = xrealloc(NULL, (size_t)(na ? na : 1) * sizeof(*out));
	for (int i = 0; i < na; i++)
		if (all[i].cat == 0 || all[i].focus)
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

/*
 * gone/new: no row on NEW/BASE though that kernel has the function (it
 * stopped or started running); base-fn/new-fn: only that side's kernel has
 * a function of this name (renamed, inlined, removed or added).
 */
const char *pd_mark(const struct pd_line *l)
{
	static const char *const mark[2][5] = {
		{ "base-fn", "new-fn", "new", "gone", "" },
		{ "focus, base-fn", "focus, new-fn", "focus, new", "focus, gone", "focus" },
	};
	int m = !l->fn_new ? 0 : !l->fn_base ? 1 : !l->in_base && l->in_new ? 2 :
		l->in_base && !l->in_new ? 3 : 4;

	return mark[l->focus][m];
}

void pd_fmt_share(char *buf, size_t len, double v, bool present)
{
	if (!present && v == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
}

struct pd_caseref *pd_cases(const struct pd_set *p, int *n)
{
	struct pd_caseref *c = NULL;
	int nc = 0, cap = 0;

	for (int s = 0; s < p->nsides; s++)
		for (int i = 0; i < p->sides[s].nk; i++) {
			const struct pd_case *k = &p->sides[s].k[i];
			bool dup = false;

			for (int j = 0; j < nc && !dup; j++)
				dup = !strcmp(c[j].wl, k->wl) && !strcmp(c[j].cs, k->cs);
			if (dup)
				continue;
			if (nc == cap)
				c = xrealloc(c, (size_t)(cap = cap * 2 + 16) * sizeof(*c));
			c[nc++] = (struct pd_caseref){ k->wl, k->cs };
		}
	*n = nc;
	return c;
}

struct pd_summary *pd_summaries(const struct pd_set *p, int *n)
{
	int nc, ns = 0;
	struct pd_caseref *c = pd_cases(p, &nc);
	size_t nnew = p->nsides > 1 ? (size_t)p->nsides - 1 : 0;
	struct pd_summary *out = xrealloc(NULL, (size_t)nc * nnew * sizeof(*out));

	for (int i = 0; i < nc; i++) {
		const struct pd_case *b = pd_find_case(&p->sides[0], c[i].wl, c[i].cs);

		for (int s = 1; s < p->nsides; s++) {
			struct pd_summary *u = &out[ns++];
			struct pd_line *l;
			int nl;

			*u = (struct pd_summary){ .wl = c[i].wl, .cs = c[i].cs, .side = s, .b = b,
						  .n = pd_find_case(&p->sides[s], c[i].wl, c[i].cs) };
			u->children = pd_both_callgraph(b, u->n);
			if (!b || !u->n || !b->n_ok || !u->n->n_ok) {
				u->none = !b || !b->n_ok ? "BASE" : "this side";
				continue;
			}
			l = pd_diff(&p->sides[0], b, &p->sides[s], u->n, u->children, 10, &nl);
			for (int j = 0; j < nl && j < PD_SUMMARY_LINES; j++)
				u->l[u->nl++] = l[j];
			free(l);
		}
	}
	free(c);
	*n = ns;
	return out;
}
