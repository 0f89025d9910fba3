// SPDX-License-Identifier: GPL-2.0
/*
 * The machine needs of workloads: one check per row of MM_NEEDS
 * (mmbench.h). `mmbench list` and `mmbench info` show the words and,
 * where a need is not met here, why.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "params.h"
#include "params.h"

/* Each check: true if met, else false with the reason in why. */
static bool need_root(char *why, size_t len)
{
	if (mm_is_root())
		return true;
	snprintf(why, len, "not root");
	return false;
}

static bool need_numa2(char *why, size_t len)
{
	int n = mm_nnodes_with_memory();

	if (n >= 2)
		return true;
	snprintf(why, len, "%d NUMA node(s) with memory, needs 2 (the VM lab: ./run.sh --vm bookworm, "
		 "installed: mmbench measure --vm bookworm)", n);
	return false;
}

static bool need_thp(char *why, size_t len)
{
	char mode[32];

	if (*mm_thp_mode(mode, sizeof(mode)) && strcmp(mode, "never") != 0)
		return true;
	snprintf(why, len, "THP is %s", *mode ? mode : "not built in");
	return false;
}

static bool need_swap(char *why, size_t len)
{
	if (mm_swap_total_kb() > 0)
		return true;
	snprintf(why, len, "no swap");
	return false;
}

static bool need_tracefs(char *why, size_t len)
{
	if (access("/sys/kernel/tracing", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing", F_OK) == 0)
		return true;
	snprintf(why, len, "no tracefs");
	return false;
}

static const struct {
	unsigned int bit;
	const char *word;
	bool (*met)(char *why, size_t len);
} needs[] = {
#define NEED_ROW(bit, word) { MM_NEED_##bit, #word, need_##word },
	MM_NEEDS(NEED_ROW)
#undef NEED_ROW
};

unsigned int mm_needs_known(void)
{
	unsigned int all = 0;

	for (size_t i = 0; i < MM_NEED_COUNT; i++)
		all |= needs[i].bit;
	return all;
}

void mm_needs_words(unsigned int mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < MM_NEED_COUNT; i++)
		if ((mask & needs[i].bit) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off ? "," : "", needs[i].word);
	if (!off)
		snprintf(buf, len, "-");
}

/* Every unmet need's reason, joined with "; ". */
bool mm_needs_met(unsigned int mask, char *why, size_t len)
{
	size_t off = 0;

	why[0] = '\0';
	for (size_t i = 0; i < MM_NEED_COUNT; i++) {
		char one[256];

		if (!(mask & needs[i].bit) || needs[i].met(one, sizeof(one)))
			continue;
		if (off < len)
			off += (size_t)snprintf(why + off, len - off, "%s%s",
						off ? "; " : "", one);
	}
	return off == 0;
}
