/* SPDX-License-Identifier: MIT */
/*
 * Every EHCI and xHCI controller taken from the firmware before anything
 * is timed, so that its legacy-USB SMIs stop (docs/hardware.md, "USB
 * legacy handoff"); one INFO line says what was found and done.
 */
#ifndef KERNEL_USB_HANDOFF_H
#define KERNEL_USB_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

/* map_mmio maps device registers uncached (mm's mmio_map), NULL if not. */
void usb_handoff(void *(*map_mmio)(uint64_t pa, size_t len));

#endif
