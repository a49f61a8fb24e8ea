/* SPDX-License-Identifier: MIT */
/*
 * Loader headers. One ELF64 image boots two ways:
 *  - Multiboot 1 (QEMU -kernel): QEMU refuses ELF64 unless the header sets
 *    the "a.out kludge" flag (bit 16) and gives the load addresses itself.
 *  - Multiboot 2 (GRUB, BIOS or UEFI): the address and entry tags do the same,
 *    so GRUB never needs to understand the ELF program headers either.
 * Both headers must sit in the first 8 KiB of the file (the linker script
 * puts this section first in the single PT_LOAD segment).
 */
#include "boot/boot.h"

	.section .multiboot, "a"

	/* Multiboot 1: "The header must be 32-bit aligned" (spec 3.1.1). */
	.balign 4
mb1_header:
	.long MB1_HEADER_MAGIC
	.long MB1_FLAGS
	.long -(MB1_HEADER_MAGIC + MB1_FLAGS)
	.long mb1_header	/* header_addr */
	.long __load_start	/* load_addr */
	.long __load_end	/* load_end_addr: end of .data */
	.long __bss_end		/* bss_end_addr: the loader zeroes to here */
	.long _start		/* entry_addr (32-bit protected mode) */

	/* Multiboot 2: "must be 64-bit aligned" (spec 3.1.1). */
	.balign 8
mb2_header:
	.long MB2_HEADER_MAGIC
	.long 0				/* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + 0 + (mb2_header_end - mb2_header))

	/* Address tag (type 2): load like the a.out kludge. */
	.balign 8
	.short 2, 0
	.long 24
	.long mb2_header, __load_start, __load_end, __bss_end

	/* Entry address tag (type 3). */
	.balign 8
	.short 3, 0
	.long 12
	.long _start

	/*
	 * Information request (type 1, optional flag 1): the memory map and
	 * the ACPI RSDP copies. Optional so that a loader lacking one still
	 * boots us; we fall back to scanning for the RSDP.
	 */
	.balign 8
	.short 1, 1
	.long 8 + 4 * 3
	.long 6, 14, 15

	/* End tag. */
	.balign 8
	.short 0, 0
	.long 8
mb2_header_end:
