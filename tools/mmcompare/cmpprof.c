// SPDX-License-Identifier: GPL-2.0
/*
 * mmcompare's text views, after the verdict: the kernel profiles of runs
 * made with --profile (profdiff.h), and the mmprofile command that shows
 * them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmcompare.h"
#include "profdiff.h"
#include "verdict.h"

/* ------------------------------------------------------------ kernel profiles */

/*
 * Runs made with --profile: per case and NEW side the first lines of the
 * profile difference (profdiff.h, as mmprofile --summary), after the
 * verdict. Shares are shown, never judged: nothing here changes the
 * verdict or the exit status. At most PROF_LINES_MAX case lines, so that
 * the verdict view stays one screen; mmprofile shows everything.
 */
#define PROF_LINES_MAX 8
_Static_assert(RS_MAX_SIDES <= PD_MAX_SIDES, "every side of a comparison has its profiles");

/* The run directory of a run's results.csv. */
static void run_dir(const struct rs_run *r, char *buf, size_t len)
{
	const char *slash = strrchr(r->path, '/');

	if (slash)
		snprintf(buf, len, "%.*s", (int)(slash - r->path), r->path);
	else
		snprintf(buf, len, ".");
}

/*
 * A case as the verdict view names it: the workload and the values of the
 * keys that vary in it; the whole case string when no line of the results
 * has that case.
 */
static void prof_case_name(const struct rs_set *s, const char *wl, const char *cs, char *buf,
			   size_t len)
{
	const struct rs_workload *w = NULL;
	char v[256];
	size_t k, o;
	int i;

	for (i = 0; i < s->nwls && !w; i++)
		if (!strcmp(s->wls[i].name, wl))
			w = &s->wls[i];
	for (k = 0; w && k < w->count && strcmp(s->sorted[w->first + k]->kase, cs); k++)
		;
	if (!w || k == w->count) {
		snprintf(buf, len, "%s [%s]", wl, cs);
		return;
	}
	o = (size_t)snprintf(buf, len, "%s", wl);
	for (i = 0; i < w->nvary && o < len; i++) {
		if (!rs_case_get(cs, w->vary[i], v, sizeof(v)))
			snprintf(v, sizeof(v), "(unset)");
		o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", i ? ", " : " [", w->vary[i], v);
	}
	if (w->nvary && o < len)
		snprintf(buf + o, len - o, "]");
}

/* An argument as a shell word: quoted unless plainly safe. */
static void put_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_./=+,:@%-") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "'\\''" : (char[2]){ *s, 0 }, f);
	fputc('\'', f);
}

/*
 * The mmprofile beside this mmcompare when there is one; a bare name when
 * mmcompare was found in PATH; else where make builds it.
 */
static void put_mmprofile(FILE *f, const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	char p[4200];

	if (!slash) {
		fputs("mmprofile", f);
		return;
	}
	snprintf(p, sizeof(p), "%.*s/mmprofile", (int)(slash - argv0), argv0);
	put_word(f, access(p, X_OK) ? "tools/mmcompare/mmprofile" : p);
}

/*
 * One case and NEW side, "  wl [threads=1] (children %): sym 3.96 -> -
 * (gone); ...", wrapped to width between the symbols.
 */
