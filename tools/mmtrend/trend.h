/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtrend's data: the runs of a history on one x axis, and one point per
 * run and (host, workload, case, metric) with its comparison against the
 * baseline. trendplot.c turns the points of one metric into a gnuplot
 * time series.
 */
#ifndef MMT_TREND_H
#define MMT_TREND_H

#include <stdbool.h>
#include <stddef.h>

#include "judge.h"

struct tr_run {
	char *dir;		/* path to open */
	char *rel;		/* as history.csv names it */
	char *host, *date, *kernel, *label, *status;
	int x;			/* position on the x axis (date order) */
};

struct tr_point {
	int run;		/* index into the run array */
	char *host;		/* series host ("all hosts" when pooled) */
	char *workload, *kase, *metric, *unit, *better;
	bool hmean;
	double mean, lo, hi;	/* lo/hi: confidence interval of the mean */
	bool ci_ok;
	size_t n;
	bool compared;		/* a baseline existed for this line */
	enum judge_verdict jv;
	double pct, p, base_mean;
	bool pct_ok, p_ok, base_ok;
	char *facts;		/* facts that change the answer and differ, or "" */
};

/* The points of one (workload, metric), sorted by host, case and x. */
struct tr_plot {
	const char *workload, *metric, *unit, *better;
	char stem[256];		/* output file name without extension */
	const struct tr_point *pts;
	size_t n;
};

/*
 * Write DIR/STEM.dat and DIR/STEM.gp and run gnuplot to draw DIR/STEM.FMT
 * (svg or png). Returns 0, or -1 with err saying what failed.
 */
int tp_draw(const struct tr_plot *pl, const struct tr_run *runs, int nruns, const char *dir,
	    const char *fmt, double alpha, char *err, size_t errlen);
/* File-name-safe stem of "workload-metric". */
void tp_stem(const char *workload, const char *metric, char *buf, size_t len);

#endif /* MMT_TREND_H */
