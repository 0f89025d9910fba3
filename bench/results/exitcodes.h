/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitcodes.h: the exit codes of mmbench and of every tool, one enum
 * (kselftest style: 0 pass, 1 fail, 4 skip; 2 a usage error, 3 a
 * comparison that found something worse). A script tells them apart by
 * number, so a code never changes meaning.
 */
#ifndef MM_EXITCODES_H
#define MM_EXITCODES_H

enum mm_status {
	MM_PASS = 0,	/* ran, nothing worse found */
	MM_FAIL = 1,	/* a case failed, or a file could not be read/written */
	MM_USAGE = 2,	/* bad command line or bad input: named on stderr */
	MM_WORSE = 3,	/* a comparison found a regression (mmcompare, mmtrend, ...) */
	MM_SKIP = 4,	/* could not run here; the reason is printed */
};

#endif
