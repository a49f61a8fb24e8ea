// SPDX-License-Identifier: MIT
/*
 * reclaim, the workers (every CPU but 0): they read random 64-byte chunks
 * of their own hot region and, in a writer pass, keep writing sequence
 * numbers into the cold pages assigned to them, while CPU 0 pages the cold
 * region out (bench/reclaim_pass.c); and what their reads say of the loss.
 */
#include "bench/flush.h"
#include "bench/rng.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_state.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define WRITES_PER_PAGE 8

/*
 * Background work of a worker: random reads, and writes to its pages. All
 * it reads of the pass comes through its argument.
 */
static void worker_loop(void *arg)
{
	struct rc_worker *me = arg;
	struct rc_state *st = me->st;
	uint64_t bytes = st->cfg.hot_pages * PAGE_SIZE, seq = 0, p = me->index;
	unsigned nw = st->cfg.workers;
	struct rng rng;

	rng_seed(&rng, me->seed);
	me->page = p;
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < RC_READS_CHUNK; i++)
			(void)*(volatile uint64_t *)rc_hot_va(
				st, me->index,
				rng_below(&rng, bytes / 64) * 64);
		me->reads += RC_READS_CHUNK;
		/*
		 * One PAUSE per 64 reads (about 2% on hardware, the same in
		 * every run): single-threaded TCG switches vCPUs only at
		 * such hints, so without it the reclaimer's IPIs would wait
		 * for whole time slices (docs/qemu.md).
		 */
		cpu_relax();
		if (!st->writing || !st->pass_pages)
			continue;
		/*
		 * Page p is written by worker p % nw only: one writer each.
		 * It stays on a page for a few writes, as a program writing
		 * its data would, so the page's translation is in its TLB
		 * when the reclaimer comes by.
		 */
		seq++;
		if (!write_u64_safe((void *)rc_cold_va(p),
				    seq << 16 | me->index)) {
			st->last_write[p] = seq << 16 | me->index;
			me->writes++;
		}
		if (seq % WRITES_PER_PAGE == 0) {
			p = p + nw < st->pass_pages ? p + nw : me->index;
			me->page = p;
		}
	}
}

void rc_workers_snapshot(struct rc_state *st, int k)
{
	for (unsigned w = 0; w < st->cfg.workers; w++)
		st->snap[k][w] = st->workers[w].reads;
}

/*
 * Worker w runs on the w-th CPU after 0, as background work whose argument
 * is its part of st.
 */
void rc_workers_start(struct rc_state *st)
{
	unsigned cpu, w = 0;

	st->stop = false;
	bg_init(&st->worker_group);
	for_each_cpu(cpu, &cpus_online) {
		if (cpu == 0 || w == st->cfg.workers)
			continue;
		st->workers[w] = (struct rc_worker){
			.index = w, .seed = st->cfg.seed * 1000 + w, .st = st};
		bg_start(&st->worker_group, cpu, worker_loop, &st->workers[w]);
		w++;
	}
}

void rc_workers_stop(struct rc_state *st)
{
	__atomic_store_n(&st->stop, true, __ATOMIC_RELEASE);
	bg_wait(&st->worker_group, FLUSH_WAIT_US);
}

/* Reads per million cycles: 64-bit math (no libgcc in the kernel). */
static uint64_t rate(uint64_t reads, uint64_t cycles)
{
	return cycles ? reads * 1000000 / cycles : 0;
}

/* 100 - 100 * during / before, in percent (negative: it sped up). */
static int64_t loss_of(uint64_t before, uint64_t during)
{
	return before ? 100 - (int64_t)(during * 100 / before) : 0;
}

void rc_workers_loss(const struct rc_state *st, struct rc_run *run,
		     uint64_t base_cyc, uint64_t dur_cyc)
{
	const uint64_t *start = st->snap[0], *base = st->snap[1],
		       *end = st->snap[2];
	int64_t l[MAX_CPUS], tmp;
	unsigned n = st->cfg.workers;

	run->base_reads = run->during_reads = 0;
	for (unsigned w = 0; w < n; w++) {
		l[w] = loss_of(rate(base[w] - start[w], base_cyc),
			       rate(end[w] - base[w], dur_cyc));
		run->base_reads += base[w] - start[w];
		run->during_reads += end[w] - base[w];
	}
	for (unsigned i = 1; i < n; i++) /* insertion sort: n is small */
		for (unsigned j = i; j > 0 && l[j - 1] > l[j]; j--)
			tmp = l[j], l[j] = l[j - 1], l[j - 1] = tmp;
	run->loss_min = n ? l[0] : 0;
	run->loss_median = n ? l[n / 2] : 0;
	run->loss_pct = loss_of(rate(run->base_reads, base_cyc),
				rate(run->during_reads, dur_cyc));
}
