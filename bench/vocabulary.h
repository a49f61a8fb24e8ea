/* SPDX-License-Identifier: MIT */
/*
 * The kernel's vocabulary, printed every run as one record (bench/
 * vocabulary.c, docs/records.md "vocabulary"): each strategy's name,
 * experiment, role, flush kind and global variant, and the numbers the
 * host's checks rest on (Linux's ceiling, PMD_PAGES, the default pages).
 * The host tools read their lists from it rather than restating them.
 */
#ifndef BENCH_VOCABULARY_H
#define BENCH_VOCABULARY_H

void vocabulary_record(void);

#endif
