// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/smi_account.c: which counter a CPU is given, the
 * difference of wrapped readings, and what a tally means for the
 * timings it spans. No emulator shows an SMI, so this is where the
 * counting is checked.
 */
#include "unit.h"
#include "kernel/smi_account.h"

static struct smi_cpu_id intel(unsigned model)
{
	return (struct smi_cpu_id){.intel = true, .family = 6, .model = model};
}

static struct smi_cpu_id amd(unsigned family, bool core, bool hv)
{
	return (struct smi_cpu_id){.amd = true,
				   .family = family,
				   .perfctr_core = core,
				   .hypervisor = hv};
}

static void test_source(void **state)
{
	struct smi_cpu_id id;
	const char *why = NULL;

	(void)state;
	id = intel(0x55); /* Skylake server */
	assert_int_equal(smi_choose_source(&id, &why), SMI_SRC_INTEL_MSR);
	assert_string_equal(why, "MSR_SMI_COUNT");
	id = intel(0x1a); /* Nehalem: the first */
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_INTEL_MSR);
	id = intel(0x17); /* Core 2 */
	assert_int_equal(smi_choose_source(&id, &why), SMI_SRC_NONE);
	id = intel(0x1c); /* Bonnell Atom */
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_NONE);
	id = intel(0x55);
	id.family = 15; /* NetBurst */
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_NONE);
	/* Under a hypervisor the MSR is still read (a fault means none). */
	id = intel(0x55);
	id.hypervisor = true;
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_INTEL_MSR);

	id = amd(0x19, true, false);
	assert_int_equal(smi_choose_source(&id, &why), SMI_SRC_AMD_PMC);
	id = amd(0x17, true, false);
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_AMD_PMC);
	id = amd(0x15, true, false);
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_NONE);
	id = amd(0x19, false, false);
	assert_int_equal(smi_choose_source(&id, &why), SMI_SRC_NONE);
	assert_string_equal(why, "CPUID has no core performance counters");
	id = amd(0x19, true, true);
	assert_int_equal(smi_choose_source(&id, &why), SMI_SRC_NONE);
	assert_string_equal(why, "a hypervisor's performance counters");

	id = (struct smi_cpu_id){.family = 6, .model = 0x55};
	assert_int_equal(smi_choose_source(&id, NULL), SMI_SRC_NONE);
	assert_string_equal(smi_source_name(SMI_SRC_INTEL_MSR), "msr");
	assert_string_equal(smi_source_name(SMI_SRC_AMD_PMC), "pmc");
	assert_string_equal(smi_source_name(SMI_SRC_NONE), "none");
}

static void test_delta_wraps(void **state)
{
	(void)state;
	assert_int_equal(smi_delta(5, 9, 32), 4);
	assert_int_equal(smi_delta(0xfffffffeull, 1, 32), 3);
	/* Bits above a 48-bit counter's width do not count. */
	assert_int_equal(smi_delta(0xffffffffffffull, 2, 48), 3);
	assert_int_equal(smi_delta(7, 7, 48), 0);
	assert_int_equal(smi_delta(1, 0, 64), 0xffffffffffffffffull);
}

static void test_tally_and_caveat(void **state)
{
	struct smi_tally t = {.src = SMI_SRC_INTEL_MSR};

	(void)state;
	/* Not read yet: not known. */
	assert_int_equal(smi_caveat_of(&t), SMI_CAVEAT_UNCOUNTED);
	smi_tally_add(&t, 10, 10);
	assert_int_equal(smi_caveat_of(&t), SMI_CAVEAT_NONE);
	smi_tally_add(&t, 0xffffffffull, 1); /* wrapped: 2 */
	smi_tally_add(&t, 4, 5);
	assert_int_equal(t.smis, 3);
	assert_int_equal(t.spans, 3);
	assert_int_equal(smi_caveat_of(&t), SMI_CAVEAT_SEEN);

	/* Without a counter, readings are ignored: never "none came". */
	t = (struct smi_tally){.src = SMI_SRC_NONE};
	smi_tally_add(&t, 0, 0);
	smi_tally_add(&t, 0, 7);
	assert_int_equal(t.spans, 0);
	assert_int_equal(t.smis, 0);
	assert_int_equal(smi_caveat_of(&t), SMI_CAVEAT_UNCOUNTED);

	t = (struct smi_tally){.src = SMI_SRC_AMD_PMC};
	smi_tally_add(&t, 0xffffffffffffull, 0);
	assert_int_equal(t.smis, 1);
	assert_int_equal(smi_caveat_of(&t), SMI_CAVEAT_SEEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_source),
		cmocka_unit_test(test_delta_wraps),
		cmocka_unit_test(test_tally_and_caveat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
