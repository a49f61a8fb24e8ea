// SPDX-License-Identifier: MIT
/* The verdict/record layer: exact lines, counters, seq, status, overflow. */
#include "unit.h"
#include "kernel/report.h"

static char out[16384];
static size_t out_len;
static unsigned lines;

static void capture(const char *head, const char *body, size_t n)
{
	size_t h = strlen(head);

	assert_true(out_len + h + n + 1 < sizeof(out));
	memcpy(out + out_len, head, h);
	memcpy(out + out_len + h, body, n);
	out_len += h + n;
	out[out_len++] = '\n';
	out[out_len] = '\0';
	lines++;
}

/* report.c keeps its state in statics: each test gets a fresh copy. */
#include "kernel/report.c"

static int setup(void **state)
{
	(void)state;
	memset(&rep, 0, sizeof(rep));
	out_len = 0;
	out[0] = '\0';
	lines = 0;
	report_init(capture);
	return 0;
}

/* The verdicts counted so far are passed, failed and skipped. */
static void assert_counts(unsigned passed, unsigned failed, unsigned skipped)
{
	struct report_counts c = report_get_counts();

	assert_int_equal(c.passed, passed);
	assert_int_equal(c.failed, failed);
	assert_int_equal(c.skipped, skipped);
}

static void test_verdict_lines(void **state)
{
	(void)state;
	report_pass("boot: %s", "magic");
	report_fail("smp: bringup: cpu 3", "no answer after %d ms", 100);
	report_skip("smp: x2apic", "CPUID.1:ECX[21] is clear");
	report_info("hello %d", 7);
	assert_string_equal(out,
			    "PASS: boot: magic\n"
			    "FAIL: smp: bringup: cpu 3 -- no answer after "
			    "100 ms\n"
			    "SKIP: smp: x2apic -- CPUID.1:ECX[21] is clear\n"
			    "INFO: hello 7\n");
	assert_counts(1, 1, 1);
}

static void test_check(void **state)
{
	(void)state;
	assert_true(report_check(true, "a", "never %d", 1));
	assert_false(report_check(false, "b", "saw %d", 2));
	assert_string_equal(out, "PASS: a\nFAIL: b -- saw 2\n");
}

/*
 * The name-format variants: one format, name then REPORT_DETAIL then the
 * why, the same lines as the plain calls; a passing check prints the
 * name alone, its why's arguments read but not printed, and a why may
 * hold the marker itself.
 */
static void test_name_formats(void **state)
{
	(void)state;
	report_failf("reclaim: %s %u: encoding" REPORT_DETAIL "refused %d",
		     "batch", 512u, 3);
	report_skipf("%s: invlpgb" REPORT_DETAIL "turned off", "reclaim");
	assert_true(report_checkf(
		true, "smp: idle %s: wakes" REPORT_DETAIL "%u late -- %s",
		"hlt", 0u, "never"));
	assert_false(report_checkf(
		false, "smp: idle %s: wakes" REPORT_DETAIL "%u late -- %s",
		"poll", 2u, "after 100 ms"));
	report_checkf(true, "no why at all: %d", 1);
	assert_string_equal(out, "FAIL: reclaim: batch 512: encoding -- "
				 "refused 3\n"
				 "SKIP: reclaim: invlpgb -- turned off\n"
				 "PASS: smp: idle hlt: wakes\n"
				 "FAIL: smp: idle poll: wakes -- 2 late -- "
				 "after 100 ms\n"
				 "PASS: no why at all: 1\n");
	assert_counts(2, 2, 1);
}

/* A PASS may carry what was measured; the name stays the same. */
static void test_pass_detail(void **state)
{
	(void)state;
	report_pass_detail("tsc: frequency", "%d kHz from %s", 2445436, "hpet");
	assert_string_equal(out, "PASS: tsc: frequency -- 2445436 kHz from "
				 "hpet\n");
	assert_int_equal(report_get_counts().passed, 1);
}

