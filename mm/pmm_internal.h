/* SPDX-License-Identifier: MIT */
/* Shared between the two halves of the frame allocator; not an API. */
#ifndef MM_PMM_INTERNAL_H
#define MM_PMM_INTERNAL_H

#include "mm/pmm.h"

#define PMM_FRAME_MASK (PMM_FRAME_SIZE - 1)
/* The architectural maximum of MAXPHYADDR; nothing above it is RAM. */
#define PMM_PA_LIMIT (1ull << 52)

static inline uint64_t pmm_ext_frames(const struct pmm_extent *e)
{
	return (e->end - e->base) >> PMM_FRAME_SHIFT;
}

static inline uint64_t pmm_ext_chunks(const struct pmm_extent *e)
{
	return (pmm_ext_frames(e) + PMM_CHUNK_FRAMES - 1) / PMM_CHUNK_FRAMES;
}

static inline uint64_t pmm_ext_words(const struct pmm_extent *e)
{
	return (pmm_ext_frames(e) + 63) / 64;
}

/*
 * Turns the firmware map and the reserved ranges into p->ext[]: sorted,
 * disjoint, frame-aligned extents (pmm_map.c). Fills p->count and
 * p->lost_frames, and p->trampoline when asked.
 */
void pmm_build_extents(struct pmm *p, const struct pmm_config *cfg);

/* Removes [base, end) (frame-aligned) from the extents. */
void pmm_cut(struct pmm *p, uint64_t base, uint64_t end);

#endif
