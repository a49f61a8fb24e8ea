/* SPDX-License-Identifier: MIT */
/*
 * The rules by which a cross-call's initiator reads an acknowledgement
 * (smp/xcall.c), portable so that the host tests can check them. Every
 * request a CPU's mailbox gets has a number, one more than the last; the
 * handler acknowledges by storing the number it served. A late answer
 * (to a request whose wait already ended) stores that old number, never
 * a later one, so it cannot be taken for the answer to a later request.
 */
#ifndef SMP_XCALL_ACK_H
#define SMP_XCALL_ACK_H

#include <stdbool.h>
#include <stdint.h>

/* Request req is answered: the acknowledgement names it, nothing else. */
static inline bool xcall_answered(uint32_t done, uint32_t req)
{
	return done == req;
}

/*
 * The missed request owed is answered by now: the handler served it or
 * a later one (it serves them in order), with wrap-around.
 */
static inline bool xcall_owed_answered(uint32_t done, uint32_t owed)
{
	return (int32_t)(done - owed) >= 0;
}

enum xcall_miss {
	XCALL_MISS_FIRST, /* it may only be slow: it stays in the run */
	/*
	 * It answered the request it owed since the last look, and misses
	 * this one: the late answer is counted first, then this is a first
	 * miss (the owed request must not be overwritten uncounted).
	 */
	XCALL_MISS_AFTER_LATE,
	XCALL_MISS_AGAIN, /* it still owes the earlier one: taken out */
};

/*
 * What a wait that timed out on a CPU makes of it: the first miss is
 * named and the request remembered; a second miss while the first is
 * still unanswered takes the CPU out of the run.
 */
static inline enum xcall_miss xcall_classify_miss(bool owing, uint32_t done,
						  uint32_t owed)
{
	if (!owing)
		return XCALL_MISS_FIRST;
	return xcall_owed_answered(done, owed) ? XCALL_MISS_AFTER_LATE
					       : XCALL_MISS_AGAIN;
}

/*
 * Withdrawing a request whose wait ended: the initiator and the handler
 * both move `claimed` forward to req, by compare-and-swap, so exactly one
 * of them has it. The handler runs the function only if it claimed it;
 * an initiator that withdrew may let the argument go. `claimed` only
 * moves forward (serial order, with wrap-around): a handler that read an
 * old request, stalled, and claims it after the initiator has withdrawn
 * a later one must lose, or it would run the old function with an
 * argument long dead.
 */
static inline bool xcall_claim(volatile uint32_t *claimed, uint32_t req)
{
	uint32_t c = __atomic_load_n(claimed, __ATOMIC_ACQUIRE);

	while ((int32_t)(req - c) > 0)
		if (__atomic_compare_exchange_n(claimed, &c, req, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	return false;
}

/*
 * Letting the argument of a missed request go, when the handler claimed
 * it first and is inside the function: the initiator waits for it to
 * return; past that wait it takes the CPU out and stops it with an NMI,
 * and waits for the stop to be confirmed; a CPU that neither returns nor
 * stops could still write into the argument, so the run ends there. A
 * wait that runs out is never by itself a reason to let the argument go.
 */
enum xcall_letgo {
	XCALL_LETGO_RUNNING,  /* inside the function: wait for it */
	XCALL_LETGO_STOPPING, /* taken out, NMI sent: wait for the halt */
	XCALL_LETGO_FREE,     /* it returned or halted: the argument is free */
	XCALL_LETGO_STUCK,    /* neither: the run cannot go on safely */
};

static inline enum xcall_letgo xcall_letgo_next(enum xcall_letgo phase,
						bool returned, bool halted,
						bool wait_over)
{
	if (phase == XCALL_LETGO_FREE || phase == XCALL_LETGO_STUCK)
		return phase;
	if (returned || halted)
		return XCALL_LETGO_FREE;
	if (!wait_over)
		return phase;
	return phase == XCALL_LETGO_RUNNING ? XCALL_LETGO_STOPPING
					    : XCALL_LETGO_STUCK;
}

#endif
