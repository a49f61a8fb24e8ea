// SPDX-License-Identifier: MIT
/*
 * reclaim, the mechanics. Workers (every CPU but 0) read random 64-byte
 * chunks of their own hot region and, in writer mode, keep writing sequence
 * numbers into the cold pages assigned to them; CPU 0 pages the cold region
 * out: clear the PTE, make sure no CPU can still use the old translation
 * (the strategy), copy the page to the swap area, free the frame. A write
 * that finds its page gone faults (an expected fault) and is not counted;
 * afterwards each page's swap copy must hold the last write that succeeded.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/rng.h"
#include "bench/reclaim_pass.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "lib/memops.h"
#include "mm/pagefault.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define WAIT_US		FLUSH_WAIT_US
#define READS_PER_WRITE 64
#define WRITES_PER_PAGE 8
#define RC_INSNS	512 /* a batch of 512 pages, one page per INVLPGB at worst */
/* Negative control: time per page for the others to run in the window. */
#define WINDOW_US 2
/* Negative control: at most this long for a worker to write its page again. */
#define RACE_WAIT_US 5000
/*
 * A tick record every second of paging out: ~130 bytes with 3 workers, so
 * ~130 bytes/s while reclaim runs (docs/output.md says why not 100 ms).
 */
#define TICK_MS 1000

struct worker {
	volatile uint64_t reads;
	volatile uint64_t page;	  /* the cold page it writes now */
	volatile uint64_t writes; /* writes that went through, so far */
	unsigned index;
	uint64_t seed;
} __attribute__((aligned(CACHELINE)));

static struct worker workers[MAX_CPUS];
static volatile bool stop;
static bool writing;	    /* this pass's workers write their cold pages */
static uint64_t pass_pages; /* cold pages this pass maps and pages out */
static const struct rc_config *cur;
static uint64_t *cold_frame; /* frame of each cold page while mapped */
static uint64_t *last_write; /* last successful value, per cold page */
static uint64_t swap_pa;     /* swap area: one frame per cold page */
static uint64_t **cold_pt;   /* the cold region's page tables, per 2 MiB */
static uint64_t hot_stride;  /* bytes between two workers' regions */

static inline uint64_t cold_va(uint64_t p)
{
	return RC_COLD_BASE + p * PAGE_SIZE;
}

static inline uint64_t hot_va(unsigned w, uint64_t off)
{
	return RC_HOT_BASE + w * hot_stride + off;
}

/* Background work of worker w: random reads, and writes to its pages. */
static void worker_loop(void *arg)
{
	struct worker *me = arg;
	uint64_t bytes = cur->hot_pages * PAGE_SIZE, seq = 0, p = me->index;
	unsigned nw = cur->workers;
	struct rng rng;

	rng_seed(&rng, me->seed);
	me->page = p;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < READS_PER_WRITE; i++)
			(void)*(volatile uint64_t *)hot_va(
				me->index, rng_below(&rng, bytes / 64) * 64);
		me->reads += READS_PER_WRITE;
		/*
		 * One PAUSE per 64 reads (about 2% on hardware, the same in
		 * every run): single-threaded TCG switches vCPUs only at
		 * such hints, so without it the reclaimer's IPIs would wait
		 * for whole time slices (docs/qemu.md).
		 */
		cpu_relax();
		if (!writing || !pass_pages)
			continue;
		/*
		 * Page p is written by worker p % nw only: one writer each.
		 * It stays on a page for a few writes, as a program writing
		 * its data would, so the page's translation is in its TLB
		 * when the reclaimer comes by.
		 */
		seq++;
		if (!write_u64_safe((void *)cold_va(p),
				    seq << 16 | me->index)) {
			last_write[p] = seq << 16 | me->index;
			me->writes++;
		}
		if (seq % WRITES_PER_PAGE == 0) {
			p = p + nw < pass_pages ? p + nw : me->index;
			me->page = p;
		}
	}
}

/*
 * The workers' hot regions, read-only. What they hold does not matter
 * (they are only read, at random), so the frames are not zeroed; the first
 * page of every 2 MiB goes through vm_map, which makes its table, and the
 * rest are stored into that table's slots. At the default sizes (tens of
 * thousands of pages) zeroing and locked walks took ~40 s under kvm-pvm.
 */
static bool map_hot(const struct rc_config *cfg)
{
	uint64_t flags = PTE_P | pte_nx(), *slot = NULL;

	for (unsigned w = 0; w < cfg->workers; w++) {
		for (uint64_t i = 0; i < cfg->hot_pages; i++) {
			uint64_t va = hot_va(w, i * PAGE_SIZE);
			uint64_t pa = frame_alloc(0);

			if (!pa)
				return false;
			if (slot && (va & (LARGE_PAGE_SIZE - 1))) {
				__atomic_store_n(++slot, pa | flags,
						 __ATOMIC_RELAXED);
				continue;
			}
			if (vm_map(va, pa, PT_4K, flags, NULL) != PT_OK)
				return false;
			slot = vm_pte_slot(va);
			if (!slot)
				return false;
		}
	}
	return true;
}

/*
 * Undoes map_hot: clears the hot regions' PTEs, frees their frames and
 * flushes every CPU's TLB, so that the regions can be mapped again (the
 * time budget's pilot runs before the experiment).
 */
static void unmap_hot(const struct rc_config *cfg)
{
	uint64_t *slot = NULL;
	struct cpumask all;

	for (unsigned w = 0; w < cfg->workers; w++) {
		for (uint64_t i = 0; i < cfg->hot_pages; i++) {
			uint64_t va = hot_va(w, i * PAGE_SIZE), pte;

			if (!slot || !(va & (LARGE_PAGE_SIZE - 1)))
				slot = vm_pte_slot(va);
			else
				slot++;
			if (!slot)
				return;
			pte = __atomic_exchange_n(slot, 0, __ATOMIC_RELAXED);
			if (pte & PTE_P)
				frame_free(pte & PTE_ADDR_MASK);
		}
	}
	cpus_others(&all);
	flush_everywhere(&all, false);
}

static inline uint64_t *cold_pte(uint64_t p)
{
	return cold_pt[p / PT_ENTRIES] + p % PT_ENTRIES;
}

/*
 * Page tables for the whole cold region, once: map and unmap the first
 * page of every 2 MiB, and keep where its table is. Paging in and out then
 * stores PTEs directly, as the OS does, instead of walking the tables.
 */
static bool cold_tables(const struct rc_config *cfg)
{
	uint64_t old, pa = frame_alloc(0);
	bool ok = pa != 0;

	for (uint64_t t = 0; ok && t < cfg->cold_pages / PT_ENTRIES; t++) {
		uint64_t va = cold_va(t * PT_ENTRIES);

		ok = vm_map(va, pa, PT_4K, PTE_P | pte_nx(), NULL) == PT_OK;
		cold_pt[t] = ok ? vm_pte_slot(va) : NULL;
		ok = ok && cold_pt[t] && vm_unmap(va, PT_4K, &old) == PT_OK;
	}
	if (pa)
		frame_free(pa);
	return ok;
}

/*
 * Fresh frames for the cold region. Only the first word of a page is ever
 * checked (it must hold the last write that succeeded, 0 for none), so
 * only that word is cleared: zeroing whole pages costs milliseconds each
 * under an emulating hypervisor, outside anything timed.
 */
static bool map_cold(void)
{
	uint64_t flags = PTE_P | PTE_W | pte_nx();

	for (uint64_t p = 0; p < pass_pages; p++) {
		uint64_t pa = frame_alloc(0);

		if (!pa)
			return false;
		*(volatile uint64_t *)phys_to_virt(pa) = 0;
		cold_frame[p] = pa;
		last_write[p] = 0;
		__atomic_store_n(cold_pte(p), pa | flags, __ATOMIC_RELEASE);
	}
	return true;
}

bool rc_prepare(const struct rc_config *cfg)
{
	uint64_t n = cfg->cold_pages;

	cur = cfg;
	hot_stride = (cfg->hot_pages * PAGE_SIZE + LARGE_PAGE_SIZE - 1) &
		     ~(LARGE_PAGE_SIZE - 1);
	cold_frame = bench_alloc(n);
	last_write = bench_alloc(n);
	cold_pt = (uint64_t **)bench_alloc(n / PT_ENTRIES);
	swap_pa = frame_alloc_run(n, PAGE_SIZE);
	return cold_frame && last_write && cold_pt && swap_pa &&
	       cold_tables(cfg) && map_hot(cfg);
}

void rc_release(const struct rc_config *cfg)
{
	unmap_hot(cfg);
	bench_free(cold_frame, cfg->cold_pages);
	bench_free(last_write, cfg->cold_pages);
	bench_free((uint64_t *)cold_pt, cfg->cold_pages / PT_ENTRIES);
	if (swap_pa)
		frame_free_run(swap_pa, cfg->cold_pages);
	cold_frame = last_write = NULL;
	cold_pt = NULL;
	swap_pa = 0;
}

