// SPDX-License-Identifier: MIT
/*
 * flushloop, the analogue of will-it-scale's tlb_flush2_threads: every
 * participating CPU of one address space loops "write its own page; unmap
 * it and flush it on every participating CPU with the strategy; map a
 * fresh zeroed frame; check that it reads zero". Reported: operations per
 * second, all CPUs together and per CPU, for 1, 2, 4, ... all CPUs.
 *
 * Each CPU has two pages and works on them in turn, so that one is
 * mapped while it flushes the other. Between two of its operations every
 * CPU reads another's mapped page (each other CPU in turn), so that its
 * TLB holds that translation when the owner next unmaps the page: a
 * flush that missed this CPU leaves it reading a frame whose flush the
 * owner already finished, which the check counts.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/pagefault.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define FL_BASE	     (EXPERIMENT_BASE + (32ull << 30))
#define FL_LATENCIES 65536
#define WAIT_US	     FLUSH_WAIT_US
/*
 * How long the participants may take to see a round's end: a CPU that
 * stopped costs each of them two missed waits, a ping and a lock probe
 * (smp.h) before it is out of their way.
 */
#define ROUND_END_US (4 * WAIT_US)
/*
 * A tick record every 500 ms: at default settings flushloop runs 700 ms
 * (6 rounds of 100 ms under 4 CPUs, and the cross-CPU control), and a
 * tick is ~90 bytes.
 */
#define TICK_MS 500

/*
 * FL_CONTROL is the cross-CPU negative control: the owner INVLPGs its
 * page on its own CPU only; the other CPUs get the IPI and only
 * acknowledge it (FLUSH_IPI_LOCAL_ONLY).
 */
enum fl_strategy { FL_IPI_PAGE, FL_IPI_RANGE, FL_INVLPGB, FL_COUNT };
#define FL_CONTROL FL_COUNT
static const char *const fl_names[FL_COUNT + 1] = {"ipi-page", "ipi-range",
						   "invlpgb", "local-only"};

/*
 * What a CPU writes into its page in its operation `gen`: 0x5a, its
 * number and the generation, so that a read of the page tells which
 * operation's frame it reached.
 */
#define FL_TAG	     0x5aull
#define FL_TAG_SHIFT 56
#define FL_CPU_SHIFT 40
#define FL_GEN_MASK  ((1ull << FL_CPU_SHIFT) - 1)
#define FL_CPU_MASK  0xffffull

/*
 * How many operations an unmapped frame is kept before it is freed.
 * The allocator hands out the lowest free frame: freed at once, the old
 * frame came straight back as the new one, and a CPU that kept the old
 * translation read the new frame's zeros, as if flushed (the own-page
 * check passed with no flush at all). Kept, the old frame still holds
 * its generation when a CPU with a stale entry reads it. A power of 2.
 */
#define FL_QUARANTINE 8

struct fl_cpu {
	volatile uint64_t ops;
	volatile uint64_t nonzero; /* remapped page did not read zero */
	volatile uint64_t failed;  /* map/unmap/alloc failures */
	/*
	 * The last generation whose flush completed on every CPU (this
	 * CPU's page then maps a later frame): over the whole run, never
	 * reset, so that a frame of an earlier round is still "flushed".
	 */
	volatile uint64_t done;
	volatile uint64_t remote_reads; /* of others' pages, not faulted */
	volatile uint64_t stale_remote; /* of them, a flushed frame */
} __attribute__((aligned(CACHELINE)));

/* Frames a CPU unmapped, oldest first from `next`; 0: empty slot. */
struct fl_quarantine {
	uint64_t pa[FL_QUARANTINE];
	unsigned next;
} __attribute__((aligned(CACHELINE)));

/* The first stale cross-CPU read of a strategy, for its FAIL. */
struct fl_stale {
	unsigned owner, checker, cpus;
	uint64_t value, done;
};

