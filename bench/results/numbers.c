// SPDX-License-Identifier: GPL-2.0
/*
 * numbers.c: the one grammar of decimal numbers (numbers.h), used by the
 * driver's options and parameters, by the result-set reader and by the
 * tools' options.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "numbers.h"

static bool decimal_int(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool mm_decimal_real(const char *s)
{
	bool digits = false;

	if (*s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

int mm_parse_real(const char *s, double *out)
{
	if (!mm_decimal_real(s)) {
		*out = NAN;
		return -EINVAL;
	}
	*out = strtod(s, NULL);
	return isfinite(*out) ? 0 : -ERANGE;
}

int mm_parse_decimal(const char *s, long long *out)
{
	char *end;

	if (!decimal_int(s))
		return -EINVAL;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno ? -errno : 0;
}

int mm_parse_alpha(const char *prog, const char *s, double *alpha)
{
	mm_parse_real(s, alpha);
	if (!(*alpha > 0 && *alpha < 1)) {
		fprintf(stderr, "%s: --alpha '%s': want a decimal number between 0 and 1 "
			"(such as 0.05)\n", prog, s);
		return -1;
	}
	return 0;
}
