// SPDX-License-Identifier: MIT
/*
 * The SMI counter of the CPU that times (kernel/smi.h). Intel counts
 * SMIs in MSR_SMI_COUNT; AMD family 17h and later in a core performance
 * counter programmed with event 0x2B. Counter 5 is taken, the last of
 * the six, only if nobody (the firmware) has it enabled. A reading that
 * faults means no counter: some hypervisors do not give these MSRs.
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/smi.h"
#include "kernel/x86.h"
#include "lib/kstring.h"

#define MSR_AMD_PERF_CTL5 0xc001020a
#define MSR_AMD_PERF_CTR5 0xc001020b
#define PERF_CTL_USR	  (1ull << 16)
#define PERF_CTL_OS	  (1ull << 17)
#define PERF_CTL_EN	  (1ull << 22)

static bool chosen;
static enum smi_source source;
static unsigned counting_cpu;

static struct smi_cpu_id this_cpu_id(void)
{
	struct smi_cpu_id id = {
		.intel = !kstrcmp(cpu_info.vendor, "GenuineIntel"),
		.amd = cpu_info.amd,
		.family = cpu_info.family,
		.model = cpu_info.model,
		.hypervisor = cpu_info.hypervisor,
	};

	if (cpu_info.max_ext_leaf >= 0x80000001)
		id.perfctr_core = cpuid(0x80000001).ecx & (1u << 23);
	return id;
}

/* Takes counter 5 unless it is already counting something. */
static const char *program_pmc(void)
{
	uint64_t ctl;

	if (rdmsr_safe(MSR_AMD_PERF_CTL5, &ctl))
		return "PERF_CTL5 faulted";
	if (ctl & PERF_CTL_EN)
		return "PERF_CTL5 already in use";
	if (wrmsr_safe(MSR_AMD_PERF_CTR5, 0) ||
	    wrmsr_safe(MSR_AMD_PERF_CTL5, SMI_PMC_EVENT | PERF_CTL_USR |
						  PERF_CTL_OS | PERF_CTL_EN))
		return "PERF_CTL5 would not take the event";
	return NULL;
}

static void choose(void)
{
	struct smi_cpu_id id = this_cpu_id();
	const char *why, *failed = NULL;
	uint64_t v;

	source = smi_choose_source(&id, &why);
	if (source == SMI_SRC_INTEL_MSR && rdmsr_safe(MSR_SMI_COUNT, &v))
		failed = "MSR_SMI_COUNT faulted";
	else if (source == SMI_SRC_AMD_PMC)
		failed = program_pmc();
	if (failed) {
		source = SMI_SRC_NONE;
		why = failed;
	}
	counting_cpu = this_cpu();
	chosen = true;
	if (source == SMI_SRC_NONE)
		report_info("smi: SMIs are not counted on this machine (%s): "
			    "timings carry no SMI count",
			    why);
	else
		report_info("smi: SMIs counted on cpu %u with %s, per "
			    "experiment",
			    counting_cpu, why);
}

void smi_tally_start(struct smi_tally *t)
{
	if (!chosen)
		choose();
	*t = (struct smi_tally){.src = source};
	if (this_cpu() != counting_cpu)
		t->src = SMI_SRC_NONE; /* the counter is that CPU's own */
}

uint64_t smi_read(const struct smi_tally *t)
{
	uint64_t v = 0;

	if (t->src == SMI_SRC_INTEL_MSR)
		rdmsr_safe(MSR_SMI_COUNT, &v);
	else if (t->src == SMI_SRC_AMD_PMC)
		rdmsr_safe(MSR_AMD_PERF_CTR5, &v);
	return v;
}

static uint64_t run_smis;

uint64_t smi_run_total(void)
{
	return run_smis;
}

void smi_record(const char *bench, const struct smi_tally *t)
{
	char buf[160];
	struct record r;

	record_begin(&r, buf, sizeof(buf), "smi");
	json_str(&r.j, "bench", bench);
	json_str(&r.j, "source", smi_source_name(t->src));
	json_u64(&r.j, "cpu", counting_cpu);
	if (smi_caveat_of(t) == SMI_CAVEAT_UNCOUNTED)
		json_null(&r.j, "smis");
	else
		json_u64(&r.j, "smis", t->smis);
	json_u64(&r.j, "spans", t->spans);
	record_end(&r);
	if (smi_caveat_of(t) == SMI_CAVEAT_SEEN) {
		run_smis += t->smis;
		report_info("bench: %s: %llu SMIs on cpu %u while it ran: its "
			    "timings overlap firmware time",
			    bench, (unsigned long long)t->smis, counting_cpu);
	}
}
