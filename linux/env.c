// SPDX-License-Identifier: MIT
/*
 * The env record of a Linux-side run (docs/linux.md): which kernel, its
 * command line, the CPUs, whether Linux flushes with INVLPGB and why, and
 * the swap the page-out writes to.
 */
#include "linux/env.h"
#include "linux/out.h"
#include "bench/caveats.h"
#include "kernel/cpu.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>

/*
 * Debian's 7.3 ignores clearcpuid=invlpgb (its log says only "clearcpuid:
 * unknown CPU flag: invlpgb"); the bit number (word 13, bit 3: 13 * 32 +
 * 3) works and is logged as "force-disabling CPU feature flag: 13:3".
 */
#define INVLPGB_BIT "419"

static void find_param(char *out, size_t cap)
{
	char cmdline[4096], *save = NULL;

	out[0] = 0;
	if (!sys_read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		return;
	for (char *w = strtok_r(cmdline, " ", &save); w;
	     w = strtok_r(NULL, " ", &save))
		if (!strncmp(w, "clearcpuid=", 11))
			snprintf(out, cap, "%s", w); /* the last one wins */
}

static bool names_invlpgb(const char *param)
{
	return strstr(param, INVLPGB_BIT) || strstr(param, "invlpgb");
}

void env_invlpgb(struct invlpgb_state *s)
{
	memset(s, 0, sizeof(*s));
	s->cpuid = cpu_info.invlpgb_cpuid;
	s->max_pages = cpu_info.invlpgb_max_pages;
	s->flag = sys_cpuinfo_flag("invlpgb");
	s->in_use = s->cpuid && s->flag;
	find_param(s->param, sizeof(s->param));
	/* what the kernel made of clearcpuid=, whichever way it went */
	if (!sys_klog_find("clearcpuid: ", s->klog, sizeof(s->klog)))
		s->klog[0] = 0;
	if (s->in_use)
		s->why = "CPUID has INVLPGB and /proc/cpuinfo lists invlpgb: "
			 "Linux flushes remote TLBs with it";
	else if (!s->cpuid)
		s->why = "CPUID has no INVLPGB (Fn8000_0008 EBX[3]; QEMU TCG "
			 "has none): Linux flushes with IPIs";
	else if (strstr(s->klog, "force-disabling CPU feature flag: 13:3"))
		s->why = "CPUID has INVLPGB, turned off by the boot parameter "
			 "(the kernel logged it): Linux flushes with IPIs";
	else
		s->why = "CPUID has INVLPGB but /proc/cpuinfo does not list "
			 "it: Linux flushes with IPIs";
}

static void cpu_fields(struct json *j)
{
	cpu_json(j); /* the harness's own "cpu" object */
	json_str(j, "hypervisor", cpu_info.hypervisor ? cpu_info.hv_sig : NULL);
}

static void invlpgb_fields(struct json *j, const struct invlpgb_state *s)
{
	json_begin_object(j, "invlpgb");
	json_bool(j, "in_use", s->in_use);
	json_bool(j, "cpuid", s->cpuid);
	json_bool(j, "cpuinfo_flag", s->flag);
	json_u64(j, "max_pages", s->max_pages);
	json_str(j, "boot_param", s->param[0] ? s->param : NULL);
	json_str(j, "kernel_log", s->klog[0] ? s->klog : NULL);
	json_str(j, "why", s->why);
	json_end_object(j);
}

static void args_fields(struct json *j, const struct args *a)
{
	json_begin_object(j, "workloads");
	json_bool(j, "tlb_flush2", a->flush2);
	json_bool(j, "pageout", a->pageout);
	json_begin_array(j, "threads");
	for (unsigned i = 0; i < a->ncounts; i++)
		json_u64(j, NULL, a->counts[i]);
	json_end_array(j);
	json_u64(j, "flush2_ms", a->flush2_ms);
	json_u64(j, "flush2_pages", a->flush2_pages);
	json_u64(j, "reclaim_mb", a->reclaim_mb);
	json_u64(j, "hot_mb", a->hot_mb);
	json_u64(j, "duration_ms", a->duration_ms);
	json_end_object(j);
}

/*
 * Why this side's figures are not the hardware's, by the harness's own
 * rule (bench/caveats.h), so that `answer` reads the Linux side's caveats
 * as it reads the harness's and decides none. Linux times with its own
 * clock, not the TSC, so only where it runs counts: QEMU TCG, or another
 * hypervisor by its CPUID bit.
 */
static void caveats_field(struct json *j, unsigned cpus)
{
	const struct caveats_facts f = {
		.hv_bit = cpu_info.hypervisor,
		.tcg = !strcmp(cpu_info.hv_sig, "TCGTCGTCGTCG"),
		.invariant_tsc = true, /* no TSC timing here */
		.cpus = cpus,
		.concurrent_before = true, /* not probed here */
		.invlpgb_cpuid = cpu_info.invlpgb_cpuid,
	};
	struct findings_machine m;
	unsigned int c;

	caveats_decide(&f, &m);
	c = findings_timing_caveats(&m);
	json_begin_array(j, "caveats");
	for (unsigned int i = 0; i < FC_COUNT; i++)
		if (c & (1u << i))
			json_str(j, NULL, findings_caveat_tag(1u << i));
	json_end_array(j);
}

void env_record(const struct args *a, unsigned cpus,
		const struct invlpgb_state *inv, const struct swap_info *swap)
{
	struct record *r = &(struct record){0};
	struct utsname u;
	char cmdline[4096], thp[128], id[24];
	uint64_t rnd = 0;

	uname(&u);
	if (!sys_read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		cmdline[0] = 0;
	if (!sys_read_file("/sys/kernel/mm/transparent_hugepage/enabled", thp,
			   sizeof(thp)))
		snprintf(thp, sizeof(thp), "unknown");
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd ^= sys_now_ns();
	snprintf(id, sizeof(id), "0x%016llx", (unsigned long long)rnd);
	record_begin(r, "env");
	json_u64(&r->j, "schema", 2);
	json_str(&r->j, "side", "linux");
	json_str(&r->j, "run_id", id);
	json_str(&r->j, "version", BUILD_VERSION);
	json_str(&r->j, "kernel", u.release);
	json_str(&r->j, "cmdline", cmdline);
	json_str(&r->j, "output", "both");
	cpu_fields(&r->j);
	json_u64(&r->j, "cpus_online", cpus);
	caveats_field(&r->j, cpus);
	json_u64(&r->j, "mem_bytes", sys_meminfo_kb("MemTotal") * 1024);
	invlpgb_fields(&r->j, inv);
	if (swap) {
		json_begin_object(&r->j, "swap");
		json_str(&r->j, "device", swap->device);
		json_str(&r->j, "comp_algorithm", swap->comp);
		json_u64(&r->j, "bytes", swap->bytes);
		json_end_object(&r->j);
	} else {
		json_null(&r->j, "swap");
	}
	json_str(&r->j, "thp", thp);
	/* clearcpuid= taints the kernel: a reader sees it was not as shipped */
	if (sys_read_file("/proc/sys/kernel/tainted", thp, sizeof(thp)))
		json_u64(&r->j, "tainted", strtoull(thp, NULL, 10));
	args_fields(&r->j, a);
	record_end(r);
}

void env_invlpgb_verdict(const struct invlpgb_state *s)
{
	const char *name = "linux: invlpgb: the boot parameter turned it off";

	if (!s->param[0] || !names_invlpgb(s->param))
		return;
	if (!s->cpuid)
		out_skip(name,
			 "'%s' given, but CPUID has no INVLPGB to turn "
			 "off",
			 s->param);
	else
		out_verdict(!s->flag, name,
			    s->flag ? "'%s' given, but /proc/cpuinfo still "
				      "lists invlpgb (Debian's 7.3 ignores "
				      "clearcpuid=invlpgb: give "
				      "clearcpuid=" INVLPGB_BIT ")"
				    : "'%s' given: /proc/cpuinfo lists no "
				      "invlpgb",
			    s->param);
}
