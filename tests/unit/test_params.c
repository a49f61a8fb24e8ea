// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/params.c and bench/options.c (the experiments'
 * parameters, through the real command line: kernel/config.c's parse of
 * both tables, so that the diagnostics are checked as a user sees them).
 * lib/cmdline's list kinds have their own tests in test_cmdline_list.c;
 * here, what the experiments' keys make of them; the two keys with a shape
 * of their own are test_params_shaped.c's.
 */
#include "params_line.h"

static void test_pages_good(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("pages=1,2,8,32,33,64,512", &p, 0);
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	expect_diags("pages=512,1,0x10", &p, 0); /* order kept; hex too */
	expect_list(&p.pages, 3, 512, 1, 16);
	expect_diags("", &p, 0);
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	expect_diags("pages=7", &p, 0);
	expect_list(&p.pages, 1, 7);
}

/* The numbers the plan and refill take are the command line's default. */
static void test_pages_default_as_numbers(void **state)
{
	struct bench_params p;
	uint32_t v[PARAM_LIST_MAX], few[3];

	(void)state;
	expect_diags("", &p, 0);
	assert_int_equal(param_pages_default(v, PARAM_LIST_MAX), p.pages.n);
	for (uint32_t i = 0; i < p.pages.n; i++)
		assert_int_equal(v[i], p.pages.v[i]);
	/* never past max, and the count says how many there are */
	few[2] = 77;
	assert_int_equal(param_pages_default(few, 2), p.pages.n);
	assert_int_equal(few[1], p.pages.v[1]);
	assert_int_equal(few[2], 77);
}

#define PAGES_BAD "'pages=1,x,0,513,8,1,,9999999999999999999...'"

static void test_pages_bad(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("pages=1,x,0,513,8,1,,999999999999999999999999999999,2",
		     &p, 6,
		     "cmdline: " PAGES_BAD ": item 'x': expected a number in "
		     "1..512: skipped",
		     "cmdline: " PAGES_BAD ": item '0': out of range 1..512: "
		     "skipped",
		     "cmdline: " PAGES_BAD ": item '513': out of range "
		     "1..512: skipped",
		     "cmdline: " PAGES_BAD ": item '1': repeated: skipped",
		     "cmdline: " PAGES_BAD ": empty item: skipped",
		     "cmdline: " PAGES_BAD ": item '999999999999999999999999"
		     "...': out of range 1..512: skipped");
	expect_list(&p.pages, 3, 1, 8, 2);
	/* No signs; nothing valid keeps the default, said so. */
	expect_diags("pages=-1,+2", &p, 3,
		     "cmdline: 'pages=-1,+2': item '-1': expected a number in "
		     "1..512: skipped",
		     "cmdline: 'pages=-1,+2': item '+2': expected a number in "
		     "1..512: skipped",
		     "cmdline: 'pages=-1,+2': no valid item: using default "
		     "'1,2,8,32,33,64,512'");
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	/* The value that applies is the later word's, not the default. */
	expect_diags("pages=, pages=3 pages=0", &p, 5,
		     "cmdline: 'pages=,': empty item: skipped",
		     "cmdline: 'pages=,': empty item: skipped",
		     "cmdline: 'pages=,': no valid item: using 'pages=3' "
		     "(word 2)",
		     "cmdline: 'pages=0': item '0': out of range 1..512: "
		     "skipped",
		     "cmdline: 'pages=0': no valid item: using 'pages=3' "
		     "(word 2)");
	expect_list(&p.pages, 1, 3);
}

static void test_pages_too_many(void **state)
{
	char line[512] = "pages=";
	struct bench_params p;

	(void)state;
	for (int i = 1; i <= 40; i++)
		sprintf(line + strlen(line), "%s%d", i > 1 ? "," : "", i);
	expect_diags(line, &p, 1,
		     "cmdline: 'pages=1,2,3,4,5,6,7,8,9,10,11,12,13,14,1...': "
		     "item '33': list full (32 items): skipped with the rest");
	assert_int_equal(p.pages.n, PARAM_LIST_MAX);
	for (uint32_t i = 0; i < PARAM_LIST_MAX; i++)
		assert_int_equal(p.pages.v[i], i + 1);
}

