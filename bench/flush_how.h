/* SPDX-License-Identifier: MIT */
/*
 * What each flush strategy does, decided without touching the hardware,
 * so that host tests cover it (tests/unit/test_flush_how.c): the rules
 * that turn Linux's strategies into a range or a full flush, and the
 * INVLPGB encoding of the INVLPGB ones. bench/flush.c carries it out.
 */
#ifndef BENCH_FLUSH_HOW_H
#define BENCH_FLUSH_HOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mm/invlpgb.h"

/*
 * Linux's tlb_single_page_flush_ceiling (arch/x86/mm/tlb.c): a range of
 * up to this many pages is flushed one INVLPG per page; a longer one by
 * flushing the whole TLB. Past it, the INVLPGs cost more than refilling
 * what a full flush drops needlessly; Linux measured the crossover on
 * the CPUs of 2014 and kept 33. Ours is the same, so that `ipi-linux`,
 * `invlpgb-linux` and the reclaim batches flush as Linux would.
 */
#define FLUSH_SINGLE_PAGE_CEILING 33

enum flush_how {
	FLUSH_IPI_PAGE,	 /* an IPI round per page; each CPU INVLPGs it */
	FLUSH_IPI_RANGE, /* one round; each CPU INVLPGs every page */
	FLUSH_IPI_FULL,	 /* one round; each CPU flushes its whole TLB */
	FLUSH_IPI_LINUX, /* RANGE up to the ceiling, else FULL */
	/*
	 * One round; the responders flush their whole TLB, the initiator
	 * INVLPGs the range (reclaim's per-page path: a responder that
	 * fell behind in Linux's flush generations flushes everything).
	 */
	FLUSH_IPI_REMOTE_FULL,
	FLUSH_INVLPGB, /* INVLPGB of the range in chunks, then TLBSYNC */
	/*
	 * One INVLPGB of every non-global entry, then TLBSYNC: Linux's
	 * invlpgb_flush_all_nonglobals(), its batched reclaim flush.
	 */
	FLUSH_INVLPGB_ALL,
	/*
	 * Linux's INVLPGB path (broadcast_tlb_flush()): INVLPGB up to the
	 * ceiling, else ALL. Past the ceiling Linux makes the range
	 * TLB_FLUSH_ALL and issues one invlpgb_flush_single_pcid_nosync():
	 * every non-global entry of the address space. The harness runs in
	 * one address space (PCID 0, or PCIDE off), so ALL is that flush.
	 */
	FLUSH_INVLPGB_LINUX,
	/*
	 * One round in which the responders only acknowledge, and the
	 * initiator INVLPGs the range: a flush that misses every other
	 * CPU, on purpose. The negative control of a cross-CPU check (and
	 * its fault injection), with the IPIs of a real round, so that
	 * the CPUs interleave as under the strategies it stands for.
	 */
	FLUSH_IPI_LOCAL_ONLY,
};

/*
 * What `how` does to a range of `pages`: Linux's two strategies resolved
 * by the ceiling (IPI_LINUX: RANGE or FULL; INVLPGB_LINUX: INVLPGB or
 * INVLPGB_ALL), every other one unchanged.
 */
enum flush_how flush_resolve(enum flush_how how, uint64_t pages);

/* Whether how (resolved or not) flushes by INVLPGB rather than IPIs. */
bool flush_is_invlpgb(enum flush_how how);

/*
 * The INVLPGB instructions of how (an INVLPGB strategy, resolved here)
 * over range: its va, pages, stride and include_global; the rest of it
 * as the encoder's zeroed request (ASID 0, every PCID). A full flush is
 * one instruction with VA-valid clear. Fills out[0 .. *n) (cap of them);
 * returns INVLPGB_OK or the encoder's error (then *n is 0).
 */
int flush_encode_invlpgb(enum flush_how how, const struct invlpgb_req *range,
			 const struct invlpgb_caps *caps,
			 struct invlpgb_regs *out, size_t cap, size_t *n);

#endif
