/* SPDX-License-Identifier: MIT */
/*
 * Where firmware data (ACPI tables, SMBIOS) may be read: the rule, as a
 * function of values (the memory map, the CPU's physical address width,
 * the end of the direct map), so the host tests can hold it to its cases.
 * Portable; mm/vm.c applies it to the machine (firmware_read_refused()).
 *
 * The rule, as Linux reads the ACPI tables: wherever the firmware's
 * pointers say, trusting their signatures and checksums, not the memory
 * map. Some loaders (iPXE) pass a map of usable RAM only, so the tables
 * lie outside every entry. Such memory is read, never written: it gets a
 * read-only mapping of its own (never the direct map's writable one) and
 * the frame allocator never sees it, since only the map's usable ranges
 * are handed out. Never beyond the CPU's physical address width (a
 * page-table entry there has reserved bits set: the read would fault),
 * nor beyond the direct map.
 */
#ifndef KERNEL_FWREAD_H
#define KERNEL_FWREAD_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/multiboot.h"

enum fw_read {
	FW_READ_LISTED,	  /* below 1 MiB, or in an entry of the map */
	FW_READ_UNLISTED, /* in no entry of the map: read, read-only */
	FW_READ_REFUSED,  /* not to be read at all */
};

/*
 * Which of the three [pa, pa + len) is. With a map that is missing or was
 * cut short, nothing is called unlisted. For FW_READ_REFUSED, *why says
 * why ("beyond the cpu's 40-bit physical address width"): a static string
 * or one written to buf (cap bytes).
 */
enum fw_read fw_read_rule(const struct boot_info *bi, uint64_t pa, uint64_t len,
			  unsigned phys_bits, uint64_t pa_limit,
			  const char **why, char *buf, size_t cap);

#endif
