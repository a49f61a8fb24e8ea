// SPDX-License-Identifier: MIT
/*
 * Physical frame allocator: metadata placement, allocation and freeing.
 * See pmm.h for the structure and pmm_map.c for how the extents are built.
 */
#include "mm/pmm_internal.h"
#include "lib/string.h"
#include "lib/memops.h"

/* Chunk summary: free frames in bits 0..17, bitmap words valid in bit 31. */
#define SUM_FREE    0x3ffffu
#define SUM_INIT    (1u << 31)
#define CHUNK_WORDS (PMM_CHUNK_FRAMES / 64)

/* A cursor that calls phys_to_virt only when the page changes. */
struct cursor {
	const struct pmm *p;
	uint64_t page;
	uint8_t *va;
};

static void *phys(const struct pmm *p, uint64_t pa)
{
	return p->phys_to_virt(p->ctx, pa);
}

static uint64_t *word_at(struct cursor *c, uint64_t pa)
{
	uint64_t page = pa & ~PMM_FRAME_MASK;

	if (!c->va || page != c->page) {
		c->page = page;
		c->va = phys(c->p, page);
	}
	/* 8-byte aligned words and 4-byte summaries never straddle a page. */
	return (uint64_t *)(c->va + (pa & PMM_FRAME_MASK));
}

static uint32_t *sum_at(const struct pmm *p, const struct pmm_extent *e,
			uint64_t chunk)
{
	return phys(p, e->sum_pa + 4 * chunk);
}

static uint64_t chunk_frames(const struct pmm_extent *e, uint64_t chunk)
{
	uint64_t left = pmm_ext_frames(e) - chunk * PMM_CHUNK_FRAMES;

	return left < PMM_CHUNK_FRAMES ? left : PMM_CHUNK_FRAMES;
}

static void phys_zero(const struct pmm *p, uint64_t pa, uint64_t len)
{
	while (len) {
		uint64_t n = PMM_FRAME_SIZE - (pa & PMM_FRAME_MASK);

		if (n > len)
			n = len;
		mem_zero(phys(p, pa), n);
		pa += n;
		len -= n;
	}
}

/* Lays out and initialises the metadata of every extent from pa on. */
static void meta_assign(struct pmm *p, uint64_t pa)
{
	size_t i;
	uint64_t c;

	for (i = 0; i < p->count; i++) {
		p->ext[i].sum_pa = pa;
		pa += 4 * pmm_ext_chunks(&p->ext[i]);
	}
	pa = (pa + 7) & ~7ull;
	for (i = 0; i < p->count; i++) {
		struct pmm_extent *e = &p->ext[i];

		e->bits_pa = pa;
		pa += 8 * pmm_ext_words(e);
		e->free = pmm_ext_frames(e);
		e->hint = 0;
		/* Bitmap words are left alone until the chunk is first used. */
		for (c = 0; c < pmm_ext_chunks(e); c++)
			*sum_at(p, e, c) = (uint32_t)chunk_frames(e, c);
		p->total += e->free;
	}
	p->free = p->total;
}

/*
 * An upper bound of the metadata size that still holds after the block is
 * cut out of an extent, which may split that extent in two (hence +1).
 */
static uint64_t meta_bytes(const struct pmm *p)
{
	uint64_t bytes = 8;
	size_t i;

	for (i = 0; i < p->count; i++) {
		bytes += 4 * (pmm_ext_chunks(&p->ext[i]) + 1);
		bytes += 8 * (pmm_ext_words(&p->ext[i]) + 1);
	}
	return (bytes + PMM_FRAME_MASK) & ~PMM_FRAME_MASK;
}

/*
 * The highest place below the limit: low memory (below 1 MiB, below
 * 4 GiB) stays available for whatever needs it.
 */
static int meta_place(struct pmm *p, uint64_t limit)
{
	uint64_t bytes = meta_bytes(p), top;
	size_t i;

	limit &= ~PMM_FRAME_MASK;
	for (i = p->count; i-- > 0;) {
		top = p->ext[i].end < limit ? p->ext[i].end : limit;
		if (top > p->ext[i].base && top - p->ext[i].base >= bytes) {
			p->meta_base = top - bytes;
			p->meta_bytes = bytes;
			pmm_cut(p, p->meta_base, top);
			return p->count ? PMM_OK : PMM_ERR_NO_META;
		}
	}
	return PMM_ERR_NO_META;
}

