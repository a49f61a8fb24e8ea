// SPDX-License-Identifier: MIT
/*
 * primitives: the cost of each building block, on the same CPUs the
 * shootdown uses: TSC read overhead (subtracted from everything else),
 * local INVLPG, CR3 reload, INVPCID, INVLPGB + TLBSYNC (each with the
 * entries it drops in the TLB, checked), an IPI round trip with an empty
 * handler, a cross-call round trip, and a cache-line ping-pong round trip
 * (the floor under any acknowledgement).
 */
#include "bench/bench.h"
#include "bench/refill.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "lib/string.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define PRIM_VA		    (EXPERIMENT_BASE + (8ull << 30))
#define PINGPONG_TIMEOUT_US 1000000

static volatile uint64_t *const prim = (volatile uint64_t *)PRIM_VA;
static const char *distance; /* of the remote CPU, for the records */

/*
 * What each record is (bench/role.h): the one-page INVLPG is timed for
 * itself, the ceiling's local range is refill.c's invlpg-range curve.
 */
static const struct result_what invlpg_what = {"invlpg", ROLE_NONE, FK_LOCAL};
static const struct result_what cr3_what = {"cr3-reload", ROLE_FULL, FK_LOCAL};
static const struct result_what invpcid_what = {"invpcid-addr", ROLE_NONE,
						FK_LOCAL};
static const struct result_what ipi_what = {"ipi-roundtrip", ROLE_ROUNDTRIP,
					    FK_IPI};
static const struct result_what xcall_what = {"xcall-roundtrip", ROLE_NONE,
					      FK_NONE};
static const struct result_what pingpong_what = {"cacheline-pingpong",
						 ROLE_NONE, FK_NONE};
static const struct result_what tsc_what = {"tsc-read", ROLE_NONE, FK_NONE};

/* raw: the timer's own cost, from which nothing is subtracted. */
static void emit_as(struct bench_ctx *ctx, struct result_what w, uint64_t *s,
		    unsigned n, unsigned targets, uint64_t cpu, bool raw)
{
	struct result_field f[1] = {{"cpu", cpu, false}};
	struct result r = result_make("primitives", w, targets ? 0 : 1, targets,
				      s, n, f, 1);

	r.raw = raw;
	r.distance = targets ? distance : NULL;
	result_emit(&ctx->records, &r);
	bench_printf(
		"  %-20s cpu %3llu %-12s p50 %7llu cyc %7llu ns p99 %7llu\n",
		w.strategy, (unsigned long long)cpu,
		targets ? distance : "(local)", (unsigned long long)r.st.p50,
		(unsigned long long)cycles_to_ns(r.st.p50, tsc_freq.khz),
		(unsigned long long)r.st.p99);
}

static void emit(struct bench_ctx *ctx, struct result_what w, uint64_t *s,
		 unsigned n, unsigned targets, uint64_t cpu)
{
	emit_as(ctx, w, s, n, targets, cpu, false);
}

/*
 * The local invalidations are timed with every page of their range in the
 * TLB, which the harness checks rather than assumes: before each sample
 * the range is read (the TLB now holds it), its PTEs are pointed at the
 * other of two tagged frames (one store each, no flush), and read again:
 * still the old tag means the entry was cached when the timed instruction
 * ran. After it, every page must read the new tag (the entry was dropped).
 */
#define PRIM_PAGES 512 /* the largest INVLPGB range timed: one page table */

static uint64_t frames[2]; /* each holds its own address as a tag */
static uint64_t *ptes[PRIM_PAGES];
static unsigned mapped; /* pages of PRIM_VA mapped, with ptes[] */
static unsigned cur;	/* the frame the PTEs point at */

/* Samples with every page cached before, and every one dropped after. */
struct entry_counts {
	uint64_t cached, dropped;
};

/* The first local op whose entries were not all cached, or not dropped. */
static struct {
	const char *op;
	struct entry_counts c;
	unsigned n;
} uncached, kept;
static struct report_control control; /* can a cached entry be seen? */

static bool range_reads(unsigned pages, uint64_t tag)
{
	bool all = true;

	for (unsigned i = 0; i < pages; i++)
		all &= *(volatile uint64_t *)(PRIM_VA + i * PAGE_SIZE) == tag;
	return all;
}

