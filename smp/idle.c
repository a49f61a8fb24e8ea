// SPDX-License-Identifier: MIT
/* Which idle loop the other CPUs run: see idle.h. */
#include "smp/idle.h"

static int set_why(const char **why, const char *text, int mode)
{
	if (why)
		*why = text;
	return mode;
}

const char *smp_idle_name(int mode)
{
	static const char *const names[] = {"auto", "poll", "hlt", "mwait"};

	if (mode < IDLE_AUTO || mode > IDLE_MWAIT)
		return "?";
	return names[mode];
}

static int choose_auto(const struct idle_cpu *c, const char **why)
{
	if (!c->hypervisor)
		return set_why(why,
			       "idle=auto: bare metal: polling keeps the "
			       "cores out of deep C-states",
			       IDLE_POLL);
	if (c->hv_dedicated)
		return set_why(why,
			       "idle=auto: KVM gives every vCPU a host cpu "
			       "of its own (KVM_HINTS_REALTIME)",
			       IDLE_POLL);
	return set_why(why,
		       "idle=auto: under a hypervisor a polling vCPU holds a "
		       "host cpu the others may need",
		       IDLE_HLT);
}

int smp_idle_choose(int requested, const struct idle_cpu *c, const char **why)
{
	switch (requested) {
	case IDLE_POLL:
		return set_why(why, "idle=poll", IDLE_POLL);
	case IDLE_HLT:
		return set_why(why, "idle=hlt", IDLE_HLT);
	case IDLE_MWAIT:
		if (c->monitor)
			return set_why(why, "idle=mwait", IDLE_MWAIT);
		return set_why(why,
			       "idle=mwait: CPUID.01H:ECX.MONITOR[bit 3] is "
			       "clear, no MONITOR/MWAIT: HLT instead",
			       IDLE_HLT);
	default:
		return choose_auto(c, why);
	}
}
