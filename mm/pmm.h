/* SPDX-License-Identifier: MIT */
/*
 * Physical frame allocator. Portable: no hardware access; physical memory is
 * reached only through the phys_to_virt callback, so the host tests run it
 * over a sparse simulated memory of terabytes.
 *
 * Structure: the usable RAM (firmware map minus everything non-usable minus
 * the caller's reserved ranges, whole 4 KiB frames only) is a sorted list of
 * extents. Each extent has a bitmap (1 bit per frame, 1 = allocated) cut
 * into chunks of PMM_CHUNK_FRAMES frames (one 4 KiB page of bitmap, 128 MiB
 * of RAM), and a 32-bit summary per chunk: its free-frame count and whether
 * its bitmap words have been initialised yet. A chunk that has never been
 * allocated from is not touched, so init writes only the summaries (32 KiB
 * per TiB), not the bitmaps (32 MiB per TiB), and searches skip full chunks
 * without reading their bitmaps. Summaries and bitmaps live in one block of
 * usable memory that init carves out (the highest place that fits below
 * meta_limit) and excludes from allocation.
 *
 * Allocation is lowest-address-first. Not thread-safe: the caller locks.
 */
#ifndef MM_PMM_H
#define MM_PMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/multiboot.h"

#define PMM_FRAME_SIZE	     4096ull
#define PMM_FRAME_SHIFT	     12
#define PMM_CHUNK_FRAMES     32768u /* one 4 KiB bitmap page */
#define PMM_MAX_EXTENTS	     512
#define PMM_TRAMPOLINE_LIMIT 0x100000ull /* SIPI vector: page number < 256 */

/*
 * Returned by the allocation calls when nothing fits. Physical page 0 is
 * never managed (it is excluded even if the map calls it usable), so 0 is
 * never a valid result.
 */
#define PMM_NO_FRAME 0ull

/* Allocation flags. */
#define PMM_ZERO (1u << 0) /* zero the frames through phys_to_virt */

enum pmm_err {
	PMM_OK = 0,
	PMM_ERR_NO_USABLE = -1, /* no whole usable frame in the map */
	PMM_ERR_NO_META = -2,	/* nowhere to put the metadata */
	PMM_ERR_INVAL = -3, /* bad argument (NULL callback, bad alignment) */
	PMM_ERR_UNALIGNED = -4,	  /* freed address not frame-aligned */
	PMM_ERR_NOT_MANAGED = -5, /* freed range not (wholly) in one extent */
	PMM_ERR_NOT_ALLOCATED =
		-6, /* freed range has a free frame: double free */
};

/*
 * Returns a pointer through which the bytes from pa to the end of pa's 4 KiB
 * page can be accessed. No pointer is kept beyond the pmm call that got it,
 * so the kernel may switch the mapping it uses (identity map at boot, direct
 * map later) between calls.
 */
typedef void *(*pmm_phys_to_virt)(void *ctx, uint64_t pa);

struct pmm_config {
	const struct boot_region *map; /* firmware map; type 1 = usable */
	size_t map_count;
	const struct boot_region *reserved; /* never handed out; type ignored */
	size_t reserved_count;
	uint64_t meta_limit; /* metadata must end at or below; 0: anywhere */
	bool reserve_trampoline; /* take the lowest usable page below 1 MiB */
	pmm_phys_to_virt phys_to_virt;
	void *ctx;
};

/* Internal; read through pmm_extent() and pmm_stats(). */
struct pmm_extent {
	uint64_t base, end; /* physical, frame-aligned, end exclusive */
	uint64_t free;	    /* free frames */
	uint64_t hint;	    /* every frame index below hint is allocated */
	uint64_t sum_pa;    /* uint32_t summary per chunk */
	uint64_t bits_pa;   /* bitmap, 64-bit words */
};

struct pmm {
	pmm_phys_to_virt phys_to_virt;
	void *ctx;
	size_t count;
	size_t ext_hint;      /* every extent below it has no free frame */
	uint64_t total, free; /* managed frames, free frames */
	uint64_t meta_base, meta_bytes;
	uint64_t lost_frames; /* usable, but beyond PMM_MAX_EXTENTS */
	uint64_t trampoline;  /* PMM_NO_FRAME if not asked for or none */
	uint64_t failures;    /* allocations that found nothing */
	/*
	 * Requests still granted before every one fails, free frames or not
	 * (fault injection: pmm_limit_grants); PMM_GRANTS_UNLIMITED normally.
	 */
	uint64_t grants;
	struct pmm_extent ext[PMM_MAX_EXTENTS];
};

#define PMM_GRANTS_UNLIMITED UINT64_MAX

struct pmm_stats {
	uint64_t total_frames, free_frames;
	uint64_t meta_base, meta_bytes; /* the carved-out metadata block */
	uint64_t lost_frames;
	uint64_t trampoline;
	uint64_t failures;
	size_t extents;
};

struct pmm_extent_info {
	uint64_t base, len; /* bytes */
	uint64_t free_frames;
};

enum pmm_frame_state { PMM_FRAME_UNMANAGED, PMM_FRAME_FREE, PMM_FRAME_USED };

/*
 * Builds the allocator. Returns PMM_OK, PMM_ERR_NO_USABLE, PMM_ERR_NO_META
 * (no place below meta_limit, or the metadata would take every frame) or
 * PMM_ERR_INVAL. With reserve_trampoline, the lowest usable frame in
 * [4 KiB, 1 MiB) is excluded and recorded in p->trampoline (PMM_NO_FRAME
 * if there is none: init still succeeds, the caller decides).
 */
int pmm_init(struct pmm *p, const struct pmm_config *cfg);

/* One frame, or PMM_NO_FRAME. */
uint64_t pmm_alloc(struct pmm *p, unsigned int flags);

/*
 * n physically contiguous frames whose first address is a multiple of
 * align (a power of two >= 4 KiB; 0 means 4 KiB), or PMM_NO_FRAME.
 */
uint64_t pmm_alloc_run(struct pmm *p, uint64_t n, uint64_t align,
		       unsigned int flags);

/*
 * Lets only the next n successful allocations through; every request
 * after them fails (counted in failures) until the limit is lifted with
 * PMM_GRANTS_UNLIMITED. For testing what runs out of memory mid-way.
 */
void pmm_limit_grants(struct pmm *p, uint64_t n);

/*
 * Frees n frames from pa. Either all of them are freed or, on error,
 * none: PMM_ERR_UNALIGNED, PMM_ERR_NOT_MANAGED, PMM_ERR_NOT_ALLOCATED.
 */
int pmm_free_run(struct pmm *p, uint64_t pa, uint64_t n);
int pmm_free(struct pmm *p, uint64_t pa);

enum pmm_frame_state pmm_frame_state(const struct pmm *p, uint64_t pa);
void pmm_stats(const struct pmm *p, struct pmm_stats *out);
size_t pmm_extent_count(const struct pmm *p);
/* Returns false if i is out of range. */
bool pmm_extent(const struct pmm *p, size_t i, struct pmm_extent_info *out);
const char *pmm_strerror(int err);

#endif