/* Maps PRIM_VA's pages up to `pages` (on the frame the others use). */
static bool map_range(unsigned pages)
{
	for (; mapped < pages && mapped < PRIM_PAGES; mapped++) {
		uint64_t va = PRIM_VA + mapped * PAGE_SIZE;

		if (vm_map(va, frames[cur], PT_4K, PTE_P | PTE_W | pte_nx(),
			   NULL) != PT_OK)
			return false;
		ptes[mapped] = vm_pte_slot(va);
		if (!ptes[mapped])
			return false;
	}
	return mapped >= pages;
}

/* Before a timed sample: true if every page of the range is cached. */
static bool prepare(unsigned pages)
{
	uint64_t old = frames[cur];

	(void)range_reads(pages, old); /* the TLB now holds the range */
	cur ^= 1;
	for (unsigned i = 0; i < pages; i++)
		*ptes[i] = (*ptes[i] & ~PTE_ADDR_MASK) | frames[cur];
	mfence(); /* the stores before the reads, and before INVLPGB */
	return range_reads(pages, old);
}

typedef void (*local_op)(const void *arg);

static void op_invlpg(const void *arg)
{
	(void)arg;
	invlpg((const void *)prim);
}

static void op_cr3(const void *arg)
{
	(void)arg;
	cr3_reload();
}

static void op_invpcid(const void *arg)
{
	(void)arg;
	invpcid(INVPCID_ADDR, HARNESS_PCID, PRIM_VA);
}

static void op_invlpgb(const void *arg)
{
	const struct invlpgb_regs *r = arg;

	invlpgb(r->rax, r->ecx, r->edx);
	tlbsync();
}

/* Keeps the first op timed without its entries cached, or that kept one. */
static void tally(const char *name, const struct entry_counts *c, unsigned n)
{
	if (c->cached < n && !uncached.op) {
		uncached.op = name;
		uncached.c = *c;
		uncached.n = n;
	}
	if (c->dropped < n && !kept.op) {
		kept.op = name;
		kept.c = *c;
		kept.n = n;
	}
}

static void emit_local(struct bench_ctx *ctx, struct result_what w,
		       unsigned pages, uint64_t *s, unsigned n,
		       const struct entry_counts *c, bool emulated)
{
	struct result_field f[3] = {{"cpu", this_cpu(), false},
				    {"cached", c->cached, false},
				    {"dropped", c->dropped, false}};
	struct result r = result_make("primitives", w, pages, 0, s, n, f, 3);

	r.emulated = emulated;
	result_emit(&ctx->records, &r);
	bench_printf(
		"  %-20s cpu %3u %-12s p50 %7llu cyc %7llu ns p99 %7llu%s\n",
		w.strategy, this_cpu(), "(local)", (unsigned long long)r.st.p50,
		(unsigned long long)cycles_to_ns(r.st.p50, tsc_freq.khz),
		(unsigned long long)r.st.p99, emulated ? " (emulated)" : "");
}

/* Times op over a range of `pages` pages, each cached before each sample. */
static void time_local(struct bench_ctx *ctx, struct result_what w, local_op op,
		       const void *arg, unsigned pages, uint64_t *s, unsigned n,
		       bool emulated)
{
	struct entry_counts c = {0, 0};

	for (unsigned i = 0; i < BENCH_WARMUP + n; i++) {
		bool cached = prepare(pages), dropped;
		uint64_t t0, t1;

		t0 = rdtsc_ordered();
		op(arg);
		t1 = rdtsc_ordered();
		s[bench_slot(i)] = t1 - t0;
		dropped = range_reads(pages, frames[cur]);
		if (i < BENCH_WARMUP)
			continue; /* the counts are of the kept samples */
		c.cached += cached;
		c.dropped += dropped;
	}
	emit_local(ctx, w, pages, s, n, &c, emulated);
	tally(w.strategy, &c, n);
}

