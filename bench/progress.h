/* SPDX-License-Identifier: MIT */
/*
 * The experiments' text for people (tables, their titles, progress lines)
 * and their timeline (tick records): bench/progress.c.
 */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether bench_printf prints: off under output=json. */
void bench_text(bool on);

/*
 * The experiments' text for people, as kprintf: the one place output=json
 * silences. Verdicts and INFO lines go through report.h instead and
 * always print.
 */
void bench_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Progress, free text: "<what>: 42% (<detail>), eta 12 s", the first line
 * once a tenth is done (an early ETA, from enough of the work to be one,
 * however fast the machine: an experiment that ends within 3 s still says
 * how it went), then at most every 3 s.
 * The ETA is from the TSC time since bench_progress_begin() (bench_run
 * calls it before each experiment, on the context's struct
 * bench_progress). done and total count any unit (configurations, pages,
 * cycles); detail may be NULL. bench_progress_due() says whether a line
 * would print at TSC now for done of total, to spare formatting the
 * detail between units (a page-out calls it between every two; now is
 * the caller's TSC read, as under kvm-pvm each RDTSC traps).
 */
struct bench_progress {
	uint64_t start;		/* TSC at the experiment's start */
	uint64_t last_progress; /* TSC of the last line */
	bool spoke;		/* a line since the start */
	uint64_t last_tick;	/* TSC of the last tick record */
};

void bench_progress_begin(struct bench_progress *pr);
bool bench_progress_due(const struct bench_progress *pr, uint64_t now,
			uint64_t done, uint64_t total);
void bench_progress(struct bench_progress *pr, const char *what, uint64_t done,
		    uint64_t total, const char *detail);

/*
 * Timeline ticks (docs/records.md): a "tick" record every interval_ms of
 * guest time (TSC) at most, from the CPU that drives the experiment,
 * between units of work. If one is due, bench_tick_begin starts it
 * ({"type":"tick","seq":N,"bench":..,"t_ms":..,"strategy":..}) and returns
 * true: the caller adds its fields and ends it with record_end(). Arrays of
 * per-CPU values hold at most BENCH_TICK_CPUS entries.
 */
#define BENCH_TICK_CPUS 8
struct record;
bool bench_tick_begin(struct bench_progress *pr, struct record *rec, char *buf,
		      size_t cap, const char *bench, const char *strategy,
		      unsigned interval_ms);

#endif
