/* SPDX-License-Identifier: MIT */
/*
 * AP start-up code, copied by smp/bringup.c into the page below 1 MiB that
 * mm/ reserved, and entered there by the STARTUP IPI in real mode with
 * CS = page >> 4, IP = 0 (SDM vol. 3A, 9.4.4). It must run at whatever page
 * it was copied to: 16-bit code addresses its data relative to CS, the rest
 * through EBX = the page's linear address. The boot CPU fills in the data
 * block at the end (tr_* below) before sending the IPIs.
 *
 * 16-bit real mode -> 32-bit protected mode -> long mode with the kernel's
 * page tables (which identity-map this page while APs start) -> C, on a
 * stack handed out by ticket.
 */
#define TR(label) ((label) - trampoline_start)
#define CR0_PE 0x1
#define CR0_WP (1 << 16)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define CR4_PGE (1 << 7)
#define MSR_EFER 0xC0000080
#define EFER_LME (1 << 8)

	.section .rodata
	.globl trampoline_start, trampoline_end
	.globl tr_gdt_ptr, tr_jump32, tr_jump64, tr_cr3, tr_efer, tr_stacks
	.globl tr_entry, tr_ticket
	.balign 16
trampoline_start:
	.code16
	cli
	cld
	xorl %ebx, %ebx
	movw %cs, %bx
	movw %bx, %ds
	shll $4, %ebx			/* EBX = linear address of this page */
	lgdtl TR(tr_gdt_ptr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl *TR(tr_jump32)		/* -> pm32, selector 0x18 */

	.code32
pm32:
	movw $0x20, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	/*
	 * PAE, and PGE as mm_init_ap() sets it: one CR4 write and one TLB
	 * flush fewer per AP (under TCG a flush costs microseconds). Nothing
	 * else, LA57 above all.
	 */
	movl $(CR4_PAE | CR4_PGE), %eax
	movl %eax, %cr4
	movl TR(tr_cr3)(%ebx), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	orl TR(tr_efer)(%ebx), %eax	/* NXE where the CPU has it */
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP), %eax
	movl %eax, %cr0
	ljmpl *TR(tr_jump64)(%ebx)	/* -> lm64, selector 0x08 */

	.code64
lm64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl $1, %eax
	lock xaddl %eax, TR(tr_ticket)(%rbx)
	movq TR(tr_stacks)(%rbx), %rcx
	movq (%rcx, %rax, 8), %rsp
	xorl %ebp, %ebp
	movq TR(tr_entry)(%rbx), %rcx
	call *%rcx
1:	cli
	hlt
	jmp 1b

	.balign 8
tr_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF	/* 0x08: 64-bit code (the kernel's) */
	.quad 0x00CF92000000FFFF	/* 0x10: data */
	.quad 0x00CF9A000000FFFF	/* 0x18: 32-bit code */
	.quad 0x00CF92000000FFFF	/* 0x20: 32-bit data */
tr_gdt_end:
tr_gdt_ptr:
	.short tr_gdt_end - tr_gdt - 1
	.long 0				/* patched: page + TR(tr_gdt) */
	.balign 4
tr_jump32:
	.long 0				/* patched: page + TR(pm32) */
	.short 0x18
	.balign 4
tr_jump64:
	.long 0				/* patched: page + TR(lm64) */
	.short 0x08
	.balign 4
tr_cr3:
	.long 0
tr_efer:
	.long 0
tr_ticket:
	.long 0
	.balign 8
tr_stacks:
	.quad 0				/* array of stack tops, by ticket */
tr_entry:
	.quad 0
	.globl tr_gdt, tr_pm32, tr_lm64
	.set tr_pm32, pm32
	.set tr_lm64, lm64
trampoline_end:
