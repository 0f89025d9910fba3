/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numbers.h: the one grammar of numbers, for the command line and the
 * result files alike, and the significance level of every tool.
 *
 * Numbers are decimal only, written as a person writes them and as the
 * core's %.12g writes them: an optional '-', digits, and for a real an
 * optional fraction and exponent (whose sign may be '+'). No leading '+',
 * no octal, no 0x, no spaces, no inf/nan: strtoll's base 0 would read 010
 * as 8 and strtod would take 0x1p3, " 5" and "+5".
 */
#ifndef MM_NUMBERS_H
#define MM_NUMBERS_H

#include <stdbool.h>

/* s is [-]digits[.digits][e[+-]digits] or [-].digits[...] */
bool mm_decimal_real(const char *s);
/* s is a decimal real (above) and finite: 0, or -EINVAL / -ERANGE (overflow) */
int mm_parse_real(const char *s, double *out);
/* s is [-]digits and fits a long long: 0, or -EINVAL / -ERANGE */
int mm_parse_decimal(const char *s, long long *out);
/*
 * --alpha: a decimal number in (0, 1). On error prints
 * "PROG: --alpha 'S': want a decimal number between 0 and 1 (such as 0.05)"
 * and returns -1.
 */
int mm_parse_alpha(const char *prog, const char *s, double *alpha);

#endif
