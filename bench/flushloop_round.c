// SPDX-License-Identifier: MIT
/*
 * One flushloop round: what every participating CPU does, the analogue
 * of will-it-scale's tlb_flush2_threads loop. Each CPU loops "write its
 * own page; unmap it and flush it on every participant with the
 * strategy; map a fresh zeroed frame; check that it reads zero", and
 * between two of its operations reads another's mapped page (each other
 * CPU in turn), so that its TLB holds that translation when the owner
 * next unmaps the page: a flush that missed this CPU leaves it reading a
 * frame whose flush the owner already finished, which the check counts.
 *
 * Everything the CPUs share is in the struct fl_run each is handed.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/flushloop.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/printf.h"
#include "mm/invlpgb.h"
#include "mm/pagefault.h"
#include "mm/vm.h"

/*
 * How long the participants may take to see a round's end: a CPU that
 * stopped costs each of them two missed waits, a ping and a lock probe
 * (smp.h) before it is out of their way.
 */
#define ROUND_END_US (4 * FLUSH_WAIT_US)
/*
 * A tick record every 500 ms: at default settings flushloop runs 700 ms
 * (6 rounds of 100 ms under 4 CPUs, and the cross-CPU control), and a
 * tick is ~90 bytes.
 */
#define TICK_MS 500

static const enum flush_how fl_how[FL_COUNT + 1] = {
	[FL_IPI_PAGE] = FLUSH_IPI_PAGE,
	[FL_IPI_RANGE] = FLUSH_IPI_RANGE,
	[FL_INVLPGB] = FLUSH_INVLPGB,
	[FL_CONTROL] = FLUSH_IPI_LOCAL_ONLY,
};

/*
 * cpu 0, between two of its operations (outside its latency samples),
 * while the others loop: a progress line and a tick record when due.
 */
static void between_ops(struct fl_run *run)
{
	struct bench_progress *pr = &run->ctx->progress;
	struct record rec;
	char buf[256];
	unsigned cpu, k = 0;
	uint64_t now = rdtsc(), total = run->rounds_total * run->round_cycles,
		 done = run->rounds_done * run->round_cycles + now -
			run->round_start;

	if (bench_progress_due(pr, now, done, total)) {
		char what[48];

		ksnprintf(what, sizeof(what), "%s %u cpus, round %u/%u",
			  fl_names[run->strategy], run->round_cpus,
			  run->rounds_done + 1, run->rounds_total);
		bench_progress(pr, "flushloop", done, total, what);
	}
	if (!bench_tick_begin(pr, &rec, buf, sizeof(buf), "flushloop",
			      fl_names[run->strategy], TICK_MS))
		return;
	json_u64(&rec.j, "cpus", run->round_cpus);
	json_begin_array(&rec.j, "ops");
	for_each_cpu(cpu, &run->participants)
		if (k++ < BENCH_TICK_CPUS)
			json_u64(&rec.j, NULL, run->cpu[cpu].ops);
	json_end_array(&rec.j);
	record_end(&rec);
}

/* Keeps pa for FL_QUARANTINE operations; frees the one kept longest. */
static void retire(struct fl_quarantine *q, uint64_t pa)
{
	uint64_t oldest = q->pa[q->next];

	q->pa[q->next] = pa;
	q->next = (q->next + 1) & (FL_QUARANTINE - 1);
	if (oldest)
		frame_free(oldest);
}

void fl_drain_quarantine(struct fl_run *run)
{
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct fl_quarantine *q = &run->quarantine[cpu];

		for (unsigned i = 0; i < FL_QUARANTINE; i++)
			if (q->pa[i]) {
				frame_free(q->pa[i]);
				q->pa[i] = 0;
			}
	}
}

/*
 * One operation: write, unmap + flush, remap a zeroed frame, check. The
 * flush is the one planned for this CPU's page (loop()). Once it has
 * completed, the generation is published: from then on no CPU may read
 * this generation's frame through the page.
 */
static void one_op(struct fl_run *run, unsigned self,
		   struct flush_plan plan[FL_PAGES])
{
	struct fl_cpu *me = &run->cpu[self];
	uint64_t gen = me->done + 1, va = fl_own_va(self, gen), old, pa;