static void time_invlpgb(struct bench_ctx *ctx, uint64_t *s, unsigned n,
			 uint32_t max_pages, bool emulated)
{
	struct invlpgb_caps caps = {.max_pages = max_pages,
				    .pcide = cpu_info.pcid};
	char name[32];

	for (uint32_t pages = 1; pages <= max_pages; pages *= 2) {
		struct invlpgb_req req = {.va = PRIM_VA, .pages = pages};
		struct invlpgb_regs r;

		if (invlpgb_encode(&req, &caps, &r) || !map_range(pages))
			break;
		ksnprintf(name, sizeof(name), "invlpgb+tlbsync-%u", pages);
		time_local(ctx,
			   (struct result_what){name, ROLE_NONE, FK_INVLPGB},
			   op_invlpgb, &r, pages, s, n, emulated);
	}
}

/* The verdicts on what the local ops were timed with (see prepare()). */
static void entry_verdicts(void)
{
	uint64_t missing = uncached.op ? uncached.n - uncached.c.cached : 0;
	char why[128] = "";

	report_check(
		!kept.op, "primitives: timed invalidations drop the entries",
		"%s: a page read the old frame after it in %llu of %u "
		"samples",
		kept.op, (unsigned long long)(kept.n - kept.c.dropped), kept.n);
	if (uncached.op)
		ksnprintf(why, sizeof(why),
			  "%s: %llu of %u samples ran without every entry in "
			  "the TLB",
			  uncached.op, (unsigned long long)missing, uncached.n);
	/*
	 * Not the usual gate: where the control saw no cached entry, an
	 * entry the check finds uncached is what that machine always shows
	 * (it re-walks the tables), not a fault: no count means anything.
	 */
	if (!control.shown)
		report_skip("primitives: timed with the entries cached",
			    "whether an entry was cached cannot be shown (%s: "
			    "%s)",
			    control.name, control.missed);
	else
		report_gated(&control, missing,
			     "samples without every entry cached", why,
			     "primitives: timed with the entries cached");
}

/*
 * The control, before any op: a page read, remapped and read again without
 * a flush must still read the old frame, or this machine re-walks the
 * tables and prepare() cannot tell a cached entry from an uncached one.
 */
static void entry_control(void)
{
	bool cached = prepare(1);

	invlpg((const void *)prim);
	(void)range_reads(1, frames[cur]);
	report_control_init(&control, "primitives: negative control");
	if (cached)
		report_control_shown(&control, "a page read, remapped without "
					       "a flush and read again read "
					       "the old frame");
	else
		report_control_missed(&control,
				      "a page read, remapped without a flush "
				      "and read again read the new frame: "
				      "this machine re-walks the tables");
}

static void tlb_primitives(struct bench_ctx *ctx, uint64_t *s, unsigned n)
{
	uint32_t max_pages;
	bool emulated;

	entry_control();
	time_local(ctx, invlpg_what, op_invlpg, NULL, 1, s, n, false);
	time_local(ctx, cr3_what, op_cr3, NULL, 1, s, n, false);
	if (cpu_info.invpcid && cpu_info.pcid)
		time_local(ctx, invpcid_what, op_invpcid, NULL, 1, s, n, false);
	else
		report_skip("primitives: invpcid", "CPUID.7:EBX[10] (INVPCID) "
						   "or CPUID.1:ECX[17] (PCID) "
						   "is clear");
	max_pages = bench_invlpgb(&ctx->invlpgb, "primitives", &emulated);
	if (max_pages)
		time_invlpgb(ctx, s, n, max_pages, emulated);
	entry_verdicts();
}

/* The two tagged frames, and PRIM_VA's first page on frames[0]. */
static bool prim_setup(void)
{
	for (int i = 0; i < 2; i++) {
		frames[i] = frame_alloc(PMM_ZERO);
		if (!frames[i])
			return false;
		*(volatile uint64_t *)phys_to_virt(frames[i]) = frames[i];
	}
	cur = 0;
	mapped = 0;
	return map_range(1);
}

static void nothing(void *arg)
{
	(void)arg;
}

/*
 * What both sides spin on: the initiator writes ping, the responder
 * echoes it in pong, a cache line further. It is the responder's
 * cross-call argument, with the rounds to answer.
 */
struct pingpong {
	volatile uint64_t ping;
	uint64_t rounds;
	uint64_t pad[6];
	volatile uint64_t pong;
} __attribute__((aligned(CACHELINE)));

