// SPDX-License-Identifier: MIT
/*
 * PCI configuration mechanism #1 (kernel/pci.h). Interrupts stay as they
 * are: the two port accesses of one read are not atomic, so callers run
 * on the boot CPU before anything else uses configuration space.
 */
#include "kernel/pci.h"
#include "kernel/x86.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA	   0xcfc

static uint32_t config_address(struct pci_addr a, uint8_t off)
{
	return 1u << 31 | (uint32_t)a.bus << 16 | (uint32_t)(a.dev & 31) << 11 |
	       (uint32_t)(a.fn & 7) << 8 | (off & 0xfc);
}

uint32_t pci_read32(struct pci_addr a, uint8_t off)
{
	outl(PCI_CONFIG_ADDRESS, config_address(a, off));
	return inl(PCI_CONFIG_DATA);
}

void pci_write32(struct pci_addr a, uint8_t off, uint32_t val)
{
	outl(PCI_CONFIG_ADDRESS, config_address(a, off));
	outl(PCI_CONFIG_DATA, val);
}

/* The data port's byte lanes: off's low two bits pick the byte. */
void pci_write8(struct pci_addr a, uint8_t off, uint8_t val)
{
	outl(PCI_CONFIG_ADDRESS, config_address(a, off));
	outb((uint16_t)(PCI_CONFIG_DATA + (off & 3)), val);
}

/* Function 0's header type bit 7: the device has functions 1..7. */
static bool multifunction(struct pci_addr a)
{
	return (pci_read32(a, 0x0c) >> 16) & 0x80;
}

unsigned pci_for_each_class(uint32_t class24,
			    void (*fn)(struct pci_addr a, void *ctx), void *ctx)
{
	unsigned found = 0;

	for (unsigned bus = 0; bus < 256; bus++) {
		for (unsigned dev = 0; dev < 32; dev++) {
			struct pci_addr a = {(uint8_t)bus, (uint8_t)dev, 0};
			unsigned fns;

			if ((pci_read32(a, 0) & 0xffff) == 0xffff)
				continue; /* nothing there */
			fns = multifunction(a) ? 8 : 1;
			for (a.fn = 0; a.fn < fns; a.fn++) {
				if ((pci_read32(a, 0) & 0xffff) == 0xffff)
					continue;
				if (pci_read32(a, 0x08) >> 8 != class24)
					continue;
				fn(a, ctx);
				found++;
			}
		}
	}
	return found;
}

uint64_t pci_mem_bar(struct pci_addr a, unsigned bar)
{
	uint8_t off = (uint8_t)(0x10 + 4 * bar);
	uint32_t lo = pci_read32(a, off);
	uint64_t pa = lo & ~0xfull;

	if (lo & 1)
		return 0; /* I/O space */
	if (((lo >> 1) & 3) == 2 && bar < 5)
		pa |= (uint64_t)pci_read32(a, (uint8_t)(off + 4)) << 32;
	return pa;
}
