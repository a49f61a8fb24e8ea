// SPDX-License-Identifier: MIT
/*
 * The TSC's frequency, from every clock the machine offers.
 *
 * Early (tsc_calibrate, before ACPI is read) a declared rate or one short
 * PIT window gives udelay() and the bring-up timeouts something to go by.
 * Then (tsc_crosscheck, once the FADT and HPET tables are known) three
 * windows are timed with the PIT, the ACPI PM timer and the HPET at once
 * (tsc_clocks.c), the declared rates are read, and tsc_choose()
 * (tsc_estimate.h: measured before declared, finest clock first) picks
 * the rate every time printed afterwards rests on. The estimates go into
 * the env record; check_tsc (selftest.c) fails when they disagree.
 */
#include <stdarg.h>
#include <stdbool.h>
#include "cpu.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "report.h"
#include "tsc.h"
#include "tsc_clocks.h"
#include "x86.h"

#define RDTSC_PAIRS 256

struct tsc_freq tsc_freq;

/* Source s gave no estimate, for the reason fmt says; returns false. */
bool tsc_set_absent(enum tsc_src s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(tsc_freq.absent[s], sizeof(tsc_freq.absent[s]), fmt, ap);
	va_end(ap);
	tsc_freq.estimate[s] = 0;
	return false;
}

/* Declared rates: CPUID 0x15 and 0x16, hypervisor leaf 0x40000010. */
static void read_declared(void)
{
	struct cpuid_regs r;

	/* Intel SDM: TSC Hz = ECX (crystal Hz) * EBX / EAX of leaf 0x15. */
	if (cpu_info.max_leaf < 0x15) {
		tsc_set_absent(TSC_SRC_CPUID_15H, "highest CPUID leaf is 0x%x",
			       cpu_info.max_leaf);
	} else {
		r = cpuid(0x15);
		if (!r.eax || !r.ebx)
			tsc_set_absent(TSC_SRC_CPUID_15H,
				       "leaf 0x15 gives no TSC/crystal ratio");
		else if (!r.ecx)
			/* Linux guesses it from the model; no guessing here. */
			tsc_set_absent(TSC_SRC_CPUID_15H,
				       "leaf 0x15 gives no crystal frequency");
		else
			tsc_freq.estimate[TSC_SRC_CPUID_15H] =
				(uint64_t)r.ecx * r.ebx / r.eax / 1000;
	}
	/* Leaf 0x16 EAX[15:0]: processor base frequency in MHz. */
	if (cpu_info.max_leaf < 0x16) {
		tsc_set_absent(TSC_SRC_CPUID_16H, "highest CPUID leaf is 0x%x",
			       cpu_info.max_leaf);
	} else {
		r = cpuid(0x16);
		if (!(r.eax & 0xffff))
			tsc_set_absent(TSC_SRC_CPUID_16H,
				       "leaf 0x16 gives no base frequency");
		else
			tsc_freq.estimate[TSC_SRC_CPUID_16H] =
				(uint64_t)(r.eax & 0xffff) * 1000;
	}
	/* VMware's convention, also QEMU/KVM's: EAX = TSC kHz. */
	if (!cpu_info.hypervisor) {
		tsc_set_absent(TSC_SRC_HYPERVISOR, "no hypervisor");
	} else if (cpu_info.hv_max_leaf < 0x40000010) {
		tsc_set_absent(TSC_SRC_HYPERVISOR,
			       "%s: highest hypervisor leaf is 0x%x",
			       cpu_info.hv_sig, cpu_info.hv_max_leaf);
	} else {
		r = cpuid(0x40000010);
		if (!r.eax)
			tsc_set_absent(TSC_SRC_HYPERVISOR,
				       "%s: leaf 0x40000010 gives no TSC rate",
				       cpu_info.hv_sig);
		else
			tsc_freq.estimate[TSC_SRC_HYPERVISOR] = r.eax;
	}
}

void tsc_calibrate(void)
{
	const char *why = NULL;
	int s;

	for (int i = 0; i < TSC_SRCS; i++)
		tsc_freq.absent[i][0] = '\0';
	tsc_freq.khz = 0;
	tsc_freq.source = "none";
	tsc_freq.why[0] = '\0';
	read_declared();
	s = tsc_choose(tsc_freq.estimate);
	if (s >= 0) {
		tsc_freq.khz = tsc_freq.estimate[s];
		tsc_freq.source = tsc_src_name(s);
	} else {
		tsc_freq.khz = tsc_pit_early_khz(&why);
		if (!tsc_khz_plausible(tsc_freq.khz)) {
			ksnprintf(tsc_freq.why, sizeof(tsc_freq.why), "PIT: %s",
				  why ? why : "implausible early estimate");
			tsc_freq.khz = 0;
		} else {
			tsc_freq.source = "pit";
		}
	}
	tsc_freq.early_khz = tsc_freq.khz;
	tsc_freq.early_source = tsc_freq.source;
}

