/* SPDX-License-Identifier: MIT */
/*
 * The one way every experiment flushes, as Linux has one flush_tlb_info
 * and one flush_tlb_mm_range(): a request says what to invalidate, on
 * which CPUs and how; flush_prepare() turns it into a plan outside any
 * timed region (Linux's choices and the INVLPGB encoding, which
 * bench/flush_how.c decides, and an injected encoding bug); flush_run() carries the
 * plan out, and is what the experiments time. A fix to how a strategy
 * flushes lands here once, so the experiments cannot disagree.
 */
#ifndef BENCH_FLUSH_H
#define BENCH_FLUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/flush_how.h"
#include "bench/params.h"
#include "kernel/cpu.h"
#include "mm/invlpgb.h"
#include "smp/cpumask.h"
#include "smp/smp.h"

/* How long a flush waits for its responders before it FAILs them. */
#define FLUSH_WAIT_US cpu_wait_us /* kernel/cpu.h: the one wait */

struct flush_req {
	enum flush_how how;
	uint64_t va;		       /* the first 4 KiB page */
	uint32_t pages;		       /* from va (not for FULL or ALL) */
	const struct cpumask *targets; /* the other CPUs (not this one) */
	enum ipi_mode mode;	       /* IPI_BROADCAST: all-but-self */
	/*
	 * Other CPUs flush at the same time (flushloop): the cross-calls
	 * lock each target's mailbox, and the caller has interrupts on.
	 */
	bool concurrent;
	/*
	 * The pages are global (PTE.G): a full flush toggles CR4.PGE
	 * instead of reloading CR3, INVLPGB sets include-global.
	 */
	bool global;
	uint32_t invlpgb_max; /* CPUID's pages per INVLPGB; 0: none */
	/*
	 * The step the caller asks INVLPGB for, checked by the encoder
	 * (reclaim's invlpgb=...,bug=stride asks for 2 MiB over 4 KiB
	 * pages, which the encoder must refuse).
	 */
	enum invlpgb_size stride;
	/*
	 * A wrong encoding written into the registers after the encoder,
	 * as a hand-written one would be (invlpgb=...,bug=): the model,
	 * or the hardware, and then the verifier must catch it.
	 */
	enum param_invlpgb_bug bug;
	/*
	 * delay_handler= (a test aid): the responders busy-wait this many
	 * TSC cycles after their flush, before they acknowledge; 0: none.
	 * Ignored with `concurrent`: a test aid for one initiator's
	 * timings (shootdown's), not for flushloop's many.
	 */
	uint64_t delay_cycles;
};

struct flush_range {
	uint64_t va;	/* first page */
	uint64_t pages; /* 4 KiB pages from va */
};

struct flush_plan {
	struct flush_req req;
	enum flush_how how; /* flush_resolve()d */
	struct flush_range range;
	struct invlpgb_regs *insn; /* the caller's, cap of them */
	size_t cap, ninsn;
	bool tlbsync; /* false only with bug=no-tlbsync */
	/* IPI strategies: what the responders and the initiator run */
	xcall_fn remote, self;
	bool delayed; /* the responders busy-wait delay_cycles after it */
};

/*
 * Plans req into p, with the caller's insn[cap] for INVLPGB. Returns
 * INVLPGB_OK, or the encoder's error (then flush_run() must not be
 * called: nothing would be flushed).
 */
int flush_prepare(struct flush_plan *p, const struct flush_req *req,
		  struct invlpgb_regs *insn, size_t cap);

/*
 * Carries p out on this CPU and its targets, and returns once every one
 * has: false if a responder did not answer within FLUSH_WAIT_US (a FAIL
 * naming it is printed).
 */
bool flush_run(struct flush_plan *p);

/*
 * The whole TLB of this CPU and of targets (global entries too if
 * global), untimed: cleaning up, or flushing instead of a refused
 * INVLPGB. False as flush_run().
 */
bool flush_everywhere(const struct cpumask *targets, bool global);

/*
 * selftest=nmi: the next IPI round makes one responder send the
 * initiator an NMI inside the timed flush (false: no longer).
 */
void flush_inject_nmi(bool on);

/*
 * What a responder runs (cross-call functions, smp.h's xcall_fn), also
 * for callers that clean up outside a timed flush.
 */
void flush_page(void *va);	      /* INVLPG of the address arg */
void invlpg_range(void *range);	      /* INVLPG each page of a flush_range */
void flush_nonglobal(void *unused);   /* CR3 reload: global entries stay */
void flush_with_global(void *unused); /* CR4.PGE toggle: every entry */
void flush_nothing(void *unused);     /* FLUSH_IPI_LOCAL_ONLY's responders */

#endif
