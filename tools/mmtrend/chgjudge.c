// SPDX-License-Identifier: GPL-2.0
/*
 * mmchange detect's verdicts: each line's history judged by its change
 * points (changepoint.h), what that means for the ledger, and the output
 * (--csv, the summary).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmchange.h"

/* ------------------------------------------------------------ judging */

static double median_busy(const struct detect *d, const int *idx, int lo, int hi)
{
	double v[4096];
	int n = 0, i;

	for (i = lo; i < hi && n < 4096; i++)
		if (isfinite(d->runs[idx[i]].busy))
			v[n++] = d->runs[idx[i]].busy;
	if (!n)
		return NAN;
	for (i = 1; i < n; i++) {
		double x = v[i];
		int j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The spread between the runs of one night, as a CoV in % of the mean:
 * the squared distances of each run to its night's mean, pooled over the
 * nights with two runs or more (its rerun included). Beside the spread
 * from night to night it says how much a second run a night tells: as
 * much as a night when the two are alike, little when the runs of a night
 * share its state. NAN when no night has two runs.
 */
static double night_runs_cov(const double *x, const int *night, int n)
{
	double ss = 0, sum = 0;
	int i, lo, df = 0;

	for (lo = 0; lo < n; ) {
		int hi = lo;
		double m = 0;

		while (hi < n && night[hi] == night[lo])
			m += x[hi++];
		m /= hi - lo;
		for (i = lo; i < hi; i++)
			ss += (x[i] - m) * (x[i] - m);
		df += hi - lo - 1;
		lo = hi;
	}
	for (i = 0; i < n; i++)
		sum += x[i];
	return df > 0 && sum != 0 ? 100 * sqrt(ss / df) / fabs(sum / n) : NAN;
}

static int point_of(const struct judged *j, const struct detect *d, const char *rel)
{
	int i;

	for (i = 0; i < j->n; i++)
		if (!strcmp(d->runs[j->idx[i]].rel, rel))
			return i;
	return -1;
}

int judge_line(struct detect *d, struct dline *l, struct judged *j)
{
	double *x = malloc((d->nruns + 1) * sizeof(double)), wc = 0;
	int *night = malloc((d->nruns + 1) * sizeof(int)), i, k, nw = 0, rerun = -1;
	int *kernel = malloc((d->nruns + 1) * sizeof(int));
	struct cp_series s;

	memset(j, 0, sizeof(*j));
	j->l = l;
	j->det_sd = NAN;
	j->idx = malloc((d->nruns + 1) * sizeof(int));
	if (!x || !night || !kernel || !j->idx) {
		free(x);
		free(night);
		free(kernel);
		return -1;
	}
	for (i = 0; i < d->nruns; i++) {
		if (!isfinite(l->v[i]))
			continue;
		if (d->runs[i].rerun)
			rerun = j->n;
		j->idx[j->n] = i;
		night[j->n] = d->runs[i].night;
		/* equal kernels, equal numbers: the first point that ran it */
		for (k = 0; k < j->n && strcmp(d->runs[j->idx[k]].kernel, d->runs[i].kernel); k++)
			;
		kernel[j->n] = k;
		x[j->n++] = l->v[i];
		if (isfinite(l->wcov[i])) {
			wc += l->wcov[i];
			nw++;
		}
	}
	j->within_cov = nw ? wc / nw : NAN;
	j->runs_cov = night_runs_cov(x, night, j->n);
	/* exact evidence (no spread in any run): the comparisons judge it */
	j->exact = l->nexact == l->npresent;
	s = (struct cp_series){ .x = x, .night = night, .kernel = kernel, .n = j->n,
				.better = l->better };
	if (!j->exact && cp_judge(&s, &d->r, &j->v)) {
		free(x);
		free(night);
		free(kernel);
		return -1;
	}
	if (j->exact || !j->v.ncp)
		goto out;
	j->busy_before = median_busy(d, j->idx, j->v.seg_start, j->v.at);
	j->busy_after = median_busy(d, j->idx, j->v.at, j->n);
	/* the host gave the suite more after the change: not the kernel either */
	if (!j->v.worse && j->v.state == CPS_CONFIRMED && d->host_margin > 0 &&
	    j->busy_before > j->busy_after + d->host_margin) {
		j->host_busier = true;
		j->why = "the host was busier before it";
	}
	if (j->v.worse && (j->v.state == CPS_CONFIRMED || j->v.state == CPS_SUSPECT)) {
		/* the host gave the suite less after the change: not the kernel */
		if (d->host_margin > 0 && j->busy_after > j->busy_before + d->host_margin) {
			j->host_busier = true;
			j->why = "the host was busier after it";
		} else if (j->v.state == CPS_SUSPECT) {
			/* certain, but under the size an alert needs; or not certain */
			bool small = j->v.t_p <= d->r.t_alpha && j->v.size_sd < d->r.min_sd;

			j->suspect = true;
			if (small)
				j->why = d->rerun_done ? "smaller than --min-sd (the nightly's change_min_sd), even with tonight's rerun" :
					 d->suspects ? "suspect: smaller than --min-sd so far; tonight's rerun decides" :
					 "smaller than --min-sd (the nightly's change_min_sd)";
			else
				j->why = d->rerun_done ? "not certain, even with tonight's rerun" :
					 d->suspects ? "suspect: not certain yet; tonight's rerun decides" :
					 "not certain";
		} else if (rerun >= 0 && !cp_rerun_holds(&j->v, x[rerun])) {
			j->why = "tonight's rerun did not reproduce it";
		} else if (rerun < 0 && d->rerun) {
			/* the rerun ran its workload but has no value of it */
			j->why = "tonight's rerun did not measure it";
		} else {
			j->alert = true;
			j->suspect = true;
		}
	}
out:
	free(x);
	free(night);
	free(kernel);
	return 0;
}

/* How many nights apart two points of a line are. */
static int nights_apart(const struct detect *d, const struct judged *j, int a, int b)
{
	return abs(d->runs[j->idx[a]].night - d->runs[j->idx[b]].night);
}

/*
 * The ledger's view of a line: a new regression, or the open one whose
 * first bad run lies within 2 nights of this change (the location of a
 * change can move by a night as nights are added). An open row is
 * resolved when no change point lies within 2 nights of its first bad run
 * any more, or when the latest change is a confirmed one for the better.
 */
void ledger_action(struct detect *d, struct judged *j)
{
	int i, pos, c;

	for (i = 0; i < d->nopen; i++) {
		struct lrow *o = &d->open[i];

		if (o->used || strcmp(o->workload, j->l->workload) ||
		    strcmp(o->kase, j->l->kase) || strcmp(o->metric, j->l->metric))
			continue;
		pos = point_of(j, d, o->first_run);
		if (pos < 0)
			continue;	/* before the window: left open as it is */
		if (j->suspect && j->action == A_NONE && nights_apart(d, j, pos, j->v.at) <= 2) {
			o->used = true;
			j->action = A_UPDATE;
			j->row = o;
			continue;
		}
		for (c = 0; c < j->v.ncp && nights_apart(d, j, j->v.cp[c].at, pos) > 2; c++)
			;
		if (!j->resolves && (c == j->v.ncp || (j->v.state == CPS_CONFIRMED && !j->v.worse &&
							  j->v.at > pos && nights_apart(d, j, j->v.at, pos) > 2))) {
			o->used = true;
			j->resolves = o;
		}
	}
	if (j->action == A_NONE && d->suspects && j->suspect) {
		j->action = A_SUSPECT;
		j->alert = false;
		j->why = "suspect: tonight's rerun decides";
	} else if (j->action == A_NONE && j->alert) {
		j->action = A_NEW;
	}
	if (j->action == A_UPDATE && !j->alert) {
		/* a suspect of an open regression: it is still open */
		j->action = A_NONE;
		j->row->used = false;
	}
}

/* ------------------------------------------------------------ output */

static const char *run_rel(const struct detect *d, const struct judged *j, int point)
{
	return point >= 0 && point < j->n ? d->runs[j->idx[point]].rel : "";
}

static void print_change(const struct detect *d, const struct judged *j, const char *tag)
{
	const struct cp_verdict *v = &j->v;
	const struct drun *first = &d->runs[j->idx[v->at]], *good = &d->runs[j->idx[v->at - 1]];

	printf("  %-6s %s %s [%s]: %+.2f%% (%s %.4g -> %.4g %s; %.2g sd of the runs before it)",
	       tag, j->l->workload, j->l->metric, j->l->kase, v->pct,
	       j->l->nhmean == j->l->npresent ? "Hmean" : "Amean", v->before, v->after, j->l->unit,
	       v->size_sd);
	printf(" since run %s (%.10s, kernel %s); last good run %s (kernel %s); "
	       "%d run(s) over %d night(s) after it, p=%.2g",
	       first->rel, first->date, first->kernel, good->rel, good->kernel, v->n_after,
	       v->nights_after, v->cp[v->ncp - 1].p);
	if (strcmp(first->kernel, good->kernel) == 0)
		printf("; the kernel is the same on both sides");
	if (j->action == A_NEW)
		printf(": NEW");
	else if (j->action == A_UPDATE)
		printf(": open");
	else if (j->why)
		printf(": %s: %s", j->v.worse ? "not an alert" : "not the kernel's", j->why);
	if (j->host_busier)
		printf(" (others used %.0f%% of the CPUs after it, %.0f%% before)", j->busy_after,
		       j->busy_before);
	putchar('\n');
}

/* Changes worth a line: alerts, and changes of the last week. */
static bool recent(const struct judged *j)
{
	return j->v.ncp && j->v.nights_after <= 7;
}

static void fmt_d(char *b, size_t n, double v, const char *f)
{
	if (isfinite(v))
		snprintf(b, n, f, v);
	else
		b[0] = '\0';
}

int write_csv(const struct detect *d, const struct judged *js, int n, FILE *f)
{
	static const char *const hdr[] = {
		"host", "workload", "case", "metric", "unit", "better", "timed", "runs", "nights",
		"mean", "night_cov_pct", "within_cov_pct", "detectable_sd", "detectable_pct",
		"changes", "change_runs", "state", "direction", "first_run", "first_date",
		"first_kernel", "last_good_run", "last_good_kernel", "before", "after",
		"change_pct", "size_sd", "p_value", "t_p", "runs_after", "nights_after",
		"busy_before", "busy_after", "alert", "why", "ledger", "ledger_run", "resolves",
		"night_runs_cov_pct",
	};
	char b[24][64], cr[1024], *l;
	int i, k, rc = 0;

	l = tab_line(hdr, 39);
	rc |= !l || fputs(l, f) < 0;
	free(l);
	for (i = 0; i < n; i++) {
		const struct judged *j = &js[i];
		const struct cp_verdict *v = &j->v;
		bool c = v->ncp > 0;
		size_t o = 0;

		cr[0] = '\0';
		for (k = 0; k < v->ncp && o < sizeof(cr) - 1; k++)
			o += snprintf(cr + o, sizeof(cr) - o, "%s%s", k ? " " : "",
				      run_rel(d, j, v->cp[k].at));
		snprintf(b[0], 64, "%d", j->n);
		snprintf(b[1], 64, "%d", j->n ? d->runs[j->idx[j->n - 1]].night -
				      d->runs[j->idx[0]].night + 1 : 0);
		fmt_d(b[2], 64, v->mean, "%.6g");
		fmt_d(b[3], 64, v->mean != 0 ? 100 * v->sd / fabs(v->mean) : NAN, "%.4g");
		fmt_d(b[4], 64, j->within_cov, "%.4g");
		fmt_d(b[5], 64, j->det_sd, "%.2g");
		fmt_d(b[6], 64, j->det_sd * 100 * v->sd / fabs(v->mean), "%.4g");
		snprintf(b[7], 64, "%d", v->ncp);
		fmt_d(b[8], 64, c ? v->before : NAN, "%.6g");
		fmt_d(b[9], 64, c ? v->after : NAN, "%.6g");
		fmt_d(b[10], 64, c ? v->pct : NAN, "%.4g");
		fmt_d(b[11], 64, c ? v->size_sd : NAN, "%.3g");
		fmt_d(b[12], 64, c ? v->cp[v->ncp - 1].p : NAN, "%.3g");
		fmt_d(b[13], 64, c ? v->t_p : NAN, "%.3g");
		snprintf(b[14], 64, "%d", c ? v->n_after : 0);
		snprintf(b[15], 64, "%d", c ? v->nights_after : 0);
		fmt_d(b[16], 64, c ? j->busy_before : NAN, "%.3g");
		fmt_d(b[17], 64, c ? j->busy_after : NAN, "%.3g");
		fmt_d(b[18], 64, j->runs_cov, "%.4g");
		{
			const char *row[] = {
				d->host, j->l->workload, j->l->kase, j->l->metric, j->l->unit,
				j->l->better > 0 ? "higher" : "lower", j->l->timed ? "1" : "0",
				b[0], b[1], b[2], b[3], b[4], j->exact ? "" : b[5],
				j->exact ? "" : b[6], b[7], cr,
				j->exact ? "exact" : cp_state_str(v->state),
				c ? (v->worse ? "worse" : "better") : "",
				c ? run_rel(d, j, v->at) : "",
				c ? d->runs[j->idx[v->at]].date : "",
				c ? d->runs[j->idx[v->at]].kernel : "",
				c ? run_rel(d, j, v->at - 1) : "",
				c ? d->runs[j->idx[v->at - 1]].kernel : "",
				b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15], b[16], b[17],
				j->alert ? "1" : "0", j->why ? j->why : "",
				j->action == A_NEW ? "new" : j->action == A_UPDATE ? "update" :
				j->action == A_SUSPECT ? "suspect" : "",
				j->row ? j->row->first_run : "",
				j->resolves ? j->resolves->first_run : "",
				j->exact ? "" : b[18],
			};

			l = tab_line(row, 39);
			rc |= !l || fputs(l, f) < 0;
			free(l);
		}
	}
	return rc ? -1 : 0;
}

/* ", b% between a night's runs" when some night had two runs, else "" */
static const char *runs_part(char *b, size_t n, double runs_cov)
{
	if (isfinite(runs_cov))
		snprintf(b, n, ", %.3g%% between a night's runs", runs_cov);
	else
		b[0] = '\0';
	return b;
}

void print_summary(const struct detect *d, const struct judged *js, int n)
{
	char runs[64];

	int i, nexact = 0, ntimed = 0, shown = 0, nnew = 0, within = d->r.confirm + 1;

	for (i = 0; i < n; i++) {
		nexact += js[i].exact;
		ntimed += !js[i].exact;
		nnew += js[i].action == A_NEW;
	}
	printf("history of %s: %d run(s) over %d night(s)", d->host, d->nruns, d->nnights);
	if (d->nruns)
		printf(" (%.10s .. %.10s)", d->runs[0].date, d->runs[d->nruns - 1].date);
	printf(": %d metric(s) with a spread judged by their change points, %d of exact "
	       "evidence judged by the comparisons; %d new regression(s)%s\n", ntimed, nexact,
	       nnew, d->suspects ? " (suspects are re-run first)" : "");
	for (i = 0; i < n; i++) {
		const struct judged *j = &js[i];
		const struct cp_verdict *v = &j->v;

		if (j->exact || !v->ncp)
			continue;
		if (j->alert || j->resolves ||
		    (recent(j) && (v->state == CPS_CONFIRMED || (v->worse && v->state == CPS_SUSPECT)))) {
			if (shown++ < d->max_lines) {
				if (j->resolves)
					printf("  RESOLVED %s %s [%s]: the regression since run %s is gone%s\n",
					       j->l->workload, j->l->metric, j->l->kase,
					       j->resolves->first_run,
					       j->alert || v->state == CPS_CONFIRMED ? "" : "");
				if (j->alert || v->state >= CPS_SUSPECT)
					print_change(d, j, j->alert ? "WORSE" :
						     j->action == A_SUSPECT ? "SUSPECT" :
						     v->worse || j->host_busier ? "watch" : "better");
			}
		}
	}
	if (shown > d->max_lines)
		printf("  ... and %d more (changes.csv)\n", shown - d->max_lines);
	if (!d->detectable)
		return;
	printf("smallest step found within %d nights (in %.0f%% of synthetic histories of the "
	       "same length and noise), by metric:\n", within, 100 * DET_POWER);
	for (i = 0, shown = 0; i < n; i++) {
		const struct judged *j = &js[i];
		double cov = j->v.mean != 0 ? 100 * j->v.sd / fabs(j->v.mean) : NAN;

		if (j->exact)
			continue;
		printf("  %s %s [%s]: ", j->l->workload, j->l->metric, j->l->kase);
		if (j->n < 2 || !isfinite(cov) || !isfinite(j->det_sd))
			printf("not known yet: %d night(s), a change needs %d before it\n",
			       j->n ? d->runs[j->idx[j->n - 1]].night - d->runs[j->idx[0]].night + 1 : 0,
			       d->r.min_ref);
		else if (isinf(j->det_sd))
			printf("none: no step up to %.0f sd (CoV %.3g%% from night to night)\n", DET_MAX_SD, cov);
		else
			printf("%s%.3g%% (%.2g sd; CoV %.3g%% from night to night%s, %.3g%% within a run; "
			       "%d runs)\n", j->l->better > 0 && j->det_sd * cov >= 100 ?
			       "none: a drop would have to be " : "", j->det_sd * cov, j->det_sd, cov,
			       runs_part(runs, sizeof(runs), j->runs_cov), j->within_cov, j->n);
	}
}
