// SPDX-License-Identifier: GPL-2.0
/*
 * mmprofile: the kernel profiles of mmbench runs (--profile) side by side.
 *
 *   mmprofile [options] BASE NEW [NEW2...]     the profile difference
 *   mmprofile --unpack RUN_DIR                 raw data from the VM lab
 *
 * Inputs as mmcompare's: a run directory, a file in one (results.csv), or
 * a directory of runs; runs with one label are pooled into one side
 * (--per-arg: one side per argument). Reading the profiles and their
 * difference is profdiff.c's (mmcompare's text views print its first
 * lines per case): per case and NEW side, first the functions the
 * posting's claim names and their callees ("focus"), then the
 * functions that stopped ("gone"), then those that started ("new")
 * running although both kernels have a function of that name, then the
 * largest changes, last the functions only one kernel has ("base-fn",
 * "new-fn"). Shares are evidence shown next to the verdict, never judged.
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
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcodes.h"
#include "gptext.h"
#include "profdiff.h"

#define PANELS_MAX 6
#define BARS_PER_PANEL 8

struct opts {
	bool per_arg, markdown, summary;
	int top;
	const char *plot_dir, *gnuplot, *prefix;
};

static const char *short_dso(const char *dso)
{
	return !strcmp(dso, "[kernel.kallsyms]") ? "[kernel]" : dso;
}

/*
 * PRE and "N% of the samples at SYM (interrupts turned back on: ...)" when
 * an interrupt-enable point holds a large share of k (pd_irq_point).
 */
static void irq_note(FILE *f, const struct pd_case *k, const char *pre)
{
	double share;
	const struct pd_sym *a = pd_irq_point(k, &share);

	if (a)
		fprintf(f, "%s%.1f%% of the samples at %s (interrupts turned back on: the time of "
			"code that ran with them off, which %s cannot sample)", pre, share, a->sym,
			k->event);
}

static void side_note(FILE *f, const struct pd_side *s, const struct pd_case *k, const char *pre)
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
	irq_note(f, k, "; ");
	if (k && k->armed[0]) {
		char note[600];

		pd_armed_note(note, sizeof(note), k);
		fprintf(f, "; %s", note);
	}
}

static void cut(char *buf, size_t len, const char *s, size_t max)
{
	if (strlen(s) <= max)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%.*s...", (int)(max - 3), s);
}