/* --- paging out ------------------------------------------------------ */

static struct cpumask others;

/*
 * Clears the PTEs of [first, first + n), one atomic exchange each (Linux's
 * ptep_get_and_clear); the frames are kept for now.
 */
static void clear_ptes(uint64_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		(void)__atomic_exchange_n(cold_pte(first + i), 0,
					  __ATOMIC_SEQ_CST);
}

static void copy_out(uint64_t p)
{
	mem_copy_words(phys_to_virt(swap_pa + p * PAGE_SIZE),
		       phys_to_virt(cold_frame[p]), PAGE_SIZE);
}

static void write_back(uint64_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		copy_out(first + i);
}

/*
 * Until worker w has written its page p again, moved on, or RACE_WAIT_US
 * passed. A fixed window left it to the scheduler whether a worker wrote
 * at all: single-threaded TCG runs one vCPU at a time, and a worker that
 * did not run lost nothing. Whether a write was lost is decided by the
 * swap copy afterwards, not here: a write that raced the copy and made it
 * in only ends the wait early. Where CPUs keep no stale entry (kvm-pvm)
 * the writes fault, never count, and each worker costs the whole wait.
 */
static void wait_for_write(const struct worker *w, uint64_t p, uint64_t seen)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(RACE_WAIT_US);

	while (w->writes == seen && w->page == p && rdtsc() - start < limit)
		cpu_relax();
}

/*
 * The negative control's write-back, before the flush, and as a reclaimer
 * racing the workers would least want it: first the pages the workers are
 * writing right now (the ones their TLBs hold), all of them back to back
 * so that no worker finishes its page meanwhile, then a wait for each
 * worker to write its page again, then the rest, each copy followed by a
 * window in which they go on writing. A write that reaches a page through
 * a stale entry after its copy is lost.
 */
static void write_back_racing(uint64_t first, unsigned n)
{
	static uint64_t page[MAX_CPUS], seen[MAX_CPUS]; /* CPU 0's alone */
	uint64_t done[RC_INSNS / 64] = {0};
	unsigned nw = cur->workers;

	for (unsigned w = 0; w < nw; w++) {
		uint64_t p = workers[w].page, i = p - first;

		page[w] = p;
		if (p < first || i >= n || i >= RC_INSNS ||
		    (done[i / 64] & (1ull << (i % 64))))
			continue;
		done[i / 64] |= 1ull << (i % 64);
		copy_out(p);
	}
	for (unsigned w = 0; w < nw; w++)
		seen[w] = workers[w].writes;
	for (unsigned w = 0; w < nw; w++)
		wait_for_write(&workers[w], page[w], seen[w]);
	for (unsigned i = 0; i < n; i++) {
		if (i < RC_INSNS && (done[i / 64] & (1ull << (i % 64))))
			continue;
		copy_out(first + i);
		udelay(WINDOW_US);
	}
}

static void free_frames(uint64_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		frame_free(cold_frame[first + i]);
}

/*
 * The encoder refused the INVLPGB request: nothing would be invalidated,
 * and the frames about to be freed would stay reachable through stale
 * entries. Counted (the run FAILs, rc_run_strategy), and every CPU's TLB
 * is flushed by IPIs instead, so that the run goes on safely.
 */
static void encoding_refused(struct rc_run *run, int err)
{
	if (!run->count.refused++)
		run->refused_err = err;
	flush_everywhere(&others, false);
}

/* How each strategy flushes (bench/flush.h). */
static const enum flush_how rc_how[] = {
	[RC_PER_PAGE] = FLUSH_IPI_REMOTE_FULL,
	[RC_PER_PAGE_INVLPG] = FLUSH_IPI_RANGE,
	[RC_BATCH] = FLUSH_IPI_FULL,
	[RC_BATCH_PAGES] = FLUSH_IPI_LINUX,
	[RC_INVLPGB_PAGE] = FLUSH_INVLPGB,
	[RC_INVLPGB_BATCH] = FLUSH_INVLPGB_ALL,
	[RC_INVLPGB_BATCH_PAGES] = FLUSH_INVLPGB,
	[RC_WRITEBACK_FIRST] = FLUSH_IPI_FULL,
};

