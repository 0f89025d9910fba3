/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.csv (mmcompare --csv): its columns, in order, stated once.
 * mmcompare writes its header from this table (cmpcsv.c), one row per line
 * (workload, case, metric) and side; mmhistory reads it back by these
 * names (the header's column of each), never by position. Columns are only
 * ever appended, so that readers of older files keep working.
 */
#ifndef MMC_COMPARE_CSV_H
#define MMC_COMPARE_CSV_H

#define COMPARE_CSV_COLUMNS(X)							\
	X(WORKLOAD, "workload") X(CASE, "case") X(METRIC, "metric")		\
	X(NAME, "name") X(UNIT, "unit") X(BETTER, "better")			\
	X(SIDE, "side")		/* 0 BASE, 1.. NEW */				\
	X(LABEL, "label") X(N, "n") X(MEAN_TYPE, "mean_type") X(MEAN, "mean")	\
	X(AMEAN, "amean") X(STDDEV, "stddev") X(COV_PCT, "cov_pct")		\
	X(MIN, "min") X(MEDIAN, "median") X(MAX, "max")				\
	X(MEAN_CI_LOW, "mean_ci_low") X(MEAN_CI_HIGH, "mean_ci_high")		\
	X(CHANGE_PCT, "change_pct") X(DIFF, "diff")				\
	X(DIFF_CI_LOW, "diff_ci_low") X(DIFF_CI_HIGH, "diff_ci_high")		\
	X(CI_LEVEL, "ci_level") X(T, "t") X(DF, "df") X(P_VALUE, "p_value")	\
	X(SIGNIFICANT, "significant") X(VERDICT, "verdict")			\
	/* since metrics.csv */							\
	X(ROLE, "role") X(TIMED, "timed") X(EMULATED, "emulated")		\
	X(EXACT, "exact") X(P_ADJUSTED, "p_adjusted")				\
	X(CORRECTION, "correction") X(JUDGED, "judged")				\
	X(ABS_CHANGE, "abs_change") X(CLAIM, "claim")				\
	X(MIN_DETECTABLE, "min_detectable")					\
	/* since the run became the unit */					\
	X(RUNS, "runs") X(DECIDED_BY, "decided_by")				\
	X(VARIANCE_BASE, "variance_base") X(VARIANCE_NEW, "variance_new")	\
	X(MDC_PCT, "mdc_pct") X(MDC_LEVEL, "mdc_level")				\
	X(COV_RUNS_PCT, "cov_runs_pct") X(COV_WITHIN_PCT, "cov_within_pct")

enum compare_csv_col {
#define COMPARE_CSV_ENUM(id, name) CC_##id,
	COMPARE_CSV_COLUMNS(COMPARE_CSV_ENUM)
#undef COMPARE_CSV_ENUM
	CC_NCOLS
};

/* A column's name in the header. */
static inline const char *compare_csv_name(enum compare_csv_col c)
{
	static const char *const names[CC_NCOLS] = {
#define COMPARE_CSV_NAME(id, name) name,
		COMPARE_CSV_COLUMNS(COMPARE_CSV_NAME)
#undef COMPARE_CSV_NAME
	};

	return names[c];
}

#endif /* MMC_COMPARE_CSV_H */