int pmm_init(struct pmm *p, const struct pmm_config *cfg)
{
	int err;

	if (!p || !cfg || !cfg->phys_to_virt || (cfg->map_count && !cfg->map) ||
	    (cfg->reserved_count && !cfg->reserved))
		return PMM_ERR_INVAL;
	mem_zero(p, sizeof(*p));
	p->grants = PMM_GRANTS_UNLIMITED;
	p->phys_to_virt = cfg->phys_to_virt;
	p->ctx = cfg->ctx;
	pmm_build_extents(p, cfg);
	if (p->count == 0)
		return PMM_ERR_NO_USABLE;
	err = meta_place(p, cfg->meta_limit ? cfg->meta_limit : PMM_PA_LIMIT);
	if (err)
		return err;
	meta_assign(p, p->meta_base);
	return PMM_OK;
}

/* First index in [from, to) that is allocated (used) or free (!used). */
static uint64_t scan_words(struct cursor *cur, const struct pmm_extent *e,
			   uint64_t from, uint64_t to, bool used)
{
	while (from < to) {
		uint64_t w = from / 64;
		uint64_t v = *word_at(cur, e->bits_pa + 8 * w);

		v = (used ? v : ~v) & (~0ull << (from % 64));
		if (v) {
			uint64_t i = w * 64 + (uint64_t)__builtin_ctzll(v);

			return i < to ? i : to;
		}
		from = (w + 1) * 64;
	}
	return to;
}

/* As scan_words, but skips whole chunks by their summaries. */
static uint64_t find(const struct pmm *p, const struct pmm_extent *e,
		     uint64_t from, uint64_t to, bool used)
{
	struct cursor cur = {.p = p};

	while (from < to) {
		uint64_t c = from / PMM_CHUNK_FRAMES;
		uint64_t cend = (c + 1) * PMM_CHUNK_FRAMES;
		uint64_t nfree = *sum_at(p, e, c) & SUM_FREE;
		uint64_t i;

		if (cend > to)
			cend = to;
		if (nfree == chunk_frames(e, c))
			i = used ? cend : from;
		else if (nfree == 0)
			i = used ? from : cend;
		else
			i = scan_words(&cur, e, from, cend, used);
		if (i < cend)
			return i;
		from = cend;
	}
	return to;
}

/*
 * Zeroes the chunk's bitmap words. Bits past the extent's last frame are
 * never looked at: every search is bounded by the extent's length.
 */
static void chunk_init(const struct pmm *p, const struct pmm_extent *e,
		       uint64_t c)
{
	uint64_t first = c * CHUNK_WORDS, nwords = pmm_ext_words(e) - first;

	if (nwords > CHUNK_WORDS)
		nwords = CHUNK_WORDS;
	phys_zero(p, e->bits_pa + 8 * first, 8 * nwords);
}

static void set_bits(struct cursor *cur, const struct pmm_extent *e,
		     uint64_t from, uint64_t to, bool used)
{
	while (from < to) {
		uint64_t w = from / 64, hi = to - w * 64;
		uint64_t mask = ~0ull << (from % 64);
		uint64_t *word = word_at(cur, e->bits_pa + 8 * w);

		if (hi < 64)
			mask &= (1ull << hi) - 1;
		else
			hi = 64;
		*word = used ? *word | mask : *word & ~mask;
		from = w * 64 + hi;
	}
}

/* Flips [from, from + n), all known to be in the other state. */
static void mark(struct pmm *p, struct pmm_extent *e, uint64_t from, uint64_t n,
		 bool used)
{
	struct cursor cur = {.p = p};
	uint64_t to = from + n;

	while (from < to) {
		uint64_t c = from / PMM_CHUNK_FRAMES;
		uint64_t cend = (c + 1) * PMM_CHUNK_FRAMES;
		uint32_t s = *sum_at(p, e, c);

		if (cend > to)
			cend = to;
		if (!(s & SUM_INIT)) {
			chunk_init(p, e, c);
			s |= SUM_INIT;
		}
		set_bits(&cur, e, from, cend, used);
		s = used ? s - (uint32_t)(cend - from)
			 : s + (uint32_t)(cend - from);
		*sum_at(p, e, c) = s;
		from = cend;
	}
	e->free = used ? e->free - n : e->free + n;
	p->free = used ? p->free - n : p->free + n;
}

/* Lowest n free frames in e starting at a multiple of af frames. */
static bool ext_find_run(struct pmm *p, struct pmm_extent *e, uint64_t n,
			 uint64_t af, uint64_t *out)
{
	uint64_t frames = pmm_ext_frames(e), pfn = e->base >> PMM_FRAME_SHIFT;
	uint64_t s = find(p, e, e->hint, frames, false), used;

	e->hint = s; /* everything before the first free frame is in use */
	for (;;) {
		s = ((pfn + s + af - 1) & ~(af - 1)) - pfn;
		if (s >= frames || n > frames - s)
			return false;
		used = find(p, e, s, s + n, true);
		if (used == s + n)
			break;
		s = find(p, e, used + 1, frames, false);
	}
	mark(p, e, s, n, true);
	if (s == e->hint)
		e->hint = s + n;
	*out = e->base + (s << PMM_FRAME_SHIFT);
	return true;
}

