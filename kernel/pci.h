/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration space through configuration mechanism #1 (ports
 * 0xcf8/0xcfc), which every PC chipset decodes: enough to find devices
 * by class and read or write their registers before timing starts.
 */
#ifndef KERNEL_PCI_H
#define KERNEL_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct pci_addr {
	uint8_t bus, dev, fn;
};

uint32_t pci_read32(struct pci_addr a, uint8_t off);
void pci_write32(struct pci_addr a, uint8_t off, uint32_t val);
void pci_write8(struct pci_addr a, uint8_t off, uint8_t val);

/*
 * Calls fn for every function present on buses 0..255 whose class code
 * (class, subclass, programming interface: config dword 0x08 bits 31:8)
 * is class24. Returns how many it found.
 */
unsigned pci_for_each_class(uint32_t class24,
			    void (*fn)(struct pci_addr a, void *ctx),
			    void *ctx);

/*
 * The physical address of memory BAR bar (0..5; a 64-bit BAR takes two),
 * or 0 if it is an I/O BAR or unassigned.
 */
uint64_t pci_mem_bar(struct pci_addr a, unsigned bar);

#endif