static void test_status(void **state)
{
	(void)state;
	assert_int_equal(report_status(), STATUS_PASS);
	report_skip("s", "why");
	assert_int_equal(report_status(), STATUS_ALL_SKIPPED);
	report_pass("p");
	assert_int_equal(report_status(), STATUS_PASS);
	report_fail("f", "why");
	assert_int_equal(report_status(), STATUS_FAIL);
}

static void test_records_and_summary(void **state)
{
	struct record r;
	char buf[256];

	(void)state;
	record_begin(&r, buf, sizeof(buf), "env");
	json_u64(&r.j, "schema", 1);
	record_end(&r);
	report_pass("x");
	report_fail("y", "z");
	assert_int_equal(report_summary(), STATUS_FAIL);
	assert_string_equal(
		out, "@json {\"type\":\"env\",\"seq\":0,\"schema\":1}\n"
		     "PASS: x\n"
		     "FAIL: y -- z\n"
		     "@json {\"type\":\"summary\",\"seq\":1,\"passed\":1,"
		     "\"failed\":1,\"skipped\":0,\"records\":1}\n"
		     "SUMMARY: 2 tests, 1 unexpected failures, 0 "
		     "skipped\n");
}

/* output=human: verdicts, INFO and SUMMARY lines, no record at all. */
static void test_records_off(void **state)
{
	struct record r;
	char buf[256];

	(void)state;
	report_records(false);
	record_begin(&r, buf, sizeof(buf), "env");
	record_end(&r);
	report_info("i");
	report_pass("x");
	assert_int_equal(report_summary(), STATUS_PASS);
	assert_string_equal(out, "INFO: i\n"
				 "PASS: x\n"
				 "SUMMARY: 1 tests, 0 unexpected failures, 0 "
				 "skipped\n");
	report_records(true);
	record_begin(&r, buf, sizeof(buf), "x");
	record_end(&r);
	assert_non_null(strstr(out, "@json {\"type\":\"x\",\"seq\":2}"));
}

/* The experiments' one extra summary field, after the counts. */
static void test_summary_field(void **state)
{
	(void)state;
	report_summary_x100("ratio", 112);
	report_pass("x");
	assert_int_equal(report_summary(), STATUS_PASS);
	assert_string_equal(out, "PASS: x\n"
				 "@json {\"type\":\"summary\",\"seq\":0,"
				 "\"passed\":1,\"failed\":0,\"skipped\":0,"
				 "\"records\":0,\"ratio\":1.12}\n"
				 "SUMMARY: 1 tests, 0 unexpected failures, 0 "
				 "skipped\n");
}

/* A record too big for its buffer keeps its seq and becomes a FAIL. */
static void test_record_overflow(void **state)
{
	struct record r;
	char buf[40];

	(void)state;
	record_begin(&r, buf, sizeof(buf), "result");
	json_str(&r.j, "strategy", "a string far too long for forty bytes");
	record_end(&r);
	record_begin(&r, buf, sizeof(buf), "x");
	record_end(&r);
	assert_string_equal(out,
			    "FAIL: report: record -- record 0 did not fit in "
			    "its 40-byte buffer\n"
			    "@json {\"type\":\"error\",\"seq\":0,\"error\":"
			    "\"record overflow\",\"cap\":40}\n"
			    "@json {\"type\":\"x\",\"seq\":1}\n");
	assert_int_equal(report_get_counts().failed, 1);
}

/* Over-long lines are cut and marked, never split or overrun. */
static void test_long_line(void **state)
{
	char name[2 * REPORT_LINE_MAX];

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	report_pass("%s", name);
	assert_int_equal(lines, 1);
	assert_true(out_len <= REPORT_LINE_MAX + 1);
	assert_memory_equal(out + out_len - 4, "...\n", 4);
}

/* The rule: a bad result FAILs; none PASSes only after the control. */
static void test_gate(void **state)
{
	(void)state;
	assert_int_equal(report_gate(1, true), REPORT_FAIL);
	assert_int_equal(report_gate(3, false), REPORT_FAIL);
	assert_int_equal(report_gate(0, true), REPORT_PASS);
	assert_int_equal(report_gate(0, false), REPORT_SKIP);
}

