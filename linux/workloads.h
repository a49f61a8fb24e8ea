/* SPDX-License-Identifier: MIT */
/*
 * The seeds' workloads under Linux: tlb_flush2 (linux/flush2.c, seed
 * 000's method) and the page-out under a reader (linux/pageout.c, seed
 * 001's test). Each prints its result records and its verdicts.
 */
#ifndef LINUX_WORKLOADS_H
#define LINUX_WORKLOADS_H

#include "linux/args.h"

void flush2_run(const struct args *a, unsigned cpus);
void pageout_run(const struct args *a, unsigned cpus);

/* The loop every worker thread counts its reads in (docs/records.md). */
#define READS_UNIT 64

#endif
