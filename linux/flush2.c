// SPDX-License-Identifier: MIT
/*
 * Seed 000's method (will-it-scale's tlb_flush2, re-written): N threads of
 * one process, each pinned to its own CPU, each writing its own pages and
 * dropping them with MADV_DONTNEED, which flushes them from every CPU the
 * process runs on. Loops per second over all threads, at each N.
 */
#define _GNU_SOURCE
#include "linux/workloads.h"
#include "linux/out.h"
#include "linux/sys.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct flusher {
	pthread_t thread;
	int cpu;
	uint64_t pages;
	pthread_barrier_t *start;
	atomic_bool *stop;
	uint64_t loops;
	int error; /* errno of the first failure, 0 if none */
	bool pinned;
};

static void *flusher_main(void *arg)
{
	struct flusher *f = arg;
	size_t len = f->pages * 4096;
	volatile char *p;

	f->pinned = sys_pin(f->cpu);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		f->error = errno;
	else
		madvise((void *)p, len, MADV_NOHUGEPAGE);
	pthread_barrier_wait(f->start);
	while (!f->error &&
	       !atomic_load_explicit(f->stop, memory_order_relaxed)) {
		for (uint64_t i = 0; i < f->pages; i++)
			p[i * 4096] = 1;
		if (madvise((void *)p, len, MADV_DONTNEED)) {
			f->error = errno;
			break;
		}
		f->loops++;
	}
	if (p != MAP_FAILED)
		munmap((void *)p, len);
	return NULL;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

struct round {
	uint64_t loops, min, max, ns, tlb, cal;
	unsigned unpinned, failed;
	int error;
};

static void one_round(const struct args *a, unsigned n, struct round *r)
{
	struct flusher f[64];
	pthread_barrier_t start;
	atomic_bool stop = false;
	uint64_t t0, tlb0, cal0;

	*r = (struct round){.min = UINT64_MAX};
	pthread_barrier_init(&start, NULL, n + 1);
	for (unsigned i = 0; i < n; i++) {
		f[i] = (struct flusher){.cpu = (int)i,
					.pages = a->flush2_pages,
					.start = &start,
					.stop = &stop};
		pthread_create(&f[i].thread, NULL, flusher_main, &f[i]);
	}
	pthread_barrier_wait(&start);
	tlb0 = sys_interrupts("TLB");
	cal0 = sys_interrupts("CAL");
	t0 = sys_now_ns();
	sleep_ms(a->flush2_ms);
	atomic_store(&stop, true);
	r->ns = sys_now_ns() - t0;
	for (unsigned i = 0; i < n; i++) {
		pthread_join(f[i].thread, NULL);
		r->loops += f[i].loops;
		r->min = f[i].loops < r->min ? f[i].loops : r->min;
		r->max = f[i].loops > r->max ? f[i].loops : r->max;
		r->unpinned += !f[i].pinned;
		if (f[i].error && !r->error)
			r->error = f[i].error;
		r->failed += f[i].error != 0;
	}
	r->tlb = sys_interrupts("TLB") - tlb0;
	r->cal = sys_interrupts("CAL") - cal0;
	pthread_barrier_destroy(&start);
}

static void emit(const struct args *a, unsigned n, const struct round *r)
{
	struct record *rec = &(struct record){0};

	record_begin(rec, "result");
	json_str(&rec->j, "bench", "linux");
	json_str(&rec->j, "workload", "tlb_flush2");
	json_u64(&rec->j, "threads", n);
	json_u64(&rec->j, "pages", a->flush2_pages);
	json_u64(&rec->j, "duration_us", r->ns / 1000);
	json_u64(&rec->j, "loops", r->loops);
	json_u64(&rec->j, "loops_per_s",
		 r->ns ? (uint64_t)((unsigned __int128)r->loops * 1000000000u /
				    r->ns)
		       : 0);
	json_u64(&rec->j, "loops_min", r->min);
	json_u64(&rec->j, "loops_max", r->max);
	json_u64(&rec->j, "tlb_shootdowns", r->tlb);
	json_u64(&rec->j, "call_interrupts", r->cal);
	json_u64(&rec->j, "errors", r->failed);
	record_end(rec);
}

void flush2_run(const struct args *a, unsigned cpus)
{
	struct round r;
	unsigned idle = 0, bad = 0, unpinned = 0, rounds = 0;
	int error = 0;

	for (unsigned i = 0; i < a->ncounts; i++) {
		unsigned n = a->counts[i];

		if (n > cpus || n > 64)
			continue;
		one_round(a, n, &r);
		emit(a, n, &r);
		rounds++;
		idle += r.min == 0;
		bad += r.failed;
		unpinned += r.unpinned;
		error = error ? error : r.error;
	}
	if (bad)
		out_fail("linux: tlb_flush2: no errors",
			 "%u threads failed: %s", bad, strerror(error));
	else
		out_pass("linux: tlb_flush2: no errors", "%u thread counts ran",
			 rounds);
	out_verdict(!idle && !unpinned && rounds == a->ncounts,
		    "linux: tlb_flush2: every planned thread looped",
		    "%u of %u thread counts ran, %u with a thread that never "
		    "looped, %u threads not pinned",
		    rounds, a->ncounts, idle, unpinned);
}
