// SPDX-License-Identifier: GPL-2.0
/*
 * mdc: the project's minimum detectable change (bench/results/mdc.h) for
 * scripts, so that the formula is written once (tools/selfbench/lib.sh asks
 * this program instead of keeping its own table of t quantiles).
 *
 *   mdc [--alpha A] [--power P] N SD
 *
 * prints the smallest difference a comparison of a series of N values
 * with standard deviation SD against another series like it finds with
 * probability P at two-sided level A (defaults 0.05 and 0.8):
 * (t(1 - A/2, 2N-2) + t(P, 2N-2)) * SD * sqrt(2/N), in SD's unit (give a
 * CoV in % as SD for an MDC in %). Numbers are decimal (the result files'
 * rule). Exit 0 printed, 2 usage or a number out of range.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "mdc.h"
#include "resultset.h"

static int usage(void)
{
	fprintf(stderr, "usage: mdc [--alpha A] [--power P] N SD\n"
		"  the minimum detectable change of comparing N values (standard deviation\n"
		"  SD) with another series like them, at level A (0.05) and power P (0.8)\n");
	return MM_USAGE;
}

/* A decimal number in [lo, hi] (open where the flag says so). */
static int number(const char *what, const char *s, double lo, double hi, bool open,
		  double *out)
{
	*out = mm_decimal_real(s) ? strtod(s, NULL) : NAN;
	if (isfinite(*out) && (open ? *out > lo && *out < hi : *out >= lo && *out <= hi))
		return 0;
	fprintf(stderr, "mdc: %s '%s': want a decimal number %s %g and %g\n", what, s,
		open ? "strictly between" : "from", lo, hi);
	return -1;
}

int main(int argc, char **argv)
{
	double alpha = 0.05, power = MM_MDC_POWER, n, sd, m;
	int i = 1;

	for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
		if (!strcmp(argv[i], "--alpha")) {
			if (number("--alpha", argv[i + 1], 0, 1, true, &alpha))
				return MM_USAGE;
		} else if (!strcmp(argv[i], "--power")) {
			if (number("--power", argv[i + 1], 0, 1, true, &power))
				return MM_USAGE;
		} else {
			return usage();
		}
	}
	if (argc - i != 2)
		return usage();
	if (number("N", argv[i], 2, 1e9, false, &n))
		return MM_USAGE;
	if (n != floor(n)) {
		fprintf(stderr, "mdc: N '%s': want a whole number\n", argv[i]);
		return MM_USAGE;
	}
	if (number("SD", argv[i + 1], 0, 1e300, false, &sd))
		return MM_USAGE;
	m = mm_mdc_like(sd, n, alpha, power);
	if (!isfinite(m)) {
		fprintf(stderr, "mdc: the MDC of N %s, SD %s does not fit a double\n", argv[i],
			argv[i + 1]);
		return MM_USAGE;
	}
	printf("%.9g\n", m);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
