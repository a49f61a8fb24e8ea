/* SPDX-License-Identifier: MIT */
/*
 * Whether this machine's CPUs really run at the same time, measured once
 * after bring-up (smp/concurrency.c), not taken from the launcher or a
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
 * The CPUs run side by side when reads saw a move twice in a row (struct
 * concurrency_obs) at least CONCURRENCY_MIN_TWICE times in all, CPU 0
 * watching the others and they watching it. Turn-taking cannot do that
 * (a peer moves once per switch of the host), however fast or slow each
 * read is. Seen on one 2-core host under load: single-threaded TCG 0
 * times; multi-threaded TCG at 4 vCPUs some thousands; kvm-pvm 10 to a
 * few dozen (its reads are slow: a few thousand in the window). The
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
 * Whether the CPUs ran side by side (false for n == 0: nothing beside
 * CPU 0), with why in words into why (always written, at most cap
 * bytes) and the share of CPU 0's reads that saw a peer move, per mille,
 * into *permille.
 */
bool concurrency_decide(const struct concurrency_obs *obs, size_t n,
			uint64_t window_us, char *why, size_t cap,
			uint64_t *permille);

/* The probe, from smp_init() after bring-up (every online CPU). */
void smp_probe_concurrency(void);
/* Its answer: before the probe ran, false ("not measured"). */
bool cpus_run_concurrently(void);
const char *cpus_concurrency_why(void);
/* The share of CPU 0's reads that saw a peer move, per mille. */
uint64_t cpus_concurrency_permille(void);

#endif
