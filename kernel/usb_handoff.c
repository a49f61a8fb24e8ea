// SPDX-License-Identifier: MIT
/*
 * The BIOS-to-OS handoff of every EHCI and xHCI controller on PCI
 * (kernel/usb_handoff.h), the way an OS does it early in boot. EHCI's
 * legacy-support capability is in PCI configuration space, found from
 * HCCPARAMS (a memory-mapped capability register); xHCI's is in its
 * memory-mapped registers, found from HCCPARAMS1. The registers are
 * mapped uncached through the caller's map_mmio, which never maps usable
 * RAM. Nothing else of the controller is touched: the stick is not read
 * after the loader, and no driver runs.
 */
#include "kernel/pci.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/usb_handoff.h"
#include "kernel/usb_legacy.h"
#include "lib/printf.h"

#define PCI_CLASS_EHCI	   0x0c0320u
#define PCI_CLASS_XHCI	   0x0c0330u
#define PCI_COMMAND_MEMORY (1u << 1)
#define XHCI_XECP_LIMIT	   (1u << 18) /* xECP is 16 bits of dwords */
#define LINE_MAX	   480

struct scan {
	void *(*map_mmio)(uint64_t pa, size_t len);
	enum usb_hc_kind kind;
	char line[LINE_MAX];
	size_t len;
};

/* xHCI registers, one uncached page mapped at a time. */
struct mmio_regs {
	void *(*map_mmio)(uint64_t pa, size_t len);
	uint64_t base, page_pa;
	volatile uint32_t *page;
};

static volatile uint32_t *mmio_at(struct mmio_regs *m, uint32_t off)
{
	uint64_t pa = m->base + off, page = pa & ~0xfffull;

	if (!m->page || m->page_pa != page) {
		m->page = m->map_mmio(page, 0x1000);
		m->page_pa = page;
	}
	return m->page ? m->page + (pa - page) / 4 : NULL;
}

static uint32_t mmio_read(void *ctx, uint32_t off)
{
	volatile uint32_t *p = mmio_at(ctx, off);

	return p ? *p : 0xffffffffu;
}

static void mmio_write(void *ctx, uint32_t off, uint32_t val)
{
	volatile uint32_t *p = mmio_at(ctx, off);

	if (p)
		*p = val;
}

static uint32_t config_read(void *ctx, uint32_t off)
{
	return pci_read32(*(struct pci_addr *)ctx, (uint8_t)off);
}

static void config_write(void *ctx, uint32_t off, uint32_t val)
{
	pci_write32(*(struct pci_addr *)ctx, (uint8_t)off, val);
}

static void config_write8(void *ctx, uint32_t off, uint8_t val)
{
	pci_write8(*(struct pci_addr *)ctx, (uint8_t)off, val);
}

static void delay(void *ctx, uint32_t us)
{
	(void)ctx;
	udelay(us);
}

/* The handoff of one controller whose registers are at bar: its outcome. */
static const char *hand_over(struct scan *s, struct pci_addr a, uint64_t bar)
{
	struct mmio_regs m = {.map_mmio = s->map_mmio, .base = bar};
	struct usb_regs r = {.delay_us = delay};
	uint32_t hcc = mmio_read(&m, s->kind == USB_EHCI ? 0x08 : 0x10);
	uint32_t first;

	if (!m.page)
		return "registers not mapped (see mm)";
	if (s->kind == USB_EHCI) {
		r.read = config_read, r.write = config_write;
		r.write8 = config_write8;
		r.ctx = &a, r.limit = 0x100;
		first = (hcc >> 8) & 0xff;
	} else {
		r.read = mmio_read, r.write = mmio_write;
		r.ctx = &m, r.limit = XHCI_XECP_LIMIT;
		first = (hcc >> 16) * 4;
	}
	return usb_handoff_name(usb_handoff_run(
		&r, s->kind, usb_find_legsup(&r, s->kind, first), NULL));
}

static void one_controller(struct pci_addr a, void *ctx)
{
	struct scan *s = ctx;
	uint64_t bar = pci_mem_bar(a, 0);
	const char *what;

	if (!(pci_read32(a, 0x04) & PCI_COMMAND_MEMORY))
		what = "memory decoding off, not looked at";
	else if (!bar)
		what = "no memory BAR, not looked at";
	else
		what = hand_over(s, a, bar);
	if (s->len < sizeof(s->line))
		s->len += (size_t)ksnprintf(
			s->line + s->len, sizeof(s->line) - s->len,
			"%s%02x:%02x.%u %s %s", s->len ? "; " : "", a.bus,
			a.dev, a.fn, usb_hc_kind_name(s->kind), what);
}

void usb_handoff(void *(*map_mmio)(uint64_t pa, size_t len))
{
	struct scan s = {.map_mmio = map_mmio};
	unsigned n;

	s.kind = USB_EHCI;
	n = pci_for_each_class(PCI_CLASS_EHCI, one_controller, &s);
	s.kind = USB_XHCI;
	n += pci_for_each_class(PCI_CLASS_XHCI, one_controller, &s);
	if (!n)
		report_info("usb: legacy handoff: no EHCI or xHCI controller "
			    "on PCI");
	else
		report_info("usb: legacy handoff of %u controller%s: %s", n,
			    n == 1 ? "" : "s", s.line);
}
