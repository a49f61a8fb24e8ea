/* SPDX-License-Identifier: MIT */
/*
 * The state of a sense-reversing barrier in one word, so that an arrival,
 * the last arrival's release and a timed-out arrival's withdrawal are each
 * one compare-and-swap (smp_barrier() in smp/sync.c). Bit 31 is the sense,
 * the rest the count of CPUs arrived. Portable: the host tests run it.
 */
#ifndef SMP_BARRIER_H
#define SMP_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

#define BARRIER_SENSE 0x80000000u

/*
 * One CPU arrives at a barrier of n; returns the sense it waits to see
 * flip in *sense, and true if it was the last (the barrier is open).
 */
static inline bool barrier_arrive(volatile uint32_t *w, unsigned n,
				  uint32_t *sense)
{
	uint32_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE), next;

	do {
		*sense = cur & BARRIER_SENSE;
		next = (cur & ~BARRIER_SENSE) + 1 >= n ? *sense ^ BARRIER_SENSE
						       : cur + 1;
	} while (!__atomic_compare_exchange_n(
		w, &cur, next, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return next == (*sense ^ BARRIER_SENSE);
}

static inline bool barrier_open(const volatile uint32_t *w, uint32_t sense)
{
	return (__atomic_load_n(w, __ATOMIC_ACQUIRE) & BARRIER_SENSE) != sense;
}

/*
 * A CPU that gave up waiting takes its arrival back, so that the next
 * barrier starts from 0; false if the barrier opened meanwhile (the CPU
 * did pass it after all).
 */
static inline bool barrier_withdraw(volatile uint32_t *w, uint32_t sense)
{
	uint32_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	while ((cur & BARRIER_SENSE) == sense)
		if (__atomic_compare_exchange_n(w, &cur, cur - 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	return false;
}

#endif
