/* SPDX-License-Identifier: MIT */
/*
 * reclaim's timeline (bench/reclaim_timeline.c): every worker's reads and
 * the reclaimer's pages, snapshotted at bin edges into buffers allocated
 * before the passes, over a window before the page-out, the page-out and
 * a window after it; printed after each reader pass as one "timeline"
 * record (docs/output.md), whose bins also give the loss its interval.
 */
#ifndef BENCH_RECLAIM_TIMELINE_H
#define BENCH_RECLAIM_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_state;
struct rc_run;

/* Bins a record carries at most: before, during (+1 partial), after. */
#define RC_TL_BEFORE_BINS 20
#define RC_TL_DURING_BINS 100
#define RC_TL_AFTER_BINS  20
/* Workers whose own series are printed; the loss counts all of them. */
#define RC_TL_SHOWN 8
/*
 * The byte budget of one pass's record: its buffer. At about one or two
 * characters a bin per series, a 4-CPU pass takes 700 to 1500 bytes.
 */
#define RC_TL_RECORD_BYTES 6144

enum rc_tl_window { RC_TL_BEFORE, RC_TL_DURING, RC_TL_AFTER, RC_TL_WINDOWS };

struct rc_tl {
	unsigned workers, series;      /* series: workers, pages, time */
	uint64_t bin_cycles;	       /* timeline_ms, the finest width */
	uint64_t width[RC_TL_WINDOWS]; /* each window's width now */
	uint64_t cap;		       /* edges a window holds */
	uint64_t edges[RC_TL_WINDOWS]; /* edges recorded so far */
	uint64_t *cum[RC_TL_WINDOWS];  /* [series][cap + 2] cumulative */
	uint64_t t_begin, start, end;  /* before's start; page-out's */
	uint64_t next;		       /* the page-out's next edge */
	uint64_t units;		       /* flush units in the page-out */
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
 * During the page-out, between units (now: the TSC at the end of the
 * last one, done: pages paged out so far): a snapshot at each edge
 * passed. Returns the cycles it took (0 if no edge was due).
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
 * to), the loss's interval, worker_loss_lo_pct and worker_loss_hi_pct, and the
 * window after: worker_after_loss_pct with its own. Returns how many
 * were written to out (at most RC_TL_FIELDS).
 */
#define RC_TL_FIELDS 7
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