	*(volatile uint64_t *)va = fl_tag(self, gen);
	if (vm_unmap(va, PT_4K, &old) != PT_OK) {
		me->failed++;
		return;
	}
	flush_run(&plan[gen % FL_PAGES]);
	__atomic_store_n(&me->done, gen, __ATOMIC_RELEASE);
	retire(&run->quarantine[self], old & PTE_ADDR_MASK);
	pa = frame_alloc(PMM_ZERO);
	if (!pa || vm_map(va, pa, PT_4K, PTE_P | PTE_W | pte_nx(), NULL)) {
		me->failed++;
		return;
	}
	me->nonzero += *(volatile uint64_t *)va != 0;
	me->ops++;
}

static void note_stale(struct fl_run *run, unsigned owner, unsigned self,
		       uint64_t v, uint64_t done)
{
	if (__atomic_exchange_n(&run->stale_taken, true, __ATOMIC_ACQ_REL))
		return;
	run->first_stale = (struct fl_stale){owner, self, run->norder, v, done};
}

/* The participant after *pos in order[], other than self. */
static unsigned next_other(const struct fl_run *run, unsigned self,
			   unsigned *pos)
{
	*pos = *pos + 1 < run->norder ? *pos + 1 : 0;
	if (run->order[*pos] == self)
		*pos = *pos + 1 < run->norder ? *pos + 1 : 0;
	return run->order[*pos];
}

/*
 * How long a reader waits for the owner to map the page of its last
 * completed operation again (a zeroed frame: microseconds, milliseconds
 * under an emulating hypervisor); past it the read faults, as before.
 */
#define MAPPED_WAIT_US 1000

/*
 * Until the owner's page of generation done is mapped again, done moved
 * on, the round ended or MAPPED_WAIT_US passed. done is published right
 * after the flush, before the fresh frame is mapped: a read in between
 * faults and leaves no entry behind. Under Bochs, whose CPUs run in
 * lockstep, every read of cpu 1 at 2 CPUs landed there: it never held an
 * entry for the local-only control to leave stale (the control SKIPped,
 * and every strategy's check of it proved nothing).
 */
static void wait_mapped(const struct fl_run *run, unsigned owner, uint64_t done)
{
	const volatile uint64_t *pte = vm_pte_slot(fl_own_va(owner, done));
	uint64_t start = rdtsc(), limit = us_to_cycles(MAPPED_WAIT_US);

	while (pte && !(*pte & PTE_P) &&
	       __atomic_load_n(&run->cpu[owner].done, __ATOMIC_ACQUIRE) ==
		       done &&
	       !__atomic_load_n(&run->stop, __ATOMIC_ACQUIRE) &&
	       rdtsc() - start < limit)
		cpu_relax();
}

/*
 * Reads the next other participant's page (in turn; *pos is this CPU's
 * place in order[]): the one its last completed operation remapped,
 * mapped until its next-but-one operation. Stale: a value that page can
 * no longer hold, i.e. one of a generation whose flush the owner had
 * completed before this read began, or anything the owner never writes.
 * A generation the owner is still flushing is not counted, nor zero (a
 * fresh frame, or one that cannot be told apart). The read faults, and
 * counts for nothing, where the page is unmapped at that moment.
 */
static void check_other(struct fl_run *run, unsigned self, unsigned *pos)
{
	struct fl_cpu *me = &run->cpu[self];
	unsigned owner;
	uint64_t done, v;

	if (run->norder < 2)
		return;
	owner = next_other(run, self, pos);
	done = __atomic_load_n(&run->cpu[owner].done, __ATOMIC_ACQUIRE);
	wait_mapped(run, owner, done);
	/*
	 * The read must not start before `done` is known: begun earlier,
	 * it could legitimately use the translation the flush was about
	 * to drop.
	 */
	lfence();
	if (read_u64_safe((const volatile void *)fl_own_va(owner, done), &v))
		return;
	me->remote_reads++;
	if (!v || (fl_tag_of(v, owner) && (v & FL_GEN_MASK) > done))
		return;
	me->stale_remote++;
	note_stale(run, owner, self, v, done);
}

/*
 * This CPU's flush of each of its pages to the other participants. One
 * page is one INVLPGB, which the encoder should never refuse; if it
 * does, false: this CPU only counts the failure and keeps cpu 0's
 * deadline, so that the round still ends.
 */
