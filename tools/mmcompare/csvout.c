// SPDX-License-Identifier: GPL-2.0
#include <csv.h>
#include <string.h>

#include "csvout.h"

static void sep(struct csvo *o)
{
	if (o->col++)
		fputc(',', o->f);
}

void csvo_str(struct csvo *o, const char *s)
{
	size_t n = strlen(s);

	sep(o);
	if (strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[0] == '\t' ||
					    s[n - 1] == ' ' || s[n - 1] == '\t')))
		csv_fwrite(o->f, s, n);
	else
		fputs(s, o->f);
}

void csvo_num(struct csvo *o, double v, bool ok)
{
	sep(o);
	if (ok)
		fprintf(o->f, "%.12g", v);
}

void csvo_int(struct csvo *o, long long v)
{
	sep(o);
	fprintf(o->f, "%lld", v);
}

void csvo_end(struct csvo *o)
{
	fputc('\n', o->f);
	o->col = 0;
}
