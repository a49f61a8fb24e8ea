// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/usb_legacy.c against a simulated register file:
 * the capability walk of EHCI (config-space offsets) and xHCI (dword
 * links), a malformed chain, and the handoff with a firmware that lets
 * go at once, after a while, never, or never owned the controller.
 */
#include "unit.h"
#include "kernel/usb_legacy.h"

#define SIM_DWORDS 1024

struct sim {
	uint32_t reg[SIM_DWORDS];
	uint32_t legsup;   /* where the firmware watches OS-owned */
	int release_after; /* polls after OS-owned until BIOS lets go */
	int delays;	   /* delay_us calls */
	uint64_t delayed_us;
	bool os_requested;
	bool raced; /* racing_read: the firmware let go, once */
	unsigned writes;
};

static uint32_t sim_read(void *ctx, uint32_t off)
{
	struct sim *s = ctx;

	assert_true(off / 4 < SIM_DWORDS);
	return s->reg[off / 4];
}

/* RW1C status bits in USBLEGCTLSTS; the rest as written. */
static void sim_write(void *ctx, uint32_t off, uint32_t val)
{
	struct sim *s = ctx;

	s->writes++;
	if (off == s->legsup + 4) {
		uint32_t st = s->reg[off / 4] & USB_SMI_STATUS_W1C;

		s->reg[off / 4] = (val & ~USB_SMI_STATUS_W1C) |
				  (st & ~(val & USB_SMI_STATUS_W1C));
		return;
	}
	if (off == s->legsup && (val & USB_LEGSUP_OS_OWNED))
		s->os_requested = true;
	s->reg[off / 4] = val;
}

/* A byte store into the dword, as config space's byte lanes do. */
static void sim_write8(void *ctx, uint32_t off, uint8_t val)
{
	struct sim *s = ctx;
	uint32_t shift = 8 * (off & 3), *d = &s->reg[off / 4];

	s->writes++;
	*d = (*d & ~(0xffu << shift)) | (uint32_t)val << shift;
	if ((off & ~3u) == s->legsup && (*d & USB_LEGSUP_OS_OWNED))
		s->os_requested = true;
}

static void sim_delay(void *ctx, uint32_t us)
{
	struct sim *s = ctx;

	s->delays++;
	s->delayed_us += us;
	if (s->os_requested && s->release_after >= 0 &&
	    s->delays >= s->release_after)
		s->reg[s->legsup / 4] &= ~USB_LEGSUP_BIOS_OWNED;
}

static struct usb_regs regs(struct sim *s)
{
	struct usb_regs r = {.read = sim_read,
			     .write = sim_write,
			     .delay_us = sim_delay,
			     .ctx = s,
			     .limit = SIM_DWORDS * 4};

	return r;
}

static void test_ehci_walk(void **state)
{
	struct sim s = {0};
	struct usb_regs r = regs(&s);

	(void)state;
	/* EECP 0x50: a capability of ID 0x0a, then legacy support at 0x68. */
	s.reg[0x50 / 4] = 0x6800 | 0x0a;
	s.reg[0x68 / 4] = 0x0000 | USB_LEGSUP_CAP_ID;
	assert_int_equal(usb_find_legsup(&r, USB_EHCI, 0x50), 0x68);
	assert_int_equal(usb_find_legsup(&r, USB_EHCI, 0x68), 0x68);
	/* EECP 0: no extended capabilities; below 0x40: none either. */
	assert_int_equal(usb_find_legsup(&r, USB_EHCI, 0), 0);
	assert_int_equal(usb_find_legsup(&r, USB_EHCI, 0x3c), 0);
	/* The chain ends (next 0) without legacy support. */
	s.reg[0x68 / 4] = 0x0a;
	assert_int_equal(usb_find_legsup(&r, USB_EHCI, 0x50), 0);
	/* A loop (0x50 -> 0x68 -> 0x50) ends the walk: none. */
	s.reg[0x68 / 4] = 0x5000 | 0x0a;
	assert_int_equal(usb_find_legsup(&r, USB_EHCI, 0x50), 0);
}

static void test_xhci_walk(void **state)
{
	struct sim s = {0};
	struct usb_regs r = regs(&s);

	(void)state;
	/* xECP at 0x500: supported protocol (2), 4 dwords on: legacy. */
	s.reg[0x500 / 4] = 0x0400 | 2;
	s.reg[0x510 / 4] = 0x0000 | USB_LEGSUP_CAP_ID;
	assert_int_equal(usb_find_legsup(&r, USB_XHCI, 0x500), 0x510);
	assert_int_equal(usb_find_legsup(&r, USB_XHCI, 0), 0);
	/* Next 0 ends the chain. */
	s.reg[0x510 / 4] = 3;
	assert_int_equal(usb_find_legsup(&r, USB_XHCI, 0x500), 0);
	/* A link past the register file's end is not followed. */
	s.reg[0x510 / 4] = 0xff00 | 3;
	r.limit = 0x600;
	assert_int_equal(usb_find_legsup(&r, USB_XHCI, 0x500), 0);
	/* All ones (the device is gone) is not a capability. */
	s.reg[0x500 / 4] = 0xffffffffu;
	assert_int_equal(usb_find_legsup(&r, USB_XHCI, 0x500), 0);
}

