// SPDX-License-Identifier: MIT
/*
 * The env record: what machine, firmware path and build produced the
 * results that follow. Fields that later parts of the harness fill in are
 * present as null until they exist, so that readers can rely on the keys.
 */
#include "bootinfo.h"
#include "cpu.h"
#include "env.h"
#include "report.h"
#include "tsc.h"
#include "version.h"
#include "smp/apic.h"
#include "smp/idle.h"
#include "smp/percpu.h"
#include "smp/smp.h"

static void env_cpu(struct json *j)
{
	json_begin_object(j, "cpu");
	json_str(j, "vendor", cpu_info.vendor);
	json_u64(j, "family", cpu_info.family);
	json_u64(j, "model", cpu_info.model);
	json_u64(j, "stepping", cpu_info.stepping);
	json_str(j, "brand", cpu_info.brand);
	json_end_object(j);
}

static void env_features(struct json *j)
{
	json_begin_object(j, "features");
	json_bool(j, "invlpgb", cpu_info.invlpgb);
	json_bool(j, "invlpgb_cpuid", cpu_info.invlpgb_cpuid);
	json_u64(j, "invlpgb_max_pages", cpu_info.invlpgb_max_pages);
	json_bool(j, "pcid", cpu_info.pcid);
	json_bool(j, "invpcid", cpu_info.invpcid);
	json_bool(j, "x2apic", cpu_info.x2apic);
	json_bool(j, "invariant_tsc", cpu_info.invariant_tsc);
	json_bool(j, "pdpe1gb", cpu_info.pdpe1gb);
	json_bool(j, "nx", cpu_info.nx);
	json_bool(j, "monitor", cpu_info.monitor);
	json_end_object(j);
}

/*
 * The TSC rate in use and where it came from, every source's estimate
 * (null where a source gave none), and what RDTSC costs from inside the
 * guest (docs/output.md).
 */
static void env_tsc(struct json *j)
{
	if (tsc_freq.khz)
		json_u64(j, "tsc_khz", tsc_freq.khz);
	else
		json_null(j, "tsc_khz");
	json_str(j, "tsc_source", tsc_freq.source);
	json_begin_object(j, "tsc_estimates");
	for (int s = 0; s < TSC_SRCS; s++) {
		if (tsc_freq.estimate[s])
			json_u64(j, tsc_src_name(s), tsc_freq.estimate[s]);
		else
			json_null(j, tsc_src_name(s));
	}
	json_end_object(j);
	json_u64(j, "rdtsc_cycles", tsc_freq.rdtsc_cycles);
	json_bool(j, "rdtsc_trapped", tsc_freq.rdtsc_trapped);
	json_bool(j, "tsc_invariant", cpu_info.invariant_tsc);
}

static void env_smp(struct json *j)
{
	if (acpi.madt.present)
		json_u64(j, "cpus_madt", smp_stats.cpus_madt);
	else
		json_null(j, "cpus_madt");
	json_u64(j, "cpus_online", cpumask_count(&cpus_online));
	json_str(j, "apic", apic_mode_name());
	json_bool(j, "apic_fence",
		  apic_mode == APIC_X2APIC && cpu_info.apic_msr_fence);
	json_u64(j, "bringup_us", tsc_to_ns(smp_stats.bringup_cycles) / 1000);
	json_bool(j, "bringup_init_wait", smp_stats.init_wait);
	json_str(j, "idle", smp_idle_name(smp_stats.idle));
	json_str(j, "idle_requested", smp_idle_name(smp_stats.idle_requested));
	json_i64(j, "tsc_max_offset", smp_stats.tsc_max_offset);
	json_bool(j, "tsc_trusted", smp_stats.tsc_trusted);
	smp_env_topology(j);
}

void env_report(const char *cmdline, const char *output)
{
	char buf[3072];
	struct record r;

	record_begin(&r, buf, sizeof(buf), "env");
	json_u64(&r.j, "schema", RECORD_SCHEMA);
	json_str(&r.j, "version", BUILD_VERSION);
	json_str(&r.j, "cmdline", cmdline);
	json_str(&r.j, "output", output);
	json_str(&r.j, "boot", boot_path_name(&boot_info));
	json_str(&r.j, "loader", boot_info.loader);
	env_cpu(&r.j);
	json_str(&r.j, "hypervisor",
		 cpu_info.hypervisor ? cpu_info.hv_sig : NULL);
	env_smp(&r.j);
	env_tsc(&r.j);
	env_features(&r.j);
	json_u64(&r.j, "mem_bytes", boot_usable_bytes(&boot_info));
	record_end(&r);
}
