/* SPDX-License-Identifier: MIT */
/* Ending a run (docs/output.md "Ending a run"). */
#ifndef KERNEL_EXIT_H
#define KERNEL_EXIT_H

#include <stdbool.h>
#include <stdint.h>
#include "config.h"

void exit_init(enum exit_mode mode);

/* The FADT reset register (I/O port, or a mapped MMIO byte), if any. */
void exit_set_reset_register(bool io, uint64_t addr, void *mmio, uint8_t value);

/* With exit=reboot, an INFO line naming the ways it will reset, in order. */
void exit_report(void);

/*
 * Prints "EXIT: STATUS=<status>", then ends the run: under a hypervisor it
 * writes the status to QEMU's isa-debug-exit port (harmless where that
 * device is absent); then halts, or resets the machine with exit=reboot.
 */
__attribute__((noreturn)) void run_exit(int status);

/* The same without printing anything (the caller already has). */
__attribute__((noreturn)) void run_exit_raw(int status);

#endif
