// SPDX-License-Identifier: MIT
/*
 * Seed 001's test under Linux: a worker on every CPU but 0 reads 64 bytes
 * at random offsets of its own hot map, while CPU 0 pages a cold map out
 * with MADV_PAGEOUT to the zram swap, one PMD (512 pages) a call so that
 * it can take the timeline's snapshots between calls without splitting
 * the kernel's own batches. The workers' reads before, during and after
 * the page-out go out as the harness's timeline record (docs/records.md,
 * "timeline"), and the loss and its interval are the harness's own
 * arithmetic (bench/rc_timeline.c).
 */
#define _GNU_SOURCE
#include "linux/pageout.h"
#include "linux/out.h"
#include "linux/sys.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PMD_BYTES (2u << 20)

struct worker {
	pthread_t thread;
	int cpu;
	uint64_t bytes;
	atomic_bool *stop;
	pthread_barrier_t *ready;
	bool pinned, mapped;
	_Alignas(64) atomic_uint_fast64_t units; /* reads / READS_UNIT */
	char pad[56];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)w->cpu, sum = 0;
	uint64_t chunks = w->bytes / 64;
	volatile uint64_t *hot;

	w->pinned = sys_pin(w->cpu);
	hot = mmap(NULL, w->bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->mapped = hot != MAP_FAILED;
	if (w->mapped) {
		madvise((void *)hot, w->bytes, MADV_NOHUGEPAGE);
		for (uint64_t i = 0; i < w->bytes / 8; i += 512)
			hot[i] = i; /* resident before the clock starts */
	}
	pthread_barrier_wait(w->ready);
	while (w->mapped &&
	       !atomic_load_explicit(w->stop, memory_order_relaxed)) {
		for (int r = 0; r < READS_UNIT; r++) {
			/* xorshift64: a random 64-byte chunk each read */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			const volatile uint64_t *c = hot + (x % chunks) * 8;

			for (int k = 0; k < 8; k++)
				sum += c[k];
		}
		atomic_fetch_add_explicit(&w->units, 1, memory_order_relaxed);
	}
	if (w->mapped)
		munmap((void *)hot, w->bytes);
	return (void *)(uintptr_t)(sum & 1);
}

/* One snapshot: the time, the pages paged out, every worker's units. */
static void snap(struct po_timeline *tl, uint64_t pages)
{
	uint64_t *s = po_snap(tl, tl->n);

	if (tl->n >= tl->cap)
		return;
	s[0] = sys_now_ns();
	s[1] = pages;
	for (unsigned w = 0; w < tl->workers; w++)
		s[2 + w] = atomic_load_explicit(&tl->w[w].units,
						memory_order_relaxed);
	tl->n++;
}

/*
 * A window of 50 bins of width_ns, each edge snapped. The reclaimer
 * sleeps to each edge rather than spin: the seed's reclaimer does nothing
 * but page out, and a spinning one read the clock so often (under TCG the
 * clock is an emulated HPET, not the TSC) that the worker beside it ran
 * 9 times slower than during the page-out.
 */