/* Median cost of two back-to-back RDTSCs, in TSC cycles. */
static uint64_t rdtsc_cost(void)
{
	static uint64_t d[RDTSC_PAIRS];

	for (int i = 0; i < RDTSC_PAIRS; i++) {
		uint64_t a = rdtsc();
		uint64_t b = rdtsc();

		d[i] = b > a ? b - a : 0;
	}
	return tsc_median(d, RDTSC_PAIRS);
}

/*
 * Median TSC cycles of one CPUID (leaf 0), the cost of the two RDTSCs
 * around it (rdtsc_cycles) taken off: the cost of an instruction every
 * hypervisor intercepts, so a VM exit's where there is one
 * (bench/caveats.h). CPUID is serializing: the second RDTSC waits for it.
 */
static uint64_t cpuid_cost(uint64_t rdtsc_cycles)
{
	static uint64_t d[TSC_CPUID_SAMPLES];
	uint64_t m;

	for (int i = 0; i < TSC_CPUID_SAMPLES; i++) {
		uint64_t a = rdtsc();
		uint64_t b;

		(void)cpuid(0);
		b = rdtsc();
		d[i] = b > a ? b - a : 0;
	}
	m = tsc_median(d, TSC_CPUID_SAMPLES);
	return m > rdtsc_cycles ? m - rdtsc_cycles : 0;
}

void tsc_crosscheck(const struct acpi_info *ai,
		    void *(*map_mmio)(uint64_t pa, size_t len))
{
	uint64_t t0 = rdtsc_ordered();
	int s;

	tsc_freq.rdtsc_cycles = rdtsc_cost();
	tsc_freq.rdtsc_trapped =
		tsc_freq.rdtsc_cycles > TSC_RDTSC_TRAPPED_CYCLES;
	tsc_freq.cpuid_cycles = cpuid_cost(tsc_freq.rdtsc_cycles);
	tsc_clocks_measure(ai, map_mmio);
	s = tsc_choose(tsc_freq.estimate);
	tsc_freq.khz = s >= 0 ? tsc_freq.estimate[s] : 0;
	tsc_freq.source = tsc_src_name(s);
	if (s < 0)
		ksnprintf(tsc_freq.why, sizeof(tsc_freq.why),
			  "no clock gave a plausible TSC rate");
	tsc_freq.crosscheck_cycles = rdtsc_ordered() - t0;
}

void tsc_report(void)
{
	char line[256], boot[40];
	struct kbuf b, early;

	kbuf_init(&b, line, sizeof(line));
	for (int s = 0; s < TSC_SRCS; s++) {
		if (!tsc_freq.estimate[s])
			continue;
		kbuf_puts(&b, b.len ? ", " : "");
		kbuf_puts(&b, tsc_src_name(s));
		kbuf_puts(&b, " ");
		kbuf_u64(&b, tsc_freq.estimate[s]);
		kbuf_puts(&b, " kHz");
	}
	kbuf_init(&early, boot, sizeof(boot));
	kbuf_puts(&early, tsc_freq.early_source);
	if (tsc_freq.early_khz) {
		kbuf_puts(&early, " ");
		kbuf_u64(&early, tsc_freq.early_khz);
		kbuf_puts(&early, " kHz");
	}
	report_info("tsc: %s; using %s (during boot: %s); measured in %llu "
		    "ms",
		    b.len ? line : "no estimates", tsc_freq.source, boot,
		    (unsigned long long)(tsc_to_ns(tsc_freq.crosscheck_cycles) /
					 1000000));
	for (int s = 0; s < TSC_SRCS; s++) {
		if (!tsc_freq.estimate[s] && tsc_freq.absent[s][0])
			report_info("tsc: no %s estimate: %s", tsc_src_name(s),
				    tsc_freq.absent[s]);
	}
	report_info("tsc: back-to-back RDTSC takes %llu cycles (median of "
		    "%d)%s",
		    (unsigned long long)tsc_freq.rdtsc_cycles, RDTSC_PAIRS,
		    tsc_freq.rdtsc_trapped ? ": the hypervisor traps RDTSC"
					   : "");
	report_info("tsc: CPUID takes %llu cycles (median of %d, RDTSC's "
		    "cost taken off)",
		    (unsigned long long)tsc_freq.cpuid_cycles,
		    TSC_CPUID_SAMPLES);
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	return cycles_to_ns(cycles, tsc_freq.khz);
}

/* Unknown frequency: assume a fast (5 GHz) TSC, so waits are too long. */
uint64_t us_to_cycles(uint64_t us)
{
	return us * (tsc_freq.khz ? tsc_freq.khz : 5000000) / 1000;
}

void udelay(uint64_t us)
{
	uint64_t end = rdtsc() + us_to_cycles(us);

	while (rdtsc() < end)
		cpu_relax();
}
