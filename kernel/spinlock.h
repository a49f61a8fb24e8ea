/* SPDX-License-Identifier: MIT */
/*
 * Ticket spinlock that knows its holder: FIFO, so that under contention
 * (every CPU printing a verdict) no CPU starves, and able to survive a
 * holder that stops for good (docs/faults.md, "Locks and a CPU that stops
 * holding one").
 *
 * Why a lock that knows its holder rather than locks taken with
 * interrupts off: interrupts off would keep only an IPI-driven stop
 * (selftest=hang-ap's) out of a lock. A real CPU stops wherever it is,
 * and selftest=hang-ap fault_at= lands the stop inside each lock to prove
 * the harness copes. So a waiter that sees the lock served to the same
 * ticket for a whole cross-call timeout asks the smp layer what to do
 * (spin_stall_hook: ping the holder, take it out if it does not answer,
 * release the lock for it).
 *
 * The state is two words. `next` is the next ticket to draw. `serving`
 * is the ticket being served (high 32 bits) and its holder, CPU + 1, in
 * the low 32 (0: served but not yet claimed). A waiter whose ticket comes
 * up claims it by a compare-and-swap from (ticket, 0) to (ticket, cpu +
 * 1); unlocking is a compare-and-swap from (ticket, cpu + 1) to (ticket
 * + 1, 0). So:
 * - a ticket drawn by a CPU that stopped before it claimed it is seen
 *   unclaimed for the whole timeout and skipped (released with holder
 *   0); if its drawer was only slow, its claim fails and it draws again;
 * - a holder that was taken out and released for, and then runs on,
 *   fails its unlock instead of releasing the next holder's ticket: it
 *   learns that it was taken out, and stops (spin_unlock).
 * The zero state is an unlocked lock with nobody named: ticket 0, holder 0
 * reads "ticket 0, not claimed", never "cpu 0 holds ticket 0".
 *
 * Waits with PAUSE (see docs/qemu.md: under single-threaded TCG a spin
 * without PAUSE can stall the vCPU that holds the lock for tens of
 * milliseconds). The portable part (this header but for the wrappers at
 * the end) takes the CPU as an argument, so the host tests run it.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
	volatile uint32_t next;
	volatile uint64_t serving;
	const char *name; /* for the messages about a holder that stopped */
	/*
	 * Its waiters may be printing (the console's lock): what a stall
	 * found is reported later, never by the waiter while it waits.
	 */
	bool quiet;
};

/* No CPU: the holder field of a ticket served but not claimed. */
#define SPIN_NO_HOLDER 0xffffffffu

static inline uint64_t spin_word(uint32_t ticket, unsigned holder)
{
	return (uint64_t)ticket << 32 |
	       (holder == SPIN_NO_HOLDER ? 0 : (uint32_t)(holder + 1));
}

static inline uint32_t spin_ticket(uint64_t word)
{
	return (uint32_t)(word >> 32);
}

/* The CPU that claimed the ticket served, or SPIN_NO_HOLDER. */
static inline unsigned spin_holder(uint64_t word)
{
	uint32_t h = (uint32_t)word;

	return h ? h - 1 : SPIN_NO_HOLDER;
}

static inline uint64_t spin_serving(const struct spinlock *l)
{
	return __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);
}

static inline uint32_t spin_lock_draw(struct spinlock *l)
{
	return __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
}

enum spin_turn {
	SPIN_WAITING, /* ticket t is not served yet */
	SPIN_TAKEN,   /* t was served and is now claimed for cpu */
	SPIN_SKIPPED, /* t was skipped as a stopped drawer's: draw again */
};

/* One look at the lock by cpu, which drew ticket t. */
static inline enum spin_turn spin_lock_try_claim(struct spinlock *l, uint32_t t,
						 unsigned cpu)
{
	uint64_t w = spin_serving(l);
	int32_t ahead = (int32_t)(t - spin_ticket(w));

	if (ahead > 0)
		return SPIN_WAITING;
	if (ahead < 0 || w != spin_word(t, SPIN_NO_HOLDER))
		return SPIN_SKIPPED;
	if (__atomic_compare_exchange_n(&l->serving, &w, spin_word(t, cpu),
					false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return SPIN_TAKEN;
	return SPIN_SKIPPED;
}

/*
 * Moves the lock on from the state word seen, for a holder (or a drawer)
 * that will never do it itself; false if the lock has moved on already.
 */
static inline bool spin_release_for(struct spinlock *l, uint64_t seen)
{
	return __atomic_compare_exchange_n(
		&l->serving, &seen,
		spin_word(spin_ticket(seen) + 1, SPIN_NO_HOLDER), false,
		__ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Releases cpu's hold; false if cpu does not hold it (released for it). */
static inline bool spin_unlock_as(struct spinlock *l, unsigned cpu)
{
	uint64_t w = spin_serving(l);

	return spin_holder(w) == cpu && spin_release_for(l, w);
}

static inline bool spin_held_by(const struct spinlock *l, unsigned cpu)
{
	return spin_holder(spin_serving(l)) == cpu;
}

#ifndef SPINLOCK_PORTABLE_ONLY
/*
 * The kernel's side (kernel/spinlock.c): the running CPU, the time, and
 * the smp layer's answer to a stall.
 */

/*
 * What a waiter does when the lock has served `seen` for a whole
 * timeout: return true to wait on (the holder answered), false when the
 * hook released the lock (or found it moved on). Installed by smp/xcall.c
 * once the other CPUs can be pinged; until then waiters just wait.
 */
extern bool (*spin_stall_hook)(struct spinlock *l, uint64_t seen);
/*
 * Whether the holder named in a state word was taken out of the run
 * already: asked now and then while waiting, so that such a lock is
 * released at once rather than after a whole wait.
 */
extern bool (*spin_holder_lost_hook)(uint64_t seen);
/* What a CPU that finds it was taken out does (stops for good). */
extern void (*spin_lost_hook)(void);

/*
 * Waits for ticket t, which cpu drew: SPIN_TAKEN, or SPIN_SKIPPED if it
 * was skipped (draw again). For a caller with a stop point between the
 * two steps; everyone else takes spin_lock().
 */
enum spin_turn spin_lock_wait(struct spinlock *l, uint32_t t, unsigned cpu);
void spin_lock(struct spinlock *l);
/*
 * spin_lock, holding it with interrupts off (waiting with them as they
 * were); returns whether they were on, for irq_restore() after unlock.
 */
bool spin_lock_irqsave(struct spinlock *l);
void spin_unlock(struct spinlock *l);
#endif

#endif
