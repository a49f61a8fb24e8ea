// SPDX-License-Identifier: MIT
/* Host tests of kernel/config.c: the harness's keys through the parser. */
#include <stdio.h>
#include "unit.h"
#include "kernel/config.h"

static struct config cfg;
static struct cmdline_diags diags;

static size_t parse(const char *line)
{
	size_t n;

	memset(&cfg, 0x5a, sizeof(cfg));
	n = config_parse(line, &cfg, &diags);
	for (size_t i = 0; i < diags.count; i++)
		assert_printable(diags.msg[i], CMDLINE_DIAG_LEN);
	return n;
}

static void expect_one(const char *line, const char *msg)
{
	assert_int_equal(parse(line), 1);
	assert_string_equal(diags.msg[0], msg);
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(cfg.console.port, 0x3f8);
	assert_int_equal(cfg.console.baud, 115200);
	assert_int_equal(cfg.exit_mode, EXIT_HALT);
	assert_string_equal(cfg.bench, "all");
	assert_int_equal(cfg.inject, INJECT_NONE);
	assert_false(cfg.help);
	assert_int_equal(cfg.cpus, 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_AUTO);
	assert_int_equal(cfg.idle, IDLE_AUTO);
	assert_int_equal(cfg.seed, 1);
	assert_string_equal(cfg.pages, "1,2,8,32,33,64,512");
	assert_string_equal(cfg.targets, "auto");
	assert_string_equal(cfg.strategies, "all");
	assert_int_equal(cfg.samples, 200);
	assert_int_equal(cfg.warmup, 20);
	assert_string_equal(cfg.invlpgb, "auto");
	assert_int_equal(cfg.reclaim_mb, 0);
	assert_int_equal(cfg.hot_mb, 0);
	assert_true(cfg.writers);
	assert_false(cfg.handler_timing);
	assert_false(cfg.raw);
	assert_int_equal(cfg.output, OUTPUT_BOTH);
	assert_string_equal(cfg.delay_handler, "none");
	assert_int_equal(cfg.duration_ms, 100);
	assert_int_equal(cfg.budget_s, 12);
}

/* Every key has help, a default, and the default parses as a word. */
static void test_table(void **state)
{
	char line[256];

	(void)state;
	assert_int_equal(config_nopts, 24);
	for (size_t i = 0; i < config_nopts; i++) {
		const struct cmdline_opt *o = &config_opts[i];

		assert_non_null(o->key);
		assert_non_null(o->help);
		assert_true(strlen(o->help) > 10);
		assert_non_null(o->def);
		assert_ptr_equal(cmdline_find(config_opts, config_nopts, o->key,
					      strlen(o->key)),
				 o);
		snprintf(line, sizeof(line), "%s=%s", o->key, o->def);
		assert_int_equal(parse(line), 0);
	}
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(parse("exit=reboot bench=shootdown,reclaim "
			       "selftest=fault help cpus=0x10 seed=12345"),
			 0);
	assert_int_equal(cfg.exit_mode, EXIT_REBOOT);
	assert_string_equal(cfg.bench, "shootdown,reclaim");
	assert_int_equal(cfg.inject, INJECT_FAULT);
	assert_true(cfg.help);
	assert_int_equal(cfg.cpus, 16);
	assert_int_equal(cfg.seed, 12345);
	assert_int_equal(parse("selftest=fail exit=halt bench=none cpus=65535 "
			       "seed=18446744073709551615 help=off"),
			 0);
	assert_int_equal(cfg.inject, INJECT_FAIL);
	assert_int_equal(cfg.exit_mode, EXIT_HALT);
	assert_string_equal(cfg.bench, "none");
	assert_int_equal(cfg.cpus, 65535);
	assert_true(cfg.seed == UINT64_MAX);
	assert_false(cfg.help);
	assert_int_equal(parse("selftest=tsc-skew"), 0);
	assert_int_equal(cfg.inject, INJECT_TSC_SKEW);
	assert_int_equal(parse("selftest=invlpgb-local"), 0);
	assert_int_equal(cfg.inject, INJECT_INVLPGB_LOCAL);
	assert_int_equal(parse("selftest=flushloop-local"), 0);
	assert_int_equal(cfg.inject, INJECT_FLUSHLOOP_LOCAL);
	assert_int_equal(parse("selftest=none"), 0);
	assert_int_equal(cfg.inject, INJECT_NONE);
	assert_int_equal(parse("init_wait=on"), 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_ON);
	assert_int_equal(parse("init_wait=off"), 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_OFF);
	assert_int_equal(parse("output=human raw=on delay_handler=ipi-range:5"),
			 0);
	assert_int_equal(cfg.output, OUTPUT_HUMAN);
	assert_true(cfg.raw);
	assert_string_equal(cfg.delay_handler, "ipi-range:5");
	assert_int_equal(parse("output=json"), 0);
	assert_int_equal(cfg.output, OUTPUT_JSON);
	assert_int_equal(parse("output=text"), 1);
	assert_int_equal(cfg.output, OUTPUT_BOTH);
	assert_int_equal(parse("init_wait=off init_wait=auto"), 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_AUTO);
	assert_int_equal(parse("idle=poll"), 0);
	assert_int_equal(cfg.idle, IDLE_POLL);
	assert_int_equal(parse("idle=hlt"), 0);
	assert_int_equal(cfg.idle, IDLE_HLT);
	assert_int_equal(parse("idle=mwait"), 0);
	assert_int_equal(cfg.idle, IDLE_MWAIT);
	assert_int_equal(parse("idle=hlt idle=auto"), 0);
	assert_int_equal(cfg.idle, IDLE_AUTO);
	assert_true(config_given(&cfg, "idle"));
}

