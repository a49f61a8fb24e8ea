// SPDX-License-Identifier: MIT
/*
 * The refill measurement (bench/refill.h), by Dave Hansen's rules for
 * measuring the flush ceiling (the 2015 reclaim thread): the TLB fill is
 * kept out of the flush timing and timed on its own; the K pages flushed
 * are adjacent 4 KiB pages, every other one read before (in the TLB) and
 * the rest not; and the instruction is timed, in an inline loop, not a
 * flush function around it.
 *
 * Every page of the region maps one frame, and each page is read at its
 * own cache line of it: the data stays in the L1 cache, so re-touching
 * measures the TLB (and the page walk), not the memory.
 */
#include "bench/bench.h"
#include "bench/ceiling_book.h"
#include "bench/refill.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/printf.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define REFILL_VA	 (EXPERIMENT_BASE + (12ull << 30))
#define REFILL_RANGE	 CEILING_LINUX /* pages the range flush drops */
#define REFILL_L2_ASSUME 2048	       /* Zen 2/3's L2 DTLB, where unknown */
#define REFILL_L2_MAX	 4096
#define REFILL_NW	 3
#define REFILL_MAX_K	 512
#define REFILL_PAGES	 (2 * REFILL_L2_MAX + REFILL_MAX_K)

/* The local flush's page counts: the shootdown sweep's default ones. */
static uint32_t ks[PARAM_LIST_MAX], nks;
static uint32_t ws[REFILL_NW], nw;
static uint32_t l2; /* L2 TLB entries, for the records */
static unsigned mapped;

/* What the records are (bench/role.h): what the flush ceiling rests on. */
static const struct result_what range_what = {"invlpg-range", ROLE_RANGE,
					      FK_LOCAL};
static const struct result_what invlpgb_full_what = {"invlpgb-all+tlbsync",
						     ROLE_FULL, FK_INVLPGB};
/* A refill times reads, no flush: its role says which flush came before. */
static const struct result_what after_full = {"refill-after-full",
					      ROLE_REFILL_FULL, FK_NONE};
static const struct result_what after_range = {"refill-after-range",
					       ROLE_REFILL_RANGE, FK_NONE};

/* L2 DTLB 4 KiB entries: CPUID 0x80000006 EBX[27:16] (AMD, Hygon). */
uint32_t refill_l2_tlb(bool *from_cpuid)
{
	uint32_t n = 0;

	if (cpuid(0x80000000).eax >= 0x80000006)
		n = (cpuid(0x80000006).ebx >> 16) & 0xfff;
	*from_cpuid = n != 0;
	if (!n)
		n = REFILL_L2_ASSUME;
	return n > REFILL_L2_MAX ? REFILL_L2_MAX : n;
}

/* W: a few pages, the L2 TLB, and twice it (3: a modest console). */
static void pick_ws(uint32_t entries)
{
	uint32_t want[REFILL_NW] = {16, entries, 2 * entries};

	nw = 0;
	for (unsigned i = 0; i < REFILL_NW; i++)
		if (!nw || want[i] > ws[nw - 1])
			ws[nw++] = want[i];
}

static bool map_region(unsigned pages)
{
	uint64_t frame = frame_alloc(PMM_ZERO);

	if (!frame)
		return false;
	for (; mapped < pages; mapped++)
		if (vm_map(REFILL_VA + (uint64_t)mapped * PAGE_SIZE, frame,
			   PT_4K, PTE_P | PTE_W | pte_nx(), NULL) != PT_OK)
			return false;
	return true;
}

/* Reads pages [first, first + n) with step `step`, each at its own line. */
static inline void touch(uint32_t first, uint32_t n, uint32_t step)
{
	for (uint32_t i = first; i < first + n; i += step)
		(void)*(volatile uint64_t *)(REFILL_VA +
					     (uint64_t)i * PAGE_SIZE +
					     (i % 64) * CACHELINE);
}

/* INVLPG of pages [first, first + k): the timed loop itself. */
static inline void invlpg_run(uint32_t first, uint32_t k)
{
	for (uint32_t i = first; i < first + k; i++)
		invlpg((const void *)(REFILL_VA + (uint64_t)i * PAGE_SIZE));
}

/*
 * One sample: the working set and every other page of the range beside it
 * read (in the TLB), the flush, then the timed re-touch of the set.
 */
static uint64_t refill_once(uint32_t w, bool full)
{
	uint64_t t0;

	touch(0, w, 1);
	touch(w, REFILL_RANGE, 2);
	if (full)
		cr3_reload();
	else
		invlpg_run(w, REFILL_RANGE);
	t0 = rdtsc_ordered();
	touch(0, w, 1);
	return rdtsc_ordered() - t0;
}

struct remote_arg {
	uint32_t w;
	bool full;
	uint64_t cycles;
};

/* On the responder, as the shootdown's handler flushes it. */
static void refill_remote(void *arg)
{
	struct remote_arg *a = arg;

	a->cycles = refill_once(a->w, a->full);
}

static uint64_t emit(struct bench_ctx *ctx, struct result_what w,
		     uint32_t pages, uint64_t *s, unsigned n, unsigned cpu,
		     const char *dist, bool range)
{
	struct result_field f[3] = {{"cpu", cpu, false},
				    {"l2_tlb", l2, false},
				    {"range_pages", REFILL_RANGE, false}};
	struct result r = result_make("primitives", w, pages, dist ? 1 : 0, s,
				      n, f, range ? 3 : 2);

	r.distance = dist;
	result_emit(&ctx->records, &r);
	return r.st.p50;
}

