/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV output through libcsv: a field that needs quoting (comma, quote,
 * line break, surrounding space) is written with csv_fwrite(), others as is.
 */
#ifndef MMC_CSVOUT_H
#define MMC_CSVOUT_H

#include <stdbool.h>
#include <stdio.h>

struct csvo {
	FILE *f;
	int col;
};

void csvo_str(struct csvo *o, const char *s);
/* A number with 12 significant digits, or an empty field when !ok. */
void csvo_num(struct csvo *o, double v, bool ok);
void csvo_int(struct csvo *o, long long v);
void csvo_end(struct csvo *o);

#endif /* MMC_CSVOUT_H */