/* The experiments' keys: kept as text here, parsed by bench/params.c. */
static void test_bench_keys(void **state)
{
	(void)state;
	assert_int_equal(parse("pages=512,1 targets=1,2,all "
			       "strategies=ipi-page,invlpgb samples=1000000 "
			       "warmup=0 invlpgb=emulate,bug=count"),
			 0);
	assert_string_equal(cfg.pages, "512,1");
	assert_string_equal(cfg.targets, "1,2,all");
	assert_string_equal(cfg.strategies, "ipi-page,invlpgb");
	assert_int_equal(cfg.samples, 1000000);
	assert_int_equal(cfg.warmup, 0);
	assert_string_equal(cfg.invlpgb, "emulate,bug=count");
	assert_int_equal(parse("samples=1 warmup=100000"), 0);
	assert_int_equal(cfg.samples, 1);
	assert_int_equal(cfg.warmup, 100000);
	expect_one("samples=0", "cmdline: 'samples=0': out of range "
				"1..1000000: using default '200'");
	assert_int_equal(cfg.samples, 200);
	expect_one("samples=1000001", "cmdline: 'samples=1000001': out of "
				      "range 1..1000000: using default '200'");
	expect_one("warmup=100001", "cmdline: 'warmup=100001': out of range "
				    "0..100000: using default '20'");
	assert_int_equal(cfg.warmup, 20);
	expect_one("invlpgb=", "cmdline: 'invlpgb=': missing value: using "
			       "default 'auto'");
}

/* A value equal to the default still counts as the user's. */
static void test_given(void **state)
{
	(void)state;
	assert_int_equal(parse("samples=200 budget_s=0 reclaim_mb=x"), 1);
	assert_true(config_given(&cfg, "samples"));
	assert_true(config_given(&cfg, "budget_s"));
	assert_int_equal(cfg.budget_s, 0);
	assert_false(config_given(&cfg, "reclaim_mb"));
	assert_false(config_given(&cfg, "warmup"));
}

