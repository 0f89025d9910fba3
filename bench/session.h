/* SPDX-License-Identifier: GPL-2.0 */
/* A run of parsed plans (session.c): set up, execute, or list its cases. */
#ifndef MMBENCH_SESSION_H
#define MMBENCH_SESSION_H

#include "runopts.h"

/*
 * The run directory (-o, or ROOT/LABEL/STAMP-HOST), its settings journal
 * and, when new, its meta.csv (with every --set in effect) and
 * topology.xml. 0, or a negative code for run_setup_status().
 */
int run_setup(struct run_opts *ro, int argc, char **argv);
/* The exit status of a run_setup() that failed. */
int run_setup_status(int err);
/*
 * --dry-run: the cases the run would run, in order, as CSV on stdout. The
 * VM lab's guest prints it before the run: the host learns the number of
 * cases from the guest's own expansion (cpus, defaults sized to its memory).
 */
int run_dry(struct plan *plans, int nplans, struct run_opts *ro);
/* Run every case of every plan; returns the exit status of the run. */
int run_execute(struct plan *plans, int nplans, struct run_opts *ro);

#endif /* MMBENCH_SESSION_H */
