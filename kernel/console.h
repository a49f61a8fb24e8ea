/* SPDX-License-Identifier: MIT */
/*
 * The serial console (16550 UART): the only output channel the harness has
 * on a real server, often read through a BMC's serial-over-LAN.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "config.h"

/*
 * Programs the UART cfg names (8N1 at cfg->baud). If there is none at that
 * port, falls back to COM1; if COM1 is absent too, output is discarded
 * (the run still goes on and ends normally). Returns false if it fell back
 * or found nothing; console_describe() then says what happened.
 */
bool console_init(const struct console_cfg *cfg);
const char *console_describe(void);

/* The I/O port of the UART in use; 0 when there is none. */
uint16_t console_port(void);

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap);

/* Hold the console across several lines so they stay together. */
void console_lock(void);
void console_unlock(void);
/* Writes n bytes while already holding the lock, "\n" as "\r\n". */
void console_write_locked(const char *s, size_t n);

/*
 * After a fault: stop waiting for the lock (its holder may be the CPU that
 * faulted) so that the fault report always gets out.
 */
void console_enter_panic(void);

#endif
