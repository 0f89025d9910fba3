// SPDX-License-Identifier: GPL-2.0
/*
 * label.c: the label rule (label.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "label.h"

/* s for a message: control characters and '\' as \xNN. */
void mm_escape(const char *s, char *out, size_t len)
{
	size_t off = 0;

	for (; *s && off + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			off += (size_t)snprintf(out + off, len - off, "\\x%02x", c);
		else
			out[off++] = (char)c;
	}
	out[off] = '\0';
}

/*
 * The label rule, one for every tool: 1 to MM_LABEL_MAX characters, each
 * a letter, a digit, '.', '_', '-' or '+'; it starts with a letter or a
 * digit and holds no "..". So a label is inert as a path component, a
 * shell word, a CSV field and a gnuplot string.
 */
int mm_label_check(const char *label, char *why, size_t len)
{
	size_t n = strlen(label);

	if (n == 0) {
		snprintf(why, len, "label '' is empty");
		return -1;
	}
	if (n > MM_LABEL_MAX) {
		char shown[200];

		mm_escape(label, shown, 60);
		snprintf(why, len, "label '%s...' is %zu characters long, more than %d",
			 shown, n, MM_LABEL_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)label[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
		      c == '+')) {
			char shown[MM_LABEL_MAX * 4 + 1], what[8];

			mm_escape(label, shown, sizeof(shown));
			if (c < 0x20 || c >= 0x7f)
				snprintf(what, sizeof(what), "\\x%02x", c);
			else
				snprintf(what, sizeof(what), "'%c'", c);
			snprintf(why, len, "label '%s': %s is not one of A-Z a-z 0-9 . _ - +",
				 shown, what);
			return -1;
		}
	}
	if (!isalnum((unsigned char)label[0])) {
		snprintf(why, len, "label '%s' must start with a letter or a digit", label);
		return -1;
	}
	if (strstr(label, "..")) {
		snprintf(why, len, "label '%s' may not contain '..'", label);
		return -1;
	}
	return 0;
}
