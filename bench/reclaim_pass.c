// SPDX-License-Identifier: MIT
/*
 * reclaim, one pass: CPU 0 pages the cold region out while the workers
 * run (bench/reclaim_workers.c): clear the PTE, make sure no CPU can
 * still use the old translation (the strategy), copy the page to the swap
 * area, free the frame. A write that finds its page gone faults (an
 * expected fault) and is not counted; afterwards each page's swap copy
 * must hold the last write that succeeded.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_race.h"
#include "bench/reclaim_state.h"
#include "bench/reclaim_windows.h"
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

/* Negative control: time per page for the others to run in the window. */
#define WINDOW_US 2
/* Negative control: at most this long for a worker to write its page again. */
#define RACE_WAIT_US 5000
/*
 * A tick record every second of paging out: ~130 bytes with 3 workers, so
 * ~130 bytes/s while reclaim runs (docs/records.md says why not 100 ms).
 */
#define TICK_MS 1000

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

/*
 * The timeline is polled every this many pages a unit writes back: batch
 * 512 of a default run is 7 units, and a timeline polled only between
 * units had 7 bins of it. Not every page: a TSC read a page slowed
 * batch 512's page-out by half under TCG.
 */
#define POLL_PAGES 16

/* The copies, polling tl between them; returns the snapshots' cycles. */
static uint64_t write_back(struct rc_state *st, uint64_t first, unsigned n,
			   struct rc_tl *tl)
{
	uint64_t polled = 0;

	for (unsigned i = 0; i < n; i++) {
		copy_out(st, first + i);
		if (tl && (i + 1) % POLL_PAGES == 0 && i + 1 < n)
			polled += rc_tl_poll(tl, st, rdtsc(), first + i + 1);
	}
	return polled;
}

/*
 * Until worker w has written its page p again, moved on, or RACE_WAIT_US
 * passed. A fixed window left it to the scheduler whether a worker wrote
 * at all: single-threaded TCG runs one vCPU at a time, and a worker that
 * did not run lost nothing. Where CPUs keep no stale entry (kvm-pvm)
 * the writes fault, never count, and each worker costs the whole wait.
 */
static void wait_for_write(const struct rc_worker *w, uint64_t p, uint64_t seen)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(RACE_WAIT_US);

	while (w->writes == seen && w->page == p && rdtsc() - start < limit)
		cpu_relax();
}

static bool swap_lacks_last_write(const struct rc_state *st, uint64_t p)
{
	return *(volatile uint64_t *)phys_to_virt(st->swap_pa +
						  p * PAGE_SIZE) !=
	       *(volatile uint64_t *)&st->last_write[p];
}

/*
 * Races worker w until it has lost a write, or RACE_WAIT_US passed: once
 * it has just written its page (its TLB holds the translation, and it
 * stays on the page), clear that PTE alone, copy the page, and wait for
 * its next write. When that write does not come through (the worker's
 * own reads evicted the entry: Bochs's direct-mapped TLB puts one
 * worker's hot pages in the same sets as every cold page; or it moved on
 * first), it is raced again on the page it writes next, still mapped.
 * Clearing every PTE first left one try per worker, made at the same
 * point of every pass where the run is deterministic: under Bochs at 4
 * CPUs with seed=1 worker 0 was caught in none of four passes.
 */
static void race_worker(struct rc_state *st, unsigned w, uint64_t first,
			unsigned n, uint64_t *done)
{
	const struct rc_worker *wk = &st->workers[w];
	uint64_t start = rdtsc(), limit = us_to_cycles(RACE_WAIT_US);

	while (rdtsc() - start < limit) {
		uint64_t p = wk->page, seen = wk->writes;

		wait_for_write(wk, p, seen);
		if (!rc_race_target(p, wk->page, seen, wk->writes, first, n,
				    RC_INSNS, done))
			continue;
		rc_race_mark(done, p - first);
		clear_ptes(st, p, 1);
		copy_out(st, p);
		seen = wk->writes;
		wait_for_write(wk, p, seen);
		if (swap_lacks_last_write(st, p))
			return;
	}
}

/*
 * The negative control's write-back, before the flush, and as a reclaimer
 * racing the workers would least want it: first each worker raced on
 * the page it is writing (race_worker), then the rest, their PTEs
 * cleared together, each copy followed by a window in which the workers
 * go on writing. A write that reaches a page through a stale entry after
 * its copy is lost. Whether a write was lost is decided by the swap copy
 * after the pass (lost_writes), not here.
 */
