// SPDX-License-Identifier: MIT
/*
 * Host tests of lib/cmdline.c against a table with every option kind
 * (tests/unit/cmdline_table.h).
 */
#include "cmdline_table.h"

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL), 0);
	assert_false(cfg.flag);
	assert_int_equal(cfg.num, 10);
	assert_int_equal(cfg.big, 0);
	assert_int_equal(cfg.nodef, 3); /* no default: the minimum */
	assert_int_equal(cfg.choice, 1);
	assert_string_equal(cfg.str, "abc");
	assert_string_equal(cfg.text, "");
	assert_int_equal(cfg.colour, 1);
}

static void test_empty_lines(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(parse(" \t\r\n "), 0);
	assert_int_equal(cfg.num, 10);
	/* NULL diags: still counted. */
	assert_int_equal(
		cmdline_parse("x y", opts, ARRAY_SIZE(opts), &cfg, NULL), 2);
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(parse("flag num=0x64 big=18446744073709551615 "
			       "choice=two str=1234567 colour=blue\ttext=t"),
			 0);
	assert_true(cfg.flag);
	assert_int_equal(cfg.num, 100);
	assert_true(cfg.big == UINT64_MAX);
	assert_int_equal(cfg.choice, 2);
	assert_string_equal(cfg.str, "1234567");
	assert_int_equal(cfg.colour, 2);
	assert_string_equal(cfg.text, "t");
	assert_int_equal(parse("num=5\nchoice=zero nodef=9"), 0);
	assert_int_equal(cfg.num, 5);
	assert_int_equal(cfg.choice, 0);
	assert_int_equal(cfg.nodef, 9);
}

static void test_flag_values(void **state)
{
	static const char *const on[] = {"1", "yes", "on", "true"};
	static const char *const off[] = {"0", "no", "off", "false"};
	char line[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(on); i++) {
		snprintf(line, sizeof(line), "flag=%s", on[i]);
		assert_int_equal(parse(line), 0);
		assert_true(cfg.flag);
		/* The earlier word is named: its value does not apply. */
		snprintf(line, sizeof(line), "flag flag=%s", off[i]);
		assert_int_equal(parse(line), 1);
		assert_false(cfg.flag);
		assert_non_null(strstr(diags.msg[0],
				       "cmdline: 'flag': "
				       "overridden: using 'flag="));
	}
	expect_one("flag=3",
		   "cmdline: 'flag=3': expected "
		   "1|0|yes|no|on|off|true|false: using default 'off'");
	assert_false(cfg.flag);
	expect_one("flag=YES", "cmdline: 'flag=YES': expected "
			       "1|0|yes|no|on|off|true|false: using default "
			       "'off'");
	expect_one("flag=", "cmdline: 'flag=': missing value: using default "
			    "'off'");
	expect_one("flag flag=2", "cmdline: 'flag=2': expected "
				  "1|0|yes|no|on|off|true|false: using 'flag' "
				  "(word 1)");
	assert_true(cfg.flag);
}

static void test_uint_errors(void **state)
{
	(void)state;
	expect_one("num=4", "cmdline: 'num=4': out of range 5..100: using "
			    "default '10'");
	assert_int_equal(cfg.num, 10);
	expect_one("num=101", "cmdline: 'num=101': out of range 5..100: using "
			      "default '10'");
	expect_one("num=0x65", "cmdline: 'num=0x65': out of range 5..100: "
			       "using default '10'");
	expect_one("num=abc", "cmdline: 'num=abc': expected a number in "
			      "5..100: using default '10'");
	expect_one("num=-7", "cmdline: 'num=-7': expected a number in 5..100: "
			     "using default '10'");
	expect_one("big=18446744073709551616",
		   "cmdline: 'big=18446744073709551616': out of range "
		   "0..18446744073709551615: using default '0'");
	expect_one("big=0x10000000000000000",
		   "cmdline: 'big=0x10000000000000000': out of range "
		   "0..18446744073709551615: using default '0'");
	assert_int_equal(cfg.big, 0);
	expect_one("num=50 num=500", "cmdline: 'num=500': out of range "
				     "5..100: using 'num=50' (word 1)");
	assert_int_equal(cfg.num, 50);
	expect_one("nodef=1", "cmdline: 'nodef=1': out of range 3..9: using "
			      "the default");
}

