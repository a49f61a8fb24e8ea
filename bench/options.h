/* SPDX-License-Identifier: MIT */
/*
 * The experiments' command-line keys (bench/options.c): one table of
 * options, each with its default, its meaning for `help`, and a parser
 * that writes the typed value straight into struct bench_params. The top
 * hands it to the kernel's one parse of the line (config_parse) beside the
 * kernel's own keys. Portable.
 */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "bench/params.h"
#include "lib/cmdline.h"
#include "kernel/config.h"

extern const struct cmdline_opt bench_opts[];
extern const size_t bench_nopts;

/* The names bench= takes, in the experiment table's order. */
extern const char *const bench_names[4];

/* The table that fills p (its defaults not yet applied). */
struct cmdline_table bench_options(struct bench_params *p);

/*
 * What the experiments take from the kernel's keys: selftest=
 * flushloop-local (flushloop's flushes skip the other CPUs).
 */
void bench_options_from_kernel(struct bench_params *p,
			       const struct config *cfg);

/* Whether the command line set `key` (rather than leaving the default). */
bool bench_given(const struct bench_params *p, const char *key);

#endif
