// SPDX-License-Identifier: MIT
/*
 * x86-64 4-level page tables (see pt.h). Levels are numbered as the SDM's
 * tables: 4 = PML4, 3 = PDPT, 2 = PD, 1 = PT; a leaf at level 3 maps 1 GiB,
 * at level 2 2 MiB, at level 1 4 KiB.
 *
 * New tables are filled in before the entry that points to them is
 * written, so a concurrent hardware walk (another CPU, or the prefetcher)
 * never sees a half-built subtree.
 */
#include "mm/pt.h"

#define FLAGS_OK                                                               \
	(PTE_P | PTE_W | PTE_U | PTE_PWT | PTE_PCD | PTE_A | PTE_D | PTE_PAT | \
	 PTE_G | PTE_AVL_MASK | PTE_NX)
#define TABLE_FLAGS (PTE_P | PTE_W)

static bool canonical(uint64_t va)
{
	/* 4-level paging: bits 63..47 are copies of bit 47. */
	uint64_t top = va >> 47;

	return top == 0 || top == 0x1ffff;
}

static bool size_ok(enum pt_size size)
{
	return size == PT_4K || size == PT_2M || size == PT_1G;
}

static bool is_leaf(uint64_t e, int level)
{
	return level == 1 || (level <= 3 && (e & PTE_PS));
}

static uint64_t *entry_at(const struct pt_ctx *pt, uint64_t table, uint64_t va,
			  int level)
{
	uint64_t *t = pt->phys_to_virt(pt->ctx, table);

	return &t[(va >> (12 + 9 * (level - 1))) & (PT_ENTRIES - 1)];
}

/* The frame a leaf maps; for large leaves bit 12 is PAT, not address. */
static uint64_t leaf_pa(uint64_t e, enum pt_size size)
{
	return e & PTE_ADDR_MASK & ~(pt_size_bytes(size) - 1);
}

/* A leaf's attributes in the 4 KiB format. */
static uint64_t leaf_flags(uint64_t e, enum pt_size size)
{
	uint64_t f = e & ~PTE_ADDR_MASK;

	if (size == PT_4K)
		return f;
	f &= ~PTE_PS;
	if (e & PTE_PAT_LARGE)
		f |= PTE_PAT;
	return f;
}

static uint64_t make_leaf(uint64_t pa, enum pt_size size, uint64_t flags)
{
	if (size == PT_4K)
		return pa | flags;
	/* SDM: in a PDPTE or PDE that maps a page, PAT is bit 12. */
	return pa | (flags & ~PTE_PAT) | PTE_PS |
	       ((flags & PTE_PAT) ? PTE_PAT_LARGE : 0);
}

static int check_va(uint64_t va, enum pt_size size)
{
	if (!size_ok(size))
		return PT_ESIZE;
	if (!canonical(va))
		return PT_ENONCANON;
	if (va & (pt_size_bytes(size) - 1))
		return PT_EUNALIGNED;
	return PT_OK;
}

static int check_flags(uint64_t flags)
{
	return (flags & PTE_P) && !(flags & ~FLAGS_OK) ? PT_OK : PT_EFLAGS;
}

/*
 * Walks down to the entry of `level` for va. Stops early with
 * PT_ENOTMAPPED at a non-present entry or PT_ELARGE at a larger leaf,
 * *out then pointing at that entry and *at saying its level.
 */
static int find_entry(const struct pt_ctx *pt, uint64_t va, int level,
		      uint64_t **out, int *at)
{
	uint64_t table = pt->root;
	int l;

	for (l = 4;; l--) {
		uint64_t *e = entry_at(pt, table, va, l);

		*out = e;
		*at = l;
		if (l == level)
			return PT_OK;
		if (!(*e & PTE_P))
			return PT_ENOTMAPPED;
		if (is_leaf(*e, l))
			return PT_ELARGE;
		table = *e & PTE_ADDR_MASK;
	}
}

static void free_tables(struct pt_ctx *pt, const uint64_t *tabs, int n)
{
	while (n-- > 0) {
		if (pt->free_table)
			pt->free_table(pt->ctx, tabs[n]);
	}
}

/*
 * Creates the missing tables below the non-present entry *e at `from` down
 * to `level`, all allocated before any is linked: out of memory leaves the
 * hierarchy exactly as it was.
 */
static int build_path(struct pt_ctx *pt, uint64_t *e, int from, int level,
		      uint64_t va, uint64_t user, uint64_t **out)
{
	uint64_t tabs[3];
	int n = from - level, i;

	for (i = 0; i < n; i++) {
		tabs[i] = pt->alloc_table(pt->ctx);
		if (!tabs[i]) {
			free_tables(pt, tabs, i);
			return PT_ENOMEM;
		}
	}
	for (i = n - 1; i > 0; i--)
		*entry_at(pt, tabs[i - 1], va, from - i) =
			tabs[i] | TABLE_FLAGS | user;
	*e = tabs[0] | TABLE_FLAGS | user;
	pt->tables += (uint64_t)n;
	*out = entry_at(pt, tabs[n - 1], va, level);
	return PT_OK;
}

/* Gives U to the intermediate entries above the leaf of `level` at va. */
static void grant_user(struct pt_ctx *pt, uint64_t va, int level)
{
	uint64_t table = pt->root;
	int l;

	for (l = 4; l > level; l--) {
		uint64_t *e = entry_at(pt, table, va, l);

		*e |= PTE_U;
		table = *e & PTE_ADDR_MASK;
	}
}

int pt_create(struct pt_ctx *pt)
{
	uint64_t root = pt->alloc_table(pt->ctx);

	if (!root)
		return PT_ENOMEM;
	pt->root = root;
	pt->tables++;
	return PT_OK;
}

