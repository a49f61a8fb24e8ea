// SPDX-License-Identifier: MIT
/*
 * From the firmware memory map to the allocator's extents.
 *
 * Firmware maps are not trustworthy: entries may be unsorted, overlap each
 * other, start or end in the middle of a page, have zero length, or run past
 * the end of the address space. The rules here:
 *  - usable (type 1) entries are merged as byte ranges first, so two
 *    entries that each cover half of a page together make it usable;
 *  - every other type, and every reserved range, is rounded outwards to
 *    whole frames and removed: where usable and non-usable overlap, the
 *    non-usable type wins (E820's rule, as Linux's e820 sanitizer applies
 *    it: the firmware meant to keep the overlap away from the OS);
 *  - only then are the usable ranges rounded inwards to whole frames;
 *  - page 0 is never usable: PMM_NO_FRAME is 0.
 */
#include "mm/pmm_internal.h"
#include "lib/string.h"

static uint64_t clamp_end(uint64_t base, uint64_t len)
{
	uint64_t end = base + len;

	if (end < base || end > PMM_PA_LIMIT)
		end = PMM_PA_LIMIT;
	return end;
}

static void ext_remove(struct pmm *p, size_t i, size_t n)
{
	memmove(&p->ext[i], &p->ext[i + n],
		(p->count - i - n) * sizeof(p->ext[0]));
	p->count -= n;
}

static bool ext_insert(struct pmm *p, size_t i, uint64_t base, uint64_t end)
{
	if (p->count == PMM_MAX_EXTENTS)
		return false;
	memmove(&p->ext[i + 1], &p->ext[i], (p->count - i) * sizeof(p->ext[0]));
	memset(&p->ext[i], 0, sizeof(p->ext[i]));
	p->ext[i].base = base;
	p->ext[i].end = end;
	p->count++;
	return true;
}

/* Whole frames inside [base, end), for the lost-memory diagnostic. */
static uint64_t whole_frames(uint64_t base, uint64_t end)
{
	base = (base + PMM_FRAME_MASK) & ~PMM_FRAME_MASK;
	end &= ~PMM_FRAME_MASK;
	return end > base ? (end - base) >> PMM_FRAME_SHIFT : 0;
}

/* Adds a usable byte range, merging it with the ranges it overlaps or touches. */
static void add_usable(struct pmm *p, uint64_t base, uint64_t end)
{
	size_t i = 0, j;

	while (i < p->count && p->ext[i].end < base)
		i++;
	for (j = i; j < p->count && p->ext[j].base <= end; j++) {
		if (p->ext[j].base < base)
			base = p->ext[j].base;
		if (p->ext[j].end > end)
			end = p->ext[j].end;
	}
	if (i == j) {
		if (!ext_insert(p, i, base, end))
			p->lost_frames += whole_frames(base, end);
		return;
	}
	p->ext[i].base = base;
	p->ext[i].end = end;
	ext_remove(p, i + 1, j - i - 1);
}

/*
 * Splits extent i around the hole [base, end). With no free slot for the
 * upper piece, the smaller piece is given up and counted as lost.
 */
static void split(struct pmm *p, size_t i, uint64_t base, uint64_t end)
{
	struct pmm_extent *e = &p->ext[i];
	uint64_t hi_end = e->end;

	if (ext_insert(p, i + 1, end, hi_end)) {
		p->ext[i].end = base;
		return;
	}
	if (base - e->base >= hi_end - end) {
		p->lost_frames += whole_frames(end, hi_end);
		e->end = base;
	} else {
		p->lost_frames += whole_frames(e->base, base);
		e->base = end;
	}
}

void pmm_cut(struct pmm *p, uint64_t base, uint64_t end)
{
	size_t i = 0;

	while (i < p->count) {
		struct pmm_extent *e = &p->ext[i];

		if (e->end <= base || e->base >= end) {
			i++;
		} else if (e->base >= base && e->end <= end) {
			ext_remove(p, i, 1);
		} else if (e->base >= base) {
			e->base = end;
			i++;
		} else if (e->end <= end) {
			e->end = base;
			i++;
		} else {
			/* The hole is inside this extent and no other. */
			split(p, i, base, end);
			return;
		}
	}
}

static void cut_outward(struct pmm *p, uint64_t base, uint64_t len)
{
	uint64_t end;

	if (len == 0 || base >= PMM_PA_LIMIT)
		return;
	end = clamp_end(base, len);
	base &= ~PMM_FRAME_MASK;
	end = (end + PMM_FRAME_MASK) & ~PMM_FRAME_MASK;
	pmm_cut(p, base, end);
}

static void round_inward(struct pmm *p)
{
	size_t i = 0;

	while (i < p->count) {
		struct pmm_extent *e = &p->ext[i];

		e->base = (e->base + PMM_FRAME_MASK) & ~PMM_FRAME_MASK;
		e->end &= ~PMM_FRAME_MASK;
		if (e->end <= e->base)
			ext_remove(p, i, 1);
		else
			i++;
	}
}

/*
 * The AP trampoline: the SIPI vector is the page number of the start-up
 * code, 8 bits wide, so the page must lie below 1 MiB. The lowest usable
 * page is taken, as firmware tends to leave low conventional memory alone.
 */
static void take_trampoline(struct pmm *p)
{
	uint64_t pa;

	p->trampoline = PMM_NO_FRAME;
	if (p->count == 0 || p->ext[0].base >= PMM_TRAMPOLINE_LIMIT)
		return;
	pa = p->ext[0].base;
	pmm_cut(p, pa, pa + PMM_FRAME_SIZE);
	p->trampoline = pa;
}

void pmm_build_extents(struct pmm *p, const struct pmm_config *cfg)
{
	size_t i;

	p->count = 0;
	p->lost_frames = 0;
	for (i = 0; i < cfg->map_count; i++) {
		const struct boot_region *r = &cfg->map[i];

		if (r->type == MEM_USABLE && r->len && r->base < PMM_PA_LIMIT)
			add_usable(p, r->base, clamp_end(r->base, r->len));
	}
	for (i = 0; i < cfg->map_count; i++) {
		if (cfg->map[i].type != MEM_USABLE)
			cut_outward(p, cfg->map[i].base, cfg->map[i].len);
	}
	for (i = 0; i < cfg->reserved_count; i++)
		cut_outward(p, cfg->reserved[i].base, cfg->reserved[i].len);
	pmm_cut(p, 0, PMM_FRAME_SIZE);
	round_inward(p);
	if (cfg->reserve_trampoline)
		take_trampoline(p);
	else
		p->trampoline = PMM_NO_FRAME;
}
