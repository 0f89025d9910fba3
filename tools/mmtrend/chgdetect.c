// SPDX-License-Identifier: GPL-2.0
/*
 * mmchange detect: its options, and the inputs loaded (chgload.c), judged
 * and printed (chgjudge.c).
 */
#include <getopt.h>
#include <gsl/gsl_rng.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmchange.h"

/* ------------------------------------------------------------ detect command */

static int detect_opts(int argc, char **argv, struct detect *d)
{
	static const struct option lo[] = {
		RULE_LONGOPTS, { "host", required_argument, NULL, 'H' },
		{ "history", required_argument, NULL, 'h' },
		{ "config-id", required_argument, NULL, 'c' },
		{ "window", required_argument, NULL, 'w' },
		{ "add-run", required_argument, NULL, 'A' },
		{ "night-date", required_argument, NULL, 'D' },
		{ "rerun", required_argument, NULL, 'r' },
		{ "rerun-done", no_argument, NULL, 'd' },
		{ "suspects", no_argument, NULL, 's' },
		{ "judge", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'o' },
		{ "ledger", required_argument, NULL, 'L' },
		{ "no-detectable", no_argument, NULL, 'N' },
		{ "host-margin", required_argument, NULL, 'm' },
		{ "max-lines", required_argument, NULL, 'x' }, { NULL, 0, NULL, 0 },
	};
	time_t t;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int rc = rule_opt(c, optarg, &d->r);

		if (rc == 2)
			return -1;
		if (!rc)
			continue;
		switch (c) {
		case 'H': d->host = optarg; break;
		case 'h': d->history = optarg; break;
		case 'c': d->config_id = optarg; break;
		case 'w': if (parse_int(optarg, "--window", 0, 100000, &d->window)) return -1; break;
		case 'A':
			if (d->nadd == 63)
				return die_usage("detect: too many --add-run"), -1;
			d->add[d->nadd++] = optarg;
			break;
		case 'D':
			if (!hist_date_parse(optarg, &t))
				return die_usage("--night-date '%s': not YYYY-MM-DDTHH:MM:SSZ", optarg), -1;
			d->night_date = optarg;
			break;
		case 'r':
			if (d->nadd == 63)
				return die_usage("detect: too many --add-run"), -1;
			d->rerun = d->add[d->nadd++] = optarg;
			d->rerun_done = true;
			break;
		case 'd': d->rerun_done = true; break;
		case 's': d->suspects = true; break;
		case 'j':
			if (judge_add_patterns(&d->jo, optarg))
				return die_usage("--judge: too many patterns"), -1;
			break;
		case 'o': d->csv = optarg; break;
		case 'L': d->ledger = optarg; break;
		case 'N': d->detectable = false; break;
		case 'm':
			if (parse_double(optarg, "--host-margin", 0, 100, &d->host_margin))
				return -1;
			break;
		case 'x': if (parse_int(optarg, "--max-lines", 0, 100000, &d->max_lines)) return -1; break;
		default: return die_usage("detect: bad option (see mmchange --help)"), -1;
		}
	}
	if (optind != argc - 1 || !d->host)
		return die_usage("detect: need ROOT and --host"), -1;
	d->root = argv[optind];
	return 0;
}

int cmd_detect(int argc, char **argv)
{
	struct detect d = { .r = CP_DEFAULT_RULE, .window = 60, .max_lines = 30,
			    .detectable = true, .host_margin = 10 };
	char hist[PATH_MAX];
	struct judged *js = NULL;
	int i, rc = MM_USAGE, nnew = 0, runs_per_night;
	FILE *f;

	if (detect_opts(argc, argv, &d))
		goto out;
	snprintf(hist, sizeof(hist), "%s/history.csv", d.root);
	if (!d.history)
		d.history = hist;
	if (load_history(&d) || load_ledger(&d))
		goto out;
	for (i = 0; i < d.nruns; i++)
		if (load_run(&d, i))
			goto out;
	js = calloc(d.nlines + 1, sizeof(*js));
	if (!js) {
		die_usage("out of memory");
		goto out;
	}
	runs_per_night = d.nnights ? (int)lround((double)d.nruns / d.nnights) : 1;
	if (runs_per_night < 1)
		runs_per_night = 1;
	for (i = 0; i < d.nlines; i++) {
		struct judged *j = &js[i];

		if (judge_line(&d, &d.lines[i], j)) {
			die_usage("out of memory");
			goto out;
		}
		ledger_action(&d, j);
		nnew += j->action == A_NEW || j->action == A_SUSPECT;
		if (d.detectable && !j->exact && j->n >= 2) {
			int nights = d.runs[j->idx[j->n - 1]].night - d.runs[j->idx[0]].night + 1;

			j->det_sd = nights >= d.r.min_ref ?
				    detectable_sd(&d.r, nights, runs_per_night,
						  d.r.suspect_alpha > 0, d.r.confirm + 1) : NAN;
		}
	}
	print_summary(&d, js, d.nlines);
	rc = nnew ? MM_WORSE : 0;
	if (d.csv) {
		f = fopen(d.csv, "w");
		if (!f || write_csv(&d, js, d.nlines, f) || fclose(f)) {
			fprintf(stderr, "%s: %s: %s\n", hist_prog, d.csv, strerror(errno));
			rc = MM_USAGE;
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = MM_USAGE;
out:
	for (i = 0; js && i < d.nlines; i++)
		free(js[i].idx);
	free(js);
	for (i = 0; i < d.nlines; i++) {
		free(d.lines[i].v);
		free(d.lines[i].wcov);
	}
	free(d.lines);
	for (size_t k = 0; k < d.nnames; k++)
		free(d.names[k]);
	free(d.names);
	for (i = 0; i < d.nruns; i++) {
		free(d.runs[i].dir);
		free(d.runs[i].rel);
		free(d.runs[i].date);
		free(d.runs[i].kernel);
	}
	free(d.runs);
	for (i = 0; i < d.nopen; i++) {
		free(d.open[i].workload);
		free(d.open[i].kase);
		free(d.open[i].metric);
		free(d.open[i].first_run);
	}
	free(d.open);
	judge_free(&d.jo);
	return rc;
}
