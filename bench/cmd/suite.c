// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench suite FILE [options]: a plan per line of the suite file
 * (WORKLOAD [-p ...] [-i N] [-w N], or one "--probe F[,F]" line).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "session.h"

#define MAX_LINES 256

/*
 * Suite files: read whole, never cut. A line of any length up to
 * SUITE_LINE_MAX is one line (a longer one is an error, not two lines),
 * every word counts, and a NUL or a control character is an error: each
 * error names FILE:LINE, the line counted in newlines.
 */
#define SUITE_LINE_MAX 65536
#define SUITE_WORDS_MAX 1024

/* Split a suite line into words (no quoting: values have no spaces);
 * -1 when there are more than max - 2. */
static int split_words(char *line, char **words, int max)
{
	char *save = NULL;
	int n = 0;

	words[n++] = "suite-line";
	for (char *s = strtok_r(line, " \t\r", &save); s;
	     s = strtok_r(NULL, " \t\r", &save)) {
		if (n == max - 1)
			return -1;
		words[n++] = s;
	}
	words[n] = NULL;
	return n;
}

/*
 * The next line of f into buf (SUITE_LINE_MAX + 1 bytes, without the
 * newline). Returns its length (NULs included), -1 at the end of the
 * file, -2 when it is too long (an error: nothing more is read, so an
 * endless file such as /dev/zero ends here too).
 */
static long suite_line(FILE *f, char *buf)
{
	long len = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (len == SUITE_LINE_MAX)
			return -2;
		buf[len++] = (char)c;
	}
	if (c == EOF && len == 0)
		return -1;
	buf[len] = '\0';
	return len;
}

/* Why a line is not suite text, or NULL. */
static const char *line_invalid(const char *line, long len, char *why, size_t wlen)
{
	for (long i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == '\0')
			return snprintf(why, wlen, "NUL byte at column %ld", i + 1), why;
		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
			return snprintf(why, wlen, "control character 0x%02x at column %ld",
					c, i + 1), why;
	}
	return NULL;
}

static int load_suite(const char *file, struct plan *plans, int *nplans,
		      struct run_opts *ro)
{
	char *line = malloc(SUITE_LINE_MAX + 1), **words = NULL, where[300], why[128];
	const char *bad;
	bool suite_probe = false;
	int lineno = 0, n = 0, nw, idx;
	FILE *f = fopen(file, "re");
	long len;

	words = calloc(SUITE_WORDS_MAX, sizeof(*words));
	if (!f || !line || !words) {
		fprintf(stderr, "mmbench: suite '%s': %s\n", file, strerror(errno));
		goto fail;
	}
	while ((len = suite_line(f, line)) != -1) {
		char *hash;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d: ", file, lineno);
		if (len == -2) {
			fprintf(stderr, "mmbench: %sline longer than %d bytes\n", where,
				SUITE_LINE_MAX);
			goto fail;
		}
		bad = line_invalid(line, len, why, sizeof(why));
		if (bad) {
			fprintf(stderr, "mmbench: %s%s\n", where, bad);
			goto fail;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		nw = split_words(line, words, SUITE_WORDS_MAX);
		if (nw < 0) {
			fprintf(stderr, "mmbench: %smore than %d words\n", where,
				SUITE_WORDS_MAX - 2);
			goto fail;
		}
		if (nw < 2)
			continue;
		/*
		 * "--probe F[,F]": count these functions in every case, as the
		 * option does; checked here, replaced by a --probe given on
		 * the command line (parsed before the suite).
		 */
		if (!strcmp(words[1], "--probe")) {
			if (nw != 3 || suite_probe) {
				fprintf(stderr, "mmbench: %s%s\n", where, suite_probe ?
					"a second --probe line" : "expected --probe F[,F...]");
				goto fail;
			}
			suite_probe = true;
			if (mm_probe_set(words[2]) < 0 ||
			    (ro->probe && mm_probe_set(ro->probe) < 0)) {
				fprintf(stderr, "mmbench: %sin this --probe line\n", where);
				goto fail;
			}
			continue;
		}
		if (n == MAX_LINES) {
			fprintf(stderr, "mmbench: %smore than %d workload lines\n", where,
				MAX_LINES);
			goto fail;
		}
		/* plans[n] is initialised from here on: freed by the caller */
		*nplans = n + 1;
		if (plan_init(&plans[n], words[1], where) < 0)
			goto fail;
		idx = parse_opts(nw - 1, words + 1, ro, &plans[n], false);
		if (idx < 0)
			goto fail;
		if (idx < nw - 1) {
			fprintf(stderr, "mmbench: %sunexpected word '%s'\n", where,
				words[idx + 1]);
			goto fail;
		}
		if (plan_expand(&plans[n]) < 0)
			goto fail;
		n++;
	}
	if (ferror(f)) {
		fprintf(stderr, "mmbench: suite '%s': %s\n", file, strerror(errno));
		goto fail;
	}
	fclose(f);
	free(line);
	free(words);
	*nplans = n;
	if (n == 0) {
		fprintf(stderr, "mmbench: suite '%s' has no workload lines\n", file);
		return -1;
	}
	return 0;
fail:
	if (f)
		fclose(f);
	free(line);
	free(words);
	return -1;
}

int cmd_suite(int argc, char **argv)
{
	struct run_opts ro = RUN_OPTS_INIT;
	struct plan *plans = calloc(MAX_LINES, sizeof(*plans));
	int nplans = 0, ret = MM_USAGE, idx;

	if (!plans)
		return MM_FAIL;
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "mmbench suite: expected a suite FILE first\n");
		goto out;
	}
	/* argv[1] (the file) stands where getopt expects the program name. */
	idx = parse_opts(argc - 1, argv + 1, &ro, NULL, true);
	if (idx < 0 || check_precision(&ro) < 0)
		goto out;
	if (idx != argc - 1) {
		fprintf(stderr, "mmbench suite: unexpected argument '%s'\n", argv[idx + 1]);
		goto out;
	}
	idx = 1;
	if (load_suite(argv[idx], plans, &nplans, &ro) < 0)
		goto out;
	if (ro.dry_run) {
		ret = run_dry(plans, nplans, &ro);
		goto out;
	}
	idx = run_setup(&ro, argc, argv);
	if (idx < 0) {
		ret = run_setup_status(idx);
		goto out;
	}
	ret = run_execute(plans, nplans, &ro);
out:
	for (int i = 0; i < nplans; i++)
		mm_plist_free(&plans[i].pl);
	free(plans);
	return ret;
}
