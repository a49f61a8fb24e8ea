// SPDX-License-Identifier: MIT
/* Host tests of lib/cmdline.c against a table with every option kind. */
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
static bool parse_colour(const char *val, void *dst, char *why, size_t whylen)
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
static size_t parse(const char *line)
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
static void expect_one(const char *line, const char *msg)
{
	assert_int_equal(parse(line), 1);
	assert_string_equal(diags.msg[0], msg);
}

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
	/* 20 long words need four lines, each saying what applies. */
	assert_int_equal(lines, 6); /* 6 of the long words fit a line */
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
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_parse_notes),
		cmocka_unit_test(test_list_defaults),
		cmocka_unit_test(test_list_uint),
		cmocka_unit_test(test_list_fallback),
		cmocka_unit_test(test_list_name),
		cmocka_unit_test(test_list_full),
		cmocka_unit_test(test_list_length_and_direct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
