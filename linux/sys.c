// SPDX-License-Identifier: MIT
/*
 * The system calls /init makes to stand the machine up. No busybox: the
 * few things mount(8), insmod(8), mkswap(8) and swapon(8) would do are
 * done here directly.
 */
#define _GNU_SOURCE
#include "linux/sys.h"
#include "kernel/cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* finit_module's flag for a compressed module (CONFIG_MODULE_DECOMPRESS). */
#define MODULE_INIT_COMPRESSED_FILE 4
/* QEMU's isa-debug-exit port, as run-qemu.sh --linux configures it. */
#define QEMU_EXIT_PORT 0xf4

void sys_mount(void)
{
	int fd;

	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

void sys_quiet_console(void)
{
	/* SYSLOG_ACTION_CONSOLE_LEVEL: only emergencies reach the console */
	klogctl(8, NULL, 1);
}

static bool load_one(const char *path, char *why, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int flags = strstr(path, ".ko.") ? MODULE_INIT_COMPRESSED_FILE : 0;

	if (fd < 0) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		return false;
	}
	if (syscall(SYS_finit_module, fd, "", flags) && errno != EEXIST) {
		snprintf(why, cap, "finit_module %s: %s", path,
			 strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

bool sys_load_modules(char *why, size_t cap)
{
	FILE *f = fopen("/modules/order", "r");
	char line[256], path[300];

	if (!f) {
		snprintf(why, cap, "/modules/order: %s", strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		snprintf(path, sizeof(path), "/modules/%s", line);
		if (!load_one(path, why, cap)) {
			fclose(f);
			return false;
		}
	}
	fclose(f);
	return true;
}

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/* Waits up to 2 s for a device node devtmpfs makes once the driver is up. */
static bool wait_for(const char *path)
{
	for (int i = 0; i < 200; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * The swap signature mkswap writes: a version-1 header at byte 1024 of
 * the first page, "SWAPSPACE2" in its last 10 bytes.
 */
static bool write_swap_header(const char *dev, uint64_t bytes)
{
	static unsigned char page[4096];
	uint32_t version = 1, last = (uint32_t)(bytes / 4096 - 1);
	int fd = open(dev, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	memcpy(page + 1024, &version, 4);
	memcpy(page + 1028, &last, 4);
	memcpy(page + 4096 - 10, "SWAPSPACE2", 10);
	ok = pwrite(fd, page, sizeof(page), 0) == sizeof(page);
	close(fd);
	return ok;
}

bool sys_zram_swap(uint64_t bytes, struct swap_info *si, char *why, size_t cap)
{
	char num[32];

	snprintf(si->device, sizeof(si->device), "/dev/zram0");
	si->bytes = bytes;
	if (!wait_for("/sys/block/zram0/disksize")) {
		snprintf(why, cap, "no /sys/block/zram0 after loading zram");
		return false;
	}
	if (!sys_read_file("/sys/block/zram0/comp_algorithm", si->comp,
			   sizeof(si->comp)))
		snprintf(si->comp, sizeof(si->comp), "unknown");
	/* the line lists them all, the one in use in brackets */
	char *open_b = strchr(si->comp, '['), *close_b = strchr(si->comp, ']');
	if (open_b && close_b && close_b > open_b) {
		*close_b = 0;
		memmove(si->comp, open_b + 1, strlen(open_b + 1) + 1);
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)bytes);
	if (!write_file("/sys/block/zram0/disksize", num)) {
		snprintf(why, cap, "zram0 disksize %s: %s", num,
			 strerror(errno));
		return false;
	}
	if (!wait_for(si->device) || !write_swap_header(si->device, bytes)) {
		snprintf(why, cap, "%s: no swap header written: %s", si->device,
			 strerror(errno));
		return false;
	}
	if (swapon(si->device, 0)) {
		snprintf(why, cap, "swapon %s: %s", si->device,
			 strerror(errno));
		return false;
	}
	return true;
}

/*
 * The text after "LABEL:" on the line of /proc file path that starts with
 * it (leading spaces skipped, as /proc/interrupts pads), copied into line;
 * NULL if there is none.
 */
static const char *proc_field(const char *path, const char *label, char *line,
			      size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n = strlen(label);
	const char *rest = NULL;

	if (!f)
		return NULL;
	while (!rest && fgets(line, (int)cap, f)) {
		const char *p = line + strspn(line, " ");

		if (!strncmp(p, label, n) && p[n] == ':')
			rest = p + n + 1;
	}
	fclose(f);
	return rest;
}

uint64_t sys_interrupts(const char *label)
{
	char line[8192];
	const char *p =
		proc_field("/proc/interrupts", label, line, sizeof(line));
	uint64_t sum = 0;

	while (p) { /* one count per CPU, then the line's name */
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		sum += v;
		p = end;
	}
	return sum;
}

uint64_t sys_meminfo_kb(const char *field)
{
	char line[256];
	const char *p = proc_field("/proc/meminfo", field, line, sizeof(line));

	return p ? strtoull(p, NULL, 10) : 0;
}

bool sys_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !cap)
		return false;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

bool sys_klog_find(const char *needle, char *line, size_t cap)
{
	static char log[1 << 20];
	int n = klogctl(3, log, sizeof(log) - 1); /* SYSLOG_ACTION_READ_ALL */
	char *hit, *start, *end;

	if (n <= 0)
		return false;
	log[n] = 0;
	hit = strstr(log, needle);
	if (!hit)
		return false;
	for (start = hit; start > log && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	n = (int)(end ? end - start : (long)strlen(start));
	if (start[0] == '<' && n > 3 &&
	    start[2] == '>') { /* "<4>": its level */
		start += 3;
		n -= 3;
	}
	snprintf(line, cap, "%.*s", n, start);
	return true;
}

bool sys_cpuinfo_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	size_t n = strlen(flag);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (char *p = strchr(line, ':'); p && *p; p++) {
			if (p[-1] == ' ' && !strncmp(p, flag, n) &&
			    (p[n] == ' ' || p[n] == '\n' || !p[n])) {
				found = true;
				break;
			}
		}
		break; /* the first CPU's flags */
	}
	fclose(f);
	return found;
}

uint64_t sys_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool sys_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

void sys_power_off(int status)
{
	/*
	 * write() returns once the tty has the bytes, not once the UART sent
	 * them: QEMU's exit device would cut the last lines off.
	 */
	tcdrain(STDOUT_FILENO);
	sync();
	/*
	 * Only under a hypervisor, as the harness does: on real hardware
	 * port 0xf4 may belong to something.
	 */
	if (cpu_info.hypervisor && !syscall(SYS_ioperm, QEMU_EXIT_PORT, 4, 1))
		outl(QEMU_EXIT_PORT, (uint32_t)status);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
