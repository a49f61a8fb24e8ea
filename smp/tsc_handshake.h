/* SPDX-License-Identifier: MIT */
/*
 * The words of the TSC handshake (smp/tsc_sync.c), portable so that the
 * host tests can check the rules. The boot CPU measures one CPU at a time
 * through one `ping` word: each value names the CPU it is for and the
 * round, so that a responder left behind by a timeout (still spinning
 * when the boot CPU has moved on to the next CPU) can never take another
 * CPU's ping for its own, and quits as soon as it sees one.
 */
#ifndef SMP_TSC_HANDSHAKE_H
#define SMP_TSC_HANDSHAKE_H

#include <stdint.h>

#define TSC_HS_ROUNDS 64 /* rounds per CPU: 1..TSC_HS_ROUNDS */
#define TSC_HS_IDLE   0u /* no round posted yet */
#define TSC_HS_ABORT \
	0xffffffffu /* the boot CPU gave up: every responder quits */

/* The ping (and pong) of round `round` (1..255) with CPU `cpu` (< 2^24). */
static inline uint32_t tsc_hs_tag(unsigned cpu, uint32_t round)
{
	return (uint32_t)cpu << 8 | (round & 0xffu);
}

enum tsc_hs_step {
	TSC_HS_WAIT,   /* nothing for this responder yet */
	TSC_HS_ANSWER, /* its round: read the TSC and answer */
	TSC_HS_QUIT,   /* the handshake is over for it: return */
};

/*
 * What responder `me`, waiting for round `round`, does on seeing `ping`:
 * answer its own round; wait while the boot CPU has posted nothing yet
 * or still shows the round just answered; quit on anything else (an
 * abort, another CPU's rounds, a round of its own it can no longer be
 * waited for).
 */
static inline enum tsc_hs_step tsc_hs_responder(uint32_t ping, unsigned me,
						uint32_t round)
{
	if (ping == tsc_hs_tag(me, round))
		return TSC_HS_ANSWER;
	if (ping == TSC_HS_IDLE ||
	    (round > 1 && ping == tsc_hs_tag(me, round - 1)))
		return TSC_HS_WAIT;
	return TSC_HS_QUIT;
}

#endif
