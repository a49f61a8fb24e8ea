// SPDX-License-Identifier: MIT
/* The portable rules of SMI counting (kernel/smi_account.h). */
#include "kernel/smi_account.h"

/* Bonnell and Saltwell Atoms: family 6, later than Nehalem, no MSR. */
static bool early_atom(unsigned model)
{
	return model == 0x1c || model == 0x26 || model == 0x27 ||
	       model == 0x35 || model == 0x36;
}

static enum smi_source intel_source(const struct smi_cpu_id *id,
				    const char **why)
{
	if (id->family != 6 || id->model < 0x1a || early_atom(id->model)) {
		*why = "no MSR_SMI_COUNT on this Intel model";
		return SMI_SRC_NONE;
	}
	*why = "MSR_SMI_COUNT";
	return SMI_SRC_INTEL_MSR;
}

static enum smi_source amd_source(const struct smi_cpu_id *id, const char **why)
{
	if (id->family < 0x17) {
		*why = "no SMI event before AMD family 17h";
		return SMI_SRC_NONE;
	}
	if (!id->perfctr_core) {
		*why = "CPUID has no core performance counters";
		return SMI_SRC_NONE;
	}
	if (id->hypervisor) {
		*why = "a hypervisor's performance counters";
		return SMI_SRC_NONE;
	}
	*why = "PMC event 0x2B (SMIs received)";
	return SMI_SRC_AMD_PMC;
}

enum smi_source smi_choose_source(const struct smi_cpu_id *id, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	if (id->intel)
		return intel_source(id, why);
	if (id->amd)
		return amd_source(id, why);
	*why = "no SMI counter known on this vendor";
	return SMI_SRC_NONE;
}

const char *smi_source_name(enum smi_source src)
{
	switch (src) {
	case SMI_SRC_INTEL_MSR:
		return "msr";
	case SMI_SRC_AMD_PMC:
		return "pmc";
	case SMI_SRC_NONE:
		break;
	}
	return "none";
}

uint64_t smi_delta(uint64_t before, uint64_t after, unsigned width)
{
	uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;

	return (after - before) & mask;
}

static unsigned width_of(enum smi_source src)
{
	return src == SMI_SRC_INTEL_MSR ? SMI_MSR_WIDTH : SMI_PMC_WIDTH;
}

void smi_tally_add(struct smi_tally *t, uint64_t before, uint64_t after)
{
	if (t->src == SMI_SRC_NONE)
		return;
	t->smis += smi_delta(before, after, width_of(t->src));
	t->spans++;
}

enum smi_caveat smi_caveat_of(const struct smi_tally *t)
{
	if (t->src == SMI_SRC_NONE || !t->spans)
		return SMI_CAVEAT_UNCOUNTED;
	return t->smis ? SMI_CAVEAT_SEEN : SMI_CAVEAT_NONE;
}
