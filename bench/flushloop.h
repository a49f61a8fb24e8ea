/* SPDX-License-Identifier: MIT */
/*
 * flushloop's own pieces, shared by its files: flushloop_round.c (what
 * every participating CPU does in a round) and flushloop.c (the rounds,
 * the controls, the records and the verdicts).
 */
#ifndef BENCH_FLUSHLOOP_H
#define BENCH_FLUSHLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/role.h"
#include "mm/layout.h"
#include "smp/cpumask.h"
#include "smp/percpu.h"
#include "smp/smp.h"

struct bench_ctx;

#define FL_BASE	     (EXPERIMENT_BASE + (32ull << 30))
#define FL_LATENCIES 65536

/*
 * FL_CONTROL is the cross-CPU negative control: the owner INVLPGs its
 * page on its own CPU only; the other CPUs get the IPI and only
 * acknowledge it (FLUSH_IPI_LOCAL_ONLY).
 */
enum fl_strategy { FL_IPI_PAGE, FL_IPI_RANGE, FL_INVLPGB, FL_COUNT };
#define FL_CONTROL FL_COUNT
extern const char *const fl_names[FL_COUNT + 1];
/* What strategy s's records are (bench/role.h); s up to FL_CONTROL. */
struct result_what fl_strategy_what(int s);

/*
 * What a CPU writes into its page in its operation `gen`: 0x5a, its
 * number and the generation, so that a read of the page tells which
 * operation's frame it reached.
 */
#define FL_TAG	     0x5aull
#define FL_TAG_SHIFT 56
#define FL_CPU_SHIFT 40
#define FL_GEN_MASK  ((1ull << FL_CPU_SHIFT) - 1)
#define FL_CPU_MASK  0xffffull

/*
 * How many operations an unmapped frame is kept before it is freed.
 * The allocator hands out the lowest free frame: freed at once, the old
 * frame came straight back as the new one, and a CPU that kept the old
 * translation read the new frame's zeros, as if flushed (the own-page
 * check passed with no flush at all). Kept, the old frame still holds
 * its generation when a CPU with a stale entry reads it. A power of 2.
 */
#define FL_QUARANTINE 8

/*
 * Each CPU's pages: operation `gen` works on page gen % 2. While it
 * flushes one, the other stays mapped for the other CPUs to read: under
 * single-threaded TCG a CPU runs between two IPIs, when every other CPU
 * is in the middle of its flush, and a single page would always be
 * unmapped when they read it.
 */
#define FL_PAGES 2

struct fl_cpu {
	volatile uint64_t ops;
	volatile uint64_t nonzero; /* remapped page did not read zero */
	volatile uint64_t failed;  /* map/unmap/alloc failures */
	/*
	 * The last generation whose flush completed on every CPU (this
	 * CPU's page then maps a later frame): over the whole run, never
	 * reset, so that a frame of an earlier round is still "flushed".
	 */
	volatile uint64_t done;
	volatile uint64_t remote_reads; /* of others' pages, not faulted */
	volatile uint64_t stale_remote; /* of them, a flushed frame */
} __attribute__((aligned(CACHELINE)));

/* Frames a CPU unmapped, oldest first from `next`; 0: empty slot. */
struct fl_quarantine {
	uint64_t pa[FL_QUARANTINE];
	unsigned next;
} __attribute__((aligned(CACHELINE)));

/* The first stale cross-CPU read of a strategy, for its FAIL. */
struct fl_stale {
	unsigned owner, checker, cpus;
	uint64_t value, done;
};

/*
 * One flushloop run: everything its CPUs share. It is reached only
 * through the pointer every participant's loop is handed (the
 * background work's argument), never through a global; flushloop_run()
 * keeps it in static storage, as it is far larger than a stack.
 */
struct fl_run {
	struct bench_ctx *ctx; /* records, progress: cpu 0's */
	struct fl_cpu cpu[MAX_CPUS];
	struct fl_quarantine quarantine[MAX_CPUS];
	/* This round's participants, and in order: each reads the others. */
	struct cpumask participants;
	uint16_t order[MAX_CPUS];
	unsigned norder;
	struct bg_group others; /* the participants other than cpu 0 */
	volatile bool stop;
	enum fl_strategy strategy;
	/*
	 * Every flush is FLUSH_IPI_LOCAL_ONLY: the control's round, and
	 * every strategy's under selftest=flushloop-local.
	 */
	bool local;
	volatile bool stale_taken;
	struct fl_stale first_stale;
	uint64_t *latency; /* cpu 0's per-operation cycles */
	size_t nlat;
	uint32_t invlpgb_max;
	uint64_t deadline; /* cpu 0 stops everyone at this TSC */
	/* Progress: rounds done and in all, and the current round's start. */
	unsigned rounds_done, rounds_total, round_cpus;
	uint64_t round_start, round_cycles;
};

static inline uint64_t fl_own_va(unsigned cpu, uint64_t gen)
{
	return FL_BASE +
	       ((uint64_t)cpu * FL_PAGES + gen % FL_PAGES) * PAGE_SIZE;
}

static inline uint64_t fl_tag(unsigned cpu, uint64_t gen)
{
	return FL_TAG << FL_TAG_SHIFT | (uint64_t)cpu << FL_CPU_SHIFT |
	       (gen & FL_GEN_MASK);
}

static inline bool fl_tag_of(uint64_t v, unsigned cpu)
{
	return v >> FL_TAG_SHIFT == FL_TAG &&
	       (v >> FL_CPU_SHIFT & FL_CPU_MASK) == cpu;
}

/* Maps every online CPU's pages to fresh zeroed frames. */
bool fl_map_own_pages(void);

/*
 * Runs the loop on the first n online CPUs (0 among them) for
 * duration_us, with run->strategy and run->local; every online CPU's
 * entries for the pages are dropped afterwards.
 */
void fl_run_round(struct fl_run *run, unsigned n, uint64_t duration_us);

/* Frees every frame the CPUs still hold in quarantine. */
void fl_drain_quarantine(struct fl_run *run);

#endif