uint64_t pmm_alloc_run(struct pmm *p, uint64_t n, uint64_t align,
		       unsigned int flags)
{
	uint64_t pa, i;
	size_t x;

	if (align == 0)
		align = PMM_FRAME_SIZE;
	if (n == 0 || n > p->free || align < PMM_FRAME_SIZE ||
	    align > PMM_PA_LIMIT || (align & (align - 1)) || !p->grants)
		goto fail;
	while (p->ext_hint < p->count && p->ext[p->ext_hint].free == 0)
		p->ext_hint++;
	for (x = p->ext_hint; x < p->count; x++) {
		if (p->ext[x].free < n ||
		    !ext_find_run(p, &p->ext[x], n, align >> PMM_FRAME_SHIFT,
				  &pa))
			continue;
		for (i = 0; (flags & PMM_ZERO) && i < n; i++)
			mem_zero(phys(p, pa + (i << PMM_FRAME_SHIFT)),
				 PMM_FRAME_SIZE);
		if (p->grants != PMM_GRANTS_UNLIMITED)
			p->grants--;
		return pa;
	}
fail:
	p->failures++;
	return PMM_NO_FRAME;
}

void pmm_limit_grants(struct pmm *p, uint64_t n)
{
	p->grants = n;
}

uint64_t pmm_alloc(struct pmm *p, unsigned int flags)
{
	return pmm_alloc_run(p, 1, PMM_FRAME_SIZE, flags);
}

/* Index of the extent holding pa, or p->count. */
static size_t ext_of(const struct pmm *p, uint64_t pa)
{
	size_t lo = 0, hi = p->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pa < p->ext[mid].base)
			hi = mid;
		else if (pa >= p->ext[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return p->count;
}

int pmm_free_run(struct pmm *p, uint64_t pa, uint64_t n)
{
	size_t x = ext_of(p, pa);
	struct pmm_extent *e = &p->ext[x];
	uint64_t i;

	if (pa & PMM_FRAME_MASK)
		return PMM_ERR_UNALIGNED;
	if (n == 0)
		return PMM_ERR_INVAL;
	if (x == p->count || n > (e->end - pa) >> PMM_FRAME_SHIFT)
		return PMM_ERR_NOT_MANAGED;
	i = (pa - e->base) >> PMM_FRAME_SHIFT;
	if (find(p, e, i, i + n, false) != i + n)
		return PMM_ERR_NOT_ALLOCATED;
	mark(p, e, i, n, false);
	if (i < e->hint)
		e->hint = i;
	if (x < p->ext_hint)
		p->ext_hint = x;
	return PMM_OK;
}

int pmm_free(struct pmm *p, uint64_t pa)
{
	return pmm_free_run(p, pa, 1);
}

enum pmm_frame_state pmm_frame_state(const struct pmm *p, uint64_t pa)
{
	size_t x = ext_of(p, pa);
	uint64_t i;

	if (x == p->count)
		return PMM_FRAME_UNMANAGED;
	i = (pa - p->ext[x].base) >> PMM_FRAME_SHIFT;
	return find(p, &p->ext[x], i, i + 1, true) == i ? PMM_FRAME_USED
							: PMM_FRAME_FREE;
}

void pmm_stats(const struct pmm *p, struct pmm_stats *out)
{
	out->total_frames = p->total;
	out->free_frames = p->free;
	out->meta_base = p->meta_base;
	out->meta_bytes = p->meta_bytes;
	out->lost_frames = p->lost_frames;
	out->trampoline = p->trampoline;
	out->failures = p->failures;
	out->extents = p->count;
}

size_t pmm_extent_count(const struct pmm *p)
{
	return p->count;
}

bool pmm_extent(const struct pmm *p, size_t i, struct pmm_extent_info *out)
{
	if (i >= p->count)
		return false;
	out->base = p->ext[i].base;
	out->len = p->ext[i].end - p->ext[i].base;
	out->free_frames = p->ext[i].free;
	return true;
}

const char *pmm_strerror(int err)
{
	switch (err) {
	case PMM_OK:
		return "success";
	case PMM_ERR_NO_USABLE:
		return "no usable memory in the map";
	case PMM_ERR_NO_META:
		return "no room for the allocator's metadata";
	case PMM_ERR_INVAL:
		return "invalid argument";
	case PMM_ERR_UNALIGNED:
		return "address not frame-aligned";
	case PMM_ERR_NOT_MANAGED:
		return "address not managed by the allocator";
	case PMM_ERR_NOT_ALLOCATED:
		return "frame not allocated (double free?)";
	}
	return "unknown error";
}
