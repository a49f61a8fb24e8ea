// SPDX-License-Identifier: MIT
/*
 * Host tests of lib/cmdline.c's parse of one line over two tables (the
 * kernel's keys and the experiments' share a line): which table a key is
 * in, what each one was given, and the notes a parser adds.
 */
#include "cmdline_table.h"

/* A second layer's struct and table: a list taken item by item. */
struct upper {
	unsigned items;	 /* how many were usable */
	uint64_t weight; /* an OPT_UINT beside it */
	uint64_t shadow; /* its num=, never reached */
};

/* Counts items that are "ok"; notes every other one, never rejects. */
static size_t parse_items(const char *val, void *dst,
			  const struct diag_sink *note)
{
	char msg[64];
	size_t bad = 0;
	unsigned ok = 0;

	for (const char *p = val; *p;) {
		size_t n = strcspn(p, ",");

		if (n == 2 && !strncmp(p, "ok", 2)) {
			ok++;
		} else {
			snprintf(msg, sizeof(msg), "item '%.*s': skipped",
				 (int)n, p);
			if (note && note->emit)
				note->emit(note->ctx, msg);
			bad++;
		}
		p += n + (p[n] == ',');
	}
	*(unsigned *)dst = ok;
	return bad;
}

static const struct cmdline_opt upper_opts[] = {
	{.key = "items",
	 .kind = OPT_CUSTOM,
	 .def = "ok",
	 .offset = offsetof(struct upper, items),
	 .size = 11,
	 .parse_notes = parse_items},
	{.key = "weight",
	 .kind = OPT_UINT,
	 .def = "7",
	 .offset = offsetof(struct upper, weight),
	 .max = 100},
	/* Also the first table's key: the first table wins. */
	{.key = "num",
	 .kind = OPT_UINT,
	 .def = "0",
	 .offset = offsetof(struct upper, shadow),
	 .max = 1000},
};

static struct upper up;
static uint64_t given0[CMDLINE_OPTS_MAX / 64], given1[CMDLINE_OPTS_MAX / 64];

static size_t parse_two(const char *line)
{
	const struct cmdline_table t[2] = {
		{opts, ARRAY_SIZE(opts), &cfg, given0},
		{upper_opts, ARRAY_SIZE(upper_opts), &up, given1},
	};
	size_t n;

	memset(&up, 0x5a, sizeof(up));
	memset(given0, 0x5a, sizeof(given0));
	memset(given1, 0x5a, sizeof(given1));
	cmdline_defaults(opts, ARRAY_SIZE(opts), &cfg);
	cmdline_defaults(upper_opts, ARRAY_SIZE(upper_opts), &up);
	n = cmdline_parse_tables(line, t, 2, &diags);
	assert_int_equal(n, diags.count + diags.folded + diags.dropped);
	return n;
}

/* Two tables in one parse: the words, diagnostics and given masks. */
static void test_tables(void **state)
{
	(void)state;
	assert_int_equal(parse_two(""), 0);
	assert_int_equal(up.items, 1); /* the default, through the parser */
	assert_int_equal(up.weight, 7);
	assert_int_equal(parse_two("weight=9 num=50 weight=x nosuch=1"), 2);
	assert_int_equal(up.weight, 9);
	assert_int_equal(cfg.num, 50);
	assert_int_equal(up.shadow, 0);
	assert_int_equal(up.shadow, 0);
	assert_string_equal(diags.msg[0], "cmdline: 'weight=x': expected a "
					  "number in 0..100: using 'weight=9' "
					  "(word 1)");
	assert_string_equal(diags.msg[1], "cmdline: unknown key 'nosuch' in "
					  "'nosuch=1': ignored");
	assert_true(cmdline_given(given1, upper_opts, ARRAY_SIZE(upper_opts),
				  "weight"));
	assert_false(cmdline_given(given1, upper_opts, ARRAY_SIZE(upper_opts),
				   "num"));
	assert_true(cmdline_given(given0, opts, ARRAY_SIZE(opts), "num"));
	assert_false(cmdline_given(given0, opts, ARRAY_SIZE(opts), "weight"));
}

/* A value taken in part: its notes join the diagnostics, in word order. */
static void test_parse_notes(void **state)
{
	(void)state;
	assert_int_equal(parse_two("num=6 items=ok,no,ok num=x items=ok,x"), 4);
	assert_int_equal(up.items, 1); /* the later word wins, as a whole */
	/* The word in front, as for any other diagnostic. */
	assert_string_equal(diags.msg[0],
			    "cmdline: 'items=ok,no,ok': item 'no': skipped");
	assert_string_equal(diags.msg[1], "cmdline: 'items=ok,no,ok': "
					  "overridden: using 'items=ok,x' "
					  "(word 4)");
	assert_non_null(strstr(diags.msg[2], "'num=x'"));
	assert_string_equal(diags.msg[3],
			    "cmdline: 'items=ok,x': item 'x': skipped");
	assert_true(cmdline_given(given1, upper_opts, ARRAY_SIZE(upper_opts),
				  "items"));
	/* Its longest value, as OPT_STRING's field size. */
	assert_int_equal(parse_two("items=ok,ok,ok,o"), 1);
	assert_int_equal(parse_two("items=ok,ok,ok,ok"), 1);
	assert_string_equal(diags.msg[0], "cmdline: 'items=ok,ok,ok,ok': "
					  "longer than 10 bytes: using default "
					  "'ok'");
	assert_int_equal(up.items, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_parse_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
