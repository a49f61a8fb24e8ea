// SPDX-License-Identifier: MIT
/* The 10 ms wait after INIT: on which CPUs. See initwait.h. */
#include "lib/kstring.h"
#include "smp/initwait.h"

/* The families that start without the wait, first of their vendor's. */
static const struct {
	const char *vendor;
	unsigned family;
	const char *why;
} modern[] = {
	{"GenuineIntel", 0x6,
	 "init_wait=auto: Intel family 6 and later start without it"},
	{"AuthenticAMD", 0xf,
	 "init_wait=auto: AMD family 0xf and later start without it"},
	{"HygonGenuine", 0x18,
	 "init_wait=auto: Hygon family 0x18 and later start without it"},
};

static bool set_why(const char **why, const char *text, bool wait)
{
	if (why)
		*why = text;
	return wait;
}

bool smp_init_wait(int mode, const char *vendor, unsigned family,
		   bool hypervisor, const char **why)
{
	if (mode == INIT_WAIT_ON)
		return set_why(why, "init_wait=on", true);
	if (mode == INIT_WAIT_OFF)
		return set_why(why, "init_wait=off", false);
	for (unsigned i = 0; i < sizeof(modern) / sizeof(modern[0]); i++) {
		if (vendor && !kstrcmp(vendor, modern[i].vendor) &&
		    family >= modern[i].family)
			return set_why(why, modern[i].why, false);
	}
	if (hypervisor)
		return set_why(why,
			       "init_wait=auto: a hypervisor's APIC starts "
			       "CPUs without it",
			       false);
	return set_why(why,
		       "init_wait=auto: this CPU is not known to start "
		       "without it",
		       true);
}
