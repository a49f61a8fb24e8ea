/* SPDX-License-Identifier: MIT */
/*
 * The experiment runner's shared pieces. Measurement is kept apart from
 * processing (sel4bench): timed regions only store raw TSC deltas into
 * buffers allocated beforehand; statistics, records and tables come after.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/params.h"
#include "bench/plan.h"
#include "bench/stats.h"
#include "kernel/config.h"

struct experiment {
	const char *name;
	const char *desc;
	void (*run)(void);
};

extern const struct experiment experiments[];
extern const size_t nr_experiments;

/* Parameters of this run, parsed from the command line. */
extern struct bench_params bench_params;

/*
 * Parses the experiments' parameters and, with invlpgb=emulate on a CPU
 * without INVLPGB, installs the software model: before the tlb: checks,
 * which run INVLPGB through it too.
 */
void bench_init(const struct config *cfg);
/* Whether bench_init installed the INVLPGB software model. */
bool bench_invlpgb_model(void);
/*
 * Runs the experiments that bench= selects, in table order, then removes
 * the model if bench_init installed it.
 */
void bench_run(const struct config *cfg);

/* Cost of an empty timed region (back-to-back ordered TSC reads), min. */
uint64_t bench_overhead(void);

/* A zeroed buffer of n samples, or NULL (with a FAIL) if memory is out. */
uint64_t *bench_alloc(size_t n);
void bench_free(uint64_t *buf, size_t n);

/* Prints a parameter diagnostic as an INFO line (struct param_diag). */
void bench_diag(void *ctx, const char *msg);

/*
 * Pages per INVLPGB for experiment `bench`: the real instruction's maximum
 * (bare metal, CPUID), the software model's under invlpgb=emulate (and
 * *emulated set), or 0 after a SKIP "<bench>: invlpgb" naming the reason.
 */
uint32_t bench_invlpgb(const char *bench, bool *emulated);

/*
 * Whether INVLPGB (the instruction or its model) will run, as
 * bench_invlpgb() will decide, without its verdicts: for the time budget.
 */
bool bench_invlpgb_planned(void);

/* What each experiment will run, for the time budget (bench/plan.h). */
void reclaim_plan_shape(struct plan_reclaim *p);
/* Measures what a page costs reclaim here, per page and batched. */
void reclaim_pilot(struct plan_reclaim *p);
void flushloop_plan_shape(struct plan_flushloop *p);

/*
 * The experiments' text for people (tables, their titles, progress
 * lines), as kprintf: the one place output=json silences. Verdicts and
 * INFO lines go through report.h instead and always print.
 */
void bench_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Progress, free text at most every 3 s: "<what>: 42% (<detail>), eta 12 s",
 * the ETA from the TSC time since bench_progress_begin() (bench_run calls
 * it before each experiment). done and total count any unit (configurations,
 * pages, cycles); detail may be NULL. bench_progress_due() says whether a
 * line would print now, to spare formatting the detail.
 */
void bench_progress_begin(void);
bool bench_progress_due(void);
void bench_progress(const char *what, uint64_t done, uint64_t total,
		    const char *detail);

/*
 * Timeline ticks (docs/output.md): a "tick" record every interval_ms of
 * guest time (TSC) at most, from the CPU that drives the experiment,
 * between units of work. If one is due, bench_tick_begin starts it
 * ({"type":"tick","seq":N,"bench":..,"t_ms":..,"strategy":..}) and returns
 * true: the caller adds its fields and ends it with record_end(). Arrays of
 * per-CPU values hold at most BENCH_TICK_CPUS entries.
 */
#define BENCH_TICK_CPUS 8
struct record;
bool bench_tick_begin(struct record *rec, char *buf, size_t cap,
		      const char *bench, const char *strategy,
		      unsigned interval_ms);

/* A counter field of a result record. */
struct result_field {
	const char *key;
	uint64_t value;
	bool is_signed; /* value holds an int64_t */
};

/* One measured configuration: statistics of raw samples plus counters. */
struct result {
	const char *bench, *strategy, *ipi_mode; /* ipi_mode may be NULL */
	const char *distance; /* topology class of the target(s), or NULL */
	uint64_t pages, targets;
	uint64_t *samples; /* raw cycles; sorted in place by result_emit */
	size_t n;
	const struct result_field *fields;
	size_t nfields;
	bool emulated;
	bool raw;	 /* the timer's own cost: nothing subtracted */
	struct stats st; /* filled by result_emit */
};

/* Computes the statistics (overhead subtracted) and prints the record. */
void result_emit(struct result *r);

#endif
