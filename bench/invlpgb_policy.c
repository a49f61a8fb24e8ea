// SPDX-License-Identifier: MIT
/*
 * Whether an experiment runs INVLPGB, and which (bench/invlpgb_policy.h):
 * the instruction, its software model, or neither, and why.
 */
#include "bench/invlpgb_emul.h"
#include "bench/invlpgb_policy.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/x86.h"

void bench_invlpgb_init(struct invlpgb_policy *pol,
			enum param_invlpgb_mode mode)
{
	*pol = (struct invlpgb_policy){.mode = mode};
	pol->model_on = mode == PARAM_INVLPGB_EMULATE && invlpgb_emul_enable();
}

void bench_invlpgb_fini(struct invlpgb_policy *pol)
{
	if (pol->model_on)
		invlpgb_emul_disable();
	pol->model_on = false;
}

/* invlpgb=force: execute it once, as asked; the #UD is caught, reported. */
static void invlpgb_force_probe(struct invlpgb_policy *pol, const char *bench)
{
	int vec;

	if (pol->probed)
		return;
	pol->probed = true;
	vec = invlpgb_safe(0x5, 0, 0); /* VA 0, ASID 0, one page */
	if (!vec)
		vec = tlbsync_safe();
	report_checkf(!vec,
		      "%s: invlpgb=force" REPORT_DETAIL
		      "INVLPGB/TLBSYNC raised vector %d (%s)",
		      bench, vec, cpu_invlpgb_absent_reason());
}

/*
 * The one rule: the instruction's maximum where it runs (bare metal,
 * CPUID), else the model's where it is installed, else none.
 */
static uint32_t invlpgb_pages(const struct invlpgb_policy *pol, bool *emulated)
{
	*emulated = false;
	if (pol->mode == PARAM_INVLPGB_OFF)
		return 0;
	if (cpu_info.invlpgb)
		return cpu_info.invlpgb_max_pages;
	*emulated = pol->model_on;
	return pol->model_on ? INVLPGB_EMUL_MAX_PAGES : 0;
}

uint32_t bench_invlpgb_planned_pages(const struct invlpgb_policy *pol)
{
	bool emulated;

	return invlpgb_pages(pol, &emulated);
}

bool bench_invlpgb_planned(const struct invlpgb_policy *pol)
{
	return bench_invlpgb_planned_pages(pol) != 0;
}

uint32_t bench_invlpgb(struct invlpgb_policy *pol, const char *bench,
		       bool *emulated)
{
	uint32_t pages = invlpgb_pages(pol, emulated);

	if (pages)
		return pages;
	if (pol->mode == PARAM_INVLPGB_OFF) {
		report_skipf("%s: invlpgb" REPORT_DETAIL
			     "turned off by invlpgb=off",
			     bench);
		return 0;
	}
	if (pol->mode == PARAM_INVLPGB_FORCE) {
		invlpgb_force_probe(pol, bench);
		report_skipf("%s: invlpgb" REPORT_DETAIL
			     "INVLPGB is not executable here",
			     bench);
		return 0;
	}
	report_skipf("%s: invlpgb" REPORT_DETAIL "%s", bench,
		     cpu_invlpgb_absent_reason());
	return 0;
}
