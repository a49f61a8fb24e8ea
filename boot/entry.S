/* SPDX-License-Identifier: MIT */
/*
 * 32-bit entry from either loader, then the switch to long mode.
 *
 * Machine state on entry (both multiboot specs, section "Machine state"):
 * protected mode, paging off, flat 4 GiB CS/DS, EFLAGS.IF clear, EAX = the
 * loader's magic, EBX = physical address of the information block. The
 * stack and GDT are the loader's and must not be trusted.
 */
#include "boot/boot.h"

#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define MSR_EFER 0xC0000080
#define EFER_LME (1 << 8)
#define PTE_P 0x1
#define PTE_W 0x2
#define PTE_PS 0x80
#define COM1 0x3f8

	.code32
	.section .text.boot, "ax"
	.globl _start
_start:
	cli
	cld
	movl %eax, boot_magic
	movl %ebx, boot_info_addr
	movl $(boot_stack + BOOT_STACK_SIZE), %esp

	cmpl $MB1_BOOT_MAGIC, %eax
	je 1f
	cmpl $MB2_BOOT_MAGIC, %eax
	je 1f
	movl $msg_bad_magic, %esi
	jmp fatal32
1:
	/* Long mode: CPUID 0x80000001 EDX bit 29 (AMD APM vol. 3, CPUID). */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz no_long_mode

	/*
	 * Zero .bss inline: the stack lives there, so a called routine would
	 * wipe its own return address.
	 */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	shrl $2, %ecx
	xorl %eax, %eax
	rep stosl
	call build_early_page_tables

	/*
	 * AMD APM vol. 2, 14.6.1: PAE, CR3, EFER.LME, then CR0.PG. CR4 is
	 * written whole: whatever the firmware left there (LA57 above all,
	 * which would make our 4-level tables be read as 5-level ones) is
	 * cleared while paging is still off; mm/ reports what it was.
	 */
	movl %cr4, %eax
	movl %eax, boot_entry_cr4
	movl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $early_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG, %eax
	movl %eax, %cr0

	lgdt boot_gdt_ptr
	ljmp $GDT_KERNEL_CS, $long_mode_entry

no_long_mode:
	movl $msg_no_long_mode, %esi
	/* fall through */

/*
 * Print the string at ESI on COM1 (which both QEMU and GRUB's serial
 * terminal leave usable), tell QEMU to exit when under a hypervisor, halt.
 */
fatal32:
	movw $COM1, %dx
2:	lodsb
	testb %al, %al
	jz 3f
	outb %al, %dx
	jmp 2b
3:	movl $1, %eax
	cpuid
	testl $(1 << 31), %ecx		/* hypervisor present? */
	jz 4f
	movl $STATUS_ABORTED, %eax
	movw $QEMU_EXIT_PORT, %dx
	outl %eax, %dx
4:	cli
	hlt
	jmp 4b

/*
 * Identity-map the first 4 GiB with 2 MiB pages: the image, the loader's
 * information, and the local APIC and other MMIO just below 4 GiB. The
 * kernel replaces these tables with its own once it knows the memory map.
 */
build_early_page_tables:
	movl $(early_pdpt + PTE_P + PTE_W), early_pml4
	movl $0, %ecx
5:	movl %ecx, %eax
	shll $12, %eax
	addl $(early_pd + PTE_P + PTE_W), %eax
	movl %eax, early_pdpt(, %ecx, 8)
	incl %ecx
	cmpl $4, %ecx
	jb 5b
	movl $0, %ecx			/* 2048 PD entries over 4 PDs */
6:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P + PTE_W + PTE_PS), %eax
	movl %eax, early_pd(, %ecx, 8)
	movl %ecx, %eax
	shrl $11, %eax			/* bits 32+ of the address */
	movl %eax, early_pd + 4(, %ecx, 8)
	incl %ecx
	cmpl $2048, %ecx
	jb 6b
	ret

	.code64
long_mode_entry:
	movw $GDT_KERNEL_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $(boot_stack + BOOT_STACK_SIZE), %rsp
	xorl %ebp, %ebp			/* terminates frame-pointer walks */
	movl boot_magic, %edi
	movl boot_info_addr, %esi
	call kernel_main
7:	cli
	hlt
	jmp 7b

	.section .rodata
msg_bad_magic:
	.asciz "\r\nshootdown: not started by a multiboot loader (bad magic in EAX)\r\nEXIT: STATUS=63\r\n"
msg_no_long_mode:
	.asciz "\r\nshootdown: this CPU has no long mode (64-bit); cannot run\r\nEXIT: STATUS=63\r\n"

	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF	/* 0x08: 64-bit code, DPL 0 */
	.quad 0x00CF92000000FFFF	/* 0x10: data, DPL 0 */
boot_gdt_end:
boot_gdt_ptr:
	.short boot_gdt_end - boot_gdt - 1
	.quad boot_gdt

	.section .data
	.globl boot_magic, boot_info_addr, boot_entry_cr4
boot_entry_cr4:
	.long 0
boot_magic:
	.long 0
boot_info_addr:
	.long 0

	.section .bss
	.balign 4096
early_pml4:
	.skip 4096
early_pdpt:
	.skip 4096
early_pd:
	.skip 4096 * 4
	/*
	 * Left unmapped by mm/: a stack overflow faults (#PF, then #DF on
	 * its own IST stack) instead of overwriting the tables below.
	 */
	.globl boot_stack_guard, boot_stack
boot_stack_guard:
	.skip 4096
boot_stack:
	.skip BOOT_STACK_SIZE
