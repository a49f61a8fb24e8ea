// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include "cpu.h"
#include "printf.h"
#include "tsc.h"
#include "x86.h"

/*
 * PIT (Intel 8254) channel 2: its gate and output are wired to port 0x61
 * (bit 0 gate, bit 1 speaker enable, bit 5 OUT2), so it can be polled
 * without interrupts. Input clock 1.193182 MHz.
 */
#define PIT_HZ		 1193182ull
#define PIT_CH2_DATA	 0x42
#define PIT_COMMAND	 0x43
#define PIT_CH2_MODE0	 0xb0 /* channel 2, lo/hi byte, mode 0, binary */
#define PORT_61		 0x61
#define P61_GATE2	 0x01
#define P61_SPEAKER	 0x02
#define P61_OUT2	 0x20
#define PIT_WINDOW_TICKS 59659 /* 50.0 ms */
#define PIT_WINDOWS	 3
/* Polls of port 0x61 before giving up (a 50 ms window takes ~50k). */
#define PIT_POLL_LIMIT 50000000u

struct tsc_freq tsc_freq;

/* TSC cycles across one window of `ticks` PIT clocks; 0 on timeout. */
static uint64_t pit_window(uint16_t ticks)
{
	uint8_t saved = inb(PORT_61);
	uint64_t t0, t1;
	uint32_t polls = 0;

	outb(PORT_61, (saved & ~P61_SPEAKER) | P61_GATE2);
	/* Mode 0: OUT2 goes low now and high when the count reaches 0. */
	outb(PIT_COMMAND, PIT_CH2_MODE0);
	outb(PIT_CH2_DATA, ticks & 0xff);
	outb(PIT_CH2_DATA, ticks >> 8);
	t0 = rdtsc_ordered();
	while (!(inb(PORT_61) & P61_OUT2)) {
		if (++polls > PIT_POLL_LIMIT) {
			outb(PORT_61, saved);
			return 0;
		}
	}
	t1 = rdtsc_ordered();
	outb(PORT_61, saved);
	/* OUT2 high at once means there is no PIT answering. */
	return polls ? t1 - t0 : 0;
}

static bool calibrate_pit(void)
{
	uint64_t best = 0, khz;

	for (int i = 0; i < PIT_WINDOWS; i++) {
		uint64_t d = pit_window(PIT_WINDOW_TICKS);

		if (d && (!best || d < best))
			best = d;
	}
	if (!best) {
		ksnprintf(tsc_freq.why, sizeof(tsc_freq.why),
			  "PIT channel 2 did not count (no 8254?)");
		return false;
	}
	khz = best * PIT_HZ / (PIT_WINDOW_TICKS * 1000ull);
	if (!tsc_khz_plausible(khz)) {
		ksnprintf(tsc_freq.why, sizeof(tsc_freq.why),
			  "PIT calibration gave an implausible %llu kHz",
			  (unsigned long long)khz);
		return false;
	}
	tsc_freq.khz = khz;
	tsc_freq.source = "pit";
	return true;
}

/* Intel SDM: TSC Hz = ECX (crystal Hz) * EBX / EAX of leaf 0x15. */
static bool calibrate_cpuid(void)
{
	struct cpuid_regs r;

	if (cpu_info.max_leaf >= 0x15) {
		r = cpuid(0x15);
		if (r.eax && r.ebx && r.ecx) {
			tsc_freq.khz = (uint64_t)r.ecx * r.ebx / r.eax / 1000;
			tsc_freq.source = "cpuid-15h";
			return true;
		}
	}
	if (cpu_info.max_leaf >= 0x16) {
		r = cpuid(0x16);
		if (r.eax & 0xffff) {
			tsc_freq.khz = (uint64_t)(r.eax & 0xffff) * 1000;
			tsc_freq.source = "cpuid-16h";
			return true;
		}
	}
	return false;
}

/* KVM/VMware convention: leaf 0x40000010 EAX = TSC frequency in kHz. */
static bool calibrate_hypervisor(void)
{
	uint32_t khz;

	if (!cpu_info.hypervisor || cpu_info.hv_max_leaf < 0x40000010)
		return false;
	khz = cpuid(0x40000010).eax;
	if (!khz)
		return false;
	tsc_freq.khz = khz;
	tsc_freq.source = "hypervisor";
	return true;
}

void tsc_calibrate(void)
{
	tsc_freq.khz = 0;
	tsc_freq.source = "none";
	tsc_freq.why[0] = '\0';
	if (calibrate_cpuid() || calibrate_hypervisor())
		return;
	calibrate_pit();
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	if (!tsc_freq.khz)
		return 0;
	/* Split to avoid overflow for large cycle counts. */
	return cycles / tsc_freq.khz * 1000000ull +
	       cycles % tsc_freq.khz * 1000000ull / tsc_freq.khz;
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
