// SPDX-License-Identifier: MIT
/*
 * Where firmware data may be read (see fwread.h).
 */
#include "kernel/fwread.h"
#include "lib/printf.h"

#define LOW_MEG (1ull << 20)

enum fw_read fw_read_rule(const struct boot_info *bi, uint64_t pa, uint64_t len,
			  unsigned phys_bits, uint64_t pa_limit,
			  const char **why, char *buf, size_t cap)
{
	uint64_t end = pa + len;

	*why = NULL;
	if (len == 0 || end < pa) {
		*why = "empty, or wraps around the address space";
		return FW_READ_REFUSED;
	}
	if (phys_bits < 64 && (end - 1) >> phys_bits) {
		ksnprintf(buf, cap,
			  "beyond the cpu's %u-bit physical address width",
			  phys_bits);
		*why = buf;
		return FW_READ_REFUSED;
	}
	if (end > pa_limit) {
		*why = "beyond the direct map";
		return FW_READ_REFUSED;
	}
	/* The EBDA and the BIOS area, which the RSDP and SMBIOS scans
	 * search whether the map lists them or not (ACPI 5.2.5.1). */
	if (end <= LOW_MEG || !bi->have_mmap || bi->mmap_truncated)
		return FW_READ_LISTED;
	if (pa < LOW_MEG) {
		len -= LOW_MEG - pa;
		pa = LOW_MEG;
	}
	return boot_mmap_covers(bi, pa, len) ? FW_READ_LISTED
					     : FW_READ_UNLISTED;
}
