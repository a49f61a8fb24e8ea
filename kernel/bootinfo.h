/* SPDX-License-Identifier: MIT */
/* What the loader told us, parsed once at boot (see multiboot.h). */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include "multiboot.h"

extern struct boot_info boot_info;

/* Parses the block left by the loader; the magic was checked in boot/. */
void bootinfo_parse(uint32_t magic, uint32_t info_addr);

/* INFO lines for every problem the parser found, and the overview. */
void bootinfo_report(void);

#endif
