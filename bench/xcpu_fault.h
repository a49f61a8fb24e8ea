/* SPDX-License-Identifier: MIT */
/*
 * One rule for every experiment: a unit of measurement (a configuration's
 * samples, a round, a run) during which a CPU missed a cross-call wait or
 * answered late (smp.h, xcall_faults()) holds that wait, and perhaps work
 * without that CPU: it is discarded with a FAIL, never reported.
 */
#ifndef BENCH_XCPU_FAULT_H
#define BENCH_XCPU_FAULT_H

#include <stdbool.h>
#include <stdint.h>

struct xcpu_unit {
	uint32_t faults; /* xcall_faults() when the unit began */
};

void xcpu_unit_begin(struct xcpu_unit *u);

/* Whether a CPU missed a wait or answered late since the unit began. */
bool xcpu_unit_faulted(const struct xcpu_unit *u);

/*
 * If xcpu_unit_faulted(): FAIL: name: why, and true (the caller discards
 * the unit); else false, and nothing is printed.
 */
bool xcpu_unit_spoiled(const struct xcpu_unit *u, const char *name,
		       const char *why_fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
