// SPDX-License-Identifier: MIT
/*
 * Host tests of lib/cmdline_list.c: the list kinds (numbers with words,
 * names, `all`), their defaults, fallbacks and limits, through
 * lib/cmdline.c's parse of a line.
 */
#include <stdio.h>
#include <stdlib.h>
#include "unit.h"
#include "lib/cmdline.h"

static struct cmdline_diags diags;

/* The list kinds: a table of them and the struct they fill. */
struct lists {
	struct cmdline_list nums;  /* OPT_LIST_UINT with words */
	struct cmdline_list names; /* OPT_LIST_NAME with none */
	struct cmdline_list plain; /* OPT_LIST_NAME, no none, no default */
};

#define L_ALL  UINT32_MAX
#define L_AUTO (UINT32_MAX - 1)
static const char *const num_words[] = {"all", "auto", NULL};
static const uint32_t num_values[] = {L_ALL, L_AUTO};
static const char *const fruit[] = {"apple", "pear", "fig", NULL};

static const struct cmdline_opt list_opts[] = {
	{.key = "nums",
	 .kind = OPT_LIST_UINT,
	 .def = "1,2",
	 .offset = offsetof(struct lists, nums),
	 .min = 1,
	 .max = 512,
	 .choices = num_words,
	 .values = num_values,
	 .size = 128},
	{.key = "names",
	 .kind = OPT_LIST_NAME,
	 .def = "all",
	 .offset = offsetof(struct lists, names),
	 .choices = fruit,
	 .none = true},
	{.key = "plain",
	 .kind = OPT_LIST_NAME,
	 .offset = offsetof(struct lists, plain),
	 .choices = fruit},
};

static struct lists lc;

static size_t parse_lists(const char *line)
{
	size_t n;

	memset(&lc, 0x5a, sizeof(lc));
	memset(&diags, 0x5a, sizeof(diags));
	cmdline_defaults(list_opts, ARRAY_SIZE(list_opts), &lc);
	n = cmdline_parse(line, list_opts, ARRAY_SIZE(list_opts), &lc, &diags);
	assert_int_equal(n, diags.count + diags.dropped);
	for (size_t i = 0; i < diags.count; i++)
		assert_printable(diags.msg[i], CMDLINE_DIAG_LEN);
	return n;
}

/* l holds exactly the numbers that follow. */
#define expect_items(l, ...) assert_u32_items((l)->n, (l)->v, __VA_ARGS__)

static void test_list_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse_lists(""), 0);
	expect_items(&lc.nums, 2, 1, 2);
	expect_items(&lc.names, 3, 0, 1, 2);
	assert_int_equal(lc.plain.n, 0); /* no default: the empty list */
}

static void test_list_uint(void **state)
{
	(void)state;
	assert_int_equal(parse_lists("nums=512,0x10,auto,3,all"), 0);
	expect_items(&lc.nums, 5, 512, 16, L_AUTO, 3, L_ALL);
	assert_int_equal(parse_lists("nums=7,x,0,,7,99999999999999999999,AUTO"),
			 6);
	expect_items(&lc.nums, 1, 7);
	assert_string_equal(
		diags.msg[0],
		"cmdline: 'nums=7,x,0,,7,99999999999999999999,AUTO':"
		" item 'x': expected a number in 1..512 or "
		"all|auto: skipped");
	assert_non_null(strstr(diags.msg[1], ": item '0': out of range "
					     "1..512: skipped"));
	assert_non_null(strstr(diags.msg[2], "': empty item: skipped"));
	assert_non_null(strstr(diags.msg[3], ": item '7': repeated: skipped"));
	assert_non_null(strstr(diags.msg[4], ": item '99999999999999999999': "
					     "out of range 1..512: skipped"));
	assert_non_null(strstr(diags.msg[5], ": item 'AUTO': expected"));
}

