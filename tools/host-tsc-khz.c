/* SPDX-License-Identifier: MIT */
/*
 * Prints the host's TSC rate in kHz, measured against CLOCK_MONOTONIC_RAW.
 *
 *   cc -O2 -o build/host/host-tsc-khz tools/host-tsc-khz.c
 *   build/host/host-tsc-khz [MS]     (window length, default 200 ms)
 *
 * Under TCG the guest's TSC is the host's, so a guest that calibrated its
 * TSC well reports the same rate (tests/qemu/runner.py compares the two).
 *
 * Each window is timed by a (clock, rdtsc, clock) triple at both ends; the
 * triple with the narrowest clock bracket is the one least disturbed by an
 * interrupt or preemption, so each end takes the best of several tries.
 * Of five windows the median is printed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define WINDOWS 5
#define TRIES	16

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One (time, tsc) point, from the tightest of TRIES brackets. */
static void sample(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < TRIES; i++) {
		uint64_t a = now_ns();
		uint64_t t = __rdtsc();
		uint64_t b = now_ns();

		if (b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*tsc = t;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
	uint64_t khz[WINDOWS];

	if (ms < 10 || ms > 10000) {
		fprintf(stderr, "usage: %s [MS]  (10..10000, default 200)\n",
			argv[0]);
		return 2;
	}
	for (int w = 0; w < WINDOWS; w++) {
		uint64_t ns0, tsc0, ns1, tsc1;
		struct timespec nap = {ms / 1000, (ms % 1000) * 1000000L};

		sample(&ns0, &tsc0);
		nanosleep(&nap, NULL);
		sample(&ns1, &tsc1);
		/* cycles per ms = kHz; in 128 bits: cycles * 10^6 overflows */
		khz[w] = (uint64_t)((unsigned __int128)(tsc1 - tsc0) *
				    1000000u / (ns1 - ns0));
	}
	qsort(khz, WINDOWS, sizeof(khz[0]), cmp_u64);
	printf("%llu\n", (unsigned long long)khz[WINDOWS / 2]);
	return 0;
}
