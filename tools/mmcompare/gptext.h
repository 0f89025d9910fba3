/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input text in gnuplot scripts and data files, for mmplot and mmtrend.
 *
 * Labels, case strings, workload and metric names, units, host names and
 * kernel releases come from result files anyone can write. gnuplot runs
 * `command` in backquotes anywhere on a command line except inside
 * single-quoted strings (double quotes do not stop it), expands @macros
 * outside quotes, turns backslash escapes in double-quoted strings (and in
 * strings of data files) into characters, and a newline ends a command.
 *
 * The rule: no input string reaches a script or a data file except through
 * these functions. They keep only characters that mean nothing to gnuplot
 * inside quotes (ASCII letters, digits, space and . _ , : ; = + - % / ( )
 * [ ] < > * ! |), turn every other byte into '_', cut the text at
 * GP_TEXT_MAX bytes (ending it with "..."), and write it single-quoted in
 * scripts, where gnuplot does no substitution and no escape processing.
 * Data files can only quote with double quotes: the same filter leaves no
 * backslash, quote or backquote there either.
 */
#ifndef MMC_GPTEXT_H
#define MMC_GPTEXT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define GP_TEXT_MAX 200

static inline bool gp_safe_char(char ch)
{
	unsigned char c = (unsigned char)ch;

	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(" ._,:;=+-%/()[]<>*!|", c));
}

/* The filtered text of s, without quotes, at most max bytes of it. */
static inline void gp_put(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n && i < max; i++)
		fputc(gp_safe_char(s[i]) ? s[i] : '_', f);
	if (n > max)
		fputs("...", f);
}

/* A single-quoted gnuplot string of s, for scripts; at most max bytes. */
static inline void gp_textn(FILE *f, const char *s, size_t max)
{
	fputc('\'', f);
	gp_put(f, s, max);
	fputc('\'', f);
}

static inline void gp_text(FILE *f, const char *s)
{
	gp_textn(f, s, GP_TEXT_MAX);
}

/* A double-quoted field of s, for data files. */
static inline void gp_datstr(FILE *f, const char *s)
{
	fputc('"', f);
	gp_put(f, s, GP_TEXT_MAX);
	fputc('"', f);
}

/* The filtered text of s into buf (file names, markdown), cut to fit. */
static inline void gp_clean(char *buf, size_t len, const char *s)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = gp_safe_char(s[i]) ? s[i] : '_';
	buf[i] = '\0';
}

#endif /* MMC_GPTEXT_H */