/* Nothing valid: the list is rejected as a whole, as any bad word. */
static void test_list_fallback(void **state)
{
	(void)state;
	assert_int_equal(parse_lists("nums=0,x"), 3);
	expect_items(&lc.nums, 2, 1, 2);
	assert_string_equal(diags.msg[2], "cmdline: 'nums=0,x': no valid item: "
					  "using default '1,2'");
	assert_int_equal(parse_lists("nums=5 nums=,"), 3);
	expect_items(&lc.nums, 1, 5);
	assert_string_equal(diags.msg[2], "cmdline: 'nums=,': no valid item: "
					  "using 'nums=5' (word 1)");
	assert_int_equal(parse_lists("plain=kiwi"), 2);
	assert_int_equal(lc.plain.n, 0);
	assert_string_equal(diags.msg[0], "cmdline: 'plain=kiwi': item "
					  "'kiwi': expected all|apple|pear|"
					  "fig: skipped");
	assert_string_equal(diags.msg[1], "cmdline: 'plain=kiwi': no valid "
					  "item: using the default");
	assert_int_equal(parse_lists("nums="), 1);
	assert_string_equal(diags.msg[0], "cmdline: 'nums=': missing value: "
					  "using default '1,2'");
}

static void test_list_name(void **state)
{
	(void)state;
	assert_int_equal(parse_lists("names=fig,apple plain=pear,all"), 0);
	expect_items(&lc.names, 2, 2, 0);
	/* all after a name: the name first, then the rest in table order. */
	expect_items(&lc.plain, 3, 1, 0, 2);
	assert_int_equal(parse_lists("names=none"), 0);
	assert_int_equal(lc.names.n, 0);
	assert_int_equal(parse_lists("names=none,fig"), 1);
	expect_items(&lc.names, 1, 2);
	assert_string_equal(diags.msg[0], "cmdline: 'names=none,fig': item "
					  "'none': mixed with other names: "
					  "skipped");
	assert_int_equal(parse_lists("names=Fig"), 2);
	assert_string_equal(diags.msg[0], "cmdline: 'names=Fig': item 'Fig': "
					  "expected all|none|apple|pear|fig: "
					  "skipped");
	expect_items(&lc.names, 3, 0, 1, 2);
	/* Without none, none is a name like any other. */
	assert_int_equal(parse_lists("plain=none"), 2);
	assert_non_null(strstr(diags.msg[0], "item 'none': expected all|"));
}

static void test_list_full(void **state)
{
	char line[256] = "nums=";

	(void)state;
	for (int i = 1; i <= 34; i++)
		sprintf(line + strlen(line), "%s%d", i > 1 ? "," : "", i);
	assert_int_equal(parse_lists(line), 1);
	assert_int_equal(lc.nums.n, CMDLINE_LIST_MAX);
	assert_int_equal(lc.nums.v[31], 32);
	assert_string_equal(diags.msg[0],
			    "cmdline: 'nums=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
			    "...': item '33': list full (32 items): skipped "
			    "with the rest");
	/* A repeat costs no room; `all` fills what is left, silently. */
	assert_int_equal(parse_lists("nums=3,3 names=pear,all,all"), 1);
	expect_items(&lc.nums, 1, 3);
	expect_items(&lc.names, 3, 1, 0, 2);
}

/* The longest value, as OPT_CUSTOM's, and the direct entry point. */
static void test_list_length_and_direct(void **state)
{
	char line[200] = "nums=";
	struct cmdline_list l;

	(void)state;
	while (strlen(line) < 5 + 127)
		strcat(line, "1");
	assert_int_equal(parse_lists(line), 2); /* the item, then the list */
	assert_non_null(strstr(diags.msg[0], "out of range"));
	strcat(line, "1");
	assert_int_equal(parse_lists(line), 1);
	assert_non_null(strstr(diags.msg[0], ": longer than 127 bytes: using "
					     "default '1,2'"));
	memset(&l, 0x5a, sizeof(l));
	assert_false(cmdline_parse_list(&list_opts[0], NULL, &l, NULL));
	assert_int_equal(l.n, 0);
	assert_false(cmdline_parse_list(&list_opts[0], "x\x01y", &l, NULL));
	assert_true(cmdline_parse_list(&list_opts[1], "pear", &l, NULL));
	expect_items(&l, 1, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_defaults),
		cmocka_unit_test(test_list_uint),
		cmocka_unit_test(test_list_fallback),
		cmocka_unit_test(test_list_name),
		cmocka_unit_test(test_list_full),
		cmocka_unit_test(test_list_length_and_direct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
