// SPDX-License-Identifier: MIT
/*
 * flushloop, the analogue of will-it-scale's tlb_flush2_threads: every
 * participating CPU of one address space loops "write its own page; unmap
 * it and flush it on every participating CPU with the strategy; map a
 * fresh zeroed frame; check that it reads zero". Reported: operations per
 * second, all CPUs together and per CPU, for 1, 2, 4, ... all CPUs.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/printf.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define FL_BASE	     (EXPERIMENT_BASE + (32ull << 30))
#define FL_LATENCIES 65536
#define WAIT_US	     FLUSH_WAIT_US
/*
 * A tick record every 500 ms: at default settings flushloop runs 600 ms
 * (6 rounds of 100 ms under 4 CPUs), and a tick is ~90 bytes.
 */
#define TICK_MS 500

enum fl_strategy { FL_IPI_PAGE, FL_IPI_RANGE, FL_INVLPGB, FL_COUNT };
static const char *const fl_names[FL_COUNT] = {"ipi-page", "ipi-range",
					       "invlpgb"};

struct fl_cpu {
	volatile uint64_t ops;
	volatile uint64_t nonzero; /* remapped page did not read zero */
	volatile uint64_t failed;  /* map/unmap/alloc failures */
} __attribute__((aligned(CACHELINE)));

static struct fl_cpu fl[MAX_CPUS];
static struct cpumask participants;
static volatile bool fl_stop;
static enum fl_strategy fl_strategy;
static uint64_t *latency; /* cpu 0's per-operation cycles */
static size_t nlat;
static uint32_t invlpgb_max;
static uint64_t deadline; /* cpu 0 stops everyone at this TSC */
/* Progress: rounds done and in all, and the current round's start. */
static unsigned rounds_done, rounds_total, round_cpus;
static uint64_t round_start, round_cycles;

/*
 * cpu 0, between two of its operations (outside its latency samples),
 * while the others loop: a progress line and a tick record when due.
 */
static void between_ops(void)
{
	struct record rec;
	char buf[256];
	unsigned cpu, k = 0;

	if (bench_progress_due()) {
		char what[48];

		ksnprintf(what, sizeof(what), "%s %u cpus, round %u/%u",
			  fl_names[fl_strategy], round_cpus, rounds_done + 1,
			  rounds_total);
		bench_progress("flushloop",
			       rounds_done * round_cycles + rdtsc() -
				       round_start,
			       rounds_total * round_cycles, what);
	}
	if (!bench_tick_begin(&rec, buf, sizeof(buf), "flushloop",
			      fl_names[fl_strategy], TICK_MS))
		return;
	json_u64(&rec.j, "cpus", round_cpus);
	json_begin_array(&rec.j, "ops");
	for_each_cpu(cpu, &participants)
		if (k++ < BENCH_TICK_CPUS)
			json_u64(&rec.j, NULL, fl[cpu].ops);
	json_end_array(&rec.j);
	record_end(&rec);
}

static inline uint64_t own_va(unsigned cpu)
{
	return FL_BASE + (uint64_t)cpu * PAGE_SIZE;
}

static const enum flush_how fl_how[FL_COUNT] = {
	[FL_IPI_PAGE] = FLUSH_IPI_PAGE,
	[FL_IPI_RANGE] = FLUSH_IPI_RANGE,
	[FL_INVLPGB] = FLUSH_INVLPGB,
};

/*
 * One operation: write, unmap + flush, remap a zeroed frame, check. The
 * flush is the one planned for this CPU's page (loop()).
 */
static void one_op(struct fl_cpu *me, uint64_t va, struct flush_plan *flush)
{
	uint64_t old, pa;

	*(volatile uint64_t *)va = 0x5a5a5a5a00000000ull | this_cpu();
	if (vm_unmap(va, PT_4K, &old) != PT_OK) {
		me->failed++;
		return;
	}
	flush_run(flush);
	frame_free(old & PTE_ADDR_MASK);
	pa = frame_alloc(PMM_ZERO);
	if (!pa || vm_map(va, pa, PT_4K, PTE_P | PTE_W | pte_nx(), NULL)) {
		me->failed++;
		return;
	}
	me->nonzero += *(volatile uint64_t *)va != 0;
	me->ops++;
}