static struct fl_cpu fl[MAX_CPUS];
static struct fl_quarantine quarantine[MAX_CPUS];
static struct cpumask participants;
/* The participants in order: each CPU reads the others' pages in turn. */
static uint16_t order[MAX_CPUS];
static unsigned norder;
static volatile bool fl_stop;
static enum fl_strategy fl_strategy;
/*
 * Every flush is FLUSH_IPI_LOCAL_ONLY: the control's round, and every
 * strategy's under selftest=flushloop-local.
 */
static bool fl_local;
static volatile bool stale_taken;
static struct fl_stale first_stale;
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
static void between_ops(struct bench_ctx *ctx)
{
	struct bench_progress *pr = &ctx->progress;
	struct record rec;
	char buf[256];
	unsigned cpu, k = 0;

	if (bench_progress_due(pr)) {
		char what[48];

		ksnprintf(what, sizeof(what), "%s %u cpus, round %u/%u",
			  fl_names[fl_strategy], round_cpus, rounds_done + 1,
			  rounds_total);
		bench_progress(pr, "flushloop",
			       rounds_done * round_cycles + rdtsc() -
				       round_start,
			       rounds_total * round_cycles, what);
	}
	if (!bench_tick_begin(pr, &rec, buf, sizeof(buf), "flushloop",
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

/*
 * Each CPU's pages: operation `gen` works on page gen % 2. While it
 * flushes one, the other stays mapped for the other CPUs to read: under
 * single-threaded TCG a CPU runs between two IPIs, when every other CPU
 * is in the middle of its flush, and a single page would always be
 * unmapped when they read it.
 */
#define FL_PAGES 2

static inline uint64_t own_va(unsigned cpu, uint64_t gen)
{
	return FL_BASE +
	       ((uint64_t)cpu * FL_PAGES + gen % FL_PAGES) * PAGE_SIZE;
}

static inline uint64_t fl_tag(unsigned cpu, uint64_t gen)
{
	return FL_TAG << FL_TAG_SHIFT | (uint64_t)cpu << FL_CPU_SHIFT |
	       (gen & FL_GEN_MASK);
}

static inline bool fl_tag_of(uint64_t v, unsigned cpu)
{
	return v >> FL_TAG_SHIFT == FL_TAG &&
	       (v >> FL_CPU_SHIFT & FL_CPU_MASK) == cpu;
}

static const enum flush_how fl_how[FL_COUNT + 1] = {
	[FL_IPI_PAGE] = FLUSH_IPI_PAGE,
	[FL_IPI_RANGE] = FLUSH_IPI_RANGE,
	[FL_INVLPGB] = FLUSH_INVLPGB,
	[FL_CONTROL] = FLUSH_IPI_LOCAL_ONLY,
};

/* Keeps pa for FL_QUARANTINE operations; frees the one kept longest. */
static void retire(struct fl_quarantine *q, uint64_t pa)
{
	uint64_t oldest = q->pa[q->next];

	q->pa[q->next] = pa;
	q->next = (q->next + 1) & (FL_QUARANTINE - 1);
	if (oldest)
		frame_free(oldest);
}

static void drain_quarantine(void)
{
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		for (unsigned i = 0; i < FL_QUARANTINE; i++)
			if (quarantine[cpu].pa[i]) {
				frame_free(quarantine[cpu].pa[i]);
				quarantine[cpu].pa[i] = 0;
			}
}

/*
 * One operation: write, unmap + flush, remap a zeroed frame, check. The
 * flush is the one planned for this CPU's page (loop()). Once it has
 * completed, the generation is published: from then on no CPU may read
 * this generation's frame through the page.
 */
static void one_op(struct fl_cpu *me, unsigned self,
		   struct flush_plan plan[FL_PAGES])
{
	uint64_t gen = me->done + 1, va = own_va(self, gen), old, pa;

	*(volatile uint64_t *)va = fl_tag(self, gen);
	if (vm_unmap(va, PT_4K, &old) != PT_OK) {
		me->failed++;
		return;
	}
	flush_run(&plan[gen % FL_PAGES]);
	__atomic_store_n(&me->done, gen, __ATOMIC_RELEASE);
	retire(&quarantine[self], old & PTE_ADDR_MASK);
	pa = frame_alloc(PMM_ZERO);
	if (!pa || vm_map(va, pa, PT_4K, PTE_P | PTE_W | pte_nx(), NULL)) {
		me->failed++;
		return;
	}
	me->nonzero += *(volatile uint64_t *)va != 0;
	me->ops++;
}

static void note_stale(unsigned owner, unsigned self, uint64_t v, uint64_t done)
{
	if (__atomic_exchange_n(&stale_taken, true, __ATOMIC_ACQ_REL))
		return;
	first_stale = (struct fl_stale){owner, self, norder, v, done};
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
static void check_other(struct fl_cpu *me, unsigned self, unsigned *pos)
{
	unsigned owner;
	uint64_t done, v;

	if (norder < 2)
		return;
	*pos = *pos + 1 < norder ? *pos + 1 : 0;
	if (order[*pos] == self)
		*pos = *pos + 1 < norder ? *pos + 1 : 0;
	owner = order[*pos];
	done = __atomic_load_n(&fl[owner].done, __ATOMIC_ACQUIRE);
	/*
	 * The read must not start before `done` is known: begun earlier,
	 * it could legitimately use the translation the flush was about
	 * to drop.
	 */
	lfence();
	if (read_u64_safe((const volatile void *)own_va(owner, done), &v))
		return;
	me->remote_reads++;
	if (!v || (fl_tag_of(v, owner) && (v & FL_GEN_MASK) > done))
		return;
	me->stale_remote++;
	note_stale(owner, self, v, done);
}

/*
 * Every participant, interrupts on: it must answer the others' flushes.
 * arg: the experiment's context on cpu 0, which drives the round; NULL
 * on the others.
 */
static void loop(void *arg)
{
	unsigned self = this_cpu(), pos = 0;
	struct fl_cpu *me = &fl[self];
	struct invlpgb_regs insn[FL_PAGES][1];
	struct flush_plan plan[FL_PAGES];
	struct cpumask others;
	bool planned = true;
	struct flush_req req = {.how = fl_local ? FLUSH_IPI_LOCAL_ONLY
						: fl_how[fl_strategy],
				.pages = 1,
				.targets = &others,
				.concurrent = true,
				.invlpgb_max = invlpgb_max};

	cpumask_copy(&others, &participants);
	cpumask_clear(self, &others);
	while (pos < norder && order[pos] != self)
		pos++;
	/*
	 * One page is one INVLPGB, which the encoder should never refuse;
	 * if it does, this CPU only counts the failure and keeps cpu 0's
	 * deadline, so that the round still ends.
	 */
	for (unsigned i = 0; i < FL_PAGES; i++) {
		req.va = own_va(self, i);
		planned &=
			flush_prepare(&plan[i], &req, insn[i], 1) == INVLPGB_OK;
	}
	me->failed += !planned;
	while (!__atomic_load_n(&fl_stop, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = rdtsc_ordered();

		if (planned)
			one_op(me, self, plan);
		if (self == 0 && nlat < FL_LATENCIES)
			latency[nlat++] = rdtsc_ordered() - t0;
		/* Not timed: the check is not part of the operation. */
		check_other(me, self, &pos);
		if (self != 0)
			continue;
		if (rdtsc() > deadline)
			__atomic_store_n(&fl_stop, true, __ATOMIC_RELEASE);
		else
			between_ops(arg);
	}
}

static bool map_own_pages(void)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online)
		for (unsigned i = 0; i < FL_PAGES; i++) {
			uint64_t pa = frame_alloc(PMM_ZERO);

			if (!pa || vm_map(own_va(cpu, i), pa, PT_4K,
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

/* Runs the loop on the first n online CPUs (0 among them) for a while. */
static void run_round(struct bench_ctx *ctx, unsigned n, uint64_t duration_us)
{
	static struct bg_group others;
	unsigned cpu, k = 0;

	cpumask_zero(&participants);
	norder = 0;
	for_each_cpu(cpu, &cpus_online)
		if (k++ < n) {
			cpumask_set(cpu, &participants);
			order[norder++] = (uint16_t)cpu;
		}
	for_each_cpu(cpu, &participants)
		fl[cpu] = (struct fl_cpu){.done = fl[cpu].done};
	fl_stop = false;
	nlat = 0;
	bg_init(&others);
	for_each_cpu(cpu, &participants)
		if (cpu)
			bg_start(&others, cpu, loop, NULL);
	round_cpus = n;
	round_cycles = us_to_cycles(duration_us);
	round_start = rdtsc();
	deadline = round_start + round_cycles;
	irq_enable(); /* cpu 0 answers the others' flushes too */
	loop(ctx);
	bg_wait(&others, ROUND_END_US);
	irq_disable();
	drop_entries();
}

/* What a strategy's rounds add up to, for its verdicts. */
struct fl_tally {
	uint64_t nonzero;      /* own page read non-zero after its remap */
	uint64_t remote_reads; /* reads of another CPU's page */
	uint64_t stale_remote; /* of them, stale */
	bool stale_seen;       /* first_stale holds the first of them */
	struct fl_stale first;
};

static void record(struct bench_ctx *ctx, unsigned n, uint64_t duration_us,
		   struct fl_tally *t)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0, failed = 0, bad = 0;
	uint64_t reads = 0, stale = 0;
	unsigned cpu;

	for_each_cpu(cpu, &participants) {
		uint64_t per = fl[cpu].ops * 1000000 / duration_us;

		total += fl[cpu].ops;
		lo = per < lo ? per : lo;
		hi = per > hi ? per : hi;
		bad += fl[cpu].nonzero;
		failed += fl[cpu].failed;
		reads += fl[cpu].remote_reads;
		stale += fl[cpu].stale_remote;
	}
	t->nonzero += bad;
	t->remote_reads += reads;
	t->stale_remote += stale;
	if (stale_taken && !t->stale_seen) {
		t->stale_seen = true;
		t->first = first_stale;
	}
	struct result_field f[] = {
		{"cpus", n, false},
		{"ops_per_s", total * 1000000 / duration_us, false},
		{"ops_per_s_cpu_min", lo, false},
		{"ops_per_s_cpu_max", hi, false},
		{"nonzero_reads", bad, false},
		{"failed_ops", failed, false},
		{"remote_reads", reads, false},
		{"stale_remote_reads", stale, false},
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
	result_emit(&ctx->records, &r);
	bench_printf("  %-10s %4u cpus %10llu ops/s  per cpu %8llu..%-8llu  "
		     "stale cross-cpu %llu of %llu%s\n",
		     fl_names[fl_strategy], n, (unsigned long long)f[1].value,
		     (unsigned long long)lo, (unsigned long long)hi,
		     (unsigned long long)stale, (unsigned long long)reads,
		     r.emulated ? "  (emulated)" : "");
}

/*
 * The negative control, on cpu 0's page: write it, unmap it, map a fresh
 * zeroed frame and read it back WITHOUT a flush. A CPU that keeps the old
 * translation reads the old data; one that re-walks the tables reads zero,
 * and then a zero read after a flush proves nothing. False if the page
 * could not be remapped (a FAIL).
 */
static bool negative_control(struct report_control *ctl)
{
	uint64_t va = own_va(this_cpu(), 0), old, pa, seen = 0;
	bool ok;

	report_control_init(ctl, "flushloop: negative control");
	*(volatile uint64_t *)va = fl_tag(this_cpu(), 0);
	pa = frame_alloc(PMM_ZERO);
	ok = pa && vm_unmap(va, PT_4K, &old) == PT_OK;
	ok = ok &&
	     vm_map(va, pa, PT_4K, PTE_P | PTE_W | pte_nx(), NULL) == PT_OK;
	if (ok)
		seen = *(volatile uint64_t *)va;
	invlpg((const void *)va);
	if (!ok) {
		report_fail(ctl->name, "remap failed");
		return false;
	}
	frame_free(old & PTE_ADDR_MASK);
	if (seen)
		report_control_shown(ctl, "a remapped page read its old data "
					  "without a flush");
	else
		report_control_missed(ctl, "a remapped page read zero without "
					   "a flush: this machine re-walks "
					   "the page tables");
	return true;
}

/*
 * Runs a round of n CPUs and adds it to t, unless a CPU missed a wait or
 * answered late during it (smp.h): then it FAILs, and neither its record
 * nor its counts are kept.
 */
static bool round_kept(struct bench_ctx *ctx, unsigned n, uint64_t us,
		       struct fl_tally *t)
{
	uint32_t faults = xcall_faults();

	run_round(ctx, n, us);
	rounds_done++;
	if (xcall_faults() != faults) {
		report_fail("flushloop: responders",
			    "%s, %u cpus: a cpu did not answer in time "
			    "(above): this round is discarded, not reported",
			    fl_names[fl_strategy], n);
		return false;
	}
	record(ctx, n, us, t);
	return true;
}

/*
 * The cross-CPU negative control: a round on every online CPU in which
 * each owner INVLPGs its page on its own CPU only. Each CPU must then
 * read, through another's page, a frame that owner had already
 * "flushed"; where one does not, the cross-CPU check cannot see a
 * missed remote flush on it. Shown only if every CPU did.
 */
static void cross_control(struct bench_ctx *ctx, bool local, unsigned online,
			  uint64_t us, struct report_control *ctl)
{
	struct fl_tally t = {0};
	unsigned cpu, blind = 0, first = 0;

	report_control_init(ctl, "flushloop: cross-cpu negative control");
	if (online < 2) {
		report_control_missed(ctl, "one cpu: no other cpu to read its "
					   "page");
		return;
	}
	fl_local = true;
	fl_strategy = FL_CONTROL;
	stale_taken = false;
	/* Once more with the CPUs left, if one was taken out during it. */
	if (!round_kept(ctx, online, us, &t)) {
		online = cpumask_count(&cpus_online);
		if (!round_kept(ctx, online, us, &t)) {
			fl_local = local;
			report_control_missed(
				ctl, "its round was discarded twice (a "
				     "cpu did not answer in time, "
				     "above)");
			return;
		}
	}
	fl_local = local;
	for_each_cpu(cpu, &participants)
		if (!fl[cpu].stale_remote && !blind++)
			first = cpu;
	if (!blind)
		report_control_shown(ctl,
				     "%llu of %llu reads of another cpu's "
				     "page were stale with the remote flush "
				     "skipped, on each of %u cpus",
				     (unsigned long long)t.stale_remote,
				     (unsigned long long)t.remote_reads,
				     online);
	else if (t.stale_remote)
		report_control_missed(ctl,
				      "%u of %u cpus (the first: cpu %u) read "
				      "no stale data through another cpu's "
				      "page with the remote flush skipped",
				      blind, online, first);
	else
		report_control_missed(ctl,
				      "no cpu read stale data in %llu reads "
				      "of another cpu's page with the remote "
				      "flush skipped: this machine re-walks "
				      "the page tables, or the round was too "
				      "short to show it",
				      (unsigned long long)t.remote_reads);
}

static bool strategy_available(struct bench_ctx *ctx, enum fl_strategy s)
{
	bool emulated;

	if (s != FL_INVLPGB)
		return true;
	invlpgb_max = bench_invlpgb(&ctx->invlpgb, "flushloop", &emulated);
	return invlpgb_max != 0;
}

void flushloop_plan_shape(const struct bench_ctx *ctx, struct plan_flushloop *p)
{
	unsigned online = cpumask_count(&cpus_online), n;

	p->strategies = 0;
	for (int s = 0; s < FL_COUNT; s++)
		if (s != FL_INVLPGB || bench_invlpgb_planned(&ctx->invlpgb))
			p->names[p->strategies++] = fl_names[s];
	p->cpu_counts = 0;
	for_each_cpu_count(n, online) if (p->cpu_counts++ < PLAN_LIST_MAX)
		p->cpus[p->cpu_counts - 1] = n;
	p->controls = online > 1;
	p->duration_ms = ctx->size.flushloop_ms;
}

static void own_verdict(int s, const struct fl_tally *t,
			const struct report_control *ctl)
{
	report_gated(ctl, t->nonzero, "reads that saw old data", NULL,
		     "flushloop: %s: remapped pages read zero", fl_names[s]);
}

/*
 * A stale read through another CPU's page always fails, naming the first
 * one's owner (whose flush missed) and reader. None passes only where
 * the cross-CPU control showed that every CPU would have read stale data.
 */
static void cross_verdict(int s, const struct fl_tally *t, unsigned online,
			  const struct report_control *ctl)
{
	const struct fl_stale *f = &t->first;
	char name[72], what[96], why[320];

	ksnprintf(name, sizeof(name), "flushloop: %s: no stale cross-cpu reads",
		  fl_names[s]);
	if (!t->stale_remote && online < 2) {
		report_skip(name, "one cpu: no other cpu to read its page");
		return;
	}
	if (!t->stale_remote && !t->remote_reads) {
		report_fail(name, "no cpu read another cpu's page: the check "
				  "did not run");
		return;
	}
	if (fl_tag_of(f->value, f->owner))
		ksnprintf(what, sizeof(what), "its generation %llu",
			  (unsigned long long)(f->value & FL_GEN_MASK));
	else
		ksnprintf(what, sizeof(what),
			  "0x%llx, which cpu %u never writes there",
			  (unsigned long long)f->value, f->owner);
	ksnprintf(why, sizeof(why),
		  "%llu of %llu reads of another cpu's page were stale; the "
		  "first: cpu %u read cpu %u's page after cpu %u's flush of "
		  "generation %llu had completed (a round of %u cpus) and saw "
		  "%s",
		  (unsigned long long)t->stale_remote,
		  (unsigned long long)t->remote_reads, f->checker, f->owner,
		  f->owner, (unsigned long long)f->done, f->cpus, what);
	report_gated(ctl, t->stale_remote, "stale reads of another cpu's page",
		     why, "%s", name);
}

void flushloop_run(const struct bench_params *p, struct bench_ctx *ctx)
{
	uint64_t us = ctx->size.flushloop_ms * 1000;
	unsigned online = cpumask_count(&cpus_online);
	struct plan_flushloop shape;
	struct report_control own, cross;

	flushloop_plan_shape(ctx, &shape);
	rounds_total = shape.strategies * shape.cpu_counts + shape.controls;
	rounds_done = 0;
	latency = bench_alloc(FL_LATENCIES);
	if (!latency || !map_own_pages()) {
		report_fail("flushloop: setup", "out of memory");
		return;
	}
	if (!negative_control(&own)) {
		bench_free(latency, FL_LATENCIES);
		return;
	}
	fl_local = p->flushloop_local;
	if (fl_local)
		report_info("selftest: selftest=flushloop-local: every "
			    "flushloop strategy INVLPGs on the flushing cpu "
			    "only; the other cpus acknowledge its IPI without "
			    "flushing");
	/* A read of another CPU's page while its owner has it unmapped. */
	pf_expect(FL_BASE, own_va(MAX_CPUS, 0), PF_SKIP, NULL);
	bench_printf(
		"flushloop: write, unmap + flush, remap, check; read another "
		"cpu's page between operations; %llu ms each\n",
		(unsigned long long)ctx->size.flushloop_ms);
	cross_control(ctx, p->flushloop_local, online, us, &cross);
	for (int s = 0; s < FL_COUNT; s++) {
		struct fl_tally t = {0};
		unsigned n, last;

		fl_strategy = (enum fl_strategy)s;
		if (!strategy_available(ctx, fl_strategy))
			continue;
		stale_taken = false;
		last = 0;
		for_each_cpu_count(n, online)
		{
			/* fewer, if a CPU was taken out of the run (smp.h) */
			unsigned m = n < cpumask_count(&cpus_online)
					     ? n
					     : cpumask_count(&cpus_online);

			if (m <= last)
				break;
			round_kept(ctx, m, us, &t);
			last = m;
		}
		own_verdict(s, &t, &own);
		cross_verdict(s, &t, online, &cross);
	}
	pf_expect_end(NULL);
	drain_quarantine();
	fl_local = false;
	bench_free(latency, FL_LATENCIES);
}