static struct sim owned_sim(uint32_t ctlsts, int release_after)
{
	struct sim s = {0};

	s.legsup = 0x68;
	s.reg[0x68 / 4] = USB_LEGSUP_BIOS_OWNED | USB_LEGSUP_CAP_ID;
	s.reg[0x6c / 4] = ctlsts;
	s.release_after = release_after;
	return s;
}

static void test_handoff_released(void **state)
{
	struct sim s = owned_sim(0xa000e03fu | 0x1f0000u, 5);
	struct usb_regs r = regs(&s);
	unsigned polls;

	(void)state;
	assert_int_equal(usb_handoff_run(&r, USB_EHCI, 0x68, &polls),
			 USB_HANDED_OVER);
	assert_int_equal(polls, 5);
	assert_true(s.reg[0x68 / 4] & USB_LEGSUP_OS_OWNED);
	assert_false(s.reg[0x68 / 4] & USB_LEGSUP_BIOS_OWNED);
	/* EHCI: every enable off, the set RW1C status bits cleared. */
	assert_int_equal(s.reg[0x6c / 4] &
				 (USB_EHCI_SMI_ENABLES | USB_SMI_STATUS_W1C),
			 0);
}

static void test_handoff_xhci_keeps_reserved(void **state)
{
	/* Enables on, status 29 and 31 set, reserved bits 1-3 and 5 set. */
	struct sim s = owned_sim(0xa000e03fu, 0); /* lets go at once */
	struct usb_regs r = regs(&s);
	unsigned polls;

	(void)state;
	assert_int_equal(usb_handoff_run(&r, USB_XHCI, 0x68, &polls),
			 USB_HANDED_OVER);
	assert_int_equal(polls, 1);
	assert_int_equal(s.reg[0x6c / 4], 0x0000002eu);
}

static void test_handoff_bios_never_lets_go(void **state)
{
	struct sim s = owned_sim(0x1u, -1);
	struct usb_regs r = regs(&s);
	unsigned polls;

	(void)state;
	assert_int_equal(usb_handoff_run(&r, USB_XHCI, 0x68, &polls),
			 USB_BIOS_HELD);
	assert_int_equal(polls, USB_HANDOFF_TIMEOUT_US / USB_HANDOFF_POLL_US);
	assert_int_equal(s.delayed_us, USB_HANDOFF_TIMEOUT_US);
	/* Its SMIs are off all the same; its semaphore left to it. */
	assert_int_equal(s.reg[0x6c / 4] & USB_XHCI_SMI_ENABLES, 0);
	assert_true(s.reg[0x68 / 4] & USB_LEGSUP_BIOS_OWNED);
}

static void test_handoff_not_bios_owned_and_none(void **state)
{
	struct sim s = owned_sim(0x1u, -1);
	struct usb_regs r = regs(&s);
	unsigned polls = 99;

	(void)state;
	s.reg[0x68 / 4] = USB_LEGSUP_CAP_ID;
	assert_int_equal(usb_handoff_run(&r, USB_EHCI, 0x68, &polls),
			 USB_NOT_BIOS);
	assert_int_equal(polls, 0);
	assert_int_equal(s.delays, 0);
	assert_true(s.reg[0x68 / 4] & USB_LEGSUP_OS_OWNED);
	assert_int_equal(s.reg[0x6c / 4], 0);
	s.writes = 0;
	assert_int_equal(usb_handoff_run(&r, USB_EHCI, 0, NULL), USB_NO_LEGSUP);
	assert_int_equal(s.writes, 0); /* nothing written without one */
}

/*
 * EHCI's OS-owned set by its byte alone: a firmware that clears
 * BIOS-owned once, right after the handoff's first read, is not overruled
 * by a write of the dword read before it.
 */
static uint32_t racing_read(void *ctx, uint32_t off)
{
	struct sim *s = ctx;
	uint32_t v = s->reg[off / 4];

	if (off == s->legsup && !s->raced) {
		s->reg[off / 4] &= ~USB_LEGSUP_BIOS_OWNED; /* lets go now */
		s->raced = true;
	}
	return v;
}

static void test_handoff_byte_write_keeps_bios_release(void **state)
{
	struct sim s = owned_sim(0, -1);
	struct usb_regs r = regs(&s);

	(void)state;
	r.read = racing_read;
	r.write8 = sim_write8;
	assert_int_equal(usb_handoff_run(&r, USB_EHCI, 0x68, NULL),
			 USB_HANDED_OVER);
	assert_int_equal(s.reg[0x68 / 4],
			 USB_LEGSUP_OS_OWNED | USB_LEGSUP_CAP_ID);
	/* The dword write would have put BIOS-owned back: held, 1 s. */
	s = owned_sim(0, -1);
	r = regs(&s);
	r.read = racing_read;
	assert_int_equal(usb_handoff_run(&r, USB_EHCI, 0x68, NULL),
			 USB_BIOS_HELD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ehci_walk),
		cmocka_unit_test(test_xhci_walk),
		cmocka_unit_test(test_handoff_released),
		cmocka_unit_test(test_handoff_xhci_keeps_reserved),
		cmocka_unit_test(test_handoff_bios_never_lets_go),
		cmocka_unit_test(test_handoff_not_bios_owned_and_none),
		cmocka_unit_test(test_handoff_byte_write_keeps_bios_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
