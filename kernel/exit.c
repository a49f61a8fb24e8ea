// SPDX-License-Identifier: MIT
#include "boot/boot.h"
#include "console.h"
#include "exit.h"
#include "report.h"
#include "x86.h"

/* PCI reset control register (Intel PCH / AMD FCH): 0x02 then 0x06 = hard. */
#define RESET_CONTROL_PORT 0xcf9
#define KBC_COMMAND_PORT   0x64
#define KBC_PULSE_RESET	   0xfe

static enum exit_mode exit_mode = EXIT_HALT;
static struct {
	bool valid, io;
	uint64_t addr;
	volatile uint8_t *mmio;
	uint8_t value;
} reset_reg;

void exit_init(enum exit_mode mode)
{
	exit_mode = mode;
}

static void delay_spins(unsigned n)
{
	while (n--)
		cpu_relax();
}

void exit_set_reset_register(bool io, uint64_t addr, void *mmio, uint8_t value)
{
	reset_reg.io = io;
	reset_reg.addr = addr;
	reset_reg.mmio = mmio;
	reset_reg.value = value;
	reset_reg.valid = io ? addr <= 0xffff : mmio != NULL;
}

/*
 * The ACPI FADT's reset register first (ACPI 6.5, 4.8.3.6), then port
 * 0xCF9, which works on every PC chipset of the last two decades, then the
 * keyboard controller's reset pulse for the older ones.
 */
static void reboot(void)
{
	if (reset_reg.valid) {
		if (reset_reg.io)
			outb((uint16_t)reset_reg.addr, reset_reg.value);
		else
			*reset_reg.mmio = reset_reg.value;
		delay_spins(10000000);
	}
	outb(RESET_CONTROL_PORT, 0x02);
	delay_spins(100000);
	outb(RESET_CONTROL_PORT, 0x06);
	delay_spins(10000000);
	outb(KBC_COMMAND_PORT, KBC_PULSE_RESET);
	delay_spins(10000000);
}

void exit_report(void)
{
	if (exit_mode != EXIT_REBOOT)
		return;
	if (reset_reg.valid)
		report_info(
			"exit: exit=reboot: after the EXIT line, reset through "
			"the FADT reset register (%s 0x%llx <- 0x%x), then "
			"port 0xCF9, then the keyboard controller",
			reset_reg.io ? "I/O port" : "memory",
			(unsigned long long)reset_reg.addr, reset_reg.value);
	else
		report_info(
			"exit: exit=reboot: after the EXIT line, reset through "
			"port 0xCF9, then the keyboard controller (no FADT "
			"reset register)");
}

void run_exit_raw(int status)
{
	irq_disable();
	/*
	 * Only under a hypervisor: on real hardware port 0xf4 may belong to
	 * something, and nothing may rely on QEMU-only devices there.
	 */
	if (cpuid(1).ecx & CPUID1_ECX_HYPERVISOR)
		outl(QEMU_EXIT_PORT, (uint32_t)status);
	if (exit_mode == EXIT_REBOOT)
		reboot();
	halt_forever();
}

void run_exit(int status)
{
	kprintf("EXIT: STATUS=%d\n", status);
	run_exit_raw(status);
}
