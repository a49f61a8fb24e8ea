/* SPDX-License-Identifier: MIT */
/* The Linux side's env record and what it says of INVLPGB (linux/env.c). */
#ifndef LINUX_ENV_H
#define LINUX_ENV_H

#include <stdbool.h>

#include "linux/args.h"
#include "linux/sys.h"

struct invlpgb_state {
	bool cpuid, flag, in_use;
	unsigned max_pages;
	char param[128]; /* the clearcpuid= word given, "" if none */
	char klog[256];	 /* the kernel's line about it, "" if none */
	const char *why;
};

/* CPUID, /proc/cpuinfo, the command line and the kernel's log. */
void env_invlpgb(struct invlpgb_state *s);
/* swap: NULL where it could not be set up. */
void env_record(const struct args *a, unsigned cpus,
		const struct invlpgb_state *inv, const struct swap_info *swap);
/* Whether the boot parameter did what it was given for (where one was). */
void env_invlpgb_verdict(const struct invlpgb_state *inv);

#endif
