/* SPDX-License-Identifier: MIT */
/*
 * Whether this machine's CPUs really run at the same time, measured after
 * bring-up and again after the experiments (smp/concurrency.c; the host's
 * load moves within a minute), not taken from the launcher or a
 * hypervisor's name: CPU 0 and every other CPU each advance a counter of
 * their own and read the other's between their own steps. A CPU running
 * beside the reader moves its counter between most of the reads; where
 * one host thread runs all vCPUs in turn (single-threaded TCG) it moves
 * only when the host switched vCPUs, a few times in the whole window.
 * Anything that depends on CPUs working side by side (reclaim's worker
 * loss, throughput scaling) is not a hardware answer where they do not.
 *
 * The decision is portable (concurrency_decide, host-tested); the probe
 * is the hardware part.
 */
#ifndef SMP_CONCURRENCY_H
#define SMP_CONCURRENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Of the window every pair is watched for, in microseconds. */
#define CONCURRENCY_WINDOW_US 100000
/*
 * A pair (CPU 0 and another) runs side by side when its reads saw a move
 * twice in a row (struct concurrency_obs) at least CONCURRENCY_MIN_TWICE
 * times, CPU 0 watching the other and it watching CPU 0; the CPUs run
 * side by side when every pair does (one pair that takes turns is enough
 * to make a responder wait for the host's switch). Turn-taking cannot do
 * that (a peer moves once per switch of the host), however fast or slow
 * each read is. Seen on one 2-core host under load: single-threaded TCG
 * 0 times; multi-threaded TCG at 4 vCPUs some thousands in all, but a
 * pair now and then with none (more vCPUs than free cores); kvm-pvm 10
 * to a few dozen (its reads are slow: a few thousand in the window). The
 * shares of reads that saw a move, and the least of any pair, are in the
 * words, for the reader to judge how much side by side it was.
 */
#define CONCURRENCY_MIN_TWICE 16

/* One direction of one pair: reads of the other's counter, and moves. */
struct concurrency_obs {
	unsigned watcher, watched; /* CPU numbers */
	uint64_t reads, moves;
	/*
	 * Reads that saw a move, as the read before did: a peer that runs
	 * only while the reader is switched out moves once per switch, never
	 * twice in a row; one beside it does so however slow each read is.
	 */
	uint64_t twice;
};

/*
 * Whether the CPUs ran side by side, every pair of them (false for n ==
 * 0: nothing beside CPU 0), with why in words into why (always written,
 * at most cap bytes; the first pair that did not, if one did not) and the
 * share of CPU 0's reads that saw a peer move, per mille, into *permille.
 */
bool concurrency_decide(const struct concurrency_obs *obs, size_t n,
			uint64_t window_us, char *why, size_t cap,
			uint64_t *permille);

/* One probe's answer. */
struct concurrency_answer {
	bool probed, concurrent;
	uint64_t permille; /* the share of CPU 0's reads that saw a move */
	char why[448];	   /* "not measured" before the probe */
};

enum concurrency_when {
	CONCURRENCY_BRINGUP,	 /* smp_init(), before anything relies on it */
	CONCURRENCY_EXPERIMENTS, /* after the experiments, before findings */
	CONCURRENCY_PROBES,
};

/* The probe (every online CPU, all idle), its answer kept as when's. */
void smp_probe_concurrency(enum concurrency_when when);
const struct concurrency_answer *cpus_concurrency(enum concurrency_when when);
/* The bring-up probe's answer: before it ran, false ("not measured"). */
bool cpus_run_concurrently(void);
const char *cpus_concurrency_why(void);
/* The share of CPU 0's reads that saw a peer move, per mille. */
uint64_t cpus_concurrency_permille(void);

#endif
