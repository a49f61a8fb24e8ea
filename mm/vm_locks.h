/* SPDX-License-Identifier: MIT */
/*
 * What mm/vm.c (the tables and the frame allocator it builds) and
 * mm/vm_map.c (mapping at run time) share: the two locks, each a stop
 * point while held, and the refusals mmio_map() keeps for mm_report().
 * Internal to mm/vm*.c.
 */
#ifndef MM_VM_LOCKS_H
#define MM_VM_LOCKS_H

/* The page-table lock is taken first when both are held. */
void vm_lock_tables(void);
void vm_unlock_tables(void);
void vm_lock_frames(void);
void vm_unlock_frames(void);

/* One INFO line per device-register range mmio_map() would not map. */
void mmio_report_refusals(void);

#endif
