// SPDX-License-Identifier: MIT
/* A unit of measurement a CPU's fault spoils (bench/xcpu_fault.h). */
#include <stdarg.h>
#include "bench/xcpu_fault.h"
#include "kernel/report.h"
#include "lib/printf.h"
#include "smp/smp.h"

void xcpu_unit_begin(struct xcpu_unit *u)
{
	u->faults = xcall_faults();
}

bool xcpu_unit_faulted(const struct xcpu_unit *u)
{
	return xcall_faults() != u->faults;
}

bool xcpu_unit_spoiled(const struct xcpu_unit *u, const char *name,
		       const char *why_fmt, ...)
{
	char why[REPORT_LINE_MAX];
	va_list ap;

	if (!xcpu_unit_faulted(u))
		return false;
	va_start(ap, why_fmt);
	kvsnprintf(why, sizeof(why), why_fmt, ap);
	va_end(ap);
	report_fail(name, "%s", why);
	return true;
}
