// SPDX-License-Identifier: MIT
/*
 * The costs the time budget's plan rests on, measured here just before the
 * experiments (bench/budget_costs.h): medians of a few rounds each.
 */
#include "bench/bench.h"
#include "bench/budget_costs.h"
#include "bench/refill.h"
#include "bench/rng.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/memops.h"
#include "mm/vm.h"
#include "smp/smp.h"

#define COST_ROUNDS 31 /* odd: the median is one of them */
/* Pages read for the cost of a read that misses the TLB. */
#define TOUCH_VA    (EXPERIMENT_BASE + (12ull << 30))
#define TOUCH_PAGES 64
/* The busy CPUs' reads wander over this much of their own memory. */
#define BUSY_WORDS (1u << 15)

/* CPU 0's alone: the page a cost op copies, and where to. */
static uint8_t copy_src[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static uint8_t copy_dst[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

/*
 * What the busy readers share, their background argument: static for its
 * size (256 KiB of memory for them to read).
 */
struct busy_load {
	volatile bool stop;
	volatile uint64_t sink; /* what they read, so that the reads stay */
	uint64_t buf[BUSY_WORDS];
};
static struct busy_load load;

static void nothing(void *arg)
{
	(void)arg;
}

/*
 * What reclaim's workers do: random reads of their own memory, with one
 * PAUSE per 64 reads (single-threaded TCG switches vCPUs at it, so this
 * is what sets how long an IPI round to them takes there). All it reads
 * of the load comes through its argument; its CPU seeds its reads.
 */
static void busy_reader(void *arg)
{
	struct busy_load *load = arg;
	uint64_t sum = 0;
	struct rng rng;

	rng_seed(&rng, this_cpu());
	while (!load->stop) {
		for (int i = 0; i < 64; i++)
			sum += load->buf[rng_below(&rng, BUSY_WORDS)];
		cpu_relax();
	}
	load->sink = sum;
}

static uint64_t median(uint64_t *v, size_t n)
{
	stats_sort(v, n);
	return v[n / 2];
}

enum cost_op { OP_IPI_ONE, OP_IPI_ALL, OP_CR3, OP_INVLPG, OP_COPY };

static void cost_op_once(enum cost_op op, const struct cpumask *one,
			 const struct cpumask *all)
{
	switch (op) {
	case OP_IPI_ONE:
		on_cpumask(one, nothing, NULL, IPI_EACH);
		break;
	case OP_IPI_ALL:
		on_cpumask(all, nothing, NULL, IPI_EACH);
		break;
	case OP_CR3:
		cr3_reload();
		break;
	case OP_INVLPG:
		copy_src[0]++; /* the entry is in the TLB */
		invlpg(copy_src);
		break;
	default:
		mem_copy_words(copy_dst, copy_src, PAGE_SIZE);
		break;
	}
}

/* The median cost of one op, less the timer's own. */
static uint64_t cost_of(enum cost_op op, const struct cpumask *one,
			const struct cpumask *all, uint64_t over)
{
	uint64_t v[COST_ROUNDS];

	for (int i = 0; i < COST_ROUNDS; i++) {
		uint64_t t0 = rdtsc_ordered();

		cost_op_once(op, one, all);
		v[i] = rdtsc_ordered() - t0;
	}
	return median(v, COST_ROUNDS) > over ? median(v, COST_ROUNDS) - over
					     : 0;
}

/* A round to every responder while they read memory without pause. */
static uint64_t ipi_all_busy(const struct cpumask *all, uint64_t over)
{
	static struct bg_group busy;
	uint64_t cost;
	unsigned cpu;

	load.stop = false;
	bg_init(&busy);
	for_each_cpu(cpu, all)
		bg_start(&busy, cpu, busy_reader, &load);
	cost = cost_of(OP_IPI_ALL, all, all, over);
	load.stop = true;
	bg_wait(&busy, cpu_wait_us);
	return cost;
}

/* A read that misses the TLB, per page (4 KiB mappings, as the sweep's). */
static uint64_t touch_cost(void)
{
	uint64_t pa[TOUCH_PAGES] = {0}, t0, t1, sum = 0;
	int n = 0;

	for (; n < TOUCH_PAGES; n++) {
		pa[n] = frame_alloc(PMM_ZERO);
		if (!pa[n] || vm_map(TOUCH_VA + (uint64_t)n * PAGE_SIZE, pa[n],
				     PT_4K, PTE_P | pte_nx(), NULL) != PT_OK)
			break;
	}
	cr3_reload();
	t0 = rdtsc_ordered();
	for (int i = 0; i < n; i++)
		sum += *(volatile uint64_t *)(TOUCH_VA +
					      (uint64_t)i * PAGE_SIZE);
	t1 = rdtsc_ordered();
	load.sink = sum;
	for (int i = 0; i < TOUCH_PAGES && pa[i]; i++) {
		if (i < n)
			vm_unmap(TOUCH_VA + (uint64_t)i * PAGE_SIZE, PT_4K,
				 NULL);
		frame_free(pa[i]);
	}
	return n ? (t1 - t0) / (uint64_t)n : 0;
}

void budget_measure_costs(uint64_t over, struct plan_costs *costs)
{
	struct cpumask one, all;
	bool from_cpuid;

	*costs = (struct plan_costs){0};
	cpus_others(&all);
	cpumask_zero(&one);
	costs->responders = cpumask_count(&all);
	if (costs->responders)
		cpumask_set(cpumask_first(&all), &one);
	costs->tsc_khz = tsc_freq.khz;
	if (costs->responders) {
		costs->ipi_one = cost_of(OP_IPI_ONE, &one, &all, over);
		costs->ipi_all = cost_of(OP_IPI_ALL, &one, &all, over);
		costs->ipi_all_busy = ipi_all_busy(&all, over);
	}
	costs->touch = touch_cost();
	costs->l2_tlb = refill_l2_tlb(&from_cpuid);
	costs->cr3 = cost_of(OP_CR3, &one, &all, over);
	costs->invlpg = cost_of(OP_INVLPG, &one, &all, over);
	costs->page_copy = cost_of(OP_COPY, &one, &all, over);
}
