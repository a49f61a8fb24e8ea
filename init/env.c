// SPDX-License-Identifier: MIT
/*
 * The env record: what machine, firmware path and build produced the
 * results that follow. Fields that later parts of the harness fill in are
 * present as null until they exist, so that readers can rely on the keys.
 */
#include "bench/rng.h"
#include "init/env.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/smbios.h"
#include "kernel/tsc.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/idle.h"
#include "smp/percpu.h"
#include "smp/concurrency.h"
#include "smp/cpucount.h"
#include "smp/smp.h"
#include "version.h"

#define MSR_UCODE_REV 0x8b
#define CMOS_INDEX    0x70
#define CMOS_DATA     0x71

static uint64_t boot_tsc;

void env_note_boot(void)
{
	boot_tsc = rdtsc();
}

/*
 * The CMOS clock's seconds, minutes, hours, day, month and year, as the
 * registers hold them (BCD or binary: only mixed in, never shown). Bit 7
 * of the index keeps NMIs masked as they are.
 */
static uint64_t rtc_stamp(void)
{
	static const uint8_t regs[] = {0x00, 0x02, 0x04, 0x07, 0x08, 0x09};
	uint64_t v = 0;

	for (size_t i = 0; i < sizeof(regs); i++) {
		outb(CMOS_INDEX, 0x80 | regs[i]);
		v = v << 8 | inb(CMOS_DATA);
	}
	return v;
}

/*
 * A name for this run: the TSC at the kernel's first instruction and now
 * (after bring-up and calibration, whose length varies), and the wall
 * clock, mixed by SplitMix64. Not globally unique (docs/records.md).
 */
static uint64_t run_id(void)
{
	struct rng r;

	rng_seed(&r, boot_tsc);
	rng_seed(&r, rng_next(&r) ^ rtc_stamp());
	rng_seed(&r, rng_next(&r) ^ rdtsc());
	return rng_next(&r);
}

/*
 * The microcode patch level: AMD (and Hygon) keep it in MSR 0x8B, bits
 * 31:0; Intel in bits 63:32 after writing 0 to it and executing CPUID(1)
 * (SDM vol. 3A, 10.11.7.1). A hypervisor may refuse the MSR (#GP, caught):
 * false then, and for any other vendor.
 */
static bool microcode(uint64_t *rev)
{
	uint64_t v;

	if (cpu_info.amd) {
		if (rdmsr_safe(MSR_UCODE_REV, &v))
			return false;
		*rev = (uint32_t)v;
		return true;
	}
	if (kstrcmp(cpu_info.vendor, "GenuineIntel"))
		return false;
	if (wrmsr_safe(MSR_UCODE_REV, 0))
		return false;
	cpuid(1);
	if (rdmsr_safe(MSR_UCODE_REV, &v))
		return false;
	*rev = v >> 32;
	return true;
}

static void json_str_or_null(struct json *j, const char *key, const char *s)
{
	json_str(j, key, s && s[0] ? s : NULL);
}

/* SMBIOS: who made the machine; an INFO line says where, or what failed. */
static void env_smbios(struct json *j)
{
	const struct smbios_info *sm = cpucount_smbios_info();
	char ver[16];

	if (sm->ok)
		report_info("smbios: %u.%u, entry point at %#llx, table at "
			    "%#llx (%u bytes)%s",
			    sm->major, sm->minor,
			    (unsigned long long)sm->entry_pa,
			    (unsigned long long)sm->table_pa, sm->table_len,
			    boot_info.efi ? ", from the EFI system table" : "");
	else if (sm->error[0])
		report_info("smbios: %s: fields null", sm->error);
	else
		report_info("smbios: no entry point found (%s): fields null",
			    boot_info.efi ? "EFI configuration table"
					  : "0xf0000-0xfffff");
	json_begin_object(j, "smbios");
	ksnprintf(ver, sizeof(ver), "%u.%u", sm->major, sm->minor);
	json_str_or_null(j, "version", sm->ok ? ver : NULL);
	json_str_or_null(j, "sys_vendor", sm->ok ? sm->sys_vendor : NULL);
	json_str_or_null(j, "product", sm->ok ? sm->product : NULL);
	json_str_or_null(j, "bios_vendor", sm->ok ? sm->bios_vendor : NULL);
	json_str_or_null(j, "bios_version", sm->ok ? sm->bios_version : NULL);
	json_end_object(j);
}

