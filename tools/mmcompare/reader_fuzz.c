// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the result-set reader (built as fuzz_reader with
 * clang -fsanitize=fuzzer,address,undefined; tests/compare/test_fuzz.sh
 * runs it for a bounded time).
 *
 * The first input byte picks the schema file (results.csv, meta.csv,
 * samples.csv, cases.csv or started.csv; its low 7 bits), the rest is its
 * content. Whatever parses is taken through the whole pipeline mmcompare
 * runs: a second side, rs_finish(), the meta-fact comparison and the
 * statistics of every line. With the byte's high bit set the second side
 * has two runs, so the lines are judged with the run as the unit.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results.h"

static const char good_results[] =
	MM_RESULTS_HEADER "\n"
	"1,r,base,k,w,\"threads=1\",0,m,1,ns,lower\n"
	"1,r,base,k,w,\"threads=2\",0,m,2,ns,lower\n";
static const char good_results2[] =
	MM_RESULTS_HEADER "\n"
	"1,r2,base,k,w,\"threads=1\",0,m,1.5,ns,lower\n"
	"1,r2,base,k,w,\"threads=1\",1,m,1.25,ns,lower\n"
	"1,r2,base,k,w,\"threads=2\",0,m,2.5,ns,lower\n";
static const char good_meta[] = MM_META_HEADER "\nschema,1\ncpus,2\nthp_enabled,madvise\n";

/* A run whose results.csv is buf (and meta.csv meta when given). */
static int add_run(struct rs_set *s, enum rs_kind kind, const uint8_t *buf, size_t len)
{
	int run = rs_new_run(s, "fuzz/results.csv");

	if (run < 0)
		return -1;
	if (kind == RS_RESULTS)
		return rs_parse_buf(s, RS_RESULTS, "fuzz/results.csv", buf, len, run);
	if (rs_parse_buf(s, RS_RESULTS, "fuzz/results.csv", good_results,
			 strlen(good_results), run))
		return -1;
	static const char *const name[RS_NKINDS] = {
		[RS_META] = "fuzz/meta.csv", [RS_SAMPLES_FILE] = "fuzz/samples.csv",
		[RS_CASES] = "fuzz/cases.csv", [RS_STARTED] = "fuzz/started.csv", [RS_METRICS] = "fuzz/metrics.csv",
	};

	return rs_parse_buf(s, kind, name[kind], buf, len, run);
}

/* What mmcompare prints must be finite: "nan" and "inf" appear nowhere. */
static void check_finite(const struct cmp *c)
{
	for (size_t k = 0; k < c->nrows; k++) {
		for (int i = 0; i < c->nsides; i++) {
			const struct cmp_cell *x = &c->rows[k].cell[i];
			const struct st_summary *s = &x->sum;
			const struct st_welch *w = &x->w;

			if (!x->present)
				continue;
			if (!isfinite(s->mean) || !isfinite(s->amean) || !isfinite(s->min) ||
			    !isfinite(s->median) || !isfinite(s->max) ||
			    (s->sd_ok && !isfinite(s->sd)) || (s->cov_ok && !isfinite(s->cov)) ||
			    (s->ci_ok && !(isfinite(s->ci_lo) && isfinite(s->ci_hi))) ||
			    (x->pct_ok && !isfinite(x->pct)) ||
			    (w->ok && !(isfinite(w->p) && isfinite(w->diff) &&
					isfinite(w->ci_lo) && isfinite(w->ci_hi))) ||
			    (w->df_ok && !isfinite(w->df)) || (w->t_ok && !isfinite(w->t)) ||
			    (i > 0 && !x->overflow && !isfinite(x->diff)) ||
			    (x->mdc_ok && !isfinite(x->mdc)) ||
			    (x->mdc_pct_ok && !isfinite(x->mdc_pct)) ||
			    (x->runs.means_ok && !isfinite(x->runs.var_means)) ||
			    (x->runs.within_ok && !isfinite(x->runs.var_within)))
				abort();
			/* a judged cell has a finite test, or is exact */
			if (x->judged && x->p_ok && !x->exact && !(w->ok && w->t_ok))
				abort();
		}
	}
}

static void pipeline(struct rs_set *s)
{
	struct cmp_meta m;
	struct cmp c;

	if (rs_finish(s))
		return;
	if (!cmp_meta(s, &m))
		cmp_meta_free(&m);
	if (!cmp_build(&c, s, 0.05)) {
		if (!isfinite(c.mdc_level))
			abort();
		check_finite(&c);
	}
	cmp_free(&c);		/* cmp_build() leaves it freeable either way */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum rs_kind kind;
	struct rs_set s;

	if (!size)
		return 0;
	kind = (data[0] & 0x7f) % RS_NKINDS;
	/* one side per argument: the same labels still make two sides */
	rs_init(&s, RS_PER_ARG | RS_SAMPLES);
	if (!add_run(&s, kind, data + 1, size - 1)) {
		s.cur_arg++;
		if (add_run(&s, RS_META, (const uint8_t *)good_meta, strlen(good_meta)) == 0) {
			int run = (data[0] & 0x80) ? rs_new_run(&s, "fuzz/run2/results.csv") : -1;

			if (run < 0 || !rs_parse_buf(&s, RS_RESULTS, "fuzz/run2/results.csv",
						     good_results2, strlen(good_results2), run))
				pipeline(&s);
		}
	}
	rs_free(&s);
	return 0;
}
