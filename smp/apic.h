/* SPDX-License-Identifier: MIT */
/*
 * Local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode; every CPU uses the same
 * mode, chosen once on the boot CPU. The harness keeps every interrupt
 * source masked (legacy PIC, IOAPIC inputs, the APIC timer, LINT0): the only
 * interrupts are its own IPIs, and NMIs.
 */
#ifndef SMP_APIC_H
#define SMP_APIC_H

#include <stdbool.h>
#include <stdint.h>

/* Vectors the harness uses. */
#define VEC_XCALL    0xf0 /* cross-call: run the mailbox's function */
#define VEC_PING     0xf1 /* empty handler: IPI round trips */
#define VEC_SPURIOUS 0xff /* the APIC's spurious vector: no EOI */

/* ICR fields (SDM vol. 3A, 11.6.1). */
#define ICR_FIXED    (0u << 8)
#define ICR_NMI	     (4u << 8)
#define ICR_INIT     (5u << 8)
#define ICR_STARTUP  (6u << 8)
#define ICR_BUSY     (1u << 12) /* xAPIC only: delivery pending */
#define ICR_ASSERT   (1u << 14)
#define ICR_LEVEL    (1u << 15)
#define ICR_SELF     (1u << 18)
#define ICR_ALL_INCL (2u << 18)
#define ICR_ALL_EXCL (3u << 18)

enum apic_mode { APIC_XAPIC, APIC_X2APIC };

extern enum apic_mode apic_mode;

/*
 * On the boot CPU: picks the mode (x2APIC when firmware already enabled
 * it, or when CPUID has it; xAPIC otherwise), maps the xAPIC page, masks
 * the 8259 PICs. Returns false (with *why) when no APIC can be used.
 */
bool apic_setup(uint64_t madt_lapic_addr, const char **why);
/* On every CPU: enable in the chosen mode, mask every local source. */
void apic_init_cpu(void);

uint32_t apic_read_id(void);
void apic_eoi(void);
/* ICR writes (IPIs sent, a broadcast counting once) per sending CPU. */
extern uint64_t apic_icr_writes[];

/*
 * Sends one IPI; false if an xAPIC never accepted it (its ICR stayed busy
 * for 100 ms), and then it is not counted in apic_icr_writes.
 */
bool apic_send(uint32_t apic_id, uint32_t icr_low);
/* Selftest only: every xAPIC send fails as if the ICR stayed busy. */
extern bool apic_inject_busy;
/* To every CPU but this one, with one ICR write. */
bool apic_send_all_but_self(uint32_t icr_low);
const char *apic_mode_name(void);
/* Highest APIC ID the mode can address (254 for xAPIC physical mode). */
uint32_t apic_max_id(void);

/* Masks every redirection entry of the IOAPIC at phys addr; false if
 * mmio_map() refused it. */
bool ioapic_mask_all(uint64_t addr);

#endif