static void test_targets_parse(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("targets=1,2,4,all", &p, 0);
	expect_list(&p.targets, 4, 1, 2, 4, PARAM_TARGETS_ALL);
	expect_diags("", &p, 0);
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
	expect_diags("targets=auto,100,all,65535", &p, 0);
	expect_list(&p.targets, 4, PARAM_TARGETS_AUTO, 100, PARAM_TARGETS_ALL,
		    65535);
	expect_diags("targets=ALL,65536,all,0,all", &p, 4,
		     "cmdline: 'targets=ALL,65536,all,0,all': item 'ALL': "
		     "expected a number in 1..65535 or all|auto: skipped",
		     "cmdline: 'targets=ALL,65536,all,0,all': item '65536': "
		     "out of range 1..65535: skipped",
		     "cmdline: 'targets=ALL,65536,all,0,all': item '0': out "
		     "of range 1..65535: skipped",
		     "cmdline: 'targets=ALL,65536,all,0,all': item 'all': "
		     "repeated: skipped");
	expect_list(&p.targets, 1, PARAM_TARGETS_ALL);
	expect_diags("targets=none", &p, 2,
		     "cmdline: 'targets=none': item 'none': expected a number "
		     "in 1..65535 or all|auto: skipped",
		     "cmdline: 'targets=none': no valid item: using default "
		     "'auto'");
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
}

static void test_targets_default(void **state)
{
	struct cmdline_list l;

	(void)state;
	params_default_targets(0, &l);
	assert_int_equal(l.n, 0);
	params_default_targets(1, &l);
	expect_list(&l, 1, 1);
	params_default_targets(3, &l);
	expect_list(&l, 3, 1, 2, 3);
	params_default_targets(4, &l);
	expect_list(&l, 3, 1, 2, 4);
	params_default_targets(191, &l);
	expect_list(&l, 9, 1, 2, 4, 8, 16, 32, 64, 128, 191);
	params_default_targets(65535, &l);
	assert_int_equal(l.n, 17);
	assert_int_equal(l.v[15], 32768);
	assert_int_equal(l.v[16], 65535);
	/* 33 powers would not fit: the largest count is still there. */
	params_default_targets(UINT32_MAX, &l);
	assert_int_equal(l.n, PARAM_LIST_MAX);
	assert_int_equal(l.v[30], 1u << 30);
	assert_int_equal(l.v[31], UINT32_MAX);
}

static size_t resolve(const char *s, uint32_t responders,
		      struct cmdline_list *out)
{
	struct bench_params p;
	char line[512];

	snprintf(line, sizeof(line), "targets=%s", s);
	assert_int_equal(from_line(line, &p), 0);
	memset(out, 0x5a, sizeof(*out));
	return params_resolve_targets(&p.targets, responders, out, reset());
}

static void test_targets_resolve(void **state)
{
	struct cmdline_list l, empty = {0};

	(void)state;
	assert_int_equal(resolve("auto", 7, &l), 0);
	expect_list(&l, 4, 1, 2, 4, 7);
	assert_int_equal(resolve("1,2,4,all", 3, &l), 1);
	expect_list(&l, 3, 1, 2, 3);
	assert_string_equal(got.msg[0], "cmdline: 'targets=1,2,4,all': item "
					"'4': more than the 3 responders: "
					"using 3");
	assert_int_equal(resolve("8,all,1", 1, &l), 1);
	expect_list(&l, 1, 1);
	assert_string_equal(got.msg[0], "cmdline: 'targets=8,all,1': item "
					"'8': more than the 1 responder: "
					"using 1");
	assert_int_equal(resolve("all,2,auto", 8, &l), 0);
	expect_list(&l, 4, 8, 2, 1, 4);
	assert_int_equal(resolve("5,auto", 16, &l), 0);
	expect_list(&l, 6, 5, 1, 2, 4, 8, 16);
	/* No responders: nothing to run, nothing to say. */
	assert_int_equal(resolve("1,2,all", 0, &l), 0);
	assert_int_equal(l.n, 0);
	/* An empty list (a zeroed struct) is auto. */
	assert_int_equal(params_resolve_targets(&empty, 5, &l, reset()), 0);
	expect_list(&l, 4, 1, 2, 4, 5);
}

static void test_targets_resolve_full(void **state)
{
	char line[512] = "";
	struct cmdline_list l;

	(void)state;
	for (int i = 1; i <= 31; i++)
		sprintf(line + strlen(line), "%d,", 1000 + i);
	strcat(line, "auto");
	assert_int_equal(resolve(line, 65535, &l), 1);
	assert_int_equal(l.n, PARAM_LIST_MAX);
	assert_int_equal(l.v[30], 1031);
	assert_int_equal(l.v[31], 1);
	assert_string_equal(got.msg[0], "cmdline: 'targets=1001,1002,1003,"
					"1004,1005,1006,10...': more than 32 "
					"responder counts: the rest skipped");
}

#define STRATEGIES_EXPECTED                                           \
	"expected all|ipi-page|ipi-range|ipi-full|ipi-linux|invlpgb|" \
	"invlpgb-linux"

static void test_names_good(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("strategies=all", &p, 0);
	expect_list(&p.strategies, 6, 0, 1, 2, 3, 4, 5);
	expect_diags("strategies=invlpgb,ipi-page", &p, 0);
	expect_list(&p.strategies, 2, 4, 0);
	/* A name that begins as another one is its own. */
	expect_diags("strategies=invlpgb-linux,invlpgb", &p, 0);
	expect_list(&p.strategies, 2, 5, 4);
	/* all after a name: the name first, then the rest in table order. */
	expect_diags("strategies=ipi-full,all,all", &p, 0);
	expect_list(&p.strategies, 6, 2, 0, 1, 3, 4, 5);
	expect_diags("bench=none", &p, 0);
	assert_int_equal(p.bench.n, 0);
	expect_diags("bench=flushloop,primitives", &p, 0);
	expect_list(&p.bench, 2, 3, 0);
}

#define STRATEGIES_BAD "'strategies=ipi-fast,ipi-page,,ipi-page,I...'"

/*
 * The longest note a strategies= item can get (the word and the item both
 * quoted at their limits) still ends in what is done: a new strategy's
 * name must not push ": skipped" out of the line (CMDLINE_DIAG_LEN).
 */
static void test_names_bad_longest_fits(void **state)
{
	struct bench_params p;
	char line[256] = "strategies=";

	(void)state;
	for (int i = 0; i < 3; i++) {
		size_t at = strlen(line);

		memset(line + at, 'a' + i, 30); /* past ITEM_SHOW: quoted cut */
		strcpy(line + at + 30, ",");
	}
	strcat(line, "ipi-page");
	assert_int_equal(from_line(line, &p), 3);
	for (size_t i = 0; i < got.n; i++) {
		const char *m = got.msg[i];

		assert_non_null(strstr(m, STRATEGIES_EXPECTED ": skipped"));
		assert_string_equal(m + strlen(m) - strlen(": skipped"),
				    ": skipped");
	}
	expect_list(&p.strategies, 1, 0);
}

static void test_names_bad(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("strategies=ipi-fast,ipi-page,,ipi-page,IPI-FULL", &p, 4,
		     "cmdline: " STRATEGIES_BAD
		     ": item 'ipi-fast': " STRATEGIES_EXPECTED ": skipped",
		     "cmdline: " STRATEGIES_BAD ": empty item: skipped",
		     "cmdline: " STRATEGIES_BAD ": item 'ipi-page': repeated: "
		     "skipped",
		     "cmdline: " STRATEGIES_BAD
		     ": item 'IPI-FULL': " STRATEGIES_EXPECTED ": skipped");
	expect_list(&p.strategies, 1, 0);
	/* Nothing valid: all, said so; none is bench='s alone. */
	expect_diags(
		"strategies=none", &p, 2,
		"cmdline: 'strategies=none': item 'none': " STRATEGIES_EXPECTED
		": skipped",
		"cmdline: 'strategies=none': no valid item: using default "
		"'all'");
	expect_list(&p.strategies, 6, 0, 1, 2, 3, 4, 5);
	expect_diags("bench=none,primitives", &p, 1,
		     "cmdline: 'bench=none,primitives': item 'none': mixed "
		     "with other names: skipped");
	expect_list(&p.bench, 1, 0);
	expect_diags("bench=shootdown,x", &p, 1,
		     "cmdline: 'bench=shootdown,x': item 'x': expected "
		     "all|none|primitives|shootdown|reclaim|flushloop: "
		     "skipped");
	expect_list(&p.bench, 1, 1);
}

static void test_list_format(void **state)
{
	struct cmdline_list l = {
		4, {1, 4096, PARAM_TARGETS_ALL, PARAM_TARGETS_AUTO}};
	struct cmdline_list none = {0};
	char buf[32];

	(void)state;
	assert_int_equal(params_list_format(&l, buf, sizeof(buf)), 15);
	assert_string_equal(buf, "1,4096,all,auto");
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(params_list_format(&l, buf, 5), 15);
	assert_string_equal(buf, "1,40");
	assert_int_equal(buf[5], 'Z');
	assert_int_equal(params_list_format(&l, NULL, 0), 15);
	assert_int_equal(params_list_format(&none, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	l.n = 1;
	l.v[0] = 0;
	params_list_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "0");
}

/* Whether a collected diagnostic holds text. */
static bool any_has(const char *text)
{
	for (size_t i = 0; i < got.n; i++) {
		if (strstr(got.msg[i], text))
			return true;
	}
	return false;
}

static void test_from_config(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("", &p), 0);
	expect_list(&p.bench, 4, 0, 1, 2, 3);
	expect_list(&p.strategies, 6, 0, 1, 2, 3, 4, 5);
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
	assert_int_equal(p.invlpgb.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(p.invlpgb.bug, PARAM_BUG_NONE);
	assert_int_equal(p.samples, 200);
	assert_int_equal(p.warmup, 20);
	assert_int_equal(p.seed, 1);
	assert_int_equal(p.reclaim_mb, 0);
	assert_int_equal(p.hot_mb, 0);
	assert_true(p.writers);
	assert_false(p.raw);
	assert_false(p.delay.on);
	assert_int_equal(p.duration_ms, 100);
	assert_int_equal(p.timeline_ms, 1);
	assert_int_equal(p.budget_s, 12);
	assert_false(p.handler_timing);
	assert_false(p.flushloop_local);
	assert_int_equal(from_line("selftest=flushloop-local", &p), 0);
	assert_true(p.flushloop_local);
	assert_int_equal(from_line("handler_timing=on", &p), 0);
	assert_true(p.handler_timing);
	assert_int_equal(from_line("bench=shootdown strategies=ipi-range,"
				   "invlpgb pages=1,33 targets=2,all "
				   "samples=1000000 warmup=0 "
				   "invlpgb=emulate,bug=count seed=0",
				   &p),
			 0);
	expect_list(&p.bench, 1, 1);
	expect_list(&p.strategies, 2, 1, 4);
	expect_list(&p.pages, 2, 1, 33);
	expect_list(&p.targets, 2, 2, PARAM_TARGETS_ALL);
	assert_int_equal(p.invlpgb.mode, PARAM_INVLPGB_EMULATE);
	assert_int_equal(p.invlpgb.bug, PARAM_BUG_COUNT);
	assert_int_equal(p.samples, 1000000);
	assert_int_equal(p.warmup, 0);
	assert_int_equal(p.seed, 0);
	/* Diagnostics come in the order of the words, in one style. */
	assert_int_equal(from_line("bench=none strategies=x pages=0 "
				   "targets=y invlpgb=z",
				   &p),
			 7);
	assert_int_equal(p.bench.n, 0);
	assert_string_equal(
		got.msg[0],
		"cmdline: 'strategies=x': item 'x': " STRATEGIES_EXPECTED
		": skipped");
	assert_int_equal(p.strategies.n, 6);
	assert_int_equal(p.pages.n, 7);
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
	assert_string_equal(got.msg[6], "cmdline: 'invlpgb=z': mode 'z': "
					"expected auto|off|emulate|force: "
					"using 'auto'");
	assert_int_equal(count_prefix("cmdline: "), 7);
}

/* Every key has help, a default, and the default parses as a word. */
static void test_options_table(void **state)
{
	struct bench_params p;
	char line[256];

	(void)state;
	assert_int_equal(config_nopts + bench_nopts, 27);
	for (size_t i = 0; i < bench_nopts; i++) {
		const struct cmdline_opt *o = &bench_opts[i];

		assert_non_null(o->key);
		assert_non_null(o->help);
		assert_true(strlen(o->help) > 10);
		assert_non_null(o->def);
		assert_ptr_equal(cmdline_find(bench_opts, bench_nopts, o->key,
					      strlen(o->key)),
				 o);
		/* No key in both tables: the kernel's would win. */
		assert_null(cmdline_find(config_opts, config_nopts, o->key,
					 strlen(o->key)));
		snprintf(line, sizeof(line), "%s=%s", o->key, o->def);
		assert_int_equal(from_line(line, &p), 0);
		assert_true(bench_given(&p, o->key));
	}
}

static void test_values(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("exit=reboot bench=shootdown,reclaim "
				   "seed=12345 raw=on "
				   "delay_handler=ipi-range:5",
				   &p),
			 0);
	assert_int_equal(cfg.exit_mode, EXIT_REBOOT);
	expect_list(&p.bench, 2, 1, 2);
	assert_int_equal(p.seed, 12345);
	assert_true(p.raw);
	assert_true(p.delay.on && p.delay.strategy == 1 && p.delay.cycles == 5);
	assert_int_equal(from_line("bench=none seed=18446744073709551615", &p),
			 0);
	assert_int_equal(p.bench.n, 0);
	assert_true(p.seed == UINT64_MAX);
	expect_one("seed=x", "cmdline: 'seed=x': expected a number in "
			     "0..18446744073709551615: using default '1'");
	assert_int_equal(from_line("seed=x", &p), 1);
	assert_int_equal(p.seed, 1);
	/* A QEMU -kernel style line: image path first. */
	assert_int_equal(
		from_line("/boot/shootdown.elf console=com1,115200 "
			  "exit=reboot cpus=4 bench=shootdown seed=7\n",
			  &p),
		0);
	assert_int_equal(cfg.cpus, 4);
	expect_list(&p.bench, 1, 1);
	assert_int_equal(p.seed, 7);
}