/* One flush of n pages from first, the strategy's way. */
static void flush(struct rc_run *run, uint64_t first, unsigned n)
{
	static struct invlpgb_regs insn[RC_INSNS];
	struct flush_req req = {
		.how = rc_how[run->s],
		.va = cold_va(first),
		.pages = n,
		.targets = &others,
		.mode = IPI_EACH,
		.invlpgb_max = cur->invlpgb_max_pages,
		/*
		 * Injected (invlpgb=...,bug=stride): the flush asks for one
		 * 2 MiB step per PMD over the 4 KiB pages (FreeBSD
		 * EN-26:10), which the encoder must refuse and this run
		 * must report. The other bugs are shootdown's.
		 */
		.stride =
			cur->bug == PARAM_BUG_STRIDE ? INVLPGB_2M : INVLPGB_4K,
	};
	struct flush_plan plan;
	int err;

	run->count.flushes++;
	err = flush_prepare(&plan, &req, insn, RC_INSNS);
	if (err) {
		encoding_refused(run, err);
		return;
	}
	flush_run(&plan);
}

static uint64_t tick_reads[BENCH_TICK_CPUS]; /* at the last tick */
static uint64_t tick_icr0;		     /* IPIs sent before page_out */

/*
 * Between two flush units, outside their samples: a progress line and a
 * tick record when due. Their cost goes to run->count.ticks, left out of the
 * pages per second.
 */
static void between_units(struct rc_run *run, uint64_t done)
{
	uint64_t t0 = rdtsc();
	unsigned nw =
		cur->workers < BENCH_TICK_CPUS ? cur->workers : BENCH_TICK_CPUS;
	struct bench_progress *pr = &cur->ctx->progress;
	struct record rec;
	char buf[256];

	if (bench_progress_due(pr)) {
		char what[48];

		if (run->batch > 1)
			ksnprintf(what, sizeof(what), "%s %u %u/%u", run->name,
				  run->batch, cur->index, cur->count);
		else
			ksnprintf(what, sizeof(what), "%s %u/%u", run->name,
				  cur->index, cur->count);
		bench_progress(pr, "reclaim", cur->done + done, cur->total,
			       what);
	}
	if (bench_tick_begin(pr, &rec, buf, sizeof(buf), "reclaim", run->name,
			     TICK_MS)) {
		json_u64(&rec.j, "pages", done);
		json_u64(&rec.j, "ipis", apic_icr_writes[0] - tick_icr0);
		json_begin_array(&rec.j, "reads");
		for (unsigned w = 0; w < nw; w++) {
			uint64_t r = workers[w].reads;

			json_u64(&rec.j, NULL, r - tick_reads[w]);
			tick_reads[w] = r;
		}
		json_end_array(&rec.j);
		record_end(&rec);
	}
	run->count.ticks += rdtsc() - t0;
}

static void page_out(struct rc_run *run, uint64_t *samples)
{
	unsigned step = run->s == RC_PER_PAGE || run->s == RC_PER_PAGE_INVLPG ||
					run->s == RC_INVLPGB_PAGE
				? 1
				: run->batch;
	uint64_t n = pass_pages, k = 0;

	tick_icr0 = apic_icr_writes[0];
	for (unsigned w = 0; w < cur->workers && w < BENCH_TICK_CPUS; w++)
		tick_reads[w] = workers[w].reads;
	for (uint64_t first = 0; first < n; first += step, k++) {
		unsigned b = n - first < step ? (unsigned)(n - first) : step;
		uint64_t t0;

		/*
		 * Between units, outside their samples: two TSC reads and
		 * compares unless something is due (checking only every 512
		 * pages left ticks seconds apart where a page took
		 * milliseconds, e.g. under multi-threaded TCG). Not before
		 * the first unit, where a tick's window would be empty.
		 */
		if (cur->progress && first)
			between_units(run, first);
		t0 = rdtsc_ordered();

		clear_ptes(first, b);
		if (run->s == RC_WRITEBACK_FIRST) {
			write_back_racing(first,
					  b); /* wrong order, on purpose */
			flush(run, first, b);
		} else {
			flush(run, first, b);
			write_back(first, b);
		}
		free_frames(first, b);
		samples[k] = rdtsc_ordered() - t0;
	}
	run->count.pages = n;
}

/*
 * Each page's swap copy must hold the last write that succeeded; this
 * pass's pages that do not are its lost writes. Page p is written by
 * worker p % workers only: run->lost_workers counts the workers that lost
 * one (in this pass, or with run->accumulate in this and the passes
 * before), of run->writing_workers (those with a page in this pass).
 */
