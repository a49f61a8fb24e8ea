/* SPDX-License-Identifier: MIT */
/*
 * The command-line tests' table with every option kind, the struct it
 * fills, and the parse that checks the diagnostics' invariants
 * (test_cmdline.c, test_cmdline_tables.c).
 */
#ifndef TESTS_UNIT_CMDLINE_TABLE_H
#define TESTS_UNIT_CMDLINE_TABLE_H

#include <stdio.h>
#include <stdlib.h>
#include "unit.h"
#include "lib/cmdline.h"

struct tcfg {
	bool flag;
	uint64_t num;
	uint64_t big;
	uint64_t nodef;
	int choice;
	char str[8];
	char text[300];
	int colour;
};

/* Accepts red/blue; "quiet" fails without a reason; writes only on success. */
static inline bool parse_colour(const char *val, void *dst, char *why,
				size_t whylen)
{
	if (!strcmp(val, "red") || !strcmp(val, "blue")) {
		*(int *)dst = val[0] == 'r' ? 1 : 2;
		return true;
	}
	if (strcmp(val, "quiet"))
		snprintf(why, whylen, "expected red|blue");
	return false;
}

static const char *const choices[] = {"zero", "one", "two", NULL};

#define OFF(f) offsetof(struct tcfg, f)
static const struct cmdline_opt opts[] = {
	{.key = "flag", .kind = OPT_FLAG, .def = "off", .offset = OFF(flag)},
	{.key = "num",
	 .kind = OPT_UINT,
	 .def = "10",
	 .offset = OFF(num),
	 .min = 5,
	 .max = 100},
	{.key = "big",
	 .kind = OPT_UINT,
	 .def = "0",
	 .offset = OFF(big),
	 .max = UINT64_MAX},
	{.key = "nodef",
	 .kind = OPT_UINT,
	 .offset = OFF(nodef),
	 .min = 3,
	 .max = 9},
	{.key = "choice",
	 .kind = OPT_CHOICE,
	 .def = "one",
	 .offset = OFF(choice),
	 .choices = choices},
	{.key = "str",
	 .kind = OPT_STRING,
	 .def = "abc",
	 .offset = OFF(str),
	 .size = 8},
	{.key = "text", .kind = OPT_STRING, .offset = OFF(text), .size = 300},
	{.key = "colour",
	 .kind = OPT_CUSTOM,
	 .def = "red",
	 .offset = OFF(colour),
	 .parse = parse_colour},
	/* A key that is a prefix of another must not match it. */
	{.key = "fla",
	 .kind = OPT_UINT,
	 .def = "0",
	 .offset = OFF(big),
	 .max = 1},
};

static struct tcfg cfg;
static struct cmdline_diags diags;

/* Defaults, then the line; checks the diagnostics' invariants. */
static inline size_t parse(const char *line)
{
	size_t n;

	memset(&cfg, 0x5a, sizeof(cfg));
	memset(&diags, 0x5a, sizeof(diags));
	cmdline_defaults(opts, ARRAY_SIZE(opts), &cfg);
	n = cmdline_parse(line, opts, ARRAY_SIZE(opts), &cfg, &diags);
	assert_int_equal(n, diags.count + diags.folded + diags.dropped);
	assert_true(diags.count <= CMDLINE_DIAG_MAX);
	assert_true(!diags.folded || diags.count == CMDLINE_DIAG_MAX);
	for (size_t i = 0; i < diags.count; i++)
		assert_printable(diags.msg[i], CMDLINE_DIAG_LEN);
	return n;
}

/* The line must yield exactly this one diagnostic. */
static inline void expect_one(const char *line, const char *msg)
{
	assert_int_equal(parse(line), 1);
	assert_string_equal(diags.msg[0], msg);
}

#endif
