// SPDX-License-Identifier: MIT
/* Whether CPUs ran side by side, from what the probe saw (concurrency.h). */
#include "lib/printf.h"
#include "smp/concurrency.h"

/* A share in per mille, 0 of nothing. */
static uint64_t permille(uint64_t moves, uint64_t reads)
{
	return reads ? moves * 1000 / reads : 0;
}

/* The CPU other than 0 of an observation: its pair's name. */
static unsigned peer_of(const struct concurrency_obs *o)
{
	return o->watcher ? o->watcher : o->watched;
}

/* Twice-in-a-row moves of peer's pair, both ways. */
static uint64_t pair_twice(const struct concurrency_obs *obs, size_t n,
			   unsigned peer)
{
	uint64_t twice = 0;

	for (size_t i = 0; i < n; i++)
		if (peer_of(&obs[i]) == peer)
			twice += obs[i].twice;
	return twice;
}

/*
 * The first pair seen side by side fewer than CONCURRENCY_MIN_TWICE
 * times, or NULL when every pair was: one pair in turns is a responder
 * that waits for the host however fast the others are.
 */
static const struct concurrency_obs *
apart_pair(const struct concurrency_obs *obs, size_t n, uint64_t *twice)
{
	for (size_t i = 0; i < n; i++) {
		*twice = pair_twice(obs, n, peer_of(&obs[i]));
		if (*twice < CONCURRENCY_MIN_TWICE)
			return &obs[i];
	}
	return NULL;
}

/* The observation with the least share of reads that saw a move. */
static const struct concurrency_obs *least_of(const struct concurrency_obs *obs,
					      size_t n)
{
	const struct concurrency_obs *least = NULL;

	for (size_t i = 0; i < n; i++)
		if (!least || permille(obs[i].moves, obs[i].reads) <
				      permille(least->moves, least->reads))
			least = &obs[i];
	return least;
}

/* "the cpus take turns (cpu 0 and cpu 2: 3 times twice in a row): " */
static size_t why_apart(char *why, size_t cap,
			const struct concurrency_obs *apart, uint64_t twice)
{
	int n;

	if (!apart)
		return 0;
	n = ksnprintf(why, cap,
		      "the cpus take turns (cpu 0 and cpu %u: %llu times "
		      "twice in a row, under %d): ",
		      peer_of(apart), (unsigned long long)twice,
		      CONCURRENCY_MIN_TWICE);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

bool concurrency_decide(const struct concurrency_obs *obs, size_t n,
			uint64_t window_us, char *why, size_t cap,
			uint64_t *share)
{
	/* [0]: cpu 0 watching the others, [1]: the others watching cpu 0 */
	uint64_t reads[2] = {0, 0}, moves[2] = {0, 0}, twice = 0, p0, p1;
	const struct concurrency_obs *least = least_of(obs, n), *apart;
	uint64_t apart_twice = 0;
	size_t head;

	for (size_t i = 0; i < n; i++) {
		int k = obs[i].watcher != 0;

		reads[k] += obs[i].reads;
		moves[k] += obs[i].moves;
		twice += obs[i].twice;
	}
	p0 = permille(moves[0], reads[0]);
	p1 = permille(moves[1], reads[1]);
	*share = p0; /* the reclaimer's view of its workers, so to speak */
	if (!least) {
		ksnprintf(why, cap,
			  "only one cpu online: nothing runs beside "
			  "cpu 0");
		return false;
	}
	apart = apart_pair(obs, n, &apart_twice);
	head = why_apart(why, cap, apart, apart_twice);
	ksnprintf(
		why + head, cap - head,
		"over %llu ms cpu 0 saw the others' counters move between "
		"%llu of %llu reads (%llu.%llu%%), they saw its between %llu "
		"of %llu (%llu.%llu%%), %llu times twice in a row; least, "
		"cpu %u of cpu %u: %llu.%llu%%%s",
		(unsigned long long)(window_us / 1000),
		(unsigned long long)moves[0], (unsigned long long)reads[0],
		(unsigned long long)(p0 / 10), (unsigned long long)(p0 % 10),
		(unsigned long long)moves[1], (unsigned long long)reads[1],
		(unsigned long long)(p1 / 10), (unsigned long long)(p1 % 10),
		(unsigned long long)twice, least->watcher, least->watched,
		(unsigned long long)(permille(least->moves, least->reads) / 10),
		(unsigned long long)(permille(least->moves, least->reads) % 10),
		!apart ? ""
		       : " (a cpu running beside the reader moves between "
			 "most): the host runs the vcpus in turn, one thread "
			 "for all as single-threaded TCG does, or fewer free "
			 "cores than vcpus");
	return !apart;
}
