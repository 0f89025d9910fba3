// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench check RULE VALUE: one of the C side's rules, for shell tools
 * that must not restate it (tools/lib/nightly/config.sh asks for alpha).
 * Exit 0 when VALUE follows the rule, else 2 with the rule's own message.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "driver.h"
#include "numbers.h"

static int check_label(const char *s)
{
	char why[700];

	if (mm_label_check(s, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "mmbench: %s\n", why);
	return -1;
}

/* The tools' --alpha rule and message (mm_parse_alpha). */
static int check_alpha(const char *s)
{
	double alpha;

	return mm_parse_alpha("mmbench", s, &alpha);
}

/* The grammar of numbers (numbers.h), for shell that checks before mmbench is built. */
static int check_decimal(const char *s)
{
	if (mm_decimal_real(s))
		return 0;
	fprintf(stderr, "mmbench: '%s': not a decimal number\n", s);
	return -1;
}

static int check_integer(const char *s)
{
	long long v;

	if (mm_parse_decimal(s, &v) == 0)
		return 0;
	fprintf(stderr, "mmbench: '%s': not a whole decimal number that fits 64 bits\n", s);
	return -1;
}

static const struct {
	const char *name;
	int (*ok)(const char *s);
} rules[] = {
	{ "label", check_label },
	{ "alpha", check_alpha },
	{ "decimal", check_decimal },
	{ "integer", check_integer },
};

int cmd_check(int argc, char **argv)
{
	(void)argc;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(argv[1], rules[i].name) == 0)
			return rules[i].ok(argv[2]) == 0 ? MM_PASS : MM_USAGE;
	fprintf(stderr, "mmbench check: no rule '%s' (label, alpha, decimal, integer)\n", argv[1]);
	return MM_USAGE;
}