static bool plan_own_flushes(const struct fl_run *run, unsigned self,
			     const struct cpumask *others,
			     struct flush_plan plan[FL_PAGES],
			     struct invlpgb_regs insn[FL_PAGES][1])
{
	struct flush_req req = {.how = run->local ? FLUSH_IPI_LOCAL_ONLY
						  : fl_how[run->strategy],
				.pages = 1,
				.targets = others,
				.concurrent = true,
				.invlpgb_max = run->invlpgb_max};
	bool planned = true;

	for (unsigned i = 0; i < FL_PAGES; i++) {
		req.va = fl_own_va(self, i);
		planned &=
			flush_prepare(&plan[i], &req, insn[i], 1) == INVLPGB_OK;
	}
	return planned;
}

/*
 * Every participant, interrupts on: it must answer the others' flushes.
 * arg: the run; cpu 0 drives the round (its latencies, progress and
 * deadline).
 */
static void loop(void *arg)
{
	struct fl_run *run = arg;
	unsigned self = this_cpu(), pos = 0;
	struct invlpgb_regs insn[FL_PAGES][1];
	struct flush_plan plan[FL_PAGES];
	struct cpumask others;
	bool planned;

	cpumask_copy(&others, &run->participants);
	cpumask_clear(self, &others);
	while (pos < run->norder && run->order[pos] != self)
		pos++;
	planned = plan_own_flushes(run, self, &others, plan, insn);
	run->cpu[self].failed += !planned;
	while (!__atomic_load_n(&run->stop, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = rdtsc_ordered();

		if (planned)
			one_op(run, self, plan);
		if (self == 0 && run->nlat < FL_LATENCIES)
			run->latency[run->nlat++] = rdtsc_ordered() - t0;
		/* Not timed: the check is not part of the operation. */
		check_other(run, self, &pos);
		if (self != 0)
			continue;
		if (rdtsc() > run->deadline)
			__atomic_store_n(&run->stop, true, __ATOMIC_RELEASE);
		else
			between_ops(run);
	}
}

bool fl_map_own_pages(void)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online)
		for (unsigned i = 0; i < FL_PAGES; i++) {
			uint64_t pa = frame_alloc(PMM_ZERO);

			if (!pa || vm_map(fl_own_va(cpu, i), pa, PT_4K,
					  PTE_P | PTE_W | pte_nx(), NULL))
				return false;
		}
	return true;
}

/*
 * Every online CPU drops its entries for the flushloop pages. After a
 * round: the control leaves stale entries on purpose, and a CPU left
 * out of a round (or one that read a page for the last time before its
 * owner's last flush) keeps entries its next round must not inherit: a
 * stale read there would be charged to a strategy that did nothing
 * wrong.
 */
static void drop_entries(void)
{
	struct flush_range r = {FL_BASE, 0};
	struct cpumask others;
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online)
		r.pages = (cpu + 1) * FL_PAGES;
	cpumask_copy(&others, &cpus_online);
	cpumask_clear(this_cpu(), &others);
	on_cpumask(&others, invlpg_range, &r, IPI_EACH);
	invlpg_range(&r);
}

/* The first n online CPUs take part, with their counts reset. */
static void choose_participants(struct fl_run *run, unsigned n)
{
	unsigned cpu, k = 0;

	cpumask_zero(&run->participants);
	run->norder = 0;
	for_each_cpu(cpu, &cpus_online)
		if (k++ < n) {
			cpumask_set(cpu, &run->participants);
			run->order[run->norder++] = (uint16_t)cpu;
		}
	for_each_cpu(cpu, &run->participants)
		run->cpu[cpu] = (struct fl_cpu){.done = run->cpu[cpu].done};
}

void fl_run_round(struct fl_run *run, unsigned n, uint64_t duration_us)
{
	unsigned cpu;

	choose_participants(run, n);
	run->stop = false;
	run->nlat = 0;
	bg_init(&run->others);
	for_each_cpu(cpu, &run->participants)
		if (cpu)
			bg_start(&run->others, cpu, loop, run);
	run->round_cpus = n;
	run->round_cycles = us_to_cycles(duration_us);
	run->round_start = rdtsc();
	run->deadline = run->round_start + run->round_cycles;
	irq_enable(); /* cpu 0 answers the others' flushes too */
	loop(run);
	bg_wait(&run->others, ROUND_END_US);
	irq_disable();
	drop_entries();
}