static void env_cpu(struct json *j)
{
	uint64_t rev;

	cpu_json(j);
	if (microcode(&rev))
		json_hex(j, "microcode", rev);
	else
		json_null(j, "microcode");
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
	/* an instruction every hypervisor intercepts (bench/caveats.h) */
	json_u64(j, "cpuid_cycles", tsc_freq.cpuid_cycles);
	json_bool(j, "tsc_invariant", cpu_info.invariant_tsc);
}

static void json_count(struct json *j, const char *key, unsigned v, bool known)
{
	if (known)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

/* SMBIOS type 4's sums over the populated sockets (docs/records.md). */
static void env_cpus_smbios(struct json *j)
{
	const struct smbios_info *sm = cpucount_smbios_info();
	const struct smbios_cpus *c = &sm->cpus;

	if (!sm->ok || !c->sockets) {
		json_null(j, "cpus_smbios");
		return;
	}
	json_begin_object(j, "cpus_smbios");
	json_u64(j, "sockets", c->sockets);
	json_u64(j, "sockets_disabled", c->disabled);
	json_count(j, "cores", c->cores, !(c->unknown & SMBIOS_CPU_CORES));
	json_count(j, "cores_enabled", c->cores_enabled,
		   !(c->unknown & SMBIOS_CPU_CORES_ENABLED));
	json_count(j, "threads", c->threads,
		   !(c->unknown & SMBIOS_CPU_THREADS));
	json_count(j, "threads_enabled", c->threads_enabled,
		   !(c->unknown & SMBIOS_CPU_THREADS_ENABLED));
	json_count(j, "cpus_min", c->cpus_min, c->cpus_min);
	json_count(j, "cpus_max", c->cpus_max, !c->max_unknown);
	json_bool(j, "some_off", c->some_off);
	json_end_object(j);
}

static void env_smp(struct json *j)
{
	if (acpi.madt.present)
		json_u64(j, "cpus_madt", smp_stats.cpus_madt);
	else
		json_null(j, "cpus_madt");
	json_u64(j, "cpus_online", cpumask_count(&cpus_online));
	env_cpus_smbios(j);
	json_str(j, "apic", apic_mode_name());
	json_bool(j, "apic_fence",
		  apic_mode == APIC_X2APIC && cpu_info.apic_msr_fence);
	json_u64(j, "bringup_us", tsc_to_ns(smp_stats.bringup_cycles) / 1000);
	json_bool(j, "bringup_init_wait", smp_stats.init_wait);
	json_str(j, "idle", smp_idle_name(smp_stats.idle));
	json_str(j, "idle_requested", smp_idle_name(smp_stats.idle_requested));
	json_i64(j, "tsc_max_offset", smp_stats.tsc_max_offset);
	json_bool(j, "tsc_trusted", smp_stats.tsc_trusted);
	/* measured (smp/concurrency.h): whether loss figures mean anything */
	json_bool(j, "cpus_concurrent", cpus_run_concurrently());
	json_str(j, "cpus_concurrent_why", cpus_concurrency_why());
	json_u64(j, "cpus_concurrent_permille", cpus_concurrency_permille());
	smp_env_topology(j);
}

void env_report(const char *cmdline, const char *output)
{
	/* Static: the whole command line (8 KiB, escapes) is in the record. */
	static char buf[3072 + 2 * BOOT_CMDLINE_MAX];
	struct record r;

	record_begin(&r, buf, sizeof(buf), "env");
	json_u64(&r.j, "schema", RECORD_SCHEMA);
	json_hex(&r.j, "run_id", run_id());
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
	env_smbios(&r.j);
	record_end(&r);
}