static void sleep_window(struct po_timeline *tl, uint64_t width_ns,
			 uint64_t pages)
{
	uint64_t t = po_snap(tl, tl->n - 1)[0];

	for (unsigned b = 0; b < PO_WINDOW_BINS; b++) {
		struct timespec ts;

		t += width_ns;
		ts.tv_sec = (time_t)(t / 1000000000u);
		ts.tv_nsec = (long)(t % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		snap(tl, pages);
	}
}

/*
 * Before the baseline: flushes reaching the workers' CPUs every 5 ms for
 * a window's length (64 pages of this process written and dropped: more
 * than Linux's 33-page ceiling, so every CPU the process runs on flushes
 * its whole TLB). Without them the baseline was the slowest window of
 * all under QEMU TCG, which sizes a vCPU's software TLB only when the
 * guest flushes it whole: a worker that no such flush had reached read
 * at a tenth of its rate during and after the page-out.
 */
#define WARM_PAGES 64

static void warm_up(uint64_t ns)
{
	volatile char *p = mmap(NULL, WARM_PAGES * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec gap = {0, 5000000};
	uint64_t end = sys_now_ns() + ns;

	if (p == MAP_FAILED)
		return;
	while (sys_now_ns() < end) {
		for (int i = 0; i < WARM_PAGES; i++)
			p[i * 4096] = 1;
		madvise((void *)p, WARM_PAGES * 4096, MADV_DONTNEED);
		nanosleep(&gap, NULL);
	}
	munmap((void *)p, WARM_PAGES * 4096);
}

static bool map_cold(struct po_run *r, uint64_t bytes)
{
	char *raw = mmap(NULL, bytes + PMD_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (raw == MAP_FAILED)
		return false;
	/* PMD-aligned, so that each call is one whole page table */
	r->cold = (char *)(((uintptr_t)raw + PMD_BYTES - 1) &
			   ~(uintptr_t)(PMD_BYTES - 1));
	madvise(r->cold, bytes, MADV_NOHUGEPAGE);
	/*
	 * A page's number in its first word: not a same-filled page (zram
	 * keeps those without compressing), and cheap for lz4.
	 */
	for (uint64_t i = 0; i < bytes / 4096; i++)
		*(uint64_t *)(r->cold + i * 4096) = i + 1;
	return true;
}

/* The cold map's pages still in memory (UINT32_MAX if unknown). */
static unsigned resident_pages(const char *p, uint64_t bytes)
{
	unsigned char *vec = malloc(bytes / 4096);
	unsigned n = 0;

	if (!vec || mincore((void *)p, bytes, vec)) {
		free(vec);
		return UINT32_MAX;
	}
	for (uint64_t i = 0; i < bytes / 4096; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

static void page_out(struct po_run *r, uint64_t bytes)
{
	struct po_timeline *tl = &r->tl;

	r->tlb0 = sys_interrupts("TLB");
	r->cal0 = sys_interrupts("CAL");
	tl->start = tl->n - 1;
	for (uint64_t off = 0; off < bytes; off += PMD_BYTES) {
		r->calls++;
		if (madvise(r->cold + off, PMD_BYTES, MADV_PAGEOUT) &&
		    !r->error) {
			r->error = errno;
			r->failed_calls++;
		}
		snap(tl, (off + PMD_BYTES) / 4096);
	}
	tl->end = tl->n - 1;
	r->tlb = sys_interrupts("TLB") - r->tlb0;
	r->cal = sys_interrupts("CAL") - r->cal0;
}

static void verdicts(const struct po_run *r, uint64_t pages)
{
	if (r->error)
		out_fail("linux: pageout: madvise succeeded",
			 "%llu of %llu MADV_PAGEOUT calls failed: %s",
			 (unsigned long long)r->failed_calls,
			 (unsigned long long)r->calls, strerror(r->error));
	else
		out_pass("linux: pageout: madvise succeeded",
			 "%llu MADV_PAGEOUT calls of 512 pages",
			 (unsigned long long)r->calls);
	out_verdict(r->swapped * 10 >= pages * 9 &&
			    (uint64_t)r->resident * 10 <= pages,
		    "linux: pageout: the cold map went to swap",
		    "%llu of %llu pages went to swap (SwapFree), %u still "
		    "resident (mincore)",
		    (unsigned long long)r->swapped, (unsigned long long)pages,
		    r->resident);
	out_verdict(r->workers_ok,
		    "linux: pageout: every worker read before the page-out",
		    "%u workers, %u pinned, %u read in the window before",
		    r->tl.workers, r->pinned, r->read_before);
}

static bool start_workers(struct po_run *r, const struct args *a, unsigned cpus,
			  pthread_barrier_t *ready)
{
	unsigned n = cpus > 1 ? cpus - 1 : 1;

	r->tl.w = aligned_alloc(64, sizeof(struct worker) * n);
	if (!r->tl.w)
		return false;
	r->tl.workers = n;
	pthread_barrier_init(ready, NULL, n + 1);
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &r->tl.w[i];

		memset(w, 0, sizeof(*w));
		w->cpu = cpus > 1 ? (int)i + 1 : 0;
		w->bytes = a->hot_mb << 20;
		w->stop = &r->stop;
		w->ready = ready;
		pthread_create(&w->thread, NULL, worker_main, w);
	}
	pthread_barrier_wait(ready);
	return true;
}

static void stop_workers(struct po_run *r, pthread_barrier_t *ready)
{
	atomic_store(&r->stop, true);
	for (unsigned i = 0; i < r->tl.workers; i++) {
		pthread_join(r->tl.w[i].thread, NULL);
		r->pinned += r->tl.w[i].pinned && r->tl.w[i].mapped;
	}
	pthread_barrier_destroy(ready);
}

void pageout_run(const struct args *a, unsigned cpus)
{
	static struct po_run run;
	struct po_run *r = &run;
	uint64_t bytes = a->reclaim_mb << 20, pages = bytes / 4096;
	uint64_t width = a->duration_ms * 1000000 / PO_WINDOW_BINS, free0;
	pthread_barrier_t ready;

	sys_pin(0);
	if (!map_cold(r, bytes) || !start_workers(r, a, cpus, &ready)) {
		out_fail("linux: pageout: set up",
			 "no memory for a cold map of %llu MiB and the "
			 "workers' hot maps: %s",
			 (unsigned long long)a->reclaim_mb, strerror(errno));
		return;
	}
	if (!po_alloc(&r->tl, 2 * PO_WINDOW_BINS + 1 + bytes / PMD_BYTES)) {
		out_fail("linux: pageout: set up", "no memory for snapshots");
		stop_workers(r, &ready);
		return;
	}
	warm_up(a->duration_ms * 1000000);
	free0 = sys_meminfo_kb("SwapFree");
	snap(&r->tl, 0);
	sleep_window(&r->tl, width, 0);
	page_out(r, bytes);
	sleep_window(&r->tl, width, pages);
	stop_workers(r, &ready);
	r->swapped = (free0 - sys_meminfo_kb("SwapFree")) / 4;
	r->resident = resident_pages(r->cold, bytes);
	po_emit(r, pages, width);
	verdicts(r, pages);
	po_free(&r->tl);
}