/* Every participant, interrupts on: it must answer the others' flushes. */
static void loop(void *arg)
{
	struct fl_cpu *me = &fl[this_cpu()];
	uint64_t va = own_va(this_cpu());
	struct invlpgb_regs insn[1];
	struct cpumask others;
	struct flush_plan plan;
	bool planned;
	struct flush_req req = {.how = fl_how[fl_strategy],
				.va = va,
				.pages = 1,
				.targets = &others,
				.concurrent = true,
				.invlpgb_max = invlpgb_max};

	(void)arg;
	cpumask_copy(&others, &participants);
	cpumask_clear(this_cpu(), &others);
	/*
	 * One page is one INVLPGB, which the encoder should never refuse;
	 * if it does, this CPU only counts the failure and keeps cpu 0's
	 * deadline, so that the round still ends.
	 */
	planned = flush_prepare(&plan, &req, insn, 1) == INVLPGB_OK;
	me->failed += !planned;
	while (!__atomic_load_n(&fl_stop, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = rdtsc_ordered();

		if (planned)
			one_op(me, va, &plan);
		if (this_cpu() != 0)
			continue;
		if (nlat < FL_LATENCIES)
			latency[nlat++] = rdtsc_ordered() - t0;
		if (rdtsc() > deadline)
			__atomic_store_n(&fl_stop, true, __ATOMIC_RELEASE);
		else
			between_ops();
	}
}

static bool map_own_pages(void)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online) {
		uint64_t pa = frame_alloc(PMM_ZERO);

		if (!pa || vm_map(own_va(cpu), pa, PT_4K,
				  PTE_P | PTE_W | pte_nx(), NULL))
			return false;
	}
	return true;
}

/* Runs the loop on the first n online CPUs (0 among them) for a while. */
static void run_round(unsigned n, uint64_t duration_us)
{
	uint32_t runs[MAX_CPUS];
	unsigned cpu, k = 0;
	uint64_t start;

	cpumask_zero(&participants);
	for_each_cpu(cpu, &cpus_online)
		if (k++ < n)
			cpumask_set(cpu, &participants);
	for_each_cpu(cpu, &participants)
		fl[cpu] = (struct fl_cpu){0};
	fl_stop = false;
	nlat = 0;
	for_each_cpu(cpu, &participants) {
		if (!cpu)
			continue;
		runs[cpu] = smp_background_finished(cpu);
		smp_start_background(cpu, loop, NULL);
	}
	round_cpus = n;
	round_cycles = us_to_cycles(duration_us);
	round_start = rdtsc();
	deadline = round_start + round_cycles;
	irq_enable(); /* cpu 0 answers the others' flushes too */
	loop(NULL);
	start = rdtsc();
	for_each_cpu(cpu, &participants)
		while (cpu && smp_background_finished(cpu) == runs[cpu] &&
		       rdtsc() - start < us_to_cycles(WAIT_US))
			cpu_relax();
	irq_disable();
}

static void record(unsigned n, uint64_t duration_us, uint64_t *nonzero)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0, failed = 0, bad = 0;
	unsigned cpu;

	for_each_cpu(cpu, &participants) {
		uint64_t per = fl[cpu].ops * 1000000 / duration_us;

		total += fl[cpu].ops;
		lo = per < lo ? per : lo;
		hi = per > hi ? per : hi;
		bad += fl[cpu].nonzero;
		failed += fl[cpu].failed;
	}
	*nonzero += bad;
	struct result_field f[] = {
		{"cpus", n, false},
		{"ops_per_s", total * 1000000 / duration_us, false},
		{"ops_per_s_cpu_min", lo, false},
		{"ops_per_s_cpu_max", hi, false},
		{"nonzero_reads", bad, false},
		{"failed_ops", failed, false},
	};
	struct result r = {.bench = "flushloop",
			   .strategy = fl_names[fl_strategy],
			   .targets = n - 1,
			   .pages = 1,
			   .samples = latency,
			   .n = nlat ? nlat : 1,
			   .fields = f,
			   .nfields = sizeof(f) / sizeof(f[0]),
			   .emulated = fl_strategy == FL_INVLPGB &&
				       !cpu_info.invlpgb};

	if (!nlat)
		latency[0] = 0;
	result_emit(&r);
	kprintf("  %-9s %4u cpus %10llu ops/s  per cpu %8llu..%-8llu%s\n",
		fl_names[fl_strategy], n, (unsigned long long)f[1].value,
		(unsigned long long)lo, (unsigned long long)hi,
		r.emulated ? "  (emulated)" : "");
}

