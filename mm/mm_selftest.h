/* SPDX-License-Identifier: MIT */
#ifndef MM_MM_SELFTEST_H
#define MM_MM_SELFTEST_H

/* The "mm:" checks: mappings, the stale-TLB control, W^X, accounting. */
void mm_selftest_run(void);

#endif
