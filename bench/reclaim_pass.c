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
#include "bench/reclaim_state.h"
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
/* Negative control: time per page for the others to run in the window. */
#define WINDOW_US 2
/* Negative control: at most this long for a worker to write its page again. */
#define RACE_WAIT_US 5000
/*
 * A tick record every second of paging out: ~130 bytes with 3 workers, so
 * ~130 bytes/s while reclaim runs (docs/output.md says why not 100 ms).
 */
#define TICK_MS 1000

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
		for (int i = 0; i < READS_PER_WRITE; i++)
			(void)*(volatile uint64_t *)rc_hot_va(
				st, me->index,
				rng_below(&rng, bytes / 64) * 64);
		me->reads += READS_PER_WRITE;
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

/*
 * The workers' hot regions, read-only. What they hold does not matter
 * (they are only read, at random), so the frames are not zeroed; the first
 * page of every 2 MiB goes through vm_map, which makes its table, and the
 * rest are stored into that table's slots. At the default sizes (tens of
 * thousands of pages) zeroing and locked walks took ~40 s under kvm-pvm.
 */
static bool map_hot(const struct rc_state *st)
{
	uint64_t flags = PTE_P | pte_nx(), *slot = NULL;

	for (unsigned w = 0; w < st->cfg.workers; w++) {
		for (uint64_t i = 0; i < st->cfg.hot_pages; i++) {
			uint64_t va = rc_hot_va(st, w, i * PAGE_SIZE);
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
static void unmap_hot(const struct rc_state *st)
{
	uint64_t *slot = NULL;
	struct cpumask all;

	for (unsigned w = 0; w < st->cfg.workers; w++) {
		for (uint64_t i = 0; i < st->cfg.hot_pages; i++) {
			uint64_t va = rc_hot_va(st, w, i * PAGE_SIZE), pte;

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

/*
 * Page tables for the whole cold region, once: map and unmap the first
 * page of every 2 MiB, and keep where its table is. Paging in and out then
 * stores PTEs directly, as the OS does, instead of walking the tables.
 */
static bool cold_tables(struct rc_state *st)
{
	uint64_t old, pa = frame_alloc(0);
	bool ok = pa != 0;

	for (uint64_t t = 0; ok && t < st->cfg.cold_pages / PT_ENTRIES; t++) {
		uint64_t va = rc_cold_va(t * PT_ENTRIES);

		ok = vm_map(va, pa, PT_4K, PTE_P | pte_nx(), NULL) == PT_OK;
		st->cold_pt[t] = ok ? vm_pte_slot(va) : NULL;
		ok = ok && st->cold_pt[t] && vm_unmap(va, PT_4K, &old) == PT_OK;
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
static bool map_cold(struct rc_state *st)
{
	uint64_t flags = PTE_P | PTE_W | pte_nx();

	for (uint64_t p = 0; p < st->pass_pages; p++) {
		uint64_t pa = frame_alloc(0);

		if (!pa)
			return false;
		*(volatile uint64_t *)phys_to_virt(pa) = 0;
		st->cold_frame[p] = pa;
		st->last_write[p] = 0;
		__atomic_store_n(rc_cold_pte(st, p), pa | flags,
				 __ATOMIC_RELEASE);
	}
	return true;
}

bool rc_prepare(struct rc_state *st, const struct rc_config *cfg)
{
	uint64_t n = cfg->cold_pages;

	st->cfg = *cfg;
	st->hot_stride = (cfg->hot_pages * PAGE_SIZE + LARGE_PAGE_SIZE - 1) &
			 ~(LARGE_PAGE_SIZE - 1);
	st->cold_frame = bench_alloc(n);
	st->last_write = bench_alloc(n);
	st->cold_pt = (uint64_t **)bench_alloc(n / PT_ENTRIES);
	st->swap_pa = frame_alloc_run(n, PAGE_SIZE);
	return st->cold_frame && st->last_write && st->cold_pt && st->swap_pa &&
	       cold_tables(st) && map_hot(st);
}

void rc_release(struct rc_state *st)
{
	uint64_t n = st->cfg.cold_pages;

	unmap_hot(st);
	bench_free(st->cold_frame, n);
	bench_free(st->last_write, n);
	bench_free((uint64_t *)st->cold_pt, n / PT_ENTRIES);
	if (st->swap_pa)
		frame_free_run(st->swap_pa, n);
	st->cold_frame = st->last_write = NULL;
	st->cold_pt = NULL;
	st->swap_pa = 0;
}

/* --- paging out ------------------------------------------------------ */

/*
 * Clears the PTEs of [first, first + n), one atomic exchange each (Linux's
 * ptep_get_and_clear); the frames are kept for now.
 */
static void clear_ptes(struct rc_state *st, uint64_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		(void)__atomic_exchange_n(rc_cold_pte(st, first + i), 0,
					  __ATOMIC_SEQ_CST);
}

static void copy_out(struct rc_state *st, uint64_t p)
{
	mem_copy_words(phys_to_virt(st->swap_pa + p * PAGE_SIZE),
		       phys_to_virt(st->cold_frame[p]), PAGE_SIZE);
}

static void write_back(struct rc_state *st, uint64_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		copy_out(st, first + i);
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
static void wait_for_write(const struct rc_worker *w, uint64_t p, uint64_t seen)
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
static void write_back_racing(struct rc_state *st, uint64_t first, unsigned n)
{
	uint64_t *page = st->race_page, *seen = st->race_seen;
	uint64_t done[RC_INSNS / 64] = {0};
	unsigned nw = st->cfg.workers;

	for (unsigned w = 0; w < nw; w++) {
		uint64_t p = st->workers[w].page, i = p - first;

		page[w] = p;
		if (p < first || i >= n || i >= RC_INSNS ||
		    (done[i / 64] & (1ull << (i % 64))))
			continue;
		done[i / 64] |= 1ull << (i % 64);
		copy_out(st, p);
	}
	for (unsigned w = 0; w < nw; w++)
		seen[w] = st->workers[w].writes;
	for (unsigned w = 0; w < nw; w++)
		wait_for_write(&st->workers[w], page[w], seen[w]);
	for (unsigned i = 0; i < n; i++) {
		if (i < RC_INSNS && (done[i / 64] & (1ull << (i % 64))))
			continue;
		copy_out(st, first + i);
		udelay(WINDOW_US);
	}
}

static void free_frames(struct rc_state *st, uint64_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		frame_free(st->cold_frame[first + i]);
}

/*
 * The encoder refused the INVLPGB request: nothing would be invalidated,
 * and the frames about to be freed would stay reachable through stale
 * entries. Counted (the run FAILs, rc_run_strategy), and every CPU's TLB
 * is flushed by IPIs instead, so that the run goes on safely.
 */
static void encoding_refused(struct rc_state *st, struct rc_run *run, int err)
{
	if (!run->count.refused++)
		run->refused_err = err;
	flush_everywhere(&st->others, false);
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
static void flush(struct rc_state *st, struct rc_run *run, uint64_t first,
		  unsigned n)
{
	struct flush_req req = {
		.how = rc_how[run->kind->s],
		.va = rc_cold_va(first),
		.pages = n,
		.targets = &st->others,
		.mode = IPI_EACH,
		.invlpgb_max = st->cfg.invlpgb_max_pages,
		/*
		 * Injected (invlpgb=...,bug=stride): the flush asks for one
		 * 2 MiB step per PMD over the 4 KiB pages (FreeBSD
		 * EN-26:10), which the encoder must refuse and this run
		 * must report. The other bugs are shootdown's.
		 */
		.stride = st->cfg.bug == PARAM_BUG_STRIDE ? INVLPGB_2M
							  : INVLPGB_4K,
	};
	struct flush_plan plan;
	int err;

	run->count.flushes++;
	err = flush_prepare(&plan, &req, st->insn, RC_INSNS);
	if (err) {
		encoding_refused(st, run, err);
		return;
	}
	flush_run(&plan);
}

/*
 * Between two flush units, outside their samples: a progress line and a
 * tick record when due. Their cost goes to run->count.ticks, left out of the
 * pages per second.
 */
static void between_units(struct rc_state *st, struct rc_run *run,
			  uint64_t done)
{
	const struct rc_progress *pg = st->progress;
	uint64_t t0 = rdtsc();
	unsigned nw = st->cfg.workers < BENCH_TICK_CPUS ? st->cfg.workers
							: BENCH_TICK_CPUS;
	struct bench_progress *pr = &st->cfg.ctx->progress;
	const struct rc_kind *k = run->kind;
	struct record rec;
	char buf[256];

	if (bench_progress_due(pr)) {
		char what[48];

		if (k->batch > 1)
			ksnprintf(what, sizeof(what), "%s %u %u/%u", k->name,
				  k->batch, pg->index, pg->count);
		else
			ksnprintf(what, sizeof(what), "%s %u/%u", k->name,
				  pg->index, pg->count);
		bench_progress(pr, "reclaim", pg->done + done, pg->total, what);
	}
	if (bench_tick_begin(pr, &rec, buf, sizeof(buf), "reclaim", k->name,
			     TICK_MS)) {
		json_u64(&rec.j, "pages", done);
		json_u64(&rec.j, "ipis", apic_icr_writes[0] - st->tick_icr0);
		json_begin_array(&rec.j, "reads");
		for (unsigned w = 0; w < nw; w++) {
			uint64_t r = st->workers[w].reads;

			json_u64(&rec.j, NULL, r - st->tick_reads[w]);
			st->tick_reads[w] = r;
		}
		json_end_array(&rec.j);
		record_end(&rec);
	}
	run->count.ticks += rdtsc() - t0;
}

/* Pages per flush unit: the batch, or 1 for the per-page strategies. */
static unsigned unit_pages(const struct rc_kind *k)
{
	bool per_page = k->s == RC_PER_PAGE || k->s == RC_PER_PAGE_INVLPG ||
			k->s == RC_INVLPGB_PAGE;

	return per_page ? 1 : k->batch;
}

static void page_out(struct rc_state *st, struct rc_run *run, uint64_t *samples)
{
	unsigned step = unit_pages(run->kind);
	uint64_t n = st->pass_pages, k = 0;

	st->tick_icr0 = apic_icr_writes[0];
	for (unsigned w = 0; w < st->cfg.workers && w < BENCH_TICK_CPUS; w++)
		st->tick_reads[w] = st->workers[w].reads;
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
		if (st->progress && first)
			between_units(st, run, first);
		t0 = rdtsc_ordered();

		clear_ptes(st, first, b);
		if (run->kind->s == RC_WRITEBACK_FIRST) {
			/* wrong order, on purpose */
			write_back_racing(st, first, b);
			flush(st, run, first, b);
		} else {
			flush(st, run, first, b);
			write_back(st, first, b);
		}
		free_frames(st, first, b);
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
static void lost_writes(struct rc_state *st, struct rc_run *run)
{
	unsigned nw = st->cfg.workers;
	uint64_t n = st->pass_pages;

	if (!run->accumulate)
		for (unsigned w = 0; w < nw; w++)
			st->lost_by[w] = false;
	run->writing_workers = nw < n ? nw : (unsigned)n;
	for (uint64_t p = 0; p < n; p++) {
		if (*(volatile uint64_t *)phys_to_virt(
			    st->swap_pa + p * PAGE_SIZE) == st->last_write[p])
			continue;
		run->count.lost++;
		st->lost_by[p % nw] = true;
	}
	run->lost_workers = 0;
	for (unsigned w = 0; w < nw; w++)
		run->lost_workers += st->lost_by[w];
}

static void snapshot(struct rc_state *st, int k)
{
	for (unsigned w = 0; w < st->cfg.workers; w++)
		st->snap[k][w] = st->workers[w].reads;
}

/*
 * Worker w runs on the w-th CPU after 0, as background work whose argument
 * is its part of st.
 */
static void start_workers(struct rc_state *st)
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

static void stop_workers(struct rc_state *st)
{
	__atomic_store_n(&st->stop, true, __ATOMIC_RELEASE);
	bg_wait(&st->worker_group, WAIT_US);
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

static void losses(const struct rc_state *st, struct rc_run *run,
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

uint64_t rc_pass_pages(const struct rc_config *cfg, const struct rc_run *run)
{
	uint64_t batch = run->kind->batch;
	uint64_t w = batch > RC_WRITER_PAGES ? batch : RC_WRITER_PAGES;

	if (run->writers && cfg->cold_pages > w)
		return w;
	return cfg->cold_pages;
}

bool rc_run_strategy(struct rc_state *st, struct rc_run *run,
		     const struct rc_progress *progress, uint64_t *samples)
{
	uint64_t t0, t1, t2, icr0, irq0;

	st->writing = run->writers;
	st->pass_pages = rc_pass_pages(&st->cfg, run);
	st->progress = progress;
	run->count = (struct rc_counts){0};
	if (!map_cold(st))
		return false;
	cpus_others(&st->others);
	pf_expect(RC_COLD_BASE, rc_cold_va(st->cfg.cold_pages), PF_SKIP, NULL);
	start_workers(st);
	udelay(st->cfg.base_us / 4); /* let them all get going */
	snapshot(st, 0);
	t0 = rdtsc_ordered();
	/* The baseline, for the loss: a writer pass measures none. */
	if (!run->writers)
		udelay(st->cfg.base_us);
	snapshot(st, 1);
	t1 = rdtsc_ordered();
	icr0 = apic_icr_writes[0];
	irq0 = xcall_irqs_sum(&cpus_online);
	page_out(st, run, samples);
	t2 = rdtsc_ordered();
	snapshot(st, 2);
	run->count.icr = apic_icr_writes[0] - icr0;
	run->count.irqs = xcall_irqs_sum(&cpus_online) - irq0;
	stop_workers(st);
	pf_expect_end(NULL);
	run->count.cycles = t2 - t1;
	if (run->writers)
		lost_writes(st, run);
	else {
		run->count.lost = 0;
		losses(st, run, t1 - t0, t2 - t1);
	}
	return true;
}