static void lost_writes(struct rc_run *run)
{
	static bool lost_by[MAX_CPUS];
	unsigned nw = cur->workers;

	if (!run->accumulate)
		for (unsigned w = 0; w < nw; w++)
			lost_by[w] = false;
	run->writing_workers = nw < pass_pages ? nw : (unsigned)pass_pages;
	for (uint64_t p = 0; p < pass_pages; p++) {
		if (*(volatile uint64_t *)phys_to_virt(
			    swap_pa + p * PAGE_SIZE) == last_write[p])
			continue;
		run->count.lost++;
		lost_by[p % nw] = true;
	}
	run->lost_workers = 0;
	for (unsigned w = 0; w < nw; w++)
		run->lost_workers += lost_by[w];
}

static uint64_t snap[3][MAX_CPUS];

static void snapshot(int k)
{
	for (unsigned w = 0; w < cur->workers; w++)
		snap[k][w] = workers[w].reads;
}

static struct bg_group worker_group;

/* Worker w runs on the w-th CPU after 0, as background work. */
static void start_workers(void)
{
	unsigned cpu, w = 0;

	stop = false;
	bg_init(&worker_group);
	for_each_cpu(cpu, &cpus_online) {
		if (cpu == 0 || w == cur->workers)
			continue;
		workers[w] = (struct worker){.index = w,
					     .seed = cur->seed * 1000 + w};
		bg_start(&worker_group, cpu, worker_loop, &workers[w]);
		w++;
	}
}

static void stop_workers(void)
{
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	bg_wait(&worker_group, WAIT_US);
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

static void losses(struct rc_run *run, uint64_t base_cyc, uint64_t dur_cyc)
{
	int64_t l[MAX_CPUS], tmp;
	unsigned n = cur->workers;

	run->base_reads = run->during_reads = 0;
	for (unsigned w = 0; w < n; w++) {
		l[w] = loss_of(rate(snap[1][w] - snap[0][w], base_cyc),
			       rate(snap[2][w] - snap[1][w], dur_cyc));
		run->base_reads += snap[1][w] - snap[0][w];
		run->during_reads += snap[2][w] - snap[1][w];
	}
	for (unsigned i = 1; i < n; i++) /* insertion sort: n is small */
		for (unsigned j = i; j > 0 && l[j - 1] > l[j]; j--)
			tmp = l[j], l[j] = l[j - 1], l[j - 1] = tmp;
	run->loss_min = n ? l[0] : 0;
	run->loss_median = n ? l[n / 2] : 0;
	run->loss_pct = loss_of(rate(run->base_reads, base_cyc),
				rate(run->during_reads, dur_cyc));
}

uint64_t rc_pass_pages(const struct rc_config *cfg, const struct rc_run *run)
{
	uint64_t w =
		run->batch > RC_WRITER_PAGES ? run->batch : RC_WRITER_PAGES;

	if (run->writers && cfg->cold_pages > w)
		return w;
	return cfg->cold_pages;
}

bool rc_run_strategy(const struct rc_config *cfg, struct rc_run *run,
		     uint64_t *samples)
{
	uint64_t t0, t1, t2, icr0, irq0;

	cur = cfg;
	writing = run->writers;
	pass_pages = rc_pass_pages(cfg, run);
	run->count = (struct rc_counts){0};
	if (!map_cold())
		return false;
	cpus_others(&others);
	pf_expect(RC_COLD_BASE, cold_va(cfg->cold_pages), PF_SKIP, NULL);
	start_workers();
	udelay(cfg->base_us / 4); /* let them all get going */
	snapshot(0);
	t0 = rdtsc_ordered();
	/* The baseline, for the loss: a writer pass measures none. */
	if (!run->writers)
		udelay(cfg->base_us);
	snapshot(1);
	t1 = rdtsc_ordered();
	icr0 = apic_icr_writes[0];
	irq0 = xcall_irqs_sum(&cpus_online);
	page_out(run, samples);
	t2 = rdtsc_ordered();
	snapshot(2);
	run->count.icr = apic_icr_writes[0] - icr0;
	run->count.irqs = xcall_irqs_sum(&cpus_online) - irq0;
	stop_workers();
	pf_expect_end(NULL);
	run->count.cycles = t2 - t1;
	if (run->writers)
		lost_writes(run);
	else {
		run->count.lost = 0;
		losses(run, t1 - t0, t2 - t1);
	}
	return true;
}
