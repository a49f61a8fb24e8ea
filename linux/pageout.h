/* SPDX-License-Identifier: MIT */
/*
 * The page-out workload's state (linux/pageout.c) and its records
 * (linux/pageout_emit.c): the snapshots its timeline is made of.
 */
#ifndef LINUX_PAGEOUT_H
#define LINUX_PAGEOUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/workloads.h"

/* The windows before and after the page-out: 50 bins, as the harness's. */
#define PO_WINDOW_BINS 50
/* The page-out: at most 100 full bins, and a shorter last one. */
#define PO_DURING_BINS 100
/* Workers whose own series a timeline record carries (RC_TL_SHOWN). */
#define PO_SHOWN 8

struct worker;

/*
 * Snapshots, each 2 + workers values: the time (ns), the pages paged out
 * so far, every worker's reads (in READS_UNIT). [0, start] is the window
 * before, [start, end] the page-out (one a call), [end, n) the window
 * after.
 */
struct po_timeline {
	struct worker *w;
	unsigned workers;
	uint64_t *snaps;
	size_t cap, n, start, end;
};

static inline uint64_t *po_snap(struct po_timeline *tl, size_t i)
{
	return tl->snaps + i * (2 + tl->workers);
}

struct po_run {
	char *cold;
	struct po_timeline tl;
	atomic_bool stop;
	uint64_t calls, failed_calls, tlb0, cal0, tlb, cal, swapped;
	unsigned resident, pinned, read_before;
	bool workers_ok;
	int error;
};

bool po_alloc(struct po_timeline *tl, size_t snaps);
void po_free(struct po_timeline *tl);
/* The timeline record, then the result record; sets workers_ok. */
void po_emit(struct po_run *r, uint64_t pages, uint64_t width_ns);

#endif
