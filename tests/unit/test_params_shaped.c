// SPDX-License-Identifier: MIT
/*
 * Host tests of the two parameters with a shape of their own
 * (bench/params.c): delay_handler=STRATEGY:CYCLES and
 * invlpgb=MODE[,bug=KIND], through the command line as a user gives them.
 */
#include "params_line.h"

static struct param_delay delay(const char *s, size_t ndiag)
{
	struct bench_params p;
	char line[128];

	snprintf(line, sizeof(line), "delay_handler=%s", s);
	assert_int_equal(from_line(line, &p), ndiag);
	assert_int_equal(got.n, ndiag);
	return p.delay;
}

static void test_delay(void **state)
{
	struct param_delay d;
	struct bench_params p;

	(void)state;
	d = delay("ipi-range:5000", 0);
	assert_true(d.on);
	assert_int_equal(d.strategy, 1);
	assert_int_equal(d.cycles, 5000);
	d = delay("invlpgb:0x10", 0);
	assert_true(d.on && d.strategy == 4 && d.cycles == 16);
	d = delay("ipi-page:1000000000", 0);
	assert_true(d.on && d.cycles == PARAM_DELAY_MAX);
	assert_false(delay("none", 0).on);
	assert_false(delay("ipi-range", 1).on);
	assert_string_equal(got.msg[0], "cmdline: 'delay_handler=ipi-range': "
					"expected none or STRATEGY:CYCLES: "
					"using default 'none'");
	assert_false(delay("ipi-fast:10", 1).on);
	assert_string_equal(got.msg[0],
			    "cmdline: 'delay_handler=ipi-fast:10': strategy "
			    "'ipi-fast': expected ipi-page|ipi-range|ipi-full|"
			    "ipi-linux|invlpgb|invlpgb-linux: using default "
			    "'none'");
	assert_false(delay("ipi-range:0", 1).on);
	assert_string_equal(got.msg[0],
			    "cmdline: 'delay_handler=ipi-range:0': cycles '0': "
			    "expected a number in 1..1000000000: using default "
			    "'none'");
	assert_false(delay("ipi-range:1000000001", 1).on);
	assert_false(delay("ipi-range:", 1).on);
	assert_false(delay("ipi-range:12x", 1).on);
	assert_false(delay(":12", 1).on);
	/* Rejected as a whole, as any word: an earlier one stays. */
	expect_diags("delay_handler=ipi-full:9 delay_handler=x", &p, 1,
		     "cmdline: 'delay_handler=x': expected none or "
		     "STRATEGY:CYCLES: using 'delay_handler=ipi-full:9' "
		     "(word 1)");
	assert_true(p.delay.on && p.delay.strategy == 2 && p.delay.cycles == 9);
}

static struct param_invlpgb invlpgb(const char *s, size_t ndiag)
{
	struct param_invlpgb v;

	memset(&v, 0x5a, sizeof(v));
	assert_int_equal(params_parse_invlpgb(s, &v, reset()), ndiag);
	return v;
}

static void test_invlpgb(void **state)
{
	struct param_invlpgb v;

	(void)state;
	v = invlpgb("auto", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	v = invlpgb("", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(invlpgb("off", 0).mode, PARAM_INVLPGB_OFF);
	assert_int_equal(invlpgb("force", 0).mode, PARAM_INVLPGB_FORCE);
	v = invlpgb("emulate,bug=count", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_EMULATE);
	assert_int_equal(v.bug, PARAM_BUG_COUNT);
	v = invlpgb("auto,bug=stride", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_STRIDE);
	v = invlpgb("emulate,bug=no-tlbsync", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_EMULATE);
	assert_int_equal(v.bug, PARAM_BUG_NO_TLBSYNC);
	v = invlpgb("emulate,bug=no-global", 0);
	assert_int_equal(v.bug, PARAM_BUG_NO_GLOBAL);
	v = invlpgb("auto,bug=pcid", 0);
	assert_int_equal(v.bug, PARAM_BUG_PCID);
	v = invlpgb("emulate,bug=count,bug=none", 0);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	assert_string_equal(params_invlpgb_mode_name(PARAM_INVLPGB_EMULATE),
			    "emulate");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_STRIDE),
			    "stride");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_NO_TLBSYNC),
			    "no-tlbsync");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_NO_GLOBAL),
			    "no-global");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_PCID), "pcid");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_PCID + 1), "?");
	assert_string_equal(params_invlpgb_mode_name(99), "?");
	assert_string_equal(params_invlpgb_bug_name(-1), "?");
}

static void test_invlpgb_bad(void **state)
{
	struct param_invlpgb v;

	(void)state;
	v = invlpgb("emulated,bug=counts,bugs=count,", 4);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	/* Notes without the word: lib/cmdline puts it in front. */
	assert_string_equal(got.msg[0], "mode 'emulated': expected "
					"auto|off|emulate|force: using 'auto'");
	assert_string_equal(got.msg[1],
			    "bug 'counts': expected none|count|stride|"
			    "no-tlbsync|no-global|pcid: using 'none'");
	assert_string_equal(got.msg[2],
			    "item 'bugs=count': expected bug=none|count|stride|"
			    "no-tlbsync|no-global|pcid: skipped");
	assert_string_equal(got.msg[3],
			    "item '': expected bug=none|count|stride|"
			    "no-tlbsync|no-global|pcid: skipped");
	v = invlpgb("off,bug=count", 1);
	assert_int_equal(v.mode, PARAM_INVLPGB_OFF);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	assert_string_equal(got.msg[0],
			    "bug=count: no effect with 'off': ignored");
	v = invlpgb("force,bug=", 1);
	assert_int_equal(v.mode, PARAM_INVLPGB_FORCE);
	assert_string_equal(got.msg[0], "bug '': expected none|count|stride|"
					"no-tlbsync|no-global|pcid: using "
					"'none'");
	v = invlpgb(",bug=stride", 1);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_STRIDE);
	/* As a user sees them. */
	expect_diags("invlpgb=off,bug=count", &(struct bench_params){0}, 1,
		     "cmdline: 'invlpgb=off,bug=count': bug=count: no effect "
		     "with 'off': ignored");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay),
		cmocka_unit_test(test_invlpgb),
		cmocka_unit_test(test_invlpgb_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
