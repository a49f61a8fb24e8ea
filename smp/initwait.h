/* SPDX-License-Identifier: MIT */
/*
 * Whether bring-up waits 10 ms between INIT and the first STARTUP IPI.
 *
 * The wait comes from the MultiProcessor Specification (1.4, 1997), whose
 * example start-up sequence holds INIT for 10 ms. Processors since Intel's
 * P6 (family 6, and every later family) and AMD's K8 (family 0xf and
 * later) start without it, as do Hygon's (family 0x18), and Linux skips it
 * on them (arch/x86/kernel/smpboot.c). A hypervisor's emulated local APIC
 * does not need it either. Every other CPU keeps it: a 64-bit CPU of
 * another vendor (VIA, Zhaoxin, ...) is not known to start without it.
 *
 * Portable (no hardware access): tests/unit/test_initwait.c.
 */
#ifndef SMP_INITWAIT_H
#define SMP_INITWAIT_H

#include <stdbool.h>
#include "kernel/config.h"

/*
 * mode: init_wait= (enum init_wait_mode). For auto, the boot CPU's CPUID
 * vendor string, family (base plus extended, as cpu_info has it) and
 * hypervisor bit decide. Returns whether to wait; *why (if not NULL) gets
 * a phrase for the INFO line: "init_wait=on", "init_wait=auto: AMD family
 * 0xf and later start without it", ...
 */
bool smp_init_wait(int mode, const char *vendor, unsigned family,
		   bool hypervisor, const char **why);

#endif
