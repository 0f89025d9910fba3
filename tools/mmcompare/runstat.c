// SPDX-License-Identifier: GPL-2.0
/*
 * runstat CMD [ARG...]: run CMD and report its wall time and peak RSS
 * (ru_maxrss of the child from wait4) on stderr, as
 * "runstat: wall_s W maxrss_mb M exit E user_s U sys_s S".
 * Exits with CMD's status.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "exitcodes.h"

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: runstat CMD [ARG...]\n");
		return MM_USAGE;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("runstat");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "runstat: wall_s %.3f maxrss_mb %.1f exit %d user_s %.3f sys_s %.3f\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		ru.ru_maxrss / 1024.0, WIFEXITED(status) ? WEXITSTATUS(status) : 128,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