static void test_choice_string_custom_errors(void **state)
{
	(void)state;
	expect_one("choice=three", "cmdline: 'choice=three': expected "
				   "zero|one|two: using default 'one'");
	assert_int_equal(cfg.choice, 1);
	expect_one("str=12345678", "cmdline: 'str=12345678': longer than 7 "
				   "bytes: using default 'abc'");
	assert_string_equal(cfg.str, "abc");
	expect_one("colour=green", "cmdline: 'colour=green': expected "
				   "red|blue: using default 'red'");
	assert_int_equal(cfg.colour, 1);
	expect_one("colour=blue colour=quiet",
		   "cmdline: 'colour=quiet': invalid value: using "
		   "'colour=blue' (word 1)");
	assert_int_equal(cfg.colour, 2);
}

static void test_missing_value(void **state)
{
	(void)state;
	expect_one("num", "cmdline: 'num': missing value: using default '10'");
	expect_one("num=", "cmdline: 'num=': missing value: using default "
			   "'10'");
	expect_one("str=", "cmdline: 'str=': missing value: using default "
			   "'abc'");
	assert_string_equal(cfg.str, "abc");
	expect_one("choice", "cmdline: 'choice': missing value: using default "
			     "'one'");
}

static void test_bad_keys(void **state)
{
	(void)state;
	expect_one("nosuchkey=1", "cmdline: unknown key 'nosuchkey' in "
				  "'nosuchkey=1': ignored");
	expect_one("nosuchkey", "cmdline: unknown key 'nosuchkey' in "
				"'nosuchkey': ignored");
	expect_one("=5", "cmdline: empty key in '=5': ignored");
	expect_one("=", "cmdline: empty key in '=': ignored");
	/* Keys match whole: prefixes and extensions are unknown. */
	expect_one("fl", "cmdline: unknown key 'fl' in 'fl': ignored");
	expect_one("flags", "cmdline: unknown key 'flags' in 'flags': ignored");
	expect_one("FLAG", "cmdline: unknown key 'FLAG' in 'FLAG': ignored");
	assert_int_equal(parse("fla=1 flag"), 0);
	assert_int_equal(cfg.big, 1);
	assert_true(cfg.flag);
	/* '=' in the value belongs to the value. */
	assert_int_equal(parse("str=a=b"), 0);
	assert_string_equal(cfg.str, "a=b");
}

static void test_image_path(void **state)
{
	(void)state;
	assert_int_equal(parse("/boot/shootdown.elf num=7"), 0);
	assert_int_equal(cfg.num, 7);
	assert_int_equal(parse("  (hd0,msdos1)/k\x01\x02 num=8"), 0);
	assert_int_equal(cfg.num, 8);
	/* QEMU -kernel passes a relative path as given. */
	assert_int_equal(parse("build/shootdown.elf num=12"), 0);
	assert_int_equal(cfg.num, 12);
	assert_int_equal(parse("shootdown.elf\tnum=13"), 0);
	assert_int_equal(cfg.num, 13);
	/* A first word without '/' or '.' is an argument like any other. */
	expect_one("kernel num=14", "cmdline: unknown key 'kernel' in "
				    "'kernel': ignored");
	assert_int_equal(cfg.num, 14);
	expect_one("a.b=1", "cmdline: unknown key 'a.b' in 'a.b=1': ignored");
	/* Only the first word can be the image path. */
	expect_one("num=9 /boot/k", "cmdline: unknown key '/boot/k' in "
				    "'/boot/k': ignored");
	assert_int_equal(cfg.num, 9);
	expect_one("num=9 k.elf", "cmdline: unknown key 'k.elf' in 'k.elf': "
				  "ignored");
}

static void test_word_numbers_and_bytes(void **state)
{
	(void)state;
	expect_one("flag num=6 ab\x01",
		   "cmdline: word 3 has a non-printable byte 0x01 ('ab\\x01'): "
		   "ignored");
	/* The image path is not counted. */
	expect_one("/kernel flag num=6 ab\x01",
		   "cmdline: word 3 has a non-printable byte 0x01 ('ab\\x01'): "
		   "ignored");
	expect_one("num=\xff"
		   "7",
		   "cmdline: word 1 has a non-printable byte "
		   "0xff ('num=\\xff7'): ignored, using default '10'");
	assert_int_equal(cfg.num, 10);
	expect_one("str=a\x7f", "cmdline: word 1 has a non-printable byte 0x7f "
				"('str=a\\x7f'): ignored, using default "
				"'abc'");
	expect_one("a\x1b[2J", "cmdline: word 1 has a non-printable byte 0x1b "
			       "('a\\x1b[2J'): ignored");
}

