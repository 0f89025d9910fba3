/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmplot's parts: options, gnuplot and plots.md (mmplot.c); the chart
 * files, panels and bar charts (plotfile.c); scaling charts
 * (plotscale.c); CDFs, % change and headline charts (plotchange.c).
 */
#ifndef MMC_MMPLOT_H
#define MMC_MMPLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"

#define PANELS_PER_PAGE 9
#define CDF_POINTS 1000
/* A label in a chart's key: at most this many characters */
#define KEY_MAX 60
/*
 * gnuplot's autoscaling overflows on values near the double range (1.4e308
 * fails a histogram with "No valid points"): a line with a value to draw
 * beyond this is left out of the charts (counted in plots.md), as is a
 * latency CDF with such a sample.
 */
#define PLOT_MAX 1e300

struct opts {
	const char *out, *prefix, *gnuplot;
	double alpha;
	bool force, per_arg, iterations_as_samples;
	int max_plots;
};

enum plot_kind { PK_CHANGE, PK_HEADLINE, PK_DETAIL };

struct plot {
	char stem[256];		/* NAME of NAME.{gp,dat,png,svg} */
	char title[512];
	int wl;			/* workload index; -1: change chart */
	enum plot_kind kind;
	bool ok;		/* gnuplot wrote both images */
};

struct plotter {
	const struct opts *o;
	const struct cmp *cmp;
	const struct rs_set *s;
	struct plot *plots;
	int nplots, dropped;
	size_t overflow;	/* lines left out: values beyond PLOT_MAX */
	FILE *gp, *dat;
	int block;		/* next index block in the .dat file */
	int height;		/* > 0: the next chart's height in pixels */
};

/* plotfile.c: the labels' colours, in side order */
extern const char *const plot_colors[8];
void safe_name(char *out, size_t len, const char *s);
int chart_begin(struct plotter *pl, int wl, enum plot_kind kind, const char *stem,
		const char *title, const char *sub, int panels);
int chart_end(struct plotter *pl);
void panel_reset2(FILE *gp, const char *title, const char *sub);
void panel_reset(FILE *gp, const char *title);
void dat_num(FILE *f, double v, bool ok);
bool plottable(double v);
bool row_plottable(const struct plotter *pl, const struct cmp_row *r);
void metric_title(const struct rs_line *l, char *buf, size_t len);
const char *case_label(const struct rs_line *l);
void plot_sides(struct plotter *pl, const char *using_fmt, int stride, int first_col,
		const char *extra0, const char *with);
int bars_workload(struct plotter *pl, int wi);
/* plotscale.c */
int scale_workload(struct plotter *pl, int wi);
/* plotchange.c */
int cdf_workload(struct plotter *pl, struct rs_set *s, int wi);
int change_side(struct plotter *pl, int side);
int headline_workload(struct plotter *pl, int wi);

#endif /* MMC_MMPLOT_H */
