/* SPDX-License-Identifier: MIT */
/*
 * Ticket spinlock: FIFO, so that under contention (e.g. every CPU printing a
 * verdict) no CPU starves. Waits with PAUSE (see docs/qemu.md: under
 * single-threaded TCG a spin without PAUSE can stall the vCPU that holds the
 * lock for tens of milliseconds).
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "x86.h"

struct spinlock {
	volatile uint32_t next;
	volatile uint32_t owner;
};

static inline void spin_lock(struct spinlock *l)
{
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
}

/*
 * Takes the lock, or gives up after `spins` PAUSEs and returns false: for
 * the fault path, which must print even if the faulting CPU held the lock.
 *
 * It never queues: a ticket once drawn must be served, and a waiter that
 * gave up would leave the lock stuck at its number for everyone behind it.
 * So it takes a ticket only when that ticket is served at once, i.e. while
 * the lock is free (next == owner), with one compare-and-swap on `next`
 * (the ticket lock's trylock). It is not FIFO against spin_lock(): under
 * steady contention it may give up although the lock was released between
 * its looks; the fault path accepts that.
 */
static inline bool spin_lock_timeout(struct spinlock *l, uint64_t spins)
{
	for (;;) {
		uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
		uint32_t next = owner;

		if (__atomic_compare_exchange_n(&l->next, &next, owner + 1,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
		if (spins-- == 0)
			return false;
		cpu_relax();
	}
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

/*
 * spin_lock in steps, for a waiter that must notice a holder that can
 * never release the lock (a CPU that stopped): draw a ticket, then wait
 * until spin_lock_serving() says it is served.
 */
static inline uint32_t spin_lock_draw(struct spinlock *l)
{
	return __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
}

static inline uint32_t spin_lock_serving(const struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
}

/*
 * Releases the lock for the holder of ticket t, which will never do it
 * itself; false if t is no longer served (it was released already).
 */
static inline bool spin_unlock_for(struct spinlock *l, uint32_t t)
{
	return __atomic_compare_exchange_n(&l->owner, &t, t + 1, false,
					   __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

#endif
