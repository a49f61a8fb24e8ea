// SPDX-License-Identifier: MIT
/* Host tests of bench/table.c: exact lines, and 79 columns at most. */
#include "unit.h"
#include "bench/table.h"

#define MAX_LINES 32

static struct {
	size_t n;
	char line[MAX_LINES][128];
} out;

static void collect(void *ctx, const char *line)
{
	size_t len = strlen(line);

	assert_ptr_equal(ctx, &out);
	assert_true(len <= TABLE_WIDTH);
	assert_printable(line, TABLE_WIDTH + 1);
	if (len)
		assert_true(line[len - 1] != ' '); /* no trailing spaces */
	assert_true(out.n < MAX_LINES);
	strcpy(out.line[out.n++], line);
}

static void reset(void)
{
	memset(&out, 0, sizeof(out));
}

static const char results_header[] =
	"strategy        mode  pages targets   p50 ns   p99 ns   p50 cyc"
	"   p99 cyc stale";
static const char results_rule[] =
	"--------------- ----- ----- ------- -------- -------- ---------"
	" --------- -----";

static void expect_num(uint64_t v, size_t width, const char *want)
{
	char buf[32];

	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(table_format_num(v, width, buf), width);
	assert_string_equal(buf, want);
}

static void test_format_num(void **state)
{
	(void)state;
	expect_num(0, 4, "   0");
	expect_num(9999, 4, "9999");
	expect_num(10000, 4, " 10k");
	expect_num(999999, 4, "999k");
	expect_num(1000000, 4, "1.0M");
	expect_num(1999999, 4, "1.9M"); /* toward zero, never 2.0M */
	expect_num(1234567, 5, "1234k");
	expect_num(1234567, 4, "1.2M");
	expect_num(1234567, 7, "1234567");
	expect_num(123456789, 4, "123M");
	expect_num(123456789, 6, "123.4M");
	expect_num(UINT64_MAX, 4, " 18E");
	expect_num(UINT64_MAX, 5, "18.4E");
	expect_num(UINT64_MAX, 20, "18446744073709551615");
	expect_num(UINT64_MAX, 22, "  18446744073709551615");
	expect_num(UINT64_MAX, 19, " 18446744073709551k");
	expect_num(999999999999999999ull, 4, "999P");
	expect_num(1000000000000000000ull, 4, "1.0E");
	/* Below the minimum width some values cannot be shown. */
	expect_num(5, 1, "5");
	expect_num(1000, 3, " 1k");
	expect_num(100, 2, "##");
	expect_num(123456789, 3, "###");
}

static void test_results_rows(void **state)
{
	struct stats a = {.samples = 200, .p50 = 4212, .p99 = 6630};
	struct stats b = {.samples = 200, .p50 = 123456789, .p99 = 7};
	struct table t;

	(void)state;
	reset();
	assert_int_equal(
		table_results_begin(&t, "shootdown: 4 cpus", collect, &out), 0);
	table_result_row(&t, &(struct table_result){
				     .strategy = "ipi-page",
				     .ipi_mode = "each",
				     .pages = 1,
				     .targets = 1,
				     .cycles = &a,
				     .tsc_khz = 3000000,
				     .stale_reads = 0,
			     });
	table_result_row(&t, &(struct table_result){
				     .strategy = "invlpgb",
				     .pages = 512,
				     .targets = 3,
				     .cycles = &b,
				     .tsc_khz = 0,
				     .stale_reads = 12,
				     .emulated = true,
			     });
	table_result_row(&t, &(struct table_result){
				     .strategy = "ipi-range",
				     .ipi_mode = "bcast",
				     .pages = 33,
				     .targets = 2,
			     });
	table_end(&t);
	assert_int_equal(out.n, 7);
	assert_string_equal(out.line[0], "shootdown: 4 cpus");
	assert_string_equal(out.line[1], results_header);
	assert_string_equal(out.line[2], results_rule);
	assert_string_equal(out.line[3],
			    "ipi-page        each      1       1     1404     "
			    "2210      4212      6630     0");
	/* No TSC frequency: no ns; no ipi_mode: "-". */
	assert_string_equal(out.line[4],
			    "invlpgb*        -       512       3        -     "
			    "   - 123456789         7    12");
	/* No samples at all. */
	assert_string_equal(out.line[5],
			    "ipi-range       bcast    33       2        -     "
			    "   -         -         -     0");
	assert_string_equal(out.line[6], "* emulated: INVLPGB software model, "
					 "the timings mean nothing");
	assert_int_equal(t.rows, 3);
	/* The note comes once, and only after an emulated row. */
	table_end(&t);
	assert_int_equal(out.n, 7);
}

/* The results layout, as the columns are declared, without the code. */
static void expect_row(const char *line, const char *strategy, const char *mode,
		       const char *pages, const char *targets,
		       const char *p50ns, const char *p99ns, const char *p50cyc,
		       const char *p99cyc, const char *stale)
{
	char want[128];

	snprintf(want, sizeof(want), "%-15s %-5s %5s %7s %8s %8s %9s %9s %5s",
		 strategy, mode, pages, targets, p50ns, p99ns, p50cyc, p99cyc,
		 stale);
	assert_string_equal(line, want);
}

