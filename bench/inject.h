/* SPDX-License-Identifier: MIT */
/*
 * The experiments' fault injection (selftest=hang-ap, slow-ap, nmi,
 * oom): each is armed, announced in an INFO line, and checked after, in
 * a verdict named "selftest: ...". What the faults must cause is in
 * docs/faults.md.
 */
#ifndef BENCH_INJECT_H
#define BENCH_INJECT_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/params.h"

/*
 * selftest=hang-ap, slow-ap: arms the last CPU's fault before the
 * experiments; false if none is armed (nothing to check after them).
 */
bool inject_ap_fault(const struct bench_params *p);
/* After the experiments: the rule held (or a SKIP: never reached). */
void inject_ap_check(const struct bench_params *p);
/*
 * With fault_at=console-lock: the faulty CPU prints its own line as the
 * experiment begins (nothing otherwise).
 */
void inject_ap_announce(const char *experiment);

/* selftest=nmi: the next timed IPI flush gets an NMI. */
void inject_nmi_next_flush(void);
/* After bench's sweep: disarmed; exactly one sample was discarded. */
void inject_nmi_check(const char *bench, uint64_t discarded);

/*
 * selftest=oom: bench may allocate grants more times, then every request
 * fails until inject_oom_end(), which checks that every frame came back.
 */
void inject_oom_begin(uint64_t grants, const char *bench);
void inject_oom_end(const char *bench);

#endif
