// SPDX-License-Identifier: MIT
/*
 * The kernel's side of the spinlock (kernel/spinlock.h): the waiting, with
 * a timeout after which the smp layer decides about the holder, and the
 * unlock that makes a CPU taken out of the run stop.
 */
#include "cpu.h"
#include "spinlock.h"
#include "tsc.h"
#include "x86.h"

/* How often a waiter asks spin_holder_lost_hook: spins (a power of 2). */
#define HOLDER_LOST_EVERY 1024

bool (*spin_stall_hook)(struct spinlock *l, uint64_t seen);
bool (*spin_holder_lost_hook)(uint64_t seen);
void (*spin_lost_hook)(void);

static void lost(void)
{
	if (spin_lost_hook)
		spin_lost_hook();
	halt_forever();
}

/*
 * One look at the lock; with irq_on, with interrupts off, and left off
 * if the ticket was taken (*irq_on: whether they were on before).
 */
static enum spin_turn look(struct spinlock *l, uint32_t t, unsigned cpu,
			   bool *irq_on)
{
	enum spin_turn turn;
	bool on;

	if (!irq_on)
		return spin_lock_try_claim(l, t, cpu);
	on = irq_save();
	turn = spin_lock_try_claim(l, t, cpu);
	if (turn == SPIN_TAKEN)
		*irq_on = on;
	else
		irq_restore(on);
	return turn;
}

/*
 * Waits for ticket t. The lock may legitimately stay on one ticket for
 * long (a mailbox is held for a whole cross-call wait), so only a state
 * unchanged for cpu_wait_us goes to the hook, which pings the holder.
 */
static enum spin_turn wait_turn(struct spinlock *l, uint32_t t, unsigned cpu,
				bool *irq_on)
{
	uint64_t seen = spin_serving(l), since = rdtsc();
	uint64_t limit = us_to_cycles(cpu_wait_us);
	enum spin_turn turn;
	unsigned spins = 0;

	while ((turn = look(l, t, cpu, irq_on)) == SPIN_WAITING) {
		uint64_t now = spin_serving(l);

		if (now != seen) {
			seen = now;
			since = rdtsc();
		} else if (spin_stall_hook &&
			   (rdtsc() - since > limit ||
			    (!(++spins % HOLDER_LOST_EVERY) &&
			     spin_holder_lost_hook(seen)))) {
			spin_stall_hook(l, seen);
			since = rdtsc();
		}
		cpu_relax();
	}
	return turn;
}

enum spin_turn spin_lock_wait(struct spinlock *l, uint32_t t, unsigned cpu)
{
	return wait_turn(l, t, cpu, NULL);
}

void spin_lock(struct spinlock *l)
{
	unsigned cpu = this_cpu();

	while (wait_turn(l, spin_lock_draw(l), cpu, NULL) == SPIN_SKIPPED)
		; /* this CPU was too slow to claim its ticket: draw again */
}

bool spin_lock_irqsave(struct spinlock *l)
{
	unsigned cpu = this_cpu();
	bool on = false;

	while (wait_turn(l, spin_lock_draw(l), cpu, &on) == SPIN_SKIPPED)
		;
	return on;
}

/*
 * A holder that cannot release the lock was taken out of the run and the
 * lock released for it while it was stopped or slow. It must not touch
 * the lock (the next holder has it) nor anything else shared: it stops.
 */
void spin_unlock(struct spinlock *l)
{
	if (!spin_unlock_as(l, this_cpu()))
		lost();
}
