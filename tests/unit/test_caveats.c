// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/caveats.c: the one caveat rule (QEMU TCG, another
 * hypervisor, one that hides itself, RDTSC trapped, CPUs taking turns at
 * either probe, a TSC that is not invariant) and the tags' words.
 */
#include "unit.h"
#include "bench/caveats.h"

/* Bare metal, 4 CPUs side by side at both probes, an invariant TSC. */
static const struct caveats_facts metal = {
	.invariant_tsc = true,
	.cpuid_cycles = 150,
	.cpus = 4,
	.concurrent_before = true,
	.probed_after = true,
	.concurrent_after = true,
};

static unsigned int tags_of(const struct caveats_facts *f)
{
	struct findings_machine m;

	caveats_decide(f, &m);
	return findings_timing_caveats(&m);
}

static void test_metal(void **state)
{
	(void)state;
	assert_int_equal(tags_of(&metal), 0);
}

/* TCG: its tag alone, whatever its CPUID costs and its TSC says. */
static void test_tcg(void **state)
{
	struct caveats_facts f = metal;

	(void)state;
	f.hv_bit = f.tcg = true;
	f.invariant_tsc = false;
	f.cpuid_cycles = 40000;
	assert_int_equal(tags_of(&f), FC_TCG);
}

/* kvm-pvm: RDTSC traps, CPUID costs thousands, the bit is set. */
static void test_pvm_is_no_suspect(void **state)
{
	struct caveats_facts f = metal;

	(void)state;
	f.hv_bit = f.rdtsc_trapped = true;
	f.cpuid_cycles = 8600;
	assert_int_equal(tags_of(&f), FC_HYPERVISOR | FC_RDTSC_TRAPPED);
}

/* The bit cleared, CPUID at a VM exit's cost: suspected, past 500. */
static void test_hidden_hypervisor(void **state)
{
	struct caveats_facts f = metal;

	(void)state;
	f.cpuid_cycles = 1500;
	assert_int_equal(tags_of(&f), FC_VM_SUSPECTED);
	f.cpuid_cycles = CAVEATS_CPUID_VM_CYCLES;
	assert_int_equal(tags_of(&f), 0);
	f.cpuid_cycles = CAVEATS_CPUID_VM_CYCLES + 1;
	assert_int_equal(tags_of(&f), FC_VM_SUSPECTED);
	assert_false(caveats_vm_suspected(true, 100000));
	assert_true(caveats_vm_suspected(false, 100000));
}

static void test_tsc_not_invariant(void **state)
{
	struct caveats_facts f = metal;

	(void)state;
	f.invariant_tsc = false;
	assert_int_equal(tags_of(&f), FC_TSC_NOT_INVARIANT);
	f.hv_bit = true; /* under KVM too: the guest cannot tell */
	assert_int_equal(tags_of(&f), FC_TSC_NOT_INVARIANT | FC_HYPERVISOR);
}

/* An SMI counted during the experiments is a caveat of every timing. */
static void test_smis(void **state)
{
	struct caveats_facts f = metal;

	(void)state;
	f.smis = 1;
	assert_int_equal(tags_of(&f), FC_SMIS);
	assert_string_equal(findings_caveat_tag(FC_SMIS), "SMIs while timing");
	f.smis =
		0; /* none, or nothing counts them: no tag (the smi records say which) */
	assert_int_equal(tags_of(&f), 0);
}

/* Turns at either probe is the caveat; one CPU has nobody to wait for. */
static void test_either_probe(void **state)
{
	struct caveats_facts f = metal;

	(void)state;
	f.concurrent_after = false;
	assert_int_equal(tags_of(&f), FC_NOT_CONCURRENT);
	f.concurrent_after = true;
	f.concurrent_before = false;
	assert_int_equal(tags_of(&f), FC_NOT_CONCURRENT);
	/* No second probe (no experiment ran): the first alone decides. */
	f.concurrent_before = true;
	f.probed_after = false;
	f.concurrent_after = false;
	assert_int_equal(tags_of(&f), 0);
	f.concurrent_before = false;
	f.cpus = 1;
	assert_int_equal(tags_of(&f), 0);
}

/* The words: tools/results/caveats.py's EXPLAIN keys, in bit order. */
static void test_text(void **state)
{
	char buf[CAVEATS_TEXT], small[40];

	(void)state;
	assert_string_equal(findings_caveat_tag(FC_VM_SUSPECTED),
			    "VM suspected");
	assert_string_equal(findings_caveat_tag(FC_TSC_NOT_INVARIANT),
			    "TSC not invariant");
	assert_string_equal(findings_caveat_tag(3), "?");
	assert_string_equal(findings_caveats_text(0, buf, sizeof(buf)), "");
	assert_string_equal(
		findings_caveats_text((1u << FC_COUNT) - 1, buf, sizeof(buf)),
		"not a hardware answer here: INVLPGB emulated, delayed, QEMU "
		"TCG, RDTSC trapped, hypervisor, CPUs take turns, VM "
		"suspected, TSC not invariant, SMIs while timing");
	/* Cut at a whole tag, never past the buffer. */
	assert_string_equal(findings_caveats_text(FC_TCG | FC_HYPERVISOR, small,
						  sizeof(small)),
			    "not a hardware answer here: QEMU TCG");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metal),
		cmocka_unit_test(test_tcg),
		cmocka_unit_test(test_pvm_is_no_suspect),
		cmocka_unit_test(test_hidden_hypervisor),
		cmocka_unit_test(test_tsc_not_invariant),
		cmocka_unit_test(test_smis),
		cmocka_unit_test(test_either_probe),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