static void write_back_racing(struct rc_state *st, uint64_t first, unsigned n)
{
	uint64_t done[RC_INSNS / 64] = {0};

	for (unsigned w = 0; w < st->cfg.workers; w++)
		race_worker(st, w, first, n, done);
	for (unsigned i = 0; i < n; i++)
		if (i >= RC_INSNS || !rc_race_done(done, i))
			clear_ptes(st, first + i, 1);
	for (unsigned i = 0; i < n; i++) {
		if (i < RC_INSNS && rc_race_done(done, i))
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

	if (bench_progress_due(pr, t0, pg->done + done, pg->total)) {
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

static void page_out(struct rc_state *st, struct rc_run *run, uint64_t *samples,
		     struct rc_tl *tl)
{
	unsigned step = unit_pages(run->kind);
	uint64_t n = st->pass_pages, k = 0;

	st->tick_icr0 = apic_icr_writes[0];
	for (unsigned w = 0; w < st->cfg.workers && w < BENCH_TICK_CPUS; w++)
		st->tick_reads[w] = st->workers[w].reads;
	for (uint64_t first = 0; first < n; first += step, k++) {
		unsigned b = n - first < step ? (unsigned)(n - first) : step;
		uint64_t t0, t1, polled = 0;

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

		if (run->kind->s == RC_WRITEBACK_FIRST) {
			/* wrong order, on purpose; it clears the PTEs */
			write_back_racing(st, first, b);
			flush(st, run, first, b);
		} else {
			clear_ptes(st, first, b);
			flush(st, run, first, b);
			polled = write_back(st, first, b, tl);
		}
		free_frames(st, first, b);
		t1 = rdtsc_ordered();
		samples[k] = t1 - t0 - polled;
		run->count.ticks += polled;
		/* after the sample, its cost left out as the ticks' is */
		if (tl)
			run->count.ticks += rc_tl_poll(tl, st, t1, first + b);
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

uint64_t rc_pass_pages(const struct rc_config *cfg, const struct rc_run *run)
{
	uint64_t batch = run->kind->batch;
	uint64_t w = batch > RC_WRITER_PAGES ? batch : RC_WRITER_PAGES;

	if (run->writers && cfg->cold_pages > w)
		return w;
	return cfg->cold_pages;
}

/*
 * Before a measured pass's baseline, untimed: the workers' whole TLBs
 * flushed every RC_WARM_GAP_US for half a window. QEMU TCG sizes a vCPU's
 * software TLB only when the guest flushes it whole, so a pass's baseline
 * was taken at whatever size the boot or the pass before had left: under
 * multi-threaded TCG the first pass (per-page) read 3.7x faster after its
 * page-out than before it, and after batch 1's page-out (a full flush a
 * page) the workers read at a fifth of their rate or less. The Linux side
 * warms up the same way (linux/pageout.c). The settling window that
 * follows lets the last flush's refill end before the baseline begins
 * (bench/reclaim_windows.h).
 */
#define RC_WARM_GAP_US 5000

static void warm_up(struct rc_state *st, uint64_t us)
{
	for (uint64_t t = 0; t < us; t += RC_WARM_GAP_US) {
		/* false: a FAIL names the CPU; the pass goes on without */
		if (!flush_everywhere(&st->others, false))
			return;
		udelay(us - t < RC_WARM_GAP_US ? us - t : RC_WARM_GAP_US);
	}
}

bool rc_run_strategy(struct rc_state *st, struct rc_run *run,
		     const struct rc_progress *progress, uint64_t *samples)
{
	uint64_t t0, t1, t2, icr0, irq0, w = st->cfg.base_us;
	uint64_t before = us_to_cycles(rc_quarters(w, RC_BASE_QUARTERS)),
		 after = us_to_cycles(rc_quarters(w, RC_AFTER_QUARTERS));
	/* A writer pass measures no loss: no timeline either. */
	struct rc_tl *tl = run->writers ? NULL : st->tl;

	st->writing = run->writers;
	st->pass_pages = rc_pass_pages(&st->cfg, run);
	st->progress = progress;
	run->count = (struct rc_counts){0};
	if (!rc_map_cold(st))
		return false;
	cpus_others(&st->others);
	pf_expect(RC_COLD_BASE, rc_cold_va(st->cfg.cold_pages), PF_SKIP, NULL);
	rc_workers_start(st);
	if (!run->writers)
		warm_up(st, rc_quarters(w, RC_WARM_QUARTERS));
	/* let them all get going */
	udelay(rc_quarters(w, RC_SETTLE_QUARTERS));
	if (tl) { /* the baseline in bins, and its snapshots */
		t1 = rc_tl_before(tl, st, before);
		t0 = tl->t_begin;
	} else {
		rc_workers_snapshot(st, 0);
		t0 = rdtsc_ordered();
		/* The baseline, for the loss: a writer pass measures none. */
		if (!run->writers)
			udelay(rc_quarters(w, RC_BASE_QUARTERS));
		rc_workers_snapshot(st, 1);
		t1 = rdtsc_ordered();
	}
	icr0 = apic_icr_writes[0];
	irq0 = xcall_irqs_sum(&cpus_online);
	page_out(st, run, samples, tl);
	t2 = rdtsc_ordered();
	if (tl) /* the end's snapshot, then the window after */
		rc_tl_after(tl, st, t2, run->count.pages, after);
	else
		rc_workers_snapshot(st, 2);
	run->count.icr = apic_icr_writes[0] - icr0;
	run->count.irqs = xcall_irqs_sum(&cpus_online) - irq0;
	rc_workers_stop(st);
	pf_expect_end(NULL);
	run->count.cycles = t2 - t1;
	if (run->writers)
		lost_writes(st, run);
	else {
		run->count.lost = 0;
		rc_workers_loss(st, run, t1 - t0, t2 - t1);
	}
	return true;
}
