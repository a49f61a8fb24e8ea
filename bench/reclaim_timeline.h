/* SPDX-License-Identifier: MIT */
/*
 * reclaim's timeline (bench/reclaim_timeline.c): every worker's reads and
 * the reclaimer's pages, snapshotted at bin edges into buffers allocated
 * before the passes, over a window before the page-out, the page-out and
 * a window after it; printed after each reader pass as one "timeline"
 * record (docs/records.md), whose bins also give the loss its interval.
 */
#ifndef BENCH_RECLAIM_TIMELINE_H
#define BENCH_RECLAIM_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_state;
struct rc_run;

/*
 * Bins a record carries at most: before, during (+1 partial), after. The
 * loss's interval is over blocks of floor(sqrt(bins)) or more
 * (bench/rc_timeline.h), and needs 5 a window: 50 bins give 7 blocks of
 * 7, and leave room for bins correlated up to tau = 10 (rho 0.8).
 */
/*
 * The workers count their reads in chunks of this many (reclaim_workers.c),
 * and the timeline stores counts in these units: exact, never rounded.
 */
#define RC_READS_CHUNK	  64
#define RC_TL_BEFORE_BINS 50
#define RC_TL_DURING_BINS 100
#define RC_TL_AFTER_BINS  50
/*
 * The finest bin: timeline_ms / RC_TL_FINE (20 us at the default 1 ms).
 * A window gets min(its bins, its length / that) bins (the width doubles
 * as its buffer fills), so batch 512's page-out, some 37x shorter than
 * per-page's (12 ms of 3584 pages under TCG), still gets 100 bins of
 * 120 us, and a 20 ms baseline (duration_ms=20) 50 of 400 us.
 */
#define RC_TL_FINE 50
/* Workers whose own series are printed; the loss counts all of them. */
#define RC_TL_SHOWN 8
/*
 * The byte budget of one pass's record: its buffer. 201 bins of at most
 * 11 series at up to 3 characters a value is 6.6 KB, the fields 500
 * bytes; a 4-CPU pass takes 1.2 to 2.1 KB.
 */
#define RC_TL_RECORD_BYTES 8192

enum rc_tl_window { RC_TL_BEFORE, RC_TL_DURING, RC_TL_AFTER, RC_TL_WINDOWS };

struct rc_tl {
	unsigned workers, series;      /* series: workers, pages, time */
	uint64_t fine_cycles;	       /* timeline_ms / RC_TL_FINE */
	uint64_t width[RC_TL_WINDOWS]; /* each window's width now */
	uint64_t cap;		       /* edges a window holds */
	uint64_t edges[RC_TL_WINDOWS]; /* edges recorded so far */
	uint64_t *cum[RC_TL_WINDOWS];  /* [series][cap + 2] cumulative */
	uint64_t t_begin, start, end;  /* before's start; page-out's */
	uint64_t next;		       /* the page-out's next edge */
	uint64_t polls;		       /* rc_tl_poll()s in the page-out */
};

/*
 * Buffers for workers at bin_ms (0: no timeline); false if memory is out.
 * rc_tl_free: their release.
 */
bool rc_tl_alloc(struct rc_tl *tl, unsigned workers, uint64_t bin_ms);
void rc_tl_free(struct rc_tl *tl);

/*
 * The window before the page-out: spins for cycles, snapshotting at every
 * edge; its last snapshot is the page-out's start, also written to
 * st->snap[1]. Returns that TSC.
 */
uint64_t rc_tl_before(struct rc_tl *tl, struct rc_state *st, uint64_t cycles);
/*
 * During the page-out, between units and between the pages a unit
 * writes back (now: the TSC, done: pages paged out so far): a snapshot
 * at each edge passed. Returns the cycles it took (0 if no edge was
 * due), which the caller leaves out of its samples.
 */
uint64_t rc_tl_poll(struct rc_tl *tl, struct rc_state *st, uint64_t now,
		    uint64_t done);
/*
 * The page-out's end at t2 (also into st->snap[2]), then the window
 * after it, cycles long, at the width before's had.
 */
void rc_tl_after(struct rc_tl *tl, struct rc_state *st, uint64_t t2,
		 uint64_t pages, uint64_t cycles);
/*
 * After the pass: the timeline record, and the loss's interval (and the
 * loss after, against before) into run.
 */
void rc_tl_emit(struct rc_tl *tl, struct rc_run *run);

/*
 * The result record's fields from the timeline (those run has): the
 * workers' reads during the page-out and its length (what the bins sum
 * to), the loss's interval, worker_loss_lo_pct and worker_loss_hi_pct
 * (only where it has one), the batch means' worker_loss_blocks and
 * worker_loss_effective_bins, and the window after: worker_after_loss_pct
 * with its own. Returns how many
 * were written to out (at most RC_TL_FIELDS).
 */
#define RC_TL_FIELDS 9
struct result_field;
size_t rc_tl_fields(const struct rc_run *run, struct result_field *out);
/* The interval as the table shows it, "[lo, hi]", or "-". */
const char *rc_tl_interval_text(const struct rc_run *run, char *buf,
				size_t cap);

/*
 * Why reclaim's loss is not a hardware answer here (the concurrency
 * probe found the CPUs taking turns: smp/concurrency.h), or NULL.
 */
const char *rc_not_hardware(void);
/* After the table: "not a hardware answer here: WHY" where that holds. */
void rc_table_caveat(void);

#endif