static void prof_case(FILE *f, const struct rs_set *s, const struct pd_set *p,
		      const struct pd_summary *u, int width)
{
	bool on_base = u->none && !strcmp(u->none, "BASE");
	const struct pd_case *k = on_base ? u->b : u->n;
	bool why = k && k->why[0];
	char head[1200], text[1600], item[1200], vb[32], vn[32];
	int j, col;

	prof_case_name(s, u->wl, u->cs, item, sizeof(item));
	snprintf(head, sizeof(head), "  %s%s%s", item, p->nsides > 2 ? " -> " : "",
		 p->nsides > 2 ? p->sides[u->side].label : "");
	if (u->none) {
		snprintf(text, sizeof(text), "%s: not profiled on %s%s%s%s", head,
			 p->sides[on_base ? 0 : u->side].label, why ? " (" : "",
			 why ? k->why : "", why ? ")" : "");
		vd_wrap(f, text, width);
		return;
	}
	col = fprintf(f, "%s (%s %%):", head, u->children ? "children" : "self");
	for (j = 0; j < u->nl; j++) {
		const char *mark = pd_mark(&u->l[j]);
		int l;

		pd_fmt_share(vb, sizeof(vb), u->l[j].base, u->l[j].in_base);
		pd_fmt_share(vn, sizeof(vn), u->l[j].new, u->l[j].in_new);
		l = snprintf(item, sizeof(item), "%s %s -> %s%s%s%s", u->l[j].sym, vb, vn,
			     *mark ? " (" : "", mark, *mark ? ")" : "");
		if (col + 2 + l > width && col > 4) {
			fprintf(f, "%s\n   ", j ? ";" : "");
			col = 3;
		} else if (j) {
			col += fprintf(f, ";");
		}
		col += fprintf(f, " %s", item);
	}
	fprintf(f, "%s\n", u->nl ? "" : " no symbol");
	if (pd_case_note(item, sizeof(item), u->b, u->n, p->sides[0].label,
			 p->sides[u->side].label)) {
		snprintf(text, sizeof(text), "    note: %s", item);
		vd_wrap(f, text, width);
	}
}

void print_profiles(const struct rs_set *s, const struct opts *o, FILE *f)
{
	struct pd_summary *u;
	struct pd_set p;
	char dir[4200], line[2048];
	bool any = false;
	int i, n;

	for (i = 0; i < s->nruns && !any; i++) {
		run_dir(&s->runs[i], dir, sizeof(dir));
		any = s->runs[i].side >= 0 && pd_has_profile(dir);
	}
	if (!any)
		return;
	fputc('\n', f);
	/* the sides of the comparison, its runs in them */
	pd_init(&p, "mmcompare");
	for (i = 0; i < s->nsides; i++)
		pd_side_add(&p, s->sides[i].name);
	for (i = 0; i < s->nruns; i++) {
		if (s->runs[i].side < 0)
			continue;
		run_dir(&s->runs[i], dir, sizeof(dir));
		if (pd_add_run(&p, dir, s->runs[i].side) < 0) {
			fprintf(f, "Kernel profiles not shown: %s\n", p.err);
			pd_free(&p);
			return;
		}
	}
	snprintf(line, sizeof(line), "Kernel profiles (--profile), %% of the non-idle samples, "
		 "%s -> %s; shown, not judged:", s->sides[0].name,
		 s->nsides > 2 ? "each NEW" : s->sides[1].name);
	vd_wrap(f, line, vd_width());
	for (i = 1; i < p.nsides; i++)
		if (p.sides[0].event[0] && p.sides[i].event[0] &&
		    strcmp(p.sides[0].event, p.sides[i].event)) {
			snprintf(line, sizeof(line), "  warning: %s sampled %s, %s sampled %s: "
				 "shares of different events", p.sides[0].label, p.sides[0].event,
				 p.sides[i].label, p.sides[i].event);
			vd_wrap(f, line, vd_width());
		}
	u = pd_summaries(&p, &n);
	for (i = 0; i < n && i < PROF_LINES_MAX; i++)
		prof_case(f, s, &p, &u[i], vd_width());
	if (n > PROF_LINES_MAX)
		fprintf(f, "  %d more case%s\n", n - PROF_LINES_MAX,
			p.nsides > 2 ? " lines" : n - PROF_LINES_MAX == 1 ? "" : "s");
	fprintf(f, "  every case and symbol: ");
	put_mmprofile(f, o->argv0);
	if (o->per_arg)
		fprintf(f, " --per-arg");
	for (i = 0; i < o->nargs; i++) {
		fputc(' ', f);
		put_word(f, o->args[i]);
	}
	fputc('\n', f);
	free(u);
	pd_free(&p);
}
