/* SPDX-License-Identifier: MIT */
/*
 * Expected page faults. An experiment declares a range of addresses where
 * it expects #PF; each such fault is recorded (CPU, address, error code)
 * and then either resumed (the experiment's fixup callback repaired the
 * mapping, the instruction is retried) or skipped (the faulting access was
 * a _safe helper of kernel/x86.h, which then returns the vector). Any other
 * #PF is a fatal fault report.
 */
#ifndef MM_PAGEFAULT_H
#define MM_PAGEFAULT_H

#include <stdbool.h>
#include <stdint.h>

/* #PF error code bits (SDM vol. 3A, 4.7). */
#define PF_ERR_P    (1u << 0) /* 1: protection violation, 0: not present */
#define PF_ERR_W    (1u << 1) /* write access */
#define PF_ERR_U    (1u << 2) /* user mode */
#define PF_ERR_RSVD (1u << 3)
#define PF_ERR_I    (1u << 4) /* instruction fetch */

enum pf_action { PF_SKIP, PF_RESUME };

struct pf_record {
	unsigned cpu;
	uint64_t addr, error, rip;
};

/* Returns true if it repaired the mapping so the access can be retried. */
typedef bool (*pf_fixup)(uint64_t addr, uint64_t error);

void pagefault_init(void);

/* Expect faults in [lo, hi) until pf_expect_end(). One range at a time. */
void pf_expect(uint64_t lo, uint64_t hi, enum pf_action action, pf_fixup fix);

/* Stops expecting; returns how many faults were recorded, *last the last. */
unsigned pf_expect_end(struct pf_record *last);

#endif
