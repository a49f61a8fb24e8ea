// SPDX-License-Identifier: MIT
/* Range mapping and error names for the page tables (see pt.h). */
#include "mm/pt.h"

static bool canonical_range(uint64_t va, uint64_t len)
{
	uint64_t last = va + len - 1;

	/* Both ends in the same canonical half, with no wrap in between. */
	if (last < va)
		return false;
	if ((va >> 47) == 0)
		return (last >> 47) == 0;
	return (va >> 47) == 0x1ffff;
}

static enum pt_size largest_fit(uint64_t va, uint64_t pa, uint64_t len,
				unsigned int allowed)
{
	enum pt_size s;

	for (s = PT_1G; s > PT_4K; s--) {
		uint64_t bytes = pt_size_bytes(s);

		if ((allowed & (1u << s)) && !((va | pa) & (bytes - 1)) &&
		    len >= bytes)
			return s;
	}
	return PT_4K;
}

static int check_range(uint64_t va, uint64_t pa, uint64_t len,
		       unsigned int allowed)
{
	enum pt_size smallest;

	if (!allowed || (allowed & ~(PT_ALLOW_4K | PT_ALLOW_2M | PT_ALLOW_1G)))
		return PT_ESIZE;
	smallest = (enum pt_size)__builtin_ctz(allowed);
	if ((va | pa | len) & (pt_size_bytes(smallest) - 1))
		return PT_EUNALIGNED;
	if (len && !canonical_range(va, len))
		return PT_ENONCANON;
	if (pa >= PT_PA_LIMIT || len > PT_PA_LIMIT - pa)
		return PT_EBADPA;
	return PT_OK;
}

int pt_map_range(struct pt_ctx *pt, uint64_t va, uint64_t pa, uint64_t len,
		 uint64_t flags, unsigned int allowed, uint64_t *done)
{
	int err = check_range(va, pa, len, allowed);

	if (done)
		*done = 0;
	if (err)
		return err;
	while (len) {
		enum pt_size s = largest_fit(va, pa, len, allowed);
		uint64_t bytes = pt_size_bytes(s);

		err = pt_map(pt, va, pa, s, flags, NULL);
		if (err)
			return err;
		va += bytes;
		pa += bytes;
		len -= bytes;
		if (done)
			*done += bytes;
	}
	return PT_OK;
}

const char *pt_strerror(int err)
{
	switch (err) {
	case PT_OK:
		return "success";
	case PT_EUNALIGNED:
		return "address or length not aligned to the page size";
	case PT_ENONCANON:
		return "virtual address not canonical";
	case PT_EBADPA:
		return "physical address beyond 52 bits";
	case PT_EFLAGS:
		return "invalid page flags";
	case PT_ESIZE:
		return "invalid page size";
	case PT_EEXIST:
		return "already mapped";
	case PT_ELARGE:
		return "overlaps a large page";
	case PT_ETABLE:
		return "a lower-level page table exists there";
	case PT_ENOTMAPPED:
		return "not mapped";
	case PT_EWRONGSIZE:
		return "mapped with a different page size";
	case PT_ENOMEM:
		return "out of page-table memory";
	}
	return "unknown error";
}
