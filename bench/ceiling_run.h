/* SPDX-License-Identifier: MIT */
/*
 * The flush ceiling of this run (bench/ceiling_run.c): after the
 * experiments, ceiling_report() decides the ceiling once from the book
 * that result_emit() kept in the result sink (bench/ceiling_book.h), then
 * prints the `ceiling` records (docs/records.md) and lines from that
 * decision, which the findings block prints its line from too.
 */
#ifndef BENCH_CEILING_RUN_H
#define BENCH_CEILING_RUN_H

struct result_sink;

/* Decides sink->ceiling_decision and prints it; after every experiment. */
void ceiling_report(struct result_sink *sink);

#endif
