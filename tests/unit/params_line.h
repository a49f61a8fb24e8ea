/* SPDX-License-Identifier: MIT */
/*
 * The experiments' parameters as the tests read them (test_params.c,
 * test_params_shaped.c): one parse of both tables' defaults and a line, as
 * the kernel does, with every diagnostic collected in order.
 */
#ifndef TESTS_UNIT_PARAMS_LINE_H
#define TESTS_UNIT_PARAMS_LINE_H

#include <stdio.h>
#include "unit.h"
#include "bench/options.h"
#include "bench/params.h"

#define MAX_DIAGS 40

static struct {
	size_t n;
	char msg[MAX_DIAGS][PARAM_DIAG_LEN];
} got;

static inline void collect(void *ctx, const char *msg)
{
	assert_ptr_equal(ctx, &got);
	assert_printable(msg, PARAM_DIAG_LEN);
	assert_true(got.n < MAX_DIAGS);
	strcpy(got.msg[got.n++], msg);
}

static const struct diag_sink sink = {collect, &got};

static const struct diag_sink *reset(void)
{
	memset(&got, 0, sizeof(got));
	return &sink;
}

/* l holds exactly the numbers that follow. */
#define expect_list(l, ...) assert_u32_items((l)->n, (l)->v, __VA_ARGS__)

static struct config cfg;
static struct cmdline_diags cd;

/*
 * Both tables' defaults, then the line, in one parse, as the kernel does;
 * every diagnostic is collected in order.
 */
static inline size_t from_line(const char *line, struct bench_params *p)
{
	const struct cmdline_table t = bench_options(p);
	size_t n;

	memset(&cfg, 0x5a, sizeof(cfg));
	memset(p, 0x5a, sizeof(*p));
	reset();
	n = config_parse(line, &cfg, &t, 1, &cd);
	assert_int_equal(n, cd.count + cd.folded + cd.dropped);
	for (size_t i = 0; i < cd.count; i++)
		collect(&got, cd.msg[i]);
	bench_options_from_kernel(p, &cfg);
	return n;
}

/* The first diagnostic is msg, and the only one. */
static inline void expect_one(const char *line, const char *msg)
{
	struct bench_params p;

	assert_int_equal(from_line(line, &p), 1);
	assert_string_equal(got.msg[0], msg);
}

/* How many collected diagnostics start with prefix. */
static inline size_t count_prefix(const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < got.n; i++)
		n += !strncmp(got.msg[i], prefix, strlen(prefix));
	return n;
}

/* The line gives exactly these diagnostics, in order. */
static inline void expect_diags(const char *line, struct bench_params *p,
				size_t n, ...)
{
	va_list ap;

	assert_int_equal(from_line(line, p), n);
	assert_int_equal(got.n, n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(got.msg[i], va_arg(ap, const char *));
	va_end(ap);
}

#endif