/* 32 pages of 4 digits is the longest useful pages= value. */
static void test_bench_key_lengths(void **state)
{
	char line[256];

	(void)state;
	strcpy(line, "pages=");
	for (int i = 0; i < 32; i++)
		strcat(line, i ? ",4096" : "4096");
	assert_int_equal(strlen(line), 6 + 159);
	assert_int_equal(parse(line), 0);
	assert_int_equal(strlen(cfg.pages), 159);
	strcat(line, "0");
	assert_int_equal(parse(line), 1);
	assert_non_null(strstr(diags.msg[0], "longer than 159 bytes"));
	strcpy(line, "invlpgb=emulate,bug=stride,bug=");
	memset(line + strlen(line), 'x', 8 + 31 - strlen(line));
	line[8 + 31] = '\0';
	assert_int_equal(parse(line), 0);
	assert_int_equal(strlen(cfg.invlpgb), 31);
	strcat(line, "x");
	assert_int_equal(parse(line), 1);
	assert_non_null(strstr(diags.msg[0], "longer than 31 bytes"));
}

static void expect_console(const char *val, uint16_t port, uint32_t baud)
{
	struct console_cfg c = {1, 2};
	char why[64] = "";

	assert_true(config_parse_console(val, &c, why, sizeof(why)));
	assert_int_equal(c.port, port);
	assert_int_equal(c.baud, baud);
	assert_string_equal(why, "");
}

static void test_console_good(void **state)
{
	(void)state;
	expect_console("com1", 0x3f8, 115200);
	expect_console("com2", 0x2f8, 115200);
	expect_console("com3", 0x3e8, 115200);
	expect_console("com4", 0x2e8, 115200);
	expect_console("0x2f8", 0x2f8, 115200);
	expect_console("0X1", 0x1, 115200);
	expect_console("0xfff8", 0xfff8, 115200);
	expect_console("com2,9600", 0x2f8, 9600);
	expect_console("0x3f8,38400", 0x3f8, 38400);
	expect_console("com1,115200", 0x3f8, 115200);
	expect_console("com1,1", 0x3f8, 1);
	expect_console("com1,57600", 0x3f8, 57600);
	expect_console("com1,7200", 0x3f8, 7200);
	assert_int_equal(parse("console=com3,19200"), 0);
	assert_int_equal(cfg.console.port, 0x3e8);
	assert_int_equal(cfg.console.baud, 19200);
}

static void expect_bad_console(const char *val, const char *why_want)
{
	struct console_cfg c = {0x1234, 777};
	char why[64] = "";

	assert_false(config_parse_console(val, &c, why, sizeof(why)));
	assert_string_equal(why, why_want);
	/* A rejected value leaves the field alone. */
	assert_int_equal(c.port, 0x1234);
	assert_int_equal(c.baud, 777);
}

static void test_console_bad(void **state)
{
	static const char form[] = "expected com1..com4 or 0xPORT[,baud]";
	static const char port[] = "port must be 0x1..0xfff8";
	static const char baud[] = "baud must divide 115200 (e.g. 9600, "
				   "38400, 115200)";

	(void)state;
	expect_bad_console("", form);
	expect_bad_console("com0", form);
	expect_bad_console("com5", form);
	expect_bad_console("com12", form);
	expect_bad_console("COM1", form);
	expect_bad_console("ttyS0", form);
	expect_bad_console("1016", form);
	expect_bad_console("0x", form);
	expect_bad_console("0x3g8", form);
	expect_bad_console(",9600", form);
	expect_bad_console("0x0", port);
	expect_bad_console("0xfff9", port);
	expect_bad_console("0x10000", port);
	expect_bad_console("0x100000000000000000", port);
	expect_bad_console("com1,", "expected a baud rate after ','");
	expect_bad_console("com1,fast", "expected a baud rate after ','");
	expect_bad_console("com1,9600,8n1", "expected a baud rate after ','");
	expect_bad_console("com1,0", baud);
	expect_bad_console("com1,7", baud);
	expect_bad_console("com1,1000", baud);
	expect_bad_console("com1,115201", baud);
	expect_bad_console("com1,230400", baud);
	expect_bad_console("com1,99999999999999999999", baud);
}

static void test_console_why_is_bounded(void **state)
{
	char why[8];
	struct console_cfg c;

	(void)state;
	memset(why, 'Z', sizeof(why));
	assert_false(config_parse_console("com9", &c, why, 5));
	assert_string_equal(why, "expe");
	assert_int_equal(why[5], 'Z');
	/* No room for a reason at all is allowed too. */
	assert_false(config_parse_console("com9", &c, NULL, 0));
}