/* The numbers' ranges are checked once, by the command line. */
static void test_bench_keys(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("samples=1 warmup=100000", &p), 0);
	assert_int_equal(p.samples, 1);
	assert_int_equal(p.warmup, 100000);
	expect_one("samples=0", "cmdline: 'samples=0': out of range "
				"1..1000000: using default '200'");
	expect_one("samples=1000001", "cmdline: 'samples=1000001': out of "
				      "range 1..1000000: using default '200'");
	expect_one("warmup=100001", "cmdline: 'warmup=100001': out of range "
				    "0..100000: using default '20'");
	expect_one("invlpgb=", "cmdline: 'invlpgb=': missing value: using "
			       "default 'auto'");
	assert_int_equal(from_line("samples=0", &p), 1);
	assert_int_equal(p.samples, 200);
	assert_int_equal(from_line("warmup=100001", &p), 1);
	assert_int_equal(p.warmup, 20);
}

/* A value equal to the default still counts as the user's. */
static void test_given(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("samples=200 budget_s=0 reclaim_mb=x", &p),
			 1);
	assert_true(bench_given(&p, "samples"));
	assert_true(bench_given(&p, "budget_s"));
	assert_int_equal(p.budget_s, 0);
	assert_false(bench_given(&p, "reclaim_mb"));
	assert_false(bench_given(&p, "warmup"));
	assert_false(bench_given(&p, "nosuchkey"));
}

/* 32 pages of 3 digits is the longest useful pages= value. */
static void test_bench_key_lengths(void **state)
{
	struct bench_params p;
	char line[256];

	(void)state;
	strcpy(line, "pages=");
	for (int i = 0; i < 32; i++)
		sprintf(line + strlen(line), "%s%d", i ? "," : "", 481 + i);
	assert_int_equal(strlen(line), 6 + 127);
	assert_int_equal(from_line(line, &p), 0);
	assert_int_equal(p.pages.n, 32);
	strcat(line, "0");
	assert_int_equal(from_line(line, &p), 1);
	assert_non_null(strstr(got.msg[0], "longer than 127 bytes"));
	strcpy(line, "invlpgb=emulate,bug=stride,bug=");
	memset(line + strlen(line), 'x', 8 + 31 - strlen(line));
	line[8 + 31] = '\0';
	from_line(line, &p);
	assert_false(any_has("longer than"));
	strcat(line, "x");
	assert_int_equal(from_line(line, &p), 1);
	assert_non_null(strstr(got.msg[0], "longer than 31 bytes"));
}

static void test_bench_length(void **state)
{
	struct bench_params p;
	char line[160];

	(void)state;
	strcpy(line, "bench=");
	memset(line + 6, 'b', 127);
	line[6 + 127] = '\0';
	from_line(line, &p);
	assert_false(any_has("longer than"));
	strcat(line, "c");
	assert_int_equal(from_line(line, &p), 1);
	assert_non_null(strstr(got.msg[0], "longer than 127 bytes: using "
					   "default 'all'"));
	expect_list(&p.bench, 4, 0, 1, 2, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_good),
		cmocka_unit_test(test_pages_default_as_numbers),
		cmocka_unit_test(test_pages_bad),
		cmocka_unit_test(test_pages_too_many),
		cmocka_unit_test(test_targets_parse),
		cmocka_unit_test(test_targets_default),
		cmocka_unit_test(test_targets_resolve),
		cmocka_unit_test(test_targets_resolve_full),
		cmocka_unit_test(test_names_good),
		cmocka_unit_test(test_names_bad),
		cmocka_unit_test(test_names_bad_longest_fits),
		cmocka_unit_test(test_list_format),
		cmocka_unit_test(test_from_config),
		cmocka_unit_test(test_options_table),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bench_keys),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_bench_key_lengths),
		cmocka_unit_test(test_bench_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
