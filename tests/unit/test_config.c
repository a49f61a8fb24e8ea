// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/config.c: the kernel's keys through the parser
 * (the experiments' keys, parsed in the same call, are test_params.c's).
 */
#include <stdio.h>
#include "unit.h"
#include "kernel/config.h"

static struct config cfg;
static struct cmdline_diags diags;

static size_t parse(const char *line)
{
	size_t n;

	memset(&cfg, 0x5a, sizeof(cfg));
	n = config_parse(line, &cfg, NULL, 0, &diags);
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
	assert_int_equal(cfg.inject, INJECT_NONE);
	assert_false(cfg.help);
	assert_int_equal(cfg.cpus, 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_AUTO);
	assert_int_equal(cfg.idle, IDLE_AUTO);
	assert_int_equal(cfg.output, OUTPUT_BOTH);
}

/* Every key has help, a default, and the default parses as a word. */
static void test_table(void **state)
{
	char line[256];

	(void)state;
	/* With bench/options.c's 17: test_params.c checks all 27. */
	assert_int_equal(config_nopts, 10);
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
	assert_int_equal(parse("exit=reboot selftest=fault help cpus=0x10"), 0);
	assert_int_equal(cfg.exit_mode, EXIT_REBOOT);
	assert_int_equal(cfg.inject, INJECT_FAULT);
	assert_true(cfg.help);
	assert_int_equal(cfg.cpus, 16);
	assert_int_equal(parse("selftest=fail exit=halt cpus=65535 help=off"),
			 0);
	assert_int_equal(cfg.inject, INJECT_FAIL);
	assert_int_equal(cfg.exit_mode, EXIT_HALT);
	assert_int_equal(cfg.cpus, 65535);
	assert_false(cfg.help);
	assert_int_equal(parse("selftest=tsc-skew"), 0);
	assert_int_equal(cfg.inject, INJECT_TSC_SKEW);
	assert_int_equal(parse("selftest=invlpgb-local"), 0);
	assert_int_equal(cfg.inject, INJECT_INVLPGB_LOCAL);
	assert_int_equal(parse("selftest=flushloop-local"), 0);
	assert_int_equal(cfg.inject, INJECT_FLUSHLOOP_LOCAL);
	assert_int_equal(parse("selftest=hang-ap"), 0);
	assert_int_equal(cfg.inject, INJECT_HANG_AP);
	assert_int_equal(parse("selftest=slow-ap"), 0);
	assert_int_equal(cfg.inject, INJECT_SLOW_AP);
	assert_int_equal(parse("selftest=nmi"), 0);
	assert_int_equal(cfg.inject, INJECT_NMI);
	assert_int_equal(parse("selftest=oom"), 0);
	assert_int_equal(cfg.inject, INJECT_OOM);
	assert_int_equal(parse("selftest=none"), 0);
	assert_int_equal(cfg.inject, INJECT_NONE);
	assert_int_equal(parse("init_wait=on"), 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_ON);
	assert_int_equal(parse("init_wait=off"), 0);
	assert_int_equal(cfg.init_wait, INIT_WAIT_OFF);
	assert_int_equal(parse("output=human"), 0);
	assert_int_equal(cfg.output, OUTPUT_HUMAN);
	assert_int_equal(parse("output=json"), 0);
	assert_int_equal(cfg.output, OUTPUT_JSON);
	assert_int_equal(parse("output=text"), 1);
	assert_int_equal(cfg.output, OUTPUT_BOTH);
	/* A repeated key: the later wins, and the earlier is named. */
	assert_int_equal(parse("init_wait=off init_wait=auto"), 1);
	assert_int_equal(cfg.init_wait, INIT_WAIT_AUTO);
	assert_string_equal(diags.msg[0], "cmdline: 'init_wait=off': "
					  "overridden: using 'init_wait=auto' "
					  "(word 2)");
	/* cpus=99999 is not "using default '0'" when cpus=3 applies. */
	assert_int_equal(parse("cpus=99999 cpus=3"), 1);
	assert_int_equal(cfg.cpus, 3);
	assert_string_equal(diags.msg[0], "cmdline: 'cpus=99999': out of "
					  "range 0..65535: using 'cpus=3' "
					  "(word 2)");
	assert_int_equal(parse("idle=poll"), 0);
	assert_int_equal(cfg.idle, IDLE_POLL);
	assert_int_equal(parse("idle=hlt"), 0);
	assert_int_equal(cfg.idle, IDLE_HLT);
	assert_int_equal(parse("idle=mwait"), 0);
	assert_int_equal(cfg.idle, IDLE_MWAIT);
	assert_int_equal(parse("idle=hlt idle=auto"), 1); /* the first named */
	assert_int_equal(cfg.idle, IDLE_AUTO);
	assert_true(config_given(&cfg, "idle"));
}

