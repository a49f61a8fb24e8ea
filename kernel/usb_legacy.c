// SPDX-License-Identifier: MIT
/*
 * The capability walk and the handoff of a USB host controller's legacy
 * support (kernel/usb_legacy.h), without touching hardware: the caller's
 * struct usb_regs does the reads and writes.
 */
#include "kernel/usb_legacy.h"

static bool ehci_next(uint32_t cap, uint32_t hdr, uint32_t *next)
{
	uint32_t n = (hdr >> 8) & 0xff;

	(void)cap;
	if (n < 0x40)
		return false; /* the end, or into the standard header */
	*next = n & ~3u;
	return true;
}

static bool xhci_next(uint32_t cap, uint32_t hdr, uint32_t *next)
{
	uint32_t n = (hdr >> 8) & 0xff;

	if (!n)
		return false;
	*next = cap + 4 * n;
	return true;
}

uint32_t usb_find_legsup(const struct usb_regs *r, enum usb_hc_kind kind,
			 uint32_t first)
{
	uint32_t cap = first;

	if (kind == USB_EHCI && cap < 0x40)
		return 0; /* EECP 0: no extended capabilities */
	if (!cap)
		return 0;
	for (unsigned i = 0; i < USB_CAP_WALK_MAX; i++) {
		uint32_t hdr;
		bool more;

		if (cap & 3 || cap + 8 > r->limit || cap + 8 < cap)
			return 0;
		hdr = r->read(r->ctx, cap);
		if (hdr == 0xffffffffu)
			return 0; /* the device went away */
		if ((hdr & 0xff) == USB_LEGSUP_CAP_ID)
			return cap;
		more = kind == USB_EHCI ? ehci_next(cap, hdr, &cap)
					: xhci_next(cap, hdr, &cap);
		if (!more)
			return 0;
	}
	return 0;
}

/* The SMI enables off, the status bits that can be cleared cleared. */
static void smis_off(const struct usb_regs *r, enum usb_hc_kind kind,
		     uint32_t cap)
{
	uint32_t v;

	if (kind == USB_EHCI) {
		v = USB_SMI_STATUS_W1C; /* reserved bits are written 0 */
	} else {
		v = r->read(r->ctx, cap + 4) & ~USB_XHCI_SMI_ENABLES;
		v |= USB_SMI_STATUS_W1C;
	}
	r->write(r->ctx, cap + 4, v);
}

enum usb_handoff_result usb_handoff_run(const struct usb_regs *r,
					enum usb_hc_kind kind, uint32_t cap,
					unsigned *polls)
{
	enum usb_handoff_result res = USB_HANDED_OVER;
	uint32_t v, waited = 0;
	unsigned n = 0;

	if (!cap)
		return USB_NO_LEGSUP;
	v = r->read(r->ctx, cap);
	if (!(v & USB_LEGSUP_BIOS_OWNED))
		res = USB_NOT_BIOS;
	if (r->write8)
		r->write8(r->ctx, cap + 3, USB_LEGSUP_OS_OWNED >> 24);
	else
		r->write(r->ctx, cap, v | USB_LEGSUP_OS_OWNED);
	while (res == USB_HANDED_OVER &&
	       (r->read(r->ctx, cap) & USB_LEGSUP_BIOS_OWNED)) {
		if (waited >= USB_HANDOFF_TIMEOUT_US) {
			res = USB_BIOS_HELD;
			break;
		}
		r->delay_us(r->ctx, USB_HANDOFF_POLL_US);
		waited += USB_HANDOFF_POLL_US;
		n++;
	}
	smis_off(r, kind, cap);
	if (polls)
		*polls = n;
	return res;
}

const char *usb_handoff_name(enum usb_handoff_result res)
{
	switch (res) {
	case USB_NO_LEGSUP:
		return "no legacy capability";
	case USB_HANDED_OVER:
		return "handed over";
	case USB_NOT_BIOS:
		return "not BIOS-owned, taken";
	case USB_BIOS_HELD:
		return "BIOS did not let go within 1 s, its SMIs disabled";
	}
	return "?";
}

const char *usb_hc_kind_name(enum usb_hc_kind kind)
{
	return kind == USB_EHCI ? "ehci" : "xhci";
}