static void print_text(const struct pd_set *p, const struct opts *o)
{
	int nc;
	struct pd_caseref *c = pd_cases(p, &nc);

	printf("Kernel profiles (perf, measured phases): each symbol's share of the non-idle samples,\n"
	       "mean over the profiled iterations; shown, not judged. First the functions the claim\n"
	       "names and their callees (focus), then those that stopped (gone), then those that\n"
	       "started (new) running though both kernels have them, then the largest changes, then\n"
	       "functions only one kernel has (base-fn, new-fn: renamed, inlined, removed).\n"
	       "Unresolved symbols ([unknown]) are left out.\n");
	for (int s = 1; s < p->nsides; s++)
		if (p->sides[0].event[0] && p->sides[s].event[0] &&
		    strcmp(p->sides[0].event, p->sides[s].event))
			printf("warning: %s sampled %s, %s sampled %s: shares of different events\n",
			       p->sides[0].label, p->sides[0].event, p->sides[s].label,
			       p->sides[s].event);
	for (int i = 0; i < nc; i++) {
		const struct pd_case *b = pd_find_case(&p->sides[0], c[i].wl, c[i].cs);

		printf("\n%s  [%s]\n", c[i].wl, c[i].cs);
		side_note(stdout, &p->sides[0], b, "  ");
		putchar('\n');
		for (int s = 1; s < p->nsides; s++) {
			const struct pd_case *n = pd_find_case(&p->sides[s], c[i].wl, c[i].cs);
			bool ch = pd_both_callgraph(b, n);
			struct pd_line *l;
			int nl;

			side_note(stdout, &p->sides[s], n, "  ");
			putchar('\n');
			if (!b || !n || !b->n_ok || !n->n_ok)
				continue;
			l = pd_diff(&p->sides[0], b, &p->sides[s], n, ch, o->top, &nl);
			printf("    %s share, %%%s\n", ch ? "children" : "self",
			       ch ? " (self share in brackets)" : "");
			printf("    %16.16s %16.16s %9s  %-12s %s\n", p->sides[0].label, p->sides[s].label,
			       "change", "", "symbol dso");
			for (int j = 0; j < nl; j++) {
				char vb[48], vn[48], sb[24], sn[24], sym[80], dso[48];

				pd_fmt_share(vb, sizeof(vb), l[j].base, l[j].in_base);
				pd_fmt_share(vn, sizeof(vn), l[j].new, l[j].in_new);
				if (ch) {
					pd_fmt_share(sb, sizeof(sb), l[j].base_self, l[j].in_base);
					pd_fmt_share(sn, sizeof(sn), l[j].new_self, l[j].in_new);
					snprintf(vb + strlen(vb), sizeof(vb) - strlen(vb), " (%s)", sb);
					snprintf(vn + strlen(vn), sizeof(vn) - strlen(vn), " (%s)", sn);
				}
				cut(sym, sizeof(sym), l[j].sym, 60);
				cut(dso, sizeof(dso), short_dso(l[j].dso), 40);
				printf("    %16s %16s %+9.2f  %-12s %s %s%s%s\n", vb, vn, l[j].new - l[j].base,
				       pd_mark(&l[j]), sym, dso[0] == '[' ? "" : "(", dso,
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
static void print_summary(const struct pd_set *p)
{
	char note[1200];
	int n;
	struct pd_summary *u = pd_summaries(p, &n);

	printf("workload\tcase\tlabel\tprofile\n");
	for (int i = 0; i < n; i++) {
		tsv(u[i].wl);
		putchar('\t');
		tsv(u[i].cs);
		putchar('\t');
		tsv(p->sides[u[i].side].label);
		putchar('\t');
		if (u[i].none) {
			printf("profile: none on %s\n", u[i].none);
			continue;
		}
		printf("profile (%s %%):", u[i].children ? "children" : "self");
		for (int j = 0; j < u[i].nl; j++) {
			const struct pd_line *l = &u[i].l[j];
			char vb[32], vn[32];

			pd_fmt_share(vb, sizeof(vb), l->base, l->in_base);
			pd_fmt_share(vn, sizeof(vn), l->new, l->in_new);
			printf("%s ", j ? ";" : "");
			tsv(l->sym);
			printf(" %s -> %s%s%s", vb, vn, *pd_mark(l) ? " " : "", pd_mark(l));
		}
		if (pd_case_note(note, sizeof(note), u[i].b, u[i].n, p->sides[0].label,
				 p->sides[u[i].side].label)) {
			printf("; note: ");
			tsv(note);
		}
		putchar('\n');
	}
	free(u);
}

static void print_markdown(const struct pd_set *p, const struct opts *o, bool chart)
{
	int nc;
	struct pd_caseref *c = pd_cases(p, &nc);

	printf("<!-- mmprofile:profiles -->\n## Kernel profiles\n\n"
	       "perf samples of the measured phases (`--profile`): each symbol's share of the\n"
	       "non-idle samples, mean over the profiled iterations. Shown, not judged. First\n"
	       "the functions the claim names and their callees (**focus**), then those that\n"
	       "stopped (**gone**), then those that started (**new**) running though both kernels\n"
	       "have them, then the largest changes, then the functions only one kernel has\n"
	       "(**base-fn**, **new-fn**: renamed, inlined or removed).\n\n");
	if (chart)
		printf("![shares of the largest profile changes](%sprofile.png)\n\n[SVG](%sprofile.svg) · "
		       "[gnuplot script](%sprofile.gp) · [data](%sprofile.dat)\n\n", o->prefix, o->prefix,
		       o->prefix, o->prefix);
	for (int i = 0; i < nc; i++) {
		const struct pd_case *b = pd_find_case(&p->sides[0], c[i].wl, c[i].cs);

		printf("### ");
		md_text(stdout, c[i].wl);
		printf(" [");
		md_text(stdout, c[i].cs);
		printf("]\n\n");
		for (int s = 0; s < p->nsides; s++) {
			char note[1200];
			FILE *m = fmemopen(note, sizeof(note), "w");

			if (!m)
				continue;
			side_note(m, &p->sides[s], pd_find_case(&p->sides[s], c[i].wl, c[i].cs),
				  "");
			fclose(m);
			printf("- ");
			md_text(stdout, note);
			printf("\n");
		}
		printf("\n");
		for (int s = 1; s < p->nsides; s++) {
			const struct pd_case *n = pd_find_case(&p->sides[s], c[i].wl, c[i].cs);
			bool ch = pd_both_callgraph(b, n);
			struct pd_line *l;
			int nl;

			if (!b || !n || !b->n_ok || !n->n_ok)
				continue;
			l = pd_diff(&p->sides[0], b, &p->sides[s], n, ch, o->top, &nl);
			printf("| symbol | dso | ");
			md_text(stdout, p->sides[0].label);
			printf(" %% | ");
			md_text(stdout, p->sides[s].label);
			printf(" %% | change (pts) | |\n|---|---|--:|--:|--:|---|\n");
			for (int j = 0; j < nl; j++) {
				char vb[48], vn[48], sb[24], sn[24];

				pd_fmt_share(vb, sizeof(vb), l[j].base, l[j].in_base);
				pd_fmt_share(vn, sizeof(vn), l[j].new, l[j].in_new);
				if (ch) {
					pd_fmt_share(sb, sizeof(sb), l[j].base_self, l[j].in_base);
					pd_fmt_share(sn, sizeof(sn), l[j].new_self, l[j].in_new);
					snprintf(vb + strlen(vb), sizeof(vb) - strlen(vb), " (self %s)", sb);
					snprintf(vn + strlen(vn), sizeof(vn) - strlen(vn), " (self %s)", sn);
				}
				printf("| ");
				md_text(stdout, l[j].sym);
				printf(" | ");
				md_text(stdout, short_dso(l[j].dso));
				printf(" | %s | %s | %+.2f | %s |\n", vb, vn, l[j].new - l[j].base,
				       pd_mark(&l[j]));
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
static void case_short(char *buf, size_t len, const struct pd_caseref *c, int nc, int i)
{
	char dup[PD_FIELD_MAX], *save = NULL;
	size_t off = 0;

	snprintf(dup, sizeof(dup), "%s", c[i].cs);
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
}

/*
 * DIR/profile.{gp,dat}, then gnuplot: one panel per case (up to six) with
 * the bars of its largest changes, a bar per side. 0, or -1 (said why).
 */
static int plot(const struct pd_set *p, const struct opts *o)
{
	char path[4200], gnuplot[4096], log[4200];
	int nc, panels = 0, cols, rows, st = 0;
	struct pd_caseref *c = pd_cases(p, &nc);
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
		const struct pd_case *b = pd_find_case(&p->sides[0], c[i].wl, c[i].cs);
		const struct pd_case *n = p->nsides > 1 ?
					  pd_find_case(&p->sides[1], c[i].wl, c[i].cs) : NULL;
		bool ch = pd_both_callgraph(b, n);
		struct pd_line *l;
		int nl;

		if (!b || !n || !b->n_ok || !n->n_ok)
			continue;
		l = pd_diff(&p->sides[0], b, &p->sides[1], n, ch, BARS_PER_PANEL, &nl);
		fprintf(dat, "# panel %d: ", panels);
		gp_put(dat, c[i].wl, GP_TEXT_MAX);
		fputc('\n', dat);
		for (int j = 0; j < nl && j < BARS_PER_PANEL; j++) {
			gp_datstr(dat, l[j].sym);
			for (int s = 0; s < p->nsides; s++) {
				const struct pd_case *k = pd_find_case(&p->sides[s], c[i].wl, c[i].cs);

				fprintf(dat, " %.4f", pd_share(k, pd_find_sym(k, l[j].sym, l[j].dso), ch));
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
	for (int i = 0, pn = 0; i < nc && pn < panels; i++) {
		const struct pd_case *b = pd_find_case(&p->sides[0], c[i].wl, c[i].cs);
		const struct pd_case *n = p->nsides > 1 ?
					  pd_find_case(&p->sides[1], c[i].wl, c[i].cs) : NULL;
		char title[700];

		if (!b || !n || !b->n_ok || !n->n_ok)
			continue;
		char cshort[300];

		case_short(cshort, sizeof(cshort), c, nc, i);
		snprintf(title, sizeof(title), "%s [%s] (%s share)", c[i].wl, cshort,
			 pd_both_callgraph(b, n) ? "children" : "self");
		fprintf(gp, "set title ");
		gp_textn(gp, title, 110);
		fprintf(gp, "\nplot ");
		for (int s = 0; s < p->nsides; s++) {
			fprintf(gp, "%s'profile.dat' index %d using %d%s title ", s ? ", " : "", pn, s + 2,
				s == 0 ? ":xtic(1)" : "");
			gp_textn(gp, p->sides[s].label, 60);
		}
		fputc('\n', gp);
		pn++;
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
		return MM_USAGE;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 12 && !strncmp(de->d_name, "profile.", 8) &&
		    !strcmp(de->d_name + l - 4, ".b64"))
			fails += unpack_one(dir, de->d_name) < 0;
	}
	closedir(d);
	return fails ? MM_FAIL : 0;
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
	struct pd_set p;
	int c, rc = 0;
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
				return MM_USAGE;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return MM_USAGE;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return MM_USAGE;
	}
	pd_init(&p, "mmprofile");
	for (int i = optind; i < argc; i++)
		if (pd_add_arg(&p, argv[i], o.per_arg ? i - optind : -1) < 0) {
			fprintf(stderr, "mmprofile: %s\n", p.err);
			rc = MM_USAGE;
			goto out;
		}
	if (p.nsides < 2) {
		fprintf(stderr, "mmprofile: one label only (%s): give runs of two labels, or --per-arg\n",
			p.sides[0].label);
		rc = MM_USAGE;
		goto out;
	}
	if (o.plot_dir && plot(&p, &o) < 0)
		rc = MM_FAIL;
	if (o.summary)
		print_summary(&p);
	else if (o.markdown)
		print_markdown(&p, &o, o.plot_dir && rc == 0);
	else
		print_text(&p, &o);
	if (fflush(stdout))
		rc = MM_FAIL;
out:
	pd_free(&p);
	return rc;
}
