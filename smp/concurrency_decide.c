// SPDX-License-Identifier: MIT
/* Whether CPUs ran side by side, from what the probe saw (concurrency.h). */
#include "lib/printf.h"
#include "smp/concurrency.h"

/* A share in per mille, 0 of nothing. */
static uint64_t permille(uint64_t moves, uint64_t reads)
{
	return reads ? moves * 1000 / reads : 0;
}

bool concurrency_decide(const struct concurrency_obs *obs, size_t n,
			uint64_t window_us, char *why, size_t cap,
			uint64_t *share)
{
	/* [0]: cpu 0 watching the others, [1]: the others watching cpu 0 */
	uint64_t reads[2] = {0, 0}, moves[2] = {0, 0}, twice = 0, p0, p1;
	const struct concurrency_obs *least = NULL;
	bool beside;

	for (size_t i = 0; i < n; i++) {
		int k = obs[i].watcher != 0;

		reads[k] += obs[i].reads;
		moves[k] += obs[i].moves;
		twice += obs[i].twice;
		if (!least || permille(obs[i].moves, obs[i].reads) <
				      permille(least->moves, least->reads))
			least = &obs[i];
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
	beside = twice >= CONCURRENCY_MIN_TWICE;
	ksnprintf(
		why, cap,
		"%sover %llu ms cpu 0 saw the others' counters move between "
		"%llu of %llu reads (%llu.%llu%%), they saw its between %llu "
		"of %llu (%llu.%llu%%), %llu times twice in a row; least, "
		"cpu %u of cpu %u: %llu.%llu%%%s",
		beside ? "" : "the cpus take turns: ",
		(unsigned long long)(window_us / 1000),
		(unsigned long long)moves[0], (unsigned long long)reads[0],
		(unsigned long long)(p0 / 10), (unsigned long long)(p0 % 10),
		(unsigned long long)moves[1], (unsigned long long)reads[1],
		(unsigned long long)(p1 / 10), (unsigned long long)(p1 % 10),
		(unsigned long long)twice, least->watcher, least->watched,
		(unsigned long long)(permille(least->moves, least->reads) / 10),
		(unsigned long long)(permille(least->moves, least->reads) % 10),
		beside ? ""
		       : " (a cpu running beside the reader moves between "
			 "most): the host runs the vcpus in turn, one thread "
			 "for all as single-threaded TCG does, or fewer free "
			 "cores than vcpus");
	return beside;
}
