// SPDX-License-Identifier: GPL-2.0
/*
 * What mmcompare's outputs share: values as mmtests prints them, the note
 * after a line, the two halves of a large table formatted on two threads,
 * and the cases that did not pass.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bigmem.h"
#include "mmcompare.h"

/* ------------------------------------------------------------ formatting */

/*
 * Values as mmtests prints them, two decimals; four below 1 (ratios,
 * rates per ns) so that a change there stays visible; %.4g when tiny or huge.
 */
/*
 * "%.2f" without printf when the result cannot differ: |v| < 1e9 and v * 100
 * not within 1e-4 of a rounding tie (printf rounds the exact binary value,
 * the product carries an error below 1e-5 there). Tables of 100,000 lines
 * spend most of their printing time in printf otherwise.
 */
bool fast_fix2(double v, char *buf, size_t len)
{
	double r = fabs(v) * 100;
	unsigned long long n;
	char d[24];
	int o = 0, k = 0;

	if (!(r < 1e11) || len < 24 || fabs(r - floor(r) - 0.5) < 1e-4)
		return false;
	n = (unsigned long long)(r + 0.5);
	if (signbit(v))
		buf[o++] = '-';
	do {
		d[k++] = '0' + n % 10;
		n /= 10;
	} while (n || k < 3);
	while (k > 2)
		buf[o++] = d[--k];
	buf[o++] = '.';
	buf[o++] = d[1];
	buf[o++] = d[0];
	buf[o] = '\0';
	return true;
}

const char *fmt_val(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (v == 0 || (a >= 1 && a < 1e15)) {
		if (!fast_fix2(v, buf, len))
			snprintf(buf, len, "%.2f", v);
	}
	else if (a >= 0.01 && a < 1)
		snprintf(buf, len, "%.4f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* Width fmt_val() will need, without formatting (tables are large). */
int val_width(double v)
{
	double a = fabs(v) + 0.005;
	int w = 4 + (v < 0);

	if (v != 0 && fabs(v) < 1)
		return fabs(v) >= 0.01 ? 6 + (v < 0) : 11;
	if (fabs(v) >= 1e15)
		return 11;
	for (; a >= 10; a /= 10)
		w++;
	return w;
}

const char *fmt_p(const struct cmp_cell *c, char *buf, size_t len)
{
	if (!c->w.ok)
		snprintf(buf, len, "-");
	else if (c->w.p == 0)
		snprintf(buf, len, "0");
	else if (c->w.p < 0.0001)
		snprintf(buf, len, "%.1e", c->w.p);
	else
		snprintf(buf, len, "%.4f", c->w.p);
	return buf;
}

const char *fmt_ci(const struct cmp_cell *c, char *buf, size_t len)
{
	char lo[32], hi[32];

	if (!c->w.ok)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%s, %s]", fmt_val(c->w.ci_lo, lo, sizeof(lo)),
			 fmt_val(c->w.ci_hi, hi, sizeof(hi)));
	return buf;
}

bool any_verdict(const struct cmp *cmp, const struct cmp_row *r, enum cmp_verdict v)
{
	int i;

	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].verdict == v)
			return true;
	return false;
}

/*
 * The note after a line: why it is not judged, or what decided it (exact,
 * the runs, the iterations of one run per side).
 */
const char *row_note(const struct cmp *cmp, const struct cmp_row *r)
{
	bool ev = r->line->evidence;
	int i;

	if (r->line->better == MM_INFO)
		return "info: not judged";
	if (any_verdict(cmp, r, CMP_TOO_FEW))
		return "n<3: no significance claimed";
	if (any_verdict(cmp, r, CMP_EMULATED))
		return "emulated (TCG): not judged";
	if (any_verdict(cmp, r, CMP_OVERFLOW))
		return "overflow: values beyond what a double holds in a statistic, not judged";
	if (any_verdict(cmp, r, CMP_ONE_RUN))
		return "one run per side: not judged (--runs N, or --iterations-as-samples)";
	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].exact)
			return ev ? "evidence; exact" : "exact";
	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].by == CMP_BY_RUNS)
			return ev ? "evidence; runs" : "runs";
	for (i = 1; i < cmp->nsides; i++)
		if (r->cell[i].by == CMP_BY_ITERATIONS)
			return ev ? "evidence; iterations" : "iterations";
	return ev ? "evidence" : "";
}

/* ------------------------------------------------------------ two halves */

struct half {
	range_fn fn;
	const void *arg;
	size_t from, to;
	struct big_buf buf;
	size_t len;
	bool ok;
};

static void *half_run(void *p)
{
	struct half *h = p;
	FILE *f = big_memstream(&h->buf, &h->len);

	if (f) {
		setvbuf(f, NULL, _IOFBF, 1 << 16);
		h->fn(h->arg, h->from, h->to, f);
		h->ok = !ferror(f);
		h->ok &= !fclose(f);
	}
	return NULL;
}

/*
 * Format items [0, n) with fn. Large tables take as long to print as to
 * compute: with a second CPU, items [mid, n) are formatted into memory on
 * a second thread and written after the first half, in order.
 */
void print_halves(range_fn fn, const void *arg, size_t n, size_t mid, FILE *out)
{
	struct half h = { .fn = fn, .arg = arg, .from = mid, .to = n };
	bool threaded = mid > 0 && mid < n && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	pthread_t tid;

	if (threaded && pthread_create(&tid, NULL, half_run, &h))
		threaded = false;
	fn(arg, 0, threaded ? mid : n, out);
	if (!threaded)
		return;
	pthread_join(tid, NULL);
	if (h.ok)
		fwrite(h.buf.p, 1, h.len, out);
	else
		fn(arg, mid, n, out);
	big_release(&h.buf);
}

size_t case_notes(const struct rs_set *s, struct skip_count *skips, int *nskips)
{
	size_t bad = 0;
	int i, k, j;

	*nskips = 0;
	for (i = 0; i < s->nruns; i++) {
		const struct rs_run *r = &s->runs[i];

		for (k = 0; k < r->nnotes; k++) {
			const char *side = rs_run_side_name(s, r, &r->notes[k]);

			if (strcmp(r->notes[k].status, "skip")) {
				bad++;
				continue;
			}
			for (j = 0; j < *nskips && strcmp(skips[j].side, side); j++)
				;
			if (j == *nskips) {
				if (j == 2 * RS_MAX_SIDES)
					continue;
				skips[(*nskips)++] = (struct skip_count){ side, 0 };
			}
			skips[j].n++;
		}
	}
	return bad;
}

/* The next note after (*run, *k) that is not a skip; NULL at the end. */
const struct rs_case_note *next_bad_note(const struct rs_set *s, int *run, int *k,
					       const struct rs_run **r)
{
	for (; *run < s->nruns; (*run)++, *k = -1) {
		*r = &s->runs[*run];
		while (++*k < (*r)->nnotes)
			if (strcmp((*r)->notes[*k].status, "skip"))
				return &(*r)->notes[*k];
	}
	return NULL;
}