/* A value equal to the default still counts as the user's. */
static void test_given(void **state)
{
	(void)state;
	assert_int_equal(parse("cpus=0 exit=halt idle=x"), 1);
	assert_true(config_given(&cfg, "cpus"));
	assert_true(config_given(&cfg, "exit"));
	assert_int_equal(cfg.cpus, 0);
	assert_false(config_given(&cfg, "idle"));
	assert_false(config_given(&cfg, "output"));
	/* Not a kernel key: the experiments' table has it (test_params.c). */
	assert_int_equal(parse("samples=200"), 1);
	assert_string_equal(diags.msg[0], "cmdline: unknown key 'samples' in "
					  "'samples=200': ignored");
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
	/* 0x1 was taken once; below 0x100 nothing is a UART (test below). */
	expect_console("0X100", 0x100, 115200);
	expect_console("0xe000", 0xe000, 115200); /* a PCI card's BAR */
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
	static const char port[] = "port must be 0x100..0xfff8";
	static const char low[] = "ports below 0x100 are the chipset's, not "
				  "a UART";
	static const char odd[] = "a 16550's port is a multiple of 8 (it has "
				  "8 registers)";
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
	/* The probe writes: ports that cannot be a UART are not tried. */
	expect_bad_console("0x0", low);
	expect_bad_console("0xf0", low); /* the FPU's; QEMU's debug exit */
	expect_bad_console("0x82", low); /* DMA page registers: hold bytes */
	expect_bad_console("0xf8", low);
	expect_bad_console("0x2f9", odd);
	expect_bad_console("0x3fc", odd);
	expect_bad_console("0xcf8", "port is PCI configuration, not a UART");
	expect_bad_console("0x1f0", "port is the primary IDE channel, not a "
				    "UART");
	expect_bad_console("0x3d0", "port is VGA, not a UART");
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
		   "9600, 38400, 115200): using 'console=com2' (word 1)");
	assert_int_equal(cfg.console.port, 0x2f8);
	assert_int_equal(cfg.console.baud, 115200);
	expect_one("cpus=65536", "cmdline: 'cpus=65536': out of range "
				 "0..65535: using default '0'");
	expect_one("selftest=crash",
		   "cmdline: 'selftest=crash': expected "
		   "none|fault|fail|fault-ap|tsc-skew|invlpgb-local|"
		   "flushloop-local|hang-ap|slow-ap|nmi|oom|fault-all: using "
		   "default "
		   "'none'");
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

/* A QEMU -kernel style line: image path first, then the arguments. */
static void test_realistic_line(void **state)
{
	(void)state;
	assert_int_equal(parse("/boot/shootdown.elf console=com1,115200 "
			       "exit=reboot cpus=4 idle=hlt\n"),
			 0);
	assert_int_equal(cfg.console.port, 0x3f8);
	assert_int_equal(cfg.exit_mode, EXIT_REBOOT);
	assert_int_equal(cfg.cpus, 4);
	assert_int_equal(cfg.idle, IDLE_HLT);
}

/* fault_at=: SITE:N, seed, and what is refused; the default is xcall:20. */
static void test_fault_at(void **state)
{
	struct fault_at at;
	char why[160];

	(void)state;
	assert_true(fault_at_parse(FAULT_AT_DEFAULT, &at, why, sizeof(why)));
	assert_int_equal(at.site, STOP_XCALL);
	assert_int_equal(at.nth, 20);
	assert_false(at.seeded);
	assert_true(fault_at_parse("pt-lock:3", &at, why, sizeof(why)));
	assert_int_equal(at.site, STOP_PT_LOCK);
	assert_int_equal(at.nth, 3);
	assert_true(fault_at_parse("any:1000000", &at, why, sizeof(why)));
	assert_int_equal(at.site, STOP_ANY);
	assert_true(fault_at_parse("seed", &at, why, sizeof(why)));
	assert_true(at.seeded);
	for (unsigned s = 0; s <= STOP_ANY; s++)
		assert_string_not_equal(stop_site_name(s), "?");
	at = (struct fault_at){.site = STOP_CONSOLE_LOCK, .nth = 2};
	assert_false(fault_at_parse("pt-lock", &at, why, sizeof(why)));
	assert_false(fault_at_parse("pt-lock:0", &at, why, sizeof(why)));
	assert_false(fault_at_parse("pt-lock:1000001", &at, why, sizeof(why)));
	assert_false(fault_at_parse("pt:3", &at, why, sizeof(why)));
	assert_non_null(strstr(why, "SITE:N"));
	assert_false(fault_at_parse("xcall:2x", &at, why, sizeof(why)));
	/* A refused value leaves the field as it was. */
	assert_int_equal(at.site, STOP_CONSOLE_LOCK);
	assert_int_equal(at.nth, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_console_good),
		cmocka_unit_test(test_console_bad),
		cmocka_unit_test(test_console_why_is_bounded),
		cmocka_unit_test(test_header_examples),
		cmocka_unit_test(test_diagnostics),
		cmocka_unit_test(test_realistic_line),
		cmocka_unit_test(test_fault_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
