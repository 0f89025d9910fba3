// SPDX-License-Identifier: GPL-2.0
/*
 * The kill-point test hook (core.h: mm_stop_point()): its own unit, so the
 * settings journal, the profile and the team reach it without depending on
 * the driver.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

const char *mm_stop_role = "driver";

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * Wait at a stop point for SIGUSR1 (not SIGSTOP: a stopped process in a
 * process group that the driver's death orphans gets SIGHUP from the
 * kernel, which would hide what a running orphan does).
 */
void mm_stop_point(const char *point)
{
	static pid_t owner;
	static long hits;
	const char *want = getenv("MMBENCH_STOP_AT");
	size_t rl = strlen(mm_stop_role), pl = strlen(point);
	struct sigaction sa = { .sa_handler = on_usr1 }, old_sa;
	sigset_t block, old_mask;
	long nth = 1;

	if (!want || strncmp(want, mm_stop_role, rl) || want[rl] != '/' ||
	    strncmp(want + rl + 1, point, pl) ||
	    (want[rl + 1 + pl] && want[rl + 1 + pl] != ':'))
		return;
	if (want[rl + 1 + pl] == ':')
		nth = strtol(want + rl + 2 + pl, NULL, 10);
	if (owner != getpid()) {
		owner = getpid();
		hits = 0;
	}
	if (++hits != nth)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old_sa);
	fprintf(stderr, "mmbench: stop point %s reached by pid %ld\n", want,
		(long)getpid());
	sigsuspend(&old_mask);
	sigaction(SIGUSR1, &old_sa, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
}
