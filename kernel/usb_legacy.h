/* SPDX-License-Identifier: MIT */
/*
 * Taking a USB host controller from the firmware (kernel/usb_handoff.c),
 * portable so that the host tests can run it against a simulated register
 * file. The firmware's "legacy USB" keeps driving EHCI and xHCI
 * controllers from SMM, and its SMIs stop every CPU for as long as they
 * take, in the middle of whatever is being timed. Both controllers have
 * a legacy-support extended capability with two semaphores, BIOS-owned
 * (bit 16) and OS-owned (bit 24), and a control/status register after it
 * whose SMI enables the OS clears once it owns the controller.
 */
#ifndef KERNEL_USB_LEGACY_H
#define KERNEL_USB_LEGACY_H

#include <stdbool.h>
#include <stdint.h>

enum usb_hc_kind { USB_EHCI, USB_XHCI };

#define USB_LEGSUP_CAP_ID     1 /* both: legacy support */
#define USB_LEGSUP_BIOS_OWNED (1u << 16)
#define USB_LEGSUP_OS_OWNED   (1u << 24)
/*
 * USBLEGCTLSTS. EHCI: SMI enables in bits 0-5 and 13-15, read-only status
 * in 16-21, write-1-to-clear status in 29-31; the rest reserved (zero).
 * xHCI: enables in bits 0, 4 and 13-15, read-only status in 16 and 20,
 * write-1-to-clear status in 29-31; the rest preserved as read.
 */
#define USB_EHCI_SMI_ENABLES 0x0000e03fu
#define USB_XHCI_SMI_ENABLES 0x0000e011u
#define USB_SMI_STATUS_W1C   0xe0000000u

/* Capabilities walked before the chain is taken for a loop. */
#define USB_CAP_WALK_MAX 64

/* The firmware gets this long to let go (Linux waits as long). */
#define USB_HANDOFF_TIMEOUT_US 1000000u
#define USB_HANDOFF_POLL_US    100u

/*
 * 32-bit register access at a byte offset: the PCI configuration space
 * of an EHCI controller, the MMIO registers of an xHCI one.
 */
struct usb_regs {
	uint32_t (*read)(void *ctx, uint32_t off);
	void (*write)(void *ctx, uint32_t off, uint32_t val);
	/*
	 * One byte, where the space allows it (EHCI's config space), or
	 * NULL: OS-owned is then set by a write of the whole dword.
	 */
	void (*write8)(void *ctx, uint32_t off, uint8_t val);
	void (*delay_us)(void *ctx, uint32_t us);
	void *ctx;
	uint32_t limit; /* offsets at or past it are not read */
};

/*
 * The offset of the legacy-support capability in the chain that starts
 * at first (EHCI: HCCPARAMS bits 15:8, a config-space offset; xHCI: the
 * byte offset of HCCPARAMS1's xECP), or 0 if there is none or the chain
 * is malformed. EHCI's next pointer (bits 15:8) is a config-space offset,
 * below 0x40 meaning the end; xHCI's is in dwords from this capability,
 * 0 meaning the end.
 */
uint32_t usb_find_legsup(const struct usb_regs *r, enum usb_hc_kind kind,
			 uint32_t first);

enum usb_handoff_result {
	USB_NO_LEGSUP,	 /* no legacy-support capability */
	USB_HANDED_OVER, /* the firmware owned it and let go */
	USB_NOT_BIOS,	 /* the firmware did not claim it: taken anyway */
	USB_BIOS_HELD,	 /* the firmware kept it past the timeout */
};

/*
 * The handoff at the capability at cap (0: none): OS-owned is set (by
 * its byte alone where write8 allows, so that a firmware clearing
 * BIOS-owned at that moment is not undone by a write of the old dword), the
 * BIOS-owned bit awaited for USB_HANDOFF_TIMEOUT_US, and then, whatever
 * the firmware did, the SMI enables cleared and the write-1-to-clear SMI
 * status bits cleared. *polls (if not NULL) counts the waits.
 */
enum usb_handoff_result usb_handoff_run(const struct usb_regs *r,
					enum usb_hc_kind kind, uint32_t cap,
					unsigned *polls);

const char *usb_handoff_name(enum usb_handoff_result res);
const char *usb_hc_kind_name(enum usb_hc_kind kind);

#endif