/* The examples of cmdline.h, word for word. */
static void test_header_examples(void **state)
{
	(void)state;
	expect_one("nosuchkey=1", "cmdline: unknown key 'nosuchkey' in "
				  "'nosuchkey=1': ignored");
	expect_one("exit=foo", "cmdline: 'exit=foo': expected halt|reboot: "
			       "using default 'halt'");
	assert_int_equal(cfg.exit_mode, EXIT_HALT);
	expect_one("exit=reboot help ab\x01",
		   "cmdline: word 3 has a non-printable byte 0x01 ('ab\\x01'): "
		   "ignored");
}

static void test_diagnostics(void **state)
{
	(void)state;
	expect_one("console=com5", "cmdline: 'console=com5': expected "
				   "com1..com4 or 0xPORT[,baud]: using default "
				   "'com1'");
	assert_int_equal(cfg.console.port, 0x3f8);
	expect_one("console=com2 console=com1,7",
		   "cmdline: 'console=com1,7': baud must divide 115200 (e.g. "
		   "9600, 38400, 115200): kept previous value");
	assert_int_equal(cfg.console.port, 0x2f8);
	assert_int_equal(cfg.console.baud, 115200);
	expect_one("cpus=65536", "cmdline: 'cpus=65536': out of range "
				 "0..65535: using default '0'");
	expect_one("seed=x", "cmdline: 'seed=x': expected a number in "
			     "0..18446744073709551615: using default '1'");
	expect_one("selftest=crash",
		   "cmdline: 'selftest=crash': expected "
		   "none|fault|fail|fault-ap|tsc-skew|invlpgb-local|"
		   "flushloop-local: using default 'none'");
	expect_one("init_wait=10", "cmdline: 'init_wait=10': expected "
				   "auto|on|off: using default 'auto'");
	expect_one("idle=spin", "cmdline: 'idle=spin': expected "
				"auto|poll|hlt|mwait: using default 'auto'");
	expect_one("idle=HLT", "cmdline: 'idle=HLT': expected "
			       "auto|poll|hlt|mwait: using default 'auto'");
	expect_one("help=3", "cmdline: 'help=3': expected "
			     "1|0|yes|no|on|off|true|false: using default "
			     "'off'");
	expect_one("exit", "cmdline: 'exit': missing value: using default "
			   "'halt'");
	expect_one("exit=", "cmdline: 'exit=': missing value: using default "
			    "'halt'");
	expect_one("=5", "cmdline: empty key in '=5': ignored");
}

static void test_bench_length(void **state)
{
	char line[160];

	(void)state;
	strcpy(line, "bench=");
	memset(line + 6, 'b', 127);
	line[6 + 127] = '\0';
	assert_int_equal(parse(line), 0);
	assert_int_equal(strlen(cfg.bench), 127);
	strcat(line, "c");
	assert_int_equal(parse(line), 1);
	assert_non_null(strstr(diags.msg[0], "longer than 127 bytes: using "
					     "default 'all'"));
	assert_string_equal(cfg.bench, "all");
}

/* A QEMU -kernel style line: image path first, then the arguments. */
static void test_realistic_line(void **state)
{
	(void)state;
	assert_int_equal(parse("/boot/shootdown.elf console=com1,115200 "
			       "exit=reboot cpus=4 bench=selftest seed=7\n"),
			 0);
	assert_int_equal(cfg.console.port, 0x3f8);
	assert_int_equal(cfg.exit_mode, EXIT_REBOOT);
	assert_int_equal(cfg.cpus, 4);
	assert_string_equal(cfg.bench, "selftest");
	assert_int_equal(cfg.seed, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bench_keys),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_bench_key_lengths),
		cmocka_unit_test(test_console_good),
		cmocka_unit_test(test_console_bad),
		cmocka_unit_test(test_console_why_is_bounded),
		cmocka_unit_test(test_header_examples),
		cmocka_unit_test(test_diagnostics),
		cmocka_unit_test(test_bench_length),
		cmocka_unit_test(test_realistic_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