int pt_map(struct pt_ctx *pt, uint64_t va, uint64_t pa, enum pt_size size,
	   uint64_t flags, uint64_t *old)
{
	uint64_t *e;
	int err = check_va(va, size), at;

	if (err)
		return err;
	if (pa >= PT_PA_LIMIT)
		return PT_EBADPA;
	if (pa & (pt_size_bytes(size) - 1))
		return PT_EUNALIGNED;
	if (check_flags(flags))
		return PT_EFLAGS;
	err = find_entry(pt, va, size, &e, &at);
	if (err == PT_ENOTMAPPED)
		err = build_path(pt, e, at, size, va, flags & PTE_U, &e);
	if (err)
		return err;
	if (*e & PTE_P)
		return is_leaf(*e, size) ? PT_EEXIST : PT_ETABLE;
	if (old)
		*old = *e;
	*e = make_leaf(pa, size, flags);
	if (flags & PTE_U)
		grant_user(pt, va, size);
	return PT_OK;
}

/* Whether a table holds any present entry (one level, not recursive). */
static bool table_used(const struct pt_ctx *pt, uint64_t table)
{
	const uint64_t *t = pt->phys_to_virt(pt->ctx, table);
	int i;

	for (i = 0; i < PT_ENTRIES; i++) {
		if (t[i] & PTE_P)
			return true;
	}
	return false;
}

/* The present leaf of exactly this size at va, for unmap/protect/split. */
static int find_leaf(const struct pt_ctx *pt, uint64_t va, enum pt_size size,
		     uint64_t **out)
{
	int err = check_va(va, size), at;

	if (err)
		return err;
	err = find_entry(pt, va, size, out, &at);
	if (err == PT_ELARGE)
		return PT_EWRONGSIZE;
	if (err)
		return err;
	if (!(**out & PTE_P))
		return PT_ENOTMAPPED;
	if (!is_leaf(**out, size))
		return table_used(pt, **out & PTE_ADDR_MASK) ? PT_EWRONGSIZE
							     : PT_ENOTMAPPED;
	return PT_OK;
}

int pt_unmap(struct pt_ctx *pt, uint64_t va, enum pt_size size, uint64_t *old)
{
	uint64_t *e;
	int err = find_leaf(pt, va, size, &e);

	if (err)
		return err;
	if (old)
		*old = *e;
	*e = 0;
	return PT_OK;
}

int pt_protect(struct pt_ctx *pt, uint64_t va, enum pt_size size,
	       uint64_t flags, uint64_t *old)
{
	uint64_t *e;
	int err = find_leaf(pt, va, size, &e);

	if (err)
		return err;
	if (check_flags(flags))
		return PT_EFLAGS;
	if (old)
		*old = *e;
	*e = make_leaf(leaf_pa(*e, size), size, flags);
	if (flags & PTE_U)
		grant_user(pt, va, size);
	return PT_OK;
}

static void walk_leaf(struct pt_walk *w, uint64_t va, uint64_t e, int level)
{
	enum pt_size size = (enum pt_size)level;

	w->mapped = true;
	w->size = size;
	w->pa = leaf_pa(e, size) | (va & (pt_size_bytes(size) - 1));
	w->flags = leaf_flags(e, size);
}

int pt_walk(const struct pt_ctx *pt, uint64_t va, struct pt_walk *w)
{
	uint64_t table = pt->root;
	int l;

	*w = (struct pt_walk){.writable = true, .user = true, .exec = true};
	if (!canonical(va))
		return PT_ENONCANON;
	for (l = 4; l >= 1; l--) {
		uint64_t e = *entry_at(pt, table, va, l);

		w->entries[l] = e;
		w->level = l;
		w->pte = e;
		if (!(e & PTE_P))
			break;
		/* SDM 4.6: access rights are the AND (W, U) or OR (NX) of all levels. */
		w->writable &= !!(e & PTE_W);
		w->user &= !!(e & PTE_U);
		w->exec &= !(e & PTE_NX);
		if (is_leaf(e, l)) {
			walk_leaf(w, va, e, l);
			return PT_OK;
		}
		table = e & PTE_ADDR_MASK;
	}
	w->writable = w->user = w->exec = false;
	return PT_OK;
}

/*
 * Splitting keeps the translation and attributes, so the TLB may go on
 * holding the old large entry next to new small ones until the caller
 * flushes: the SDM (4.10.2.3) allows a CPU to use either while both agree,
 * which they do here. Only a later change of one small page needs the
 * flush of the large entry, and that is the caller's to do.
 */
int pt_split(struct pt_ctx *pt, uint64_t va, enum pt_size size, uint64_t *old)
{
	uint64_t *e, *t, table, pa, flags, step;
	enum pt_size small = (enum pt_size)(size - 1);
	int err, i;

	if (size != PT_2M && size != PT_1G)
		return PT_ESIZE;
	err = find_leaf(pt, va & ~(pt_size_bytes(size) - 1), size, &e);
	if (err)
		return err;
	table = pt->alloc_table(pt->ctx);
	if (!table)
		return PT_ENOMEM;
	pa = leaf_pa(*e, size);
	flags = leaf_flags(*e, size);
	step = pt_size_bytes(small);
	t = pt->phys_to_virt(pt->ctx, table);
	for (i = 0; i < PT_ENTRIES; i++)
		t[i] = make_leaf(pa + (uint64_t)i * step, small, flags);
	if (old)
		*old = *e;
	*e = table | TABLE_FLAGS | (*e & PTE_U);
	pt->tables++;
	return PT_OK;
}