static void test_extremes(void **state)
{
	struct stats m = {.samples = UINT64_MAX,
			  .min = UINT64_MAX,
			  .p50 = UINT64_MAX,
			  .p90 = UINT64_MAX,
			  .p99 = UINT64_MAX,
			  .max = UINT64_MAX,
			  .mean = UINT64_MAX};
	char title[200];
	struct table t;

	(void)state;
	reset();
	memset(title, 'T', sizeof(title) - 1);
	title[sizeof(title) - 1] = '\0';
	assert_int_equal(table_results_begin(&t, title, collect, &out), 0);
	table_result_row(&t, &(struct table_result){
				     .strategy = "a-very-long-strategy-name",
				     .ipi_mode = "all-but-self-shorthand",
				     .pages = UINT64_MAX,
				     .targets = UINT64_MAX,
				     .cycles = &m,
				     .tsc_khz = 1,
				     .stale_reads = UINT64_MAX,
				     .emulated = true,
			     });
	table_result_row(&t, &(struct table_result){
				     .strategy = "a-very-long-strategy-name",
				     .cycles = &m,
				     .tsc_khz = UINT64_MAX,
			     });
	assert_int_equal(out.n, 5);
	assert_int_equal(strlen(out.line[0]), TABLE_WIDTH);
	assert_int_equal(out.line[0][TABLE_WIDTH - 1], '~');
	/* Each column abbreviates as far as its own width needs. */
	expect_row(out.line[3], "a-very-long-s~*", "all-~", "18.4E", "18446P",
		   "18446.7P", "18446.7P", "18446744T", "18446744T", "18.4E");
	/* UINT64_MAX cycles at UINT64_MAX kHz is 1 ms. */
	expect_row(out.line[4], "a-very-long-st~", "-", "0", "0", "1000000",
		   "1000000", "18446744T", "18446744T", "0");
}

/* Every shootdown strategy's name whole: none cut into another's. */
static void test_strategy_names_whole(void **state)
{
	static const char *const names[] = {"ipi-full-global", "invlpgb-global",
					    "invlpgb-linux"};
	static const char *const want[] = {
		"ipi-full-global ", "invlpgb-global* ", "invlpgb-linux*  "};
	struct table t;

	(void)state;
	reset();
	table_results_begin(&t, "t", collect, &out);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		table_result_row(&t, &(struct table_result){
					     .strategy = names[i],
					     .ipi_mode = i ? NULL : "bcast",
					     .emulated = i != 0,
				     });
	assert_int_equal(out.n, 6);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_memory_equal(out.line[3 + i], want[i], strlen(want[i]));
	assert_memory_equal(out.line[3] + 16, "bcast ", 6);
}

static void test_generic_table(void **state)
{
	static const struct table_col cols[] = {
		{"name", 6, TABLE_TEXT},
		{"a-long-header", 4, TABLE_NUM},
		{"t", 1, TABLE_TEXT},
	};
	struct table t;

	(void)state;
	reset();
	assert_int_equal(table_begin(&t, NULL, cols, 3, collect, &out), 0);
	table_row(&t, (struct table_cell[]){{.text = "ab\tc\x7f"},
					    {.num = 42},
					    {.text = "xy"}});
	table_row(&t, (struct table_cell[]){
			      {.text = NULL}, {.none = true}, {.text = ""}});
	table_note(&t, "note");
	table_note(&t, NULL);
	assert_int_equal(out.n, 7);
	assert_string_equal(out.line[0], "");
	assert_string_equal(out.line[1], "name   a-l~ t");
	assert_string_equal(out.line[2], "------ ---- -");
	assert_string_equal(out.line[3], "ab?c?    42 ~");
	assert_string_equal(out.line[4], "-         -");
	assert_string_equal(out.line[5], "note");
	assert_string_equal(out.line[6], "");
}

/* Layouts that cannot be shown as asked are fixed up and reported. */
static void test_bad_layouts(void **state)
{
	static const struct table_col wide[] = {
		{"a", 40, TABLE_TEXT},
		{"b", 38, TABLE_NUM}, /* 40 + 1 + 38 = 79: fits */
		{"c", 1, TABLE_TEXT}, /* would make 81 */
	};
	static const struct table_col narrow[] = {
		{"n", 1, TABLE_NUM},
		{"m", 0, TABLE_TEXT},
	};
	struct table_col many[TABLE_MAX_COLS + 2];
	struct table t;

	(void)state;
	reset();
	assert_int_equal(table_begin(&t, "w", wide, 3, collect, &out), -1);
	assert_int_equal(t.nshow, 2);
	table_row(&t, (struct table_cell[]){{.text = "x"},
					    {.num = UINT64_MAX},
					    {.text = "y"}});
	assert_int_equal(strlen(out.line[2]), TABLE_WIDTH);
	assert_int_equal(strlen(out.line[3]), TABLE_WIDTH);
	reset();
	assert_int_equal(table_begin(&t, "n", narrow, 2, collect, &out), -1);
	assert_int_equal(t.width[0], TABLE_NUM_MIN);
	table_row(&t, (struct table_cell[]){{.num = 123456789}, {.text = "q"}});
	assert_string_equal(out.line[1], "   n");
	assert_string_equal(out.line[2], "----");
	assert_string_equal(out.line[3], "123M");
	for (size_t i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (struct table_col){"c", 2, TABLE_TEXT};
	reset();
	assert_int_equal(
		table_begin(&t, "m", many, ARRAY_SIZE(many), collect, &out),
		-1);
	assert_int_equal(t.nshow, TABLE_MAX_COLS);
	/* No writer: nothing to call, nothing breaks. */
	assert_int_equal(table_begin(&t, "x", narrow, 1, NULL, NULL), -1);
	table_row(&t, (struct table_cell[]){{.num = 1}});
	table_note(&t, "x");
	table_end(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_num),
		cmocka_unit_test(test_results_rows),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_strategy_names_whole),
		cmocka_unit_test(test_generic_table),
		cmocka_unit_test(test_bad_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