/* A control that showed the fault: the checks it decides can pass. */
static void test_control_shown(void **state)
{
	struct report_control c;

	(void)state;
	report_control_init(&c, "x: negative control");
	report_control_shown(&c, "%d stale reads", 5);
	assert_true(c.shown);
	assert_int_equal(report_gated(&c, 0, "stale reads", NULL, "x: %s", "a"),
			 REPORT_PASS);
	assert_int_equal(report_gated(&c, 2, "stale reads", NULL, "x: b"),
			 REPORT_FAIL);
	assert_int_equal(
		report_gated(&c, 1, "stale reads", "cpu 3 read it", "x: c"),
		REPORT_FAIL);
	assert_string_equal(out, "PASS: x: negative control -- 5 stale reads\n"
				 "PASS: x: a\n"
				 "FAIL: x: b -- 2 stale reads\n"
				 "FAIL: x: c -- cpu 3 read it\n");
}

/*
 * A control that missed: its checks SKIP in one wording, quoting what the
 * control itself said (a partial control is not "none either").
 */
static void test_control_missed(void **state)
{
	struct report_control c;

	(void)state;
	report_control_init(&c, "r: negative control");
	report_control_missed(&c, "lost %d writes, but of only %d of %d", 16, 2,
			      3);
	assert_false(c.shown);
	assert_int_equal(report_gated(&c, 0, "lost writes", NULL, "r: %s %u",
				      "batch", 31u),
			 REPORT_SKIP);
	assert_int_equal(report_gated(&c, 4, "lost writes", NULL, "r: b"),
			 REPORT_FAIL);
	assert_string_equal(
		out,
		"SKIP: r: negative control -- lost 16 writes, but of only 2 "
		"of 3: the checks it decides prove nothing\n"
		"SKIP: r: batch 31 -- 0 lost writes, but that proves "
		"nothing (r: negative control: lost 16 writes, but of "
		"only 2 of 3)\n"
		"FAIL: r: b -- 4 lost writes\n");
	struct report_counts n = report_get_counts();
	assert_int_equal(n.skipped, 2);
	assert_int_equal(n.failed, 1);
}

/* One that never ran says so, rather than what it would have shown. */
static void test_control_not_run(void **state)
{
	struct report_control c;

	(void)state;
	report_control_init(&c, "r: negative control");
	report_gated(&c, 0, "lost writes", NULL, "r: a");
	assert_string_equal(out, "SKIP: r: a -- 0 lost writes, but that proves "
				 "nothing (r: negative control: it did not "
				 "run)\n");
}

/* A control with no line of its own: only its checks report it. */
static void test_control_note(void **state)
{
	struct report_control c = {.name = "the control"};

	(void)state;
	report_control_note(&c, false, "read %s", "new");
	report_gated(&c, 0, "reads", NULL, "t: a");
	report_control_note(&c, true, "read %s", "old");
	report_gated(&c, 0, "reads", NULL, "t: b");
	assert_string_equal(out,
			    "SKIP: t: a -- 0 reads, but that proves nothing "
			    "(the control: read new)\n"
			    "PASS: t: b\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_verdict_lines, setup),
		cmocka_unit_test_setup(test_check, setup),
		cmocka_unit_test_setup(test_name_formats, setup),
		cmocka_unit_test_setup(test_pass_detail, setup),
		cmocka_unit_test_setup(test_status, setup),
		cmocka_unit_test_setup(test_records_and_summary, setup),
		cmocka_unit_test_setup(test_summary_field, setup),
		cmocka_unit_test_setup(test_records_off, setup),
		cmocka_unit_test_setup(test_record_overflow, setup),
		cmocka_unit_test_setup(test_long_line, setup),
		cmocka_unit_test_setup(test_gate, setup),
		cmocka_unit_test_setup(test_control_shown, setup),
		cmocka_unit_test_setup(test_control_missed, setup),
		cmocka_unit_test_setup(test_control_not_run, setup),
		cmocka_unit_test_setup(test_control_note, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
