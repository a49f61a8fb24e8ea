// SPDX-License-Identifier: MIT
/* The caveat rule and its words (bench/caveats.h), portable. */
#include "bench/caveats.h"
#include "lib/printf.h"

/* In bit order; tools/results/caveats.py explains each. */
static const char *const caveat_tags[FC_COUNT] = {
	"INVLPGB emulated", "delayed",		 "QEMU TCG",
	"RDTSC trapped",    "hypervisor",	 "CPUs take turns",
	"VM suspected",	    "TSC not invariant", "SMIs while timing",
};

const char *findings_caveat_tag(unsigned int bit)
{
	for (unsigned int i = 0; i < FC_COUNT; i++)
		if (bit == 1u << i)
			return caveat_tags[i];
	return "?";
}

bool caveats_vm_suspected(bool hv_bit, uint64_t cpuid_cycles)
{
	/*
	 * With the bit set the hypervisor has said so ("hypervisor", or
	 * "QEMU TCG"): a slow CPUID there is no news, and under kvm-pvm,
	 * where RDTSC traps too, the timing itself is a VM exit's.
	 */
	return !hv_bit && cpuid_cycles > CAVEATS_CPUID_VM_CYCLES;
}

void caveats_decide(const struct caveats_facts *f, struct findings_machine *m)
{
	/* Taking turns at either probe: load on the host moves in a minute. */
	bool turns = !f->concurrent_before ||
		     (f->probed_after && !f->concurrent_after);

	*m = (struct findings_machine){
		.tcg = f->tcg,
		.hypervisor = f->hv_bit && !f->tcg,
		.vm_suspected =
			caveats_vm_suspected(f->hv_bit, f->cpuid_cycles),
		.rdtsc_trapped = f->rdtsc_trapped,
		/* One CPU has nobody to take turns with. */
		.not_concurrent = f->cpus > 1 && turns,
		/*
		 * Under TCG the TSC is the emulator's (the host's clock
		 * scaled, whatever CPUID says): "QEMU TCG" already says every
		 * time is the emulator's, so the tag is left to machines
		 * whose cycles could otherwise be the hardware's.
		 */
		.tsc_not_invariant = !f->invariant_tsc && !f->tcg,
		/*
		 * An SMI stops the CPU unseen by the TSC reads around it: a
		 * count above 0 during the experiments (where a counter
		 * counts) is a caveat of every timing; per experiment in the
		 * smi records.
		 */
		.smis = f->smis > 0,
		.invlpgb_cpuid = f->invlpgb_cpuid,
	};
}

unsigned int findings_timing_caveats(const struct findings_machine *m)
{
	return (m->tcg ? FC_TCG : 0) |
	       (m->rdtsc_trapped ? FC_RDTSC_TRAPPED : 0) |
	       (m->hypervisor ? FC_HYPERVISOR : 0) |
	       (m->vm_suspected ? FC_VM_SUSPECTED : 0) |
	       (m->not_concurrent ? FC_NOT_CONCURRENT : 0) |
	       (m->tsc_not_invariant ? FC_TSC_NOT_INVARIANT : 0) |
	       (m->smis ? FC_SMIS : 0);
}

const char *findings_caveats_text(unsigned int caveats, char *buf, size_t cap)
{
	const char *sep = "not a hardware answer here: ";
	size_t n = 0;

	if (!cap)
		return buf;
	buf[0] = '\0';
	for (unsigned int i = 0; i < FC_COUNT; i++) {
		int w;

		if (!(caveats & 1u << i))
			continue;
		w = ksnprintf(buf + n, cap - n, "%s%s", sep, caveat_tags[i]);
		if (w < 0 || (size_t)w >= cap - n) {
			buf[n] =
				'\0'; /* a whole tag or none: CAVEATS_TEXT fits all */
			break;
		}
		n += (size_t)w;
		sep = ", ";
	}
	return buf;
}
