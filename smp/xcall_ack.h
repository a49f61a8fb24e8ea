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
	return owing && !xcall_owed_answered(done, owed) ? XCALL_MISS_AGAIN
							 : XCALL_MISS_FIRST;
}

#endif