static void test_word_length(void **state)
{
	char line[CMDLINE_WORD_MAX + 32];
	size_t n;

	(void)state;
	/* Exactly CMDLINE_WORD_MAX bytes: accepted. */
	strcpy(line, "text=");
	n = strlen(line);
	memset(line + n, 'x', CMDLINE_WORD_MAX - n);
	line[CMDLINE_WORD_MAX] = '\0';
	assert_int_equal(parse(line), 0);
	assert_int_equal(strlen(cfg.text), CMDLINE_WORD_MAX - n);
	/* One more: the whole word is rejected, shown shortened. */
	strcat(line, "y num=11");
	/* Its key is known: what applies for it is said (no default). */
	expect_one(line, "cmdline: word 1 is longer than 256 bytes "
			 "('text=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'): "
			 "ignored, using the default");
	assert_string_equal(cfg.text, "");
	assert_int_equal(cfg.num, 11);
}

static void test_later_wins(void **state)
{
	(void)state;
	/* Never silently: each overridden word names the one that applies. */
	assert_int_equal(parse("num=6 choice=two num=7 choice=zero"), 2);
	assert_int_equal(cfg.num, 7);
	assert_int_equal(cfg.choice, 0);
	assert_string_equal(diags.msg[0], "cmdline: 'num=6': overridden: "
					  "using 'num=7' (word 3)");
	assert_string_equal(diags.msg[1], "cmdline: 'choice=two': overridden: "
					  "using 'choice=zero' (word 4)");
	/* A rejected word names the value that applies, even a later one. */
	assert_int_equal(parse("num=500 num=8"), 1);
	assert_int_equal(cfg.num, 8);
	assert_string_equal(diags.msg[0], "cmdline: 'num=500': out of range "
					  "5..100: using 'num=8' (word 2)");
	/* Three: the first two are overridden by the third. */
	assert_int_equal(parse("num=6 num=500 num=7 num=9"), 3);
	assert_string_equal(diags.msg[1], "cmdline: 'num=500': out of range "
					  "5..100: using 'num=9' (word 4)");
	assert_string_equal(diags.msg[2], "cmdline: 'num=7': overridden: "
					  "using 'num=9' (word 4)");
}

/* Only keys that took a valid value count as given. */
static void test_given(void **state)
{
	const size_t n = ARRAY_SIZE(opts);

	(void)state;
	parse("num=5 choice=nine flag str=toolongvalue");
	assert_true(cmdline_given(diags.given, opts, n, "num"));
	assert_true(cmdline_given(diags.given, opts, n, "flag"));
	assert_false(
		cmdline_given(diags.given, opts, n, "choice"));	  /* rejected */
	assert_false(cmdline_given(diags.given, opts, n, "str")); /* too long */
	assert_false(cmdline_given(diags.given, opts, n, "big")); /* absent */
	assert_false(
		cmdline_given(diags.given, opts, n, "fl")); /* no such key */
	assert_false(cmdline_given(diags.given, opts, n, "nosuchkey"));
	parse("");
	assert_false(cmdline_given(diags.given, opts, n, "num"));
}

/* Past the limit: groups by what applies, folded, every word named. */
static void test_fold(void **state)
{
	struct cmdline_fold_pos pos = {0, 0};
	char line[2048] = "", out[CMDLINE_DIAG_LEN], w[32];
	char all[4096] = "";
	size_t lines = 0;

	(void)state;
	for (int i = 0; i < CMDLINE_DIAG_MAX; i++) {
		snprintf(w, sizeof(w), "x%d ", i);
		strcat(line, w);
	}
	for (int i = 0; i < 20; i++) {
		snprintf(w, sizeof(w), "long%02d=aaaaaaaa ", i);
		strcat(line, w);
	}
	strcat(line, "num=500 num=600 y");
	assert_int_equal(parse(line), CMDLINE_DIAG_MAX + 23);
	assert_int_equal(diags.folded, 23);
	while (cmdline_fold_next(&diags, &pos, out, sizeof(out))) {
		assert_true(strlen(out) < sizeof(out) - 1);
		assert_printable(out, sizeof(out));
		strcat(all, out);
		strcat(all, "\n");
		lines++;
	}
	/*
	 * The 20 long words take as many lines as a line's room after the
	 * group's header holds them (each "'long00=aaaaaaaa' ", 18 bytes),
	 * each line saying what applies; then the num= and y lines.
	 */
	{
		size_t head = strlen("cmdline: more (unknown key: ignored): ");
		size_t per_line = (CMDLINE_DIAG_LEN - 1 - head + 1) / 18;

		assert_true(per_line >= 2 && per_line < 20);
		assert_int_equal(lines, (20 + per_line - 1) / per_line + 2);
	}
	assert_non_null(strstr(all, "cmdline: more (unknown key: ignored): "
				    "'long00=aaaaaaaa' 'long01=aaaaaaaa'"));
	assert_non_null(strstr(all, "\ncmdline: more (unknown key: ignored): "
				    "'long"));
	assert_non_null(strstr(all, "'long19=aaaaaaaa'\n"));
	assert_non_null(strstr(all, "\ncmdline: more (using default '10'): "
				    "'num=500' 'num=600'\n"));
	assert_non_null(strstr(all, "\ncmdline: more (unknown key: ignored): "
				    "'y'\n"));
	for (int i = 0; i < 20; i++) {
		snprintf(w, sizeof(w), "'long%02d=aaaaaaaa'", i);
		assert_non_null(strstr(all, w));
		assert_null(strstr(strstr(all, w) + 1, w)); /* once */
	}
}

