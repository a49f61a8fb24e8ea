/* SPDX-License-Identifier: MIT */
/* Constants shared by the boot assembly, the linker script and C. */
#ifndef BOOT_BOOT_H
#define BOOT_BOOT_H

#define MB1_HEADER_MAGIC 0x1BADB002
/* bit 0: page-align modules; bit 1: memory info; bit 16: a.out kludge */
#define MB1_FLAGS	 ((1 << 0) | (1 << 1) | (1 << 16))
#define MB2_HEADER_MAGIC 0xE85250D6

#define MB1_BOOT_MAGIC	 0x2BADB002
#define MB2_BOOT_MAGIC	 0x36d76289

/* Physical (= virtual, identity-mapped) address the image is loaded at. */
#define KERNEL_LOAD_ADDR 0x200000

#define BOOT_STACK_SIZE	 16384

/* Selectors of the boot GDT (kernel/gdt.c keeps the same layout). */
#define GDT_KERNEL_CS 0x08
#define GDT_KERNEL_DS 0x10
#define GDT_TSS	      0x18

/* QEMU's isa-debug-exit port, as run-qemu.sh configures it. */
#define QEMU_EXIT_PORT 0xf4
#define STATUS_ABORTED 63

#endif