/*
 * The negative control, on cpu 0's page: write it, unmap it, map a fresh
 * zeroed frame and read it back WITHOUT a flush. A CPU that keeps the old
 * translation reads the old data; one that re-walks the tables reads zero,
 * and then a zero read after a flush proves nothing. 1 if it read old
 * data, 0 if not, -1 if the page could not be remapped (a FAIL).
 */
static int negative_control(void)
{
	uint64_t va = own_va(this_cpu()), old, pa, seen = 0;
	bool ok;

	*(volatile uint64_t *)va = 0x5a5a5a5a00000000ull | this_cpu();
	pa = frame_alloc(PMM_ZERO);
	ok = pa && vm_unmap(va, PT_4K, &old) == PT_OK;
	ok = ok &&
	     vm_map(va, pa, PT_4K, PTE_P | PTE_W | pte_nx(), NULL) == PT_OK;
	if (ok)
		seen = *(volatile uint64_t *)va;
	invlpg((const void *)va);
	if (!ok) {
		report_fail("flushloop: negative control", "remap failed");
		return -1;
	}
	frame_free(old & PTE_ADDR_MASK);
	if (seen) {
		report_pass("flushloop: negative control: a remapped page read "
			    "its old data without a flush");
		return 1;
	}
	report_skip("flushloop: negative control",
		    "a remapped page read zero without a flush: this machine "
		    "re-walks the page tables, so zero reads prove nothing "
		    "here");
	return 0;
}

static bool strategy_available(enum fl_strategy s)
{
	bool emulated;

	if (s != FL_INVLPGB)
		return true;
	invlpgb_max = bench_invlpgb("flushloop", &emulated);
	return invlpgb_max != 0;
}

void flushloop_plan_shape(struct plan_flushloop *p)
{
	unsigned online = cpumask_count(&cpus_online);

	p->strategies = FL_COUNT - 1 + bench_invlpgb_planned();
	p->cpu_counts = 0;
	for (unsigned n = 1; n <= online;
	     n = n * 2 > online && n != online ? online : n * 2)
		p->cpu_counts++;
	p->duration_ms = bench_params.flushloop_ms;
}

void flushloop_run(void)
{
	uint64_t us = bench_params.flushloop_ms * 1000;
	unsigned online = cpumask_count(&cpus_online);
	struct plan_flushloop shape;
	int control;

	flushloop_plan_shape(&shape);
	rounds_total = shape.strategies * shape.cpu_counts;
	rounds_done = 0;
	latency = bench_alloc(FL_LATENCIES);
	if (!latency || !map_own_pages()) {
		report_fail("flushloop: setup", "out of memory");
		return;
	}
	control = negative_control();
	if (control < 0) {
		bench_free(latency, FL_LATENCIES);
		return;
	}
	kprintf("flushloop: write, unmap + flush, remap, check; %llu ms "
		"each\n",
		(unsigned long long)bench_params.flushloop_ms);
	for (int s = 0; s < FL_COUNT; s++) {
		uint64_t nonzero = 0;
		char name[64];

		fl_strategy = (enum fl_strategy)s;
		if (!strategy_available(fl_strategy))
			continue;
		for (unsigned n = 1; n <= online;
		     n = n * 2 > online && n != online ? online : n * 2) {
			run_round(n, us);
			rounds_done++;
			record(n, us, &nonzero);
		}
		ksnprintf(name, sizeof(name),
			  "flushloop: %s: remapped pages read zero",
			  fl_names[s]);
		if (nonzero)
			report_fail(name, "%llu reads saw old data",
				    (unsigned long long)nonzero);
		else if (!control)
			report_skip(name, "no read saw old data, but none did "
					  "without a flush either (the "
					  "negative control): this proves "
					  "nothing here");
		else
			report_pass("%s", name);
	}
	bench_free(latency, FL_LATENCIES);
}
