// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/idle.c: idle=poll|hlt are taken as given, mwait only
 * where CPUID has MONITOR (HLT otherwise, saying why), and auto polls only
 * where every CPU is a core of its own.
 */
#include "unit.h"
#include "smp/idle.h"

static const struct idle_cpu metal = {.monitor = true};
static const struct idle_cpu metal_no_monitor = {.monitor = false};
static const struct idle_cpu guest = {.monitor = true, .hypervisor = true};
static const struct idle_cpu guest_dedicated = {
	.hypervisor = true,
	.hv_dedicated = true,
};

static int choose(int requested, const struct idle_cpu *c, const char *want)
{
	const char *why = NULL;
	int mode = smp_idle_choose(requested, c, &why);

	assert_non_null(why);
	assert_printable(why, 128);
	assert_true(strncmp(why, want, strlen(want)) == 0);
	return mode;
}

/* What the user asked for is what runs, wherever. */
static void test_explicit(void **state)
{
	(void)state;
	assert_int_equal(choose(IDLE_POLL, &guest, "idle=poll"), IDLE_POLL);
	assert_int_equal(choose(IDLE_HLT, &metal, "idle=hlt"), IDLE_HLT);
	assert_int_equal(choose(IDLE_MWAIT, &metal, "idle=mwait"), IDLE_MWAIT);
	assert_int_equal(choose(IDLE_MWAIT, &guest, "idle=mwait"), IDLE_MWAIT);
}

/* No MONITOR: HLT, and the reason names the CPUID bit and what is used. */
static void test_mwait_without_monitor(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(smp_idle_choose(IDLE_MWAIT, &metal_no_monitor, &why),
			 IDLE_HLT);
	assert_non_null(strstr(why, "CPUID.01H:ECX.MONITOR[bit 3] is clear"));
	assert_non_null(strstr(why, "HLT instead"));
	assert_int_equal(choose(IDLE_MWAIT, &guest_dedicated, "idle=mwait: "),
			 IDLE_HLT);
}

/* auto: poll on bare metal and on dedicated vCPUs, HLT in other guests. */
static void test_auto(void **state)
{
	(void)state;
	assert_int_equal(choose(IDLE_AUTO, &metal, "idle=auto: bare metal"),
			 IDLE_POLL);
	assert_int_equal(
		choose(IDLE_AUTO, &metal_no_monitor, "idle=auto: bare metal"),
		IDLE_POLL);
	assert_int_equal(choose(IDLE_AUTO, &guest_dedicated,
				"idle=auto: KVM gives every vCPU"),
			 IDLE_POLL);
	assert_int_equal(
		choose(IDLE_AUTO, &guest, "idle=auto: under a hypervisor"),
		IDLE_HLT);
	/* why may be NULL */
	assert_int_equal(smp_idle_choose(IDLE_AUTO, &guest, NULL), IDLE_HLT);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(smp_idle_name(IDLE_AUTO), "auto");
	assert_string_equal(smp_idle_name(IDLE_POLL), "poll");
	assert_string_equal(smp_idle_name(IDLE_HLT), "hlt");
	assert_string_equal(smp_idle_name(IDLE_MWAIT), "mwait");
	assert_string_equal(smp_idle_name(IDLE_MWAIT + 1), "?");
	assert_string_equal(smp_idle_name(-1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explicit),
		cmocka_unit_test(test_mwait_without_monitor),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