/* Gives up after PINGPONG_TIMEOUT_US without a new round, not in total. */
static void pingpong_responder(void *arg)
{
	struct pingpong *line = arg;
	uint64_t rounds = line->rounds, start = rdtsc();
	uint64_t limit = us_to_cycles(PINGPONG_TIMEOUT_US);

	for (uint64_t k = 1; k <= rounds; k++) {
		while (line->ping != k) {
			if (rdtsc() - start > limit)
				return;
			cpu_relax();
		}
		line->pong = k;
		start = rdtsc();
	}
}

static bool time_pingpong(unsigned cpu, uint64_t *s, unsigned n)
{
	/*
	 * Static: a responder that gave up waiting may still read it after
	 * this returns without its acknowledgement.
	 */
	static struct pingpong line;
	struct cpumask one;

	line = (struct pingpong){.rounds = BENCH_WARMUP + n};
	cpumask_zero(&one);
	cpumask_set(cpu, &one);
	on_cpumask_async(&one, pingpong_responder, &line, IPI_EACH);
	for (unsigned k = 1; k <= BENCH_WARMUP + n; k++) {
		uint64_t t0 = rdtsc_ordered();

		line.ping = k;
		while (line.pong != k) {
			if (rdtsc() - t0 > us_to_cycles(PINGPONG_TIMEOUT_US))
				return false;
			cpu_relax();
		}
		s[bench_slot(k - 1)] = rdtsc_ordered() - t0;
	}
	return xcall_wait(&one, PINGPONG_TIMEOUT_US);
}

static void remote_primitives(struct bench_ctx *ctx, unsigned cpu, uint64_t *s,
			      unsigned n)
{
	bool ok = true;

	for (unsigned i = 0; i < BENCH_WARMUP + n && ok; i++) {
		uint64_t t0 = rdtsc_ordered();

		ok = ping_cpu(cpu);
		s[bench_slot(i)] = rdtsc_ordered() - t0;
	}
	if (ok)
		emit(ctx, ipi_what, s, n, 1, cpu);
	for (unsigned i = 0; i < BENCH_WARMUP + n && ok; i++) {
		uint64_t t0 = rdtsc_ordered();

		ok = on_cpu(cpu, nothing, NULL);
		s[bench_slot(i)] = rdtsc_ordered() - t0;
	}
	if (ok)
		emit(ctx, xcall_what, s, n, 1, cpu);
	if (ok && (ok = time_pingpong(cpu, s, n)))
		emit(ctx, pingpong_what, s, n, 1, cpu);
	report_check(ok, "primitives: round trips",
		     "cpu %u (%s), apic id %u stopped answering", cpu, distance,
		     cpu_apic_id[cpu]);
}

/* The time budget's hook: a handful of ops and round trips per class. */
void primitives_plan_shape(const struct bench_params *p,
			   const struct bench_ctx *ctx,
			   const struct plan_costs *costs, struct plan *plan)
{
	(void)ctx;
	plan->primitives_cycles = plan_primitives_cycles(
		p->samples, smp_classes_present(), costs);
}

void primitives_run(const struct bench_params *p, struct bench_ctx *ctx)
{
	unsigned n = p->samples, far = 0, cpu;
	uint64_t *s = bench_alloc(n);

	if (!s)
		return;
	if (!prim_setup()) {
		report_fail("primitives: setup", "could not map the test page");
		return;
	}
	for (unsigned i = 0; i < BENCH_WARMUP + n; i++) { /* kept raw */
		uint64_t t0 = rdtsc_ordered();

		s[bench_slot(i)] = rdtsc_ordered() - t0;
	}
	bench_printf("primitives: on cpu %u (cycles and ns, p50 / p99)\n",
		     this_cpu());
	emit_as(ctx, tsc_what, s, n, 0, this_cpu(), true);
	tlb_primitives(ctx, s, n);
	/* One CPU of every distance class from this one (topology). */
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++) {
		cpu = smp_cpu_in_class((enum topo_class)k);
		if (!cpu)
			continue;
		distance = topo_class_name((enum topo_class)k);
		remote_primitives(ctx, cpu, s, n);
		far++;
	}
	if (!far)
		report_skip("primitives: round trips", "one cpu only");
	bench_free(s, n);
	refill_run(ctx, n); /* the flush ceiling's inputs */
}