/* One line of text for a run of numbers (the records have the rest). */
static void text_add(char *line, size_t cap, size_t *len, const char *fmt,
		     uint64_t a, uint64_t b)
{
	*len += kscnprintf(line + *len, cap - *len, fmt, (unsigned long long)a,
			   (unsigned long long)b);
}

static void local_curve(struct bench_ctx *ctx, uint64_t *s, unsigned n)
{
	char line[256];
	size_t len = 0;

	text_add(line, sizeof(line), &len, "  invlpg-range p50 (cyc):", 0, 0);
	nks = param_pages_default(ks, PARAM_LIST_MAX);
	for (unsigned j = 0; j < nks && j < PARAM_LIST_MAX; j++) {
		for (unsigned i = 0; i < BENCH_WARMUP + n; i++) {
			uint64_t t0;

			touch(0, ks[j], 2); /* every other page in the TLB */
			t0 = rdtsc_ordered();
			invlpg_run(0, ks[j]);
			s[bench_slot(i)] = rdtsc_ordered() - t0;
		}
		text_add(line, sizeof(line), &len, " %llu: %llu", ks[j],
			 emit(ctx, range_what, ks[j], s, n, this_cpu(), NULL,
			      false));
	}
	bench_printf("%s pages\n", line);
}

/*
 * INVLPGB of every non-global entry + TLBSYNC, as Linux's
 * invlpgb_flush_all_nonglobals(): the INVLPGB way's full flush, timed
 * after a few pages were read (the model's, records marked emulated,
 * under invlpgb=emulate). Nothing where INVLPGB does not run.
 */
static void invlpgb_full(struct bench_ctx *ctx, uint64_t *s, unsigned n)
{
	struct invlpgb_caps caps = {.pcide = cpu_info.pcid};
	struct invlpgb_req req = {.all_va = true};
	struct invlpgb_regs r;
	struct result res;

	if (!bench_invlpgb_planned(&ctx->invlpgb))
		return;
	caps.max_pages = bench_invlpgb_planned_pages(&ctx->invlpgb);
	if (invlpgb_encode(&req, &caps, &r))
		return;
	for (unsigned i = 0; i < BENCH_WARMUP + n; i++) {
		uint64_t t0;

		touch(0, 16, 1);
		t0 = rdtsc_ordered();
		invlpgb(r.rax, r.ecx, r.edx);
		tlbsync();
		s[bench_slot(i)] = rdtsc_ordered() - t0;
	}
	res = result_make("primitives", invlpgb_full_what, 0, 0, s, n, NULL, 0);
	res.emulated = ctx->invlpgb.model_on;
	result_emit(&ctx->records, &res);
}

/* Both series of one W on one CPU (cpu 0: here); false if it stopped. */
static bool series(struct bench_ctx *ctx, uint32_t w, unsigned cpu,
		   const char *dist, uint64_t *s, unsigned n)
{
	uint64_t p50[2];

	for (int full = 1; full >= 0; full--) {
		struct remote_arg a = {.w = w, .full = full};

		for (unsigned i = 0; i < BENCH_WARMUP + n; i++) {
			if (!cpu) {
				s[bench_slot(i)] = refill_once(w, full);
				continue;
			}
			if (!on_cpu(cpu, refill_remote, &a))
				return false;
			s[bench_slot(i)] = a.cycles;
		}
		p50[full] = emit(ctx, full ? after_full : after_range, w, s, n,
				 cpu ? cpu : this_cpu(), dist, !full);
	}
	bench_printf("  refill %5u pages cpu %3u %-12s p50 after full %8llu "
		     "cyc, after range %7llu cyc\n",
		     w, cpu ? cpu : this_cpu(), dist ? dist : "(local)",
		     (unsigned long long)p50[1], (unsigned long long)p50[0]);
	return true;
}

static unsigned responder(const char **dist)
{
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++) {
		unsigned cpu = smp_cpu_in_class((enum topo_class)k);

		if (cpu) {
			*dist = topo_class_name((enum topo_class)k);
			return cpu;
		}
	}
	return 0;
}

void refill_run(struct bench_ctx *ctx, unsigned samples)
{
	unsigned n = samples < REFILL_SAMPLES ? samples : REFILL_SAMPLES;
	const char *dist = NULL;
	unsigned cpu = responder(&dist);
	bool cpuid_l2, ok = true;
	uint64_t *s = n ? bench_alloc(n) : NULL;

	if (!s)
		return;
	l2 = refill_l2_tlb(&cpuid_l2);
	pick_ws(l2);
	ceiling_book_set_l2(&ctx->records.ceiling, l2, cpuid_l2);
	if (!map_region(2 * ws[nw - 1] + REFILL_MAX_K)) {
		report_fail("primitives: refill: setup",
			    "could not map %u "
			    "pages",
			    2 * ws[nw - 1] + REFILL_MAX_K);
		bench_free(s, n);
		return;
	}
	bench_printf("  refill: W pages re-read after a full flush and after "
		     "a %u-page flush beside them; L2 TLB %u entries (%s)\n",
		     REFILL_RANGE, l2,
		     cpuid_l2 ? "CPUID 0x80000006" : "assumed: CPUID has none");
	local_curve(ctx, s, n);
	invlpgb_full(ctx, s, n);
	/* A responder that stopped answering leaves the local series. */
	for (unsigned i = 0; i < nw; i++) {
		(void)series(ctx, ws[i], 0, NULL, s, n);
		if (ok && cpu)
			ok = series(ctx, ws[i], cpu, dist, s, n);
	}
	if (!cpu)
		report_skip("primitives: refill on a responder",
			    "one cpu only");
	else
		report_check(ok, "primitives: refill on a responder",
			     "cpu %u (%s), apic id %u stopped answering", cpu,
			     dist, cpu_apic_id[cpu]);
	bench_free(s, n);
}
