// SPDX-License-Identifier: MIT
#include "cpu.h"
#include "lib/json.h"
#include "lib/string.h"
#include "x86.h"

struct cpu_info cpu_info;
uint32_t cpu_wait_us = CPU_WAIT_MS_DEFAULT * 1000;

static void copy_regs(char *dst, const uint32_t *regs, int n)
{
	memcpy(dst, regs, (size_t)n * 4);
	dst[n * 4] = '\0';
}

/* Family/model/stepping as the AMD and Intel manuals define them. */
static void identify_version(struct cpu_info *c)
{
	uint32_t eax = cpuid(1).eax;
	unsigned base_family = (eax >> 8) & 0xf;
	unsigned model = (eax >> 4) & 0xf;

	c->stepping = eax & 0xf;
	c->family = base_family;
	if (base_family == 0xf)
		c->family += (eax >> 20) & 0xff;
	if (base_family == 0xf || base_family == 0x6)
		model |= ((eax >> 16) & 0xf) << 4;
	c->model = model;
}

static void identify_brand(struct cpu_info *c)
{
	char *p;

	c->brand[0] = '\0';
	if (c->max_ext_leaf < 0x80000004)
		return;
	for (uint32_t i = 0; i < 3; i++) {
		struct cpuid_regs r = cpuid(0x80000002 + i);
		uint32_t w[4] = {r.eax, r.ebx, r.ecx, r.edx};

		copy_regs(c->brand + i * 16, w, 4);
	}
	/* Brand strings are often padded with leading spaces. */
	for (p = c->brand; *p == ' '; p++)
		;
	memmove(c->brand, p, strlen(p) + 1);
}

static void identify_hypervisor(struct cpu_info *c)
{
	struct cpuid_regs r;
	uint32_t w[3];

	c->hv_sig[0] = '\0';
	if (!c->hypervisor)
		return;
	r = cpuid(0x40000000);
	w[0] = r.ebx, w[1] = r.ecx, w[2] = r.edx;
	copy_regs(c->hv_sig, w, 3);
	c->hv_max_leaf = r.eax;
	/* KVM's features leaf; a max leaf of 0 there means 0x40000001. */
	if (!strcmp(c->hv_sig, "KVMKVMKVM") &&
	    (c->hv_max_leaf >= KVM_CPUID_FEATURES || !c->hv_max_leaf))
		c->hv_dedicated =
			cpuid(KVM_CPUID_FEATURES).edx & KVM_HINTS_REALTIME;
}

static void identify_features(struct cpu_info *c)
{
	struct cpuid_regs r1 = cpuid(1);

	c->hypervisor = r1.ecx & CPUID1_ECX_HYPERVISOR;
	c->x2apic = r1.ecx & CPUID1_ECX_X2APIC;
	c->pcid = r1.ecx & CPUID1_ECX_PCID;
	c->monitor = r1.ecx & CPUID1_ECX_MONITOR;
	if (c->max_leaf >= 7)
		c->invpcid = cpuid_count(7, 0).ebx & CPUID7_EBX_INVPCID;
	if (c->max_ext_leaf >= 0x80000001) {
		uint32_t edx = cpuid(0x80000001).edx;

		c->pdpe1gb = edx & CPUID80000001_EDX_PDPE1GB;
		c->nx = edx & CPUID80000001_EDX_NX;
	}
	if (c->max_ext_leaf >= 0x80000007)
		c->invariant_tsc =
			cpuid(0x80000007).edx & CPUID80000007_EDX_INVTSC;
	/* "If CPUID.80000008H is not supported, MAXPHYADDR is 36" (SDM). */
	c->phys_bits = 36;
	if (c->max_ext_leaf >= 0x80000008) {
		struct cpuid_regs r = cpuid(0x80000008);

		/* 52: the most a page-table entry can hold. */
		if (r.eax & 0xff)
			c->phys_bits = (r.eax & 0xff) < 52 ? r.eax & 0xff : 52;

		c->invlpgb_cpuid = r.ebx & CPUID80000008_EBX_INVLPGB;
		c->invlpgb_max_pages =
			c->invlpgb_cpuid ? (r.edx & 0xffff) + 1 : 0;
	}
	c->invlpgb = c->invlpgb_cpuid && !c->hypervisor;
}

void cpu_identify(void)
{
	struct cpu_info *c = &cpu_info;
	struct cpuid_regs r = cpuid(0);
	uint32_t w[3] = {r.ebx, r.edx, r.ecx};

	c->max_leaf = r.eax;
	copy_regs(c->vendor, w, 3);
	c->amd = !strcmp(c->vendor, "AuthenticAMD") ||
		 !strcmp(c->vendor, "HygonGenuine");
	c->apic_msr_fence = !c->amd;
	c->max_ext_leaf = cpuid(0x80000000).eax;
	identify_version(c);
	identify_features(c);
	identify_brand(c);
	identify_hypervisor(c);
}

const char *cpu_invlpgb_absent_reason(void)
{
	return cpu_info.invlpgb_cpuid
		       ? "running under a hypervisor: a guest's INVLPGB does "
			 "not reach its sibling vCPUs"
		       : "not supported by this CPU (CPUID Fn8000_0008 EBX[3])";
}

void cpu_json(struct json *j)
{
	json_begin_object(j, "cpu");
	json_str(j, "vendor", cpu_info.vendor);
	json_u64(j, "family", cpu_info.family);
	json_u64(j, "model", cpu_info.model);
	json_u64(j, "stepping", cpu_info.stepping);
	json_str(j, "brand", cpu_info.brand);
	json_end_object(j);
}
