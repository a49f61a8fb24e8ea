// SPDX-License-Identifier: MIT
/* What the caveat rule reads of this machine (bench/caveats.h). */
#include "bench/caveats.h"
#include "kernel/cpu.h"
#include "kernel/smi.h"
#include "kernel/tsc.h"
#include "lib/string.h"
#include "smp/concurrency.h"
#include "smp/percpu.h"

#define TCG_SIGNATURE "TCGTCGTCGTCG"

void findings_machine_here(struct findings_machine *m)
{
	const struct concurrency_answer *after =
		cpus_concurrency(CONCURRENCY_EXPERIMENTS);
	struct caveats_facts f = {
		.hv_bit = cpu_info.hypervisor,
		.tcg = cpu_info.hypervisor &&
		       !strcmp(cpu_info.hv_sig, TCG_SIGNATURE),
		.rdtsc_trapped = tsc_freq.rdtsc_trapped,
		.invariant_tsc = cpu_info.invariant_tsc,
		.cpuid_cycles = tsc_freq.cpuid_cycles,
		.cpus = cpumask_count(&cpus_online),
		.concurrent_before = cpus_run_concurrently(),
		.probed_after = after->probed,
		.concurrent_after = after->concurrent,
		.invlpgb_cpuid = cpu_info.invlpgb_cpuid,
		.smis = smi_run_total(),
	};

	caveats_decide(&f, m);
}
