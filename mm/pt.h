/* SPDX-License-Identifier: MIT */
/*
 * x86-64 4-level page tables over an abstract physical memory. Portable: no
 * hardware access; tables are reached through phys_to_virt and created and
 * released through callbacks, so the host tests run this over a simulated
 * memory and the kernel over its direct map.
 *
 * THE API NEVER FLUSHES. Every call that changes an entry hands back the old
 * entry; invalidating the TLBs (and the paging-structure caches) is the
 * caller's choice, because that choice is what the experiments measure.
 *
 * Flags: map, map_range and protect take leaf attributes in the 4 KiB PTE
 * format whatever the page size (PTE_PAT is bit 7). For 2 MiB and 1 GiB
 * leaves the code sets PS and moves PAT to bit 12 (PTE_PAT_LARGE), where
 * the large-page formats keep it. PTE_P is required; address bits, PS and
 * the protection-key bits 59..62 are refused.
 *
 * Intermediate tables are created with P|W, plus U when the new leaf has U
 * (an existing one gains U then: a permission upgrade, which needs no
 * flush). The leaf alone decides writability, user access and NX.
 * Unmapping never frees tables, even empty ones: freeing a table needs a
 * paging-structure-cache flush, which is again the caller's business.
 *
 * Not thread-safe: the caller serialises changes to one hierarchy.
 */
#ifndef MM_PT_H
#define MM_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTE_P	      (1ull << 0)  /* present */
#define PTE_W	      (1ull << 1)  /* writable */
#define PTE_U	      (1ull << 2)  /* user */
#define PTE_PWT	      (1ull << 3)  /* write-through */
#define PTE_PCD	      (1ull << 4)  /* cache disable */
#define PTE_A	      (1ull << 5)  /* accessed */
#define PTE_D	      (1ull << 6)  /* dirty (leaves only) */
#define PTE_PS	      (1ull << 7)  /* PDPTE/PDE: maps a 1 GiB/2 MiB page */
#define PTE_PAT	      (1ull << 7)  /* 4 KiB PTE: PAT index bit */
#define PTE_G	      (1ull << 8)  /* global */
#define PTE_PAT_LARGE (1ull << 12) /* 1 GiB/2 MiB leaf: PAT index bit */
#define PTE_NX	      (1ull << 63) /* no-execute (needs EFER.NXE) */
#define PTE_ADDR_MASK 0x000ffffffffff000ull	      /* bits 12..51 */
#define PTE_AVL_MASK  ((7ull << 9) | (0x7full << 52)) /* ignored by the CPU */
#define PTE_PKEY_MASK (0xfull << 59)

#define PT_ENTRIES    512
/* 4 KiB pages one PMD entry covers (2 MiB): a page table's worth. */
#define PMD_PAGES   PT_ENTRIES
#define PT_PA_LIMIT (1ull << 52)

/* The page sizes, numbered as the level that holds their leaf. */
enum pt_size { PT_4K = 1, PT_2M = 2, PT_1G = 3 };

/* Size masks for pt_map_range. */
#define PT_ALLOW_4K (1u << PT_4K)
#define PT_ALLOW_2M (1u << PT_2M)
#define PT_ALLOW_1G (1u << PT_1G)

enum pt_err {
	PT_OK = 0,
	PT_EUNALIGNED = -1, /* va, pa or length not aligned to the size */
	PT_ENONCANON = -2,  /* va (or the range's end) not canonical */
	PT_EBADPA = -3,	    /* pa at or beyond 2^52 */
	PT_EFLAGS = -4,	    /* flags without P, or with address/PS/pkey bits */
	PT_ESIZE = -5,	    /* not a page size, or no size allowed */
	PT_EEXIST = -6,	    /* a leaf of this size is already mapped there */
	PT_ELARGE = -7,	    /* a larger page already maps that address */
	PT_ETABLE = -8, /* large page requested where a lower table exists */
	PT_ENOTMAPPED = -9,  /* nothing mapped there */
	PT_EWRONGSIZE = -10, /* mapped, but by a page of another size */
	PT_ENOMEM = -11,     /* alloc_table failed; nothing was changed */
};

struct pt_ctx {
	uint64_t root; /* physical address of the PML4 */
	/* Pointer to the 4 KiB table at physical address pa (page-aligned). */
	void *(*phys_to_virt)(void *ctx, uint64_t pa);
	/* A zeroed, 4 KiB-aligned frame's physical address; 0 on failure. */
	uint64_t (*alloc_table)(void *ctx);
	void (*free_table)(void *ctx, uint64_t pa);
	void *ctx;
	uint64_t tables; /* tables allocated through this context */
};

struct pt_walk {
	bool mapped;
	enum pt_size size; /* valid if mapped */
	int level;	/* level of the last entry read: 4 (PML4) .. 1 (PT) */
	uint64_t pa;	/* translation of va, page offset included */
	uint64_t pte;	/* the last entry read (the leaf, if mapped) */
	uint64_t flags; /* leaf attributes in the 4 KiB format */
	bool writable, user, exec; /* effective: combined over all levels */
	uint64_t entries[5]; /* entries[level] as read; 0 if not reached */
};

static inline uint64_t pt_size_bytes(enum pt_size size)
{
	return 1ull << (12 + 9 * ((unsigned int)size - 1));
}

/* Allocates an empty root table into pt->root. */
int pt_create(struct pt_ctx *pt);

/* Maps one page. *old (may be NULL) gets the non-present entry replaced. */
int pt_map(struct pt_ctx *pt, uint64_t va, uint64_t pa, enum pt_size size,
	   uint64_t flags, uint64_t *old);

/* Clears the leaf of this size at va; *old gets it. */
int pt_unmap(struct pt_ctx *pt, uint64_t va, enum pt_size size, uint64_t *old);

/*
 * Rewrites the attributes of the leaf of this size at va, keeping its
 * frame; A and D come from flags too (old has what the CPU had set).
 */
int pt_protect(struct pt_ctx *pt, uint64_t va, enum pt_size size,
	       uint64_t flags, uint64_t *old);

/* Translates va. Returns PT_OK (see w->mapped) or PT_ENONCANON. */
int pt_walk(const struct pt_ctx *pt, uint64_t va, struct pt_walk *w);

/*
 * Replaces the page of `size` (PT_2M or PT_1G) containing va by a table of
 * 512 pages of the next size down, with the same translation and
 * attributes (A and D copied to each). *old gets the large entry.
 */
int pt_split(struct pt_ctx *pt, uint64_t va, enum pt_size size, uint64_t *old);

/*
 * Maps [va, va + len) to [pa, pa + len) with the largest sizes in `allowed`
 * (PT_ALLOW_*) that the alignment of va and pa and the remaining length
 * permit. On error *done (may be NULL) says how many bytes from va were
 * mapped; they stay mapped, and the caller unmaps (and flushes) them.
 */
int pt_map_range(struct pt_ctx *pt, uint64_t va, uint64_t pa, uint64_t len,
		 uint64_t flags, unsigned int allowed, uint64_t *done);

const char *pt_strerror(int err);

#endif
