// SPDX-License-Identifier: GPL-2.0
/*
 * One gnuplot time series per metric: a line with error bars per (host,
 * case), the baseline's mean as a dashed line of the same colour, and
 * marks on the runs that differ significantly from the baseline. The x
 * axis is the history's runs in date order, labelled with the kernel
 * release that ran them (and the date).
 *
 * Host names, kernel releases, case strings, units and metric names come
 * from result files: they reach the script and the data only through
 * gptext.h (filtered, single-quoted), so gnuplot never runs any of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gptext.h"
#include "trend.h"

/* More x labels than this and only the kernel changes are labelled. */
#define MAX_XLABELS 40

void tp_stem(const char *workload, const char *metric, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s-%s", workload, metric);
	for (i = 0; buf[i]; i++)
		if (!((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
		      (buf[i] >= '0' && buf[i] <= '9') || strchr("._-", buf[i])))
			buf[i] = '_';
}

static bool same_series(const struct tr_point *a, const struct tr_point *b)
{
	return !strcmp(a->host, b->host) && !strcmp(a->kase, b->kase);
}

/*
 * Blocks (index i) per series: x mean lo hi base_mean; then one block of
 * the worse points and one of the better points. Returns the series count.
 */
static int write_dat(FILE *f, const struct tr_plot *pl, const struct tr_run *runs,
		     int *nworse, int *nbetter)
{
	int ns = 0, pass;
	size_t i;

	for (i = 0; i < pl->n; i++) {
		const struct tr_point *p = &pl->pts[i];

		if (i && !same_series(p, p - 1)) {
			fprintf(f, "\n\n");
			ns++;
		}
		fprintf(f, "%d %.12g %.12g %.12g ", runs[p->run].x, p->mean, p->lo, p->hi);
		if (p->base_ok)
			fprintf(f, "%.12g\n", p->base_mean);
		else
			fprintf(f, "NaN\n");
	}
	ns += pl->n > 0;
	*nworse = *nbetter = 0;
	for (pass = 0; pass < 2; pass++) {
		enum judge_verdict want = pass ? JV_BETTER : JV_WORSE;

		fprintf(f, "\n\n# %s than the baseline\n", pass ? "better" : "worse");
		for (i = 0; i < pl->n; i++) {
			if (pl->pts[i].jv != want || !pl->pts[i].compared)
				continue;
			fprintf(f, "%d %.12g\n", runs[pl->pts[i].run].x, pl->pts[i].mean);
			(*(pass ? nbetter : nworse))++;
		}
	}
	return ns;
}

/* Label every run of the plot, or only kernel changes when they are many. */
static void write_xtics(FILE *f, const struct tr_plot *pl, const struct tr_run *runs, int nruns)
{
	char *used = calloc(nruns, 1);
	int i, nused = 0, last = -1, first = 1;
	size_t k;

	if (!used)
		return;
	for (k = 0; k < pl->n; k++)
		used[runs[pl->pts[k].run].x] = 1;
	for (i = 0; i < nruns; i++)
		nused += used[i];
	fprintf(f, "set xtics rotate by -45 font \",8\" (");
	for (i = 0; i < nruns; i++) {
		char lab[256];
		const struct tr_run *r = NULL;

		if (!used[i])
			continue;
		for (int j = 0; j < nruns; j++)
			if (runs[j].x == i)
				r = &runs[j];
		if (nused > MAX_XLABELS && last >= 0 && !strcmp(runs[last].kernel, r->kernel))
			continue;
		last = r - runs;
		/* "2026-11-30T02:30:00Z" -> "2026-11-30 02:30" */
		snprintf(lab, sizeof(lab), "%s %.10s %.5s", r->kernel, r->date, r->date + 11);
		fprintf(f, "%s", first ? "" : ", ");
		gp_text(f, lab);
		fprintf(f, " %d", i);
		first = 0;
	}
	fprintf(f, ")\n");
	free(used);
}

static void write_head(FILE *f, const struct tr_plot *pl, const char *fmt, double alpha)
{
	char t[512];

	if (!strcmp(fmt, "png"))
		fprintf(f, "set terminal pngcairo size 1100,620 font 'sans,10'\n");
	else
		fprintf(f, "set terminal svg size 1100,620 dynamic background rgb 'white' "
			"font 'sans,11'\n");
	fprintf(f, "set output '%s.%s'\nset termoption noenhanced\n", pl->stem, fmt);
	snprintf(t, sizeof(t), "%s: %s (%s is better); bars: %.0f%% CI of the mean; "
		 "marks: p < %g vs baseline", pl->workload, pl->metric, pl->better,
		 100 * (1 - alpha), alpha);
	fprintf(f, "set title ");
	gp_text(f, t);
	fprintf(f, "\nset ylabel ");
	gp_text(f, pl->unit);
	fprintf(f, "\nset xlabel 'run: kernel release, date (UTC)'\n"
		"set grid ytics\nset key below left Left reverse font ',9'\n"
		"set bmargin 12\nset rmargin 10\nset offsets 0.5, 0.5, graph 0.05, graph 0.05\n");
}

/* Does KEY=VALUE (one "k=v" item of a case) hold in every point's case? */
static bool item_everywhere(const struct tr_plot *pl, const char *item, size_t len)
{
	size_t i;

	for (i = 0; i < pl->n; i++) {
		const char *c = pl->pts[i].kase, *p;
		bool found = false;

		for (p = c; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
			if (!strncmp(p, item, len) && (p[len] == ';' || !p[len]))
				found = true;
		if (!found)
			return false;
	}
	return true;
}

/*
 * A series' name: its host and the case's items that differ between the
 * chart's series (the whole case when none does), like mmcompare's names.
 */
static void series_name(const struct tr_plot *pl, const struct tr_point *p, char *buf,
			size_t len)
{
	const char *c = p->kase;
	size_t off = snprintf(buf, len, "%s", p->host), n;
	bool any = false;

	while (*c && off < len) {
		n = strcspn(c, ";");
		if (!item_everywhere(pl, c, n)) {
			off += snprintf(buf + off, len - off, "%s%.*s", any ? ";" : " ", (int)n, c);
			any = true;
		}
		c += n + (c[n] == ';');
	}
	if (!any && off < len)
		snprintf(buf + off, len - off, " %s", p->kase);
}

static void write_plot(FILE *f, const struct tr_plot *pl, int ns, int nworse, int nbetter)
{
	const char *sep = "plot ";
	size_t i = 0;
	int s;

	for (s = 0; s < ns; s++) {
		const struct tr_point *p = &pl->pts[i];
		char t[512];

		series_name(pl, p, t, sizeof(t));
		fprintf(f, "%s'%s.dat' index %d using 1:2:3:4 with yerrorlines lt %d lw 1.5 "
			"pt 7 ps 0.6 title ", sep, pl->stem, s, s + 1);
		gp_text(f, t);
		fprintf(f, ", \\\n  '' index %d using 1:5 with lines lt %d dt 2 lw 1 %s", s,
			s + 1, s ? "notitle" : "title 'baseline mean (dashed, same colour)'");
		sep = ", \\\n  ";
		while (i < pl->n && same_series(&pl->pts[i], p))
			i++;
	}
	if (nworse)
		fprintf(f, "%s'%s.dat' index %d using 1:2 with points pt 9 ps 2 lc rgb '#d62728' "
			"title 'significantly worse than the baseline'", sep, pl->stem, ns);
	if (nbetter)
		fprintf(f, "%s'%s.dat' index %d using 1:2 with points pt 11 ps 2 lc rgb '#2ca02c' "
			"title 'significantly better than the baseline'", sep, pl->stem, ns + 1);
	fprintf(f, "\n");
}

static int run_gnuplot(const char *dir, const char *stem, char *err, size_t errlen)
{
	static const char log[] = "gnuplot.log";
	char script[300];
	int status, fd;
	pid_t pid;

	snprintf(script, sizeof(script), "%s.gp", stem);
	pid = fork();
	if (pid < 0)
		return snprintf(err, errlen, "fork: %s", strerror(errno)), -1;
	if (!pid) {
		if (chdir(dir))
			_exit(126);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "gnuplot %s/%s %s (messages in %s/%s)", dir, script,
			 WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "could not be run" :
			 "failed", dir, log);
		return -1;
	}
	return 0;
}

int tp_draw(const struct tr_plot *pl, const struct tr_run *runs, int nruns, const char *dir,
	    const char *fmt, double alpha, char *err, size_t errlen)
{
	char p[4200];
	struct stat st;
	int ns, nworse, nbetter;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s.dat", dir, pl->stem);
	f = fopen(p, "w");
	if (!f)
		return snprintf(err, errlen, "%s: %s", p, strerror(errno)), -1;
	fprintf(f, "# ");
	gp_put(f, pl->workload, GP_TEXT_MAX);
	fputc(' ', f);
	gp_put(f, pl->metric, GP_TEXT_MAX);
	fprintf(f, ": x mean ci_low ci_high baseline_mean, one block per host and case\n");
	ns = write_dat(f, pl, runs, &nworse, &nbetter);
	if (fclose(f))
		return snprintf(err, errlen, "%s: %s", p, strerror(errno)), -1;
	snprintf(p, sizeof(p), "%s/%s.gp", dir, pl->stem);
	f = fopen(p, "w");
	if (!f)
		return snprintf(err, errlen, "%s: %s", p, strerror(errno)), -1;
	write_head(f, pl, fmt, alpha);
	write_xtics(f, pl, runs, nruns);
	write_plot(f, pl, ns, nworse, nbetter);
	if (fclose(f))
		return snprintf(err, errlen, "%s: %s", p, strerror(errno)), -1;
	snprintf(p, sizeof(p), "%s/%s.%s", dir, pl->stem, fmt);
	unlink(p);
	if (run_gnuplot(dir, pl->stem, err, errlen))
		return -1;
	if (stat(p, &st) || st.st_size == 0)
		return snprintf(err, errlen, "gnuplot exited 0 but wrote no %s", p), -1;
	return 0;
}
