// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/initwait.c: which CPUs bring-up starts without the
 * 10 ms wait after INIT, and that init_wait=on|off override it.
 */
#include "unit.h"
#include "smp/initwait.h"

static bool wait_auto(const char *vendor, unsigned family, bool hv)
{
	const char *why = NULL;
	bool wait = smp_init_wait(INIT_WAIT_AUTO, vendor, family, hv, &why);

	assert_non_null(why);
	assert_true(strncmp(why, "init_wait=auto: ", 16) == 0);
	assert_printable(why, 128);
	return wait;
}

/* Intel family 6 (P6 to today) and every later one (0xf: Pentium 4). */
static void test_intel(void **state)
{
	(void)state;
	assert_true(wait_auto("GenuineIntel", 5, false));
	assert_false(wait_auto("GenuineIntel", 6, false));
	assert_false(wait_auto("GenuineIntel", 0xf, false));
	assert_false(wait_auto("GenuineIntel", 0x13, false));
}

/* AMD from the K8 (family 0xf) on; Hygon (family 0x18). */
static void test_amd_hygon(void **state)
{
	(void)state;
	assert_true(wait_auto("AuthenticAMD", 6, false));
	assert_true(wait_auto("AuthenticAMD", 0xe, false));
	assert_false(wait_auto("AuthenticAMD", 0xf, false));
	assert_false(wait_auto("AuthenticAMD", 0x19, false));
	assert_false(wait_auto("AuthenticAMD", 0x1a, false));
	assert_true(wait_auto("HygonGenuine", 0x17, false));
	assert_false(wait_auto("HygonGenuine", 0x18, false));
}

/* Other vendors wait, unless a hypervisor's APIC starts them. */
static void test_others_and_hypervisor(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_true(wait_auto("CentaurHauls", 6, false));
	assert_true(wait_auto("  Shanghai  ", 7, false));
	assert_true(wait_auto("", 0, false));
	assert_true(wait_auto(NULL, 6, false));
	assert_false(wait_auto("CentaurHauls", 6, true));
	assert_false(wait_auto("GenuineIntel", 5, true));
	assert_false(
		smp_init_wait(INIT_WAIT_AUTO, "CentaurHauls", 6, true, &why));
	assert_string_equal(why, "init_wait=auto: a hypervisor's APIC "
				 "starts CPUs without it");
	/* A modern CPU under a hypervisor: the CPU is the reason given. */
	assert_false(smp_init_wait(INIT_WAIT_AUTO, "AuthenticAMD", 0x19, true,
				   &why));
	assert_string_equal(why, "init_wait=auto: AMD family 0xf and later "
				 "start without it");
	/* why may be NULL. */
	assert_true(
		smp_init_wait(INIT_WAIT_AUTO, "CentaurHauls", 6, false, NULL));
}

/* init_wait=on and off decide alone. */
static void test_forced(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_true(
		smp_init_wait(INIT_WAIT_ON, "AuthenticAMD", 0x19, true, &why));
	assert_string_equal(why, "init_wait=on");
	assert_false(
		smp_init_wait(INIT_WAIT_OFF, "CentaurHauls", 6, false, &why));
	assert_string_equal(why, "init_wait=off");
	assert_false(smp_init_wait(INIT_WAIT_OFF, NULL, 0, false, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_amd_hygon),
		cmocka_unit_test(test_others_and_hypervisor),
		cmocka_unit_test(test_forced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