static void test_diag_limit(void **state)
{
	char line[512] = "";

	(void)state;
	for (int i = 0; i < CMDLINE_DIAG_MAX + 5; i++) {
		char w[16];

		snprintf(w, sizeof(w), "bad%d ", i);
		strcat(line, w);
	}
	assert_int_equal(parse(line), CMDLINE_DIAG_MAX + 5);
	assert_int_equal(diags.count, CMDLINE_DIAG_MAX);
	/* The rest are still named, folded: none only counted. */
	assert_int_equal(diags.folded, 5);
	assert_int_equal(diags.dropped, 0);
	{
		struct cmdline_fold_pos pos = {0, 0};
		char out[CMDLINE_DIAG_LEN];

		/* One kind of problem: its words in one group. */
		assert_true(cmdline_fold_next(&diags, &pos, out, sizeof(out)));
		assert_string_equal(out, "cmdline: more (unknown key: "
					 "ignored): 'bad16' 'bad17' 'bad18' "
					 "'bad19' 'bad20'");
		assert_false(cmdline_fold_next(&diags, &pos, out, sizeof(out)));
	}
	/* The next parse starts afresh. */
	assert_int_equal(parse("num=6"), 0);
	assert_int_equal(diags.count, 0);
	assert_int_equal(diags.folded, 0);
	assert_int_equal(diags.dropped, 0);
}

/* Long words and defaults are shortened so that the message stays whole. */
static void test_long_messages(void **state)
{
	char line[CMDLINE_WORD_MAX + 1];

	(void)state;
	memset(line, '\x01', CMDLINE_WORD_MAX);
	line[CMDLINE_WORD_MAX] = '\0';
	assert_int_equal(parse(line), 1);
	assert_non_null(strstr(diags.msg[0], "\\x01\\x01...'): ignored"));
	memset(line, 'k', CMDLINE_WORD_MAX);
	assert_int_equal(parse(line), 1);
	assert_non_null(strstr(diags.msg[0], "kkk...' in 'kkk"));
	assert_non_null(strstr(diags.msg[0], "kkk...': ignored"));
}

/* The parser must stop at the NUL: ASan catches a read past the buffer. */
static void test_no_read_past_nul(void **state)
{
	static const char *const lines[] = {"",	 " ",	  "num=6", "num",
					    "=", "flag ", "/x",	   "a\x01"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		size_t n = strlen(lines[i]) + 1;
		char *exact = malloc(n);

		memcpy(exact, lines[i], n);
		parse(exact);
		free(exact);
	}
	assert_int_equal(parse("num=6"), 0);
}

static void test_find(void **state)
{
	(void)state;
	assert_ptr_equal(cmdline_find(opts, ARRAY_SIZE(opts), "num", 3),
			 &opts[1]);
	assert_ptr_equal(cmdline_find(opts, ARRAY_SIZE(opts), "num=5", 3),
			 &opts[1]);
	assert_ptr_equal(cmdline_find(opts, ARRAY_SIZE(opts), "flag", 3),
			 &opts[8]);
	assert_ptr_equal(cmdline_find(opts, ARRAY_SIZE(opts), "flag", 4),
			 &opts[0]);
	assert_null(cmdline_find(opts, ARRAY_SIZE(opts), "nu", 2));
	assert_null(cmdline_find(opts, ARRAY_SIZE(opts), "numb", 4));
	assert_null(cmdline_find(opts, ARRAY_SIZE(opts), "", 0));
	assert_null(cmdline_find(opts, 0, "num", 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_empty_lines),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_flag_values),
		cmocka_unit_test(test_uint_errors),
		cmocka_unit_test(test_choice_string_custom_errors),
		cmocka_unit_test(test_missing_value),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_image_path),
		cmocka_unit_test(test_word_numbers_and_bytes),
		cmocka_unit_test(test_word_length),
		cmocka_unit_test(test_later_wins),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_diag_limit),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_long_messages),
		cmocka_unit_test(test_no_read_past_nul),
		cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
