/* SPDX-License-Identifier: MIT */
/*
 * What /init needs of the system (linux/sys.c): the pseudo file systems,
 * the modules zram needs, a zram swap device, and the counters the
 * workloads read (/proc/interrupts, /proc/meminfo, the kernel's log).
 */
#ifndef LINUX_SYS_H
#define LINUX_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mounts proc, sysfs and devtmpfs; the console on fds 0-2. */
void sys_mount(void);
/* Keeps the kernel's messages off the console (our lines stay whole). */
void sys_quiet_console(void);

/*
 * Loads every module /modules/order names (dependencies first, as the
 * initramfs's builder wrote them); false with why on the first failure.
 */
bool sys_load_modules(char *why, size_t cap);

struct swap_info {
	char device[32];
	char comp[32]; /* the compressor zram uses */
	uint64_t bytes;
};

/* A zram device of bytes, made swap and swapped on; false with why. */
bool sys_zram_swap(uint64_t bytes, struct swap_info *si, char *why, size_t cap);

/* The sum over CPUs of /proc/interrupts' line label ("TLB", "CAL"). */
uint64_t sys_interrupts(const char *label);
/* A /proc/meminfo field in KiB ("SwapFree"), or 0. */
uint64_t sys_meminfo_kb(const char *field);
/* A whole small file into buf (NUL-terminated, trailing newline cut). */
bool sys_read_file(const char *path, char *buf, size_t cap);
/* The first line of the kernel's log holding needle, into line; false if none. */
bool sys_klog_find(const char *needle, char *line, size_t cap);
/* Whether /proc/cpuinfo's flags list flag. */
bool sys_cpuinfo_flag(const char *flag);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t sys_now_ns(void);
/* Pins the calling thread to cpu; false if the kernel refused. */
bool sys_pin(int cpu);
/* Reports status to QEMU's exit device where there is a hypervisor, then powers off. */
void sys_power_off(int status) __attribute__((noreturn));

#endif
