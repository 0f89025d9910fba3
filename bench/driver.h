/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMBENCH_DRIVER_H
#define MMBENCH_DRIVER_H

#include "core.h"

struct mm_opts {
	int iterations;
	int warmups;
	unsigned int timeout;	/* seconds per case */
	bool verbose;
	char **sets;		/* --set PATH=VALUE, applied in each case */
	int nsets;
};

void mm_driver_signals(void);
int mm_driver_interrupted(void);
int mm_run_case(const struct workload *wl, const struct mm_case *c,
		const struct mm_opts *o);

#endif
