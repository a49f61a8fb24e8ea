// SPDX-License-Identifier: MIT
#include "bootinfo.h"
#include "cpu.h"
#include "lib/printf.h"
#include "report.h"
#include "selftest.h"
#include "lib/string.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"

#define TSC_MONOTONIC_READS 10000

static volatile unsigned handled_uds;
static volatile uint64_t handled_ud_rip;

/* ud2 is 0f 0b: resume after it. */
static void on_invalid_opcode(struct trap_frame *f)
{
	handled_uds++;
	handled_ud_rip = f->rip;
	f->rip += 2;
}

/*
 * An exception is delivered to the handler registered for it, and
 * execution resumes where the handler says. #UD from ud2 rather than #BP
 * from int3: some hypervisors (kvm-pvm) cannot emulate an int3 at CPL 0
 * and stop the guest, while every one of them delivers #UD.
 */
static void check_exception_path(void)
{
	unsigned before;

	trap_set_handler(VEC_UD, on_invalid_opcode);
	before = handled_uds;
	ud2();
	trap_set_handler(VEC_UD, NULL);
	report_check(handled_uds == before + 1 && handled_ud_rip != 0,
		     "trap: #UD delivered to its handler and resumed",
		     "expected 1 #UD, saw %u", handled_uds - before);
}

/*
 * The _safe helpers turn an exception into a return value: a read from a
 * non-canonical address raises #GP on every x86-64 CPU.
 */
static void check_safe_path(void)
{
	uint64_t val = 1;
	int vec = read_u64_safe((const void *)0x8000000000000000ull, &val);

	report_check(vec == VEC_GP && val == 0,
		     "trap: _safe read reports #GP and resumes",
		     "expected vector 13, got %d", vec);
}

static void check_memory_map(void)
{
	uint64_t usable = boot_usable_bytes(&boot_info);

	report_check(boot_info.have_mmap && usable > 0, "boot: memory map",
		     "the loader passed %s",
		     boot_info.have_mmap ? "no usable memory"
					 : "no memory map");
}

/* Percent with two decimals, from ppm: "%llu.%02llu%%". */
#define PPM_PCT(ppm)                         \
	(unsigned long long)((ppm) / 10000), \
		(unsigned long long)((ppm) % 10000 / 100)

/*
 * selftest=tsc-skew: a copy of the estimates with one of them (not the one
 * used) 2% too high, so that the check below must fail. tsc_freq is left
 * alone: the rate in use, the env record and every time stay right.
 */
static void skew_one(uint64_t *k, int chosen)
{
	uint64_t was[TSC_SRCS];
	int s;

	memcpy(was, k, sizeof(was));
	s = tsc_skew(k, chosen, TSC_SKEW_PPM);
	if (s < 0) {
		report_info("selftest: selftest=tsc-skew: no TSC estimate "
			    "besides the one used: nothing to skew");
		return;
	}
	report_info("selftest: selftest=tsc-skew: %s estimate %llu kHz "
		    "raised by %u.%02u%% to %llu kHz for the sources check",
		    tsc_src_name(s), (unsigned long long)was[s],
		    TSC_SKEW_PPM / 10000, TSC_SKEW_PPM % 10000 / 100,
		    (unsigned long long)k[s]);
}

/*
 * The chosen TSC rate against every other estimate (tsc_estimate.h):
 * more than 0.5% apart is a FAIL that names both.
 */
static void check_tsc_sources(bool skew)
{
	static const char name[] = "tsc: sources agree within 0.5%";
	uint64_t k[TSC_SRCS];
	int chosen;
	struct tsc_agreement a;

	memcpy(k, tsc_freq.estimate, sizeof(k));
	chosen = tsc_choose(k);
	if (skew)
		skew_one(k, chosen);
	tsc_agreement(k, chosen, TSC_AGREE_PPM, &a);
	switch (a.verdict) {
	case TSC_AGREE:
		report_pass("%s", name);
		break;
	case TSC_DISAGREE:
		report_fail(
			name,
			"%s says %llu kHz, %llu.%02llu%% off the %llu kHz "
			"of %s (the one used)",
			tsc_src_name(a.worst), (unsigned long long)k[a.worst],
			PPM_PCT(a.worst_ppm), (unsigned long long)k[a.chosen],
			tsc_src_name(a.chosen));
		break;
	case TSC_ALONE:
		report_skip(name, "%s is the only source of a TSC rate",
			    tsc_src_name(a.chosen));
		break;
	case TSC_NONE:
		report_skip(name, "no source gave a plausible TSC rate");
		break;
	}
}

static void check_tsc(bool skew)
{
	uint64_t prev = rdtsc_ordered(), backwards = 0;

	for (int i = 0; i < TSC_MONOTONIC_READS; i++) {
		uint64_t now = rdtsc_ordered();

		if (now < prev)
			backwards++;
		prev = now;
	}
	report_check(!backwards, "tsc: monotonic on this cpu",
		     "went backwards %llu times in %d reads",
		     (unsigned long long)backwards, TSC_MONOTONIC_READS);
	if (tsc_freq.khz && tsc_khz_plausible(tsc_freq.khz)) {
		/* The rate is measured: the detail, so the name stays put. */
		report_pass_detail("tsc: frequency", "%llu kHz from %s",
				   (unsigned long long)tsc_freq.khz,
				   tsc_freq.source);
	} else if (tsc_freq.khz) {
		/* CPUID and hypervisor leaves are taken on trust: check. */
		report_fail("tsc: frequency",
			    "%llu kHz from %s: outside %llu..%llu kHz",
			    (unsigned long long)tsc_freq.khz, tsc_freq.source,
			    (unsigned long long)TSC_KHZ_MIN,
			    (unsigned long long)TSC_KHZ_MAX);
	} else
		report_skip("tsc: frequency", "%s; times stay in cycles",
			    tsc_freq.why);
	check_tsc_sources(skew);
}

static void inject(const struct config *cfg)
{
	if (cfg->inject == INJECT_FAIL)
		report_fail("selftest: injected failure",
			    "selftest=fail asked for this check to fail");
	if (cfg->inject == INJECT_FAULT) {
		report_info("selftest: selftest=fault: executing ud2 now");
		ud2();
		report_fail("selftest: injected fault",
			    "ud2 did not raise #UD");
	}
}

void selftest_run(const struct config *cfg)
{
	check_memory_map();
	check_exception_path();
	check_safe_path();
	check_tsc(cfg->inject == INJECT_TSC_SKEW);
	inject(cfg);
}
