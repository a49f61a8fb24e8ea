// SPDX-License-Identifier: MIT
/*
 * INVLPGB operand encoder (see invlpgb.h for the register layout).
 *
 * The refusals, and why each one matters:
 *  - More pages than CPUID Fn8000_0008 EDX[15:0] + 1: that is the most one
 *    instruction is specified to handle, and nothing but this check stops
 *    a larger count from reaching ECX. Split the range instead
 *    (invlpgb_encode_range), then one TLBSYNC covers every chunk. Nor
 *    more than ECX[15:0] + 1 can say (65536), whatever caps claims: the
 *    count would wrap and name fewer pages than asked.
 *  - The 2 MiB stride over 4 KiB mappings: the CPU invalidates by the real
 *    page size of each translation it finds, so stepping 2 MiB through 4
 *    KiB mappings invalidates one 4 KiB page per step and leaves the other
 *    511 cached. FreeBSD shipped this and corrupted memory (EN-26:10).
 *    The opposite, a 4 KiB stride over larger mappings, is only wasteful.
 *  - A PCID while CR4.PCIDE is off: a non-zero PCID raises #GP. A PCID of
 *    0 is refused too: with PCIDE off every entry is tagged PCID 0, so
 *    leaving PCID-valid clear invalidates the same entries without the
 *    question of whether the CPU accepts it.
 *  - A non-zero ASID with SVM disabled raises #GP. On bare metal the
 *    host's entries are ASID 0; the zeroed request sets ASID-valid with
 *    ASID 0 so that guests' entries are not invalidated as well.
 *  - Unaligned or non-canonical addresses: the low 12 bits of rAX are the
 *    flags, so an unaligned VA would turn into flags; a 2 MiB stride from
 *    an address inside a 2 MiB page would name the wrong pages; and a
 *    range that leaves its canonical half names no translation at all.
 */
#include "mm/invlpgb.h"

static uint64_t size_bytes(enum invlpgb_size s)
{
	return s == INVLPGB_4K	 ? 1ull << 12
	       : s == INVLPGB_2M ? 1ull << 21
				 : 1ull << 30;
}

static bool size_known(enum invlpgb_size s)
{
	return s == INVLPGB_4K || s == INVLPGB_2M || s == INVLPGB_1G;
}

/* First and last page in the same canonical half (4-level: 47 bits). */
static bool canonical_span(uint64_t va, uint64_t last)
{
	if (last < va)
		return false;
	if ((va >> 47) == 0)
		return (last >> 47) == 0;
	return (va >> 47) == 0x1ffff;
}

/* Pages one instruction may name: CPUID's limit, and what ECX can hold. */
static uint32_t max_per_insn(const struct invlpgb_caps *caps)
{
	return caps->max_pages < INVLPGB_ECX_MAX_PAGES ? caps->max_pages
						       : INVLPGB_ECX_MAX_PAGES;
}

static int check_range(const struct invlpgb_req *req, uint32_t max)
{
	uint64_t step = size_bytes(req->stride);

	if (req->all_va)
		return INVLPGB_OK;
	if (!size_known(req->mapping) ||
	    (req->stride != INVLPGB_4K && req->stride != INVLPGB_2M))
		return INVLPGB_ESIZE;
	if (req->pages == 0)
		return INVLPGB_EZERO;
	if (req->pages > max)
		return INVLPGB_ETOOMANY;
	if (req->stride == INVLPGB_2M && req->mapping == INVLPGB_4K)
		return INVLPGB_ESTRIDE;
	if (!canonical_span(req->va, req->va + (req->pages - 1) * step))
		return INVLPGB_ENONCANON;
	if (req->va & (step - 1))
		return INVLPGB_EUNALIGNED;
	return INVLPGB_OK;
}

static int check_ids(const struct invlpgb_req *req,
		     const struct invlpgb_caps *caps)
{
	if (req->pcid_valid && req->pcid > INVLPGB_PCID_MAX)
		return INVLPGB_EPCID;
	if (req->pcid_valid && !caps->pcide)
		return INVLPGB_EPCIDE;
	if (!req->all_asids && req->asid > INVLPGB_ASID_MAX)
		return INVLPGB_EASID;
	if (!req->all_asids && req->asid && !caps->svm)
		return INVLPGB_ESVM;
	return INVLPGB_OK;
}

int invlpgb_encode(const struct invlpgb_req *req,
		   const struct invlpgb_caps *caps, struct invlpgb_regs *out)
{
	uint64_t rax = 0;
	int err;

	if (caps->max_pages == 0)
		return INVLPGB_ENOTSUP;
	err = check_range(req, max_per_insn(caps));
	if (!err)
		err = check_ids(req, caps);
	if (err)
		return err;
	*out = (struct invlpgb_regs){0};
	if (!req->all_va) {
		rax = req->va | INVLPGB_RAX_VA;
		out->ecx = (req->pages - 1) & INVLPGB_ECX_COUNT_MASK;
		if (req->stride == INVLPGB_2M)
			out->ecx |= INVLPGB_ECX_2M_STRIDE;
	}
	if (req->pcid_valid) {
		rax |= INVLPGB_RAX_PCID;
		out->edx = (uint32_t)req->pcid << INVLPGB_EDX_PCID_SHIFT;
	}
	if (!req->all_asids) {
		rax |= INVLPGB_RAX_ASID;
		out->edx |= req->asid;
	}
	rax |= req->include_global ? INVLPGB_RAX_GLOBAL : 0;
	rax |= req->final_only ? INVLPGB_RAX_FINAL_ONLY : 0;
	rax |= req->include_nested ? INVLPGB_RAX_NESTED : 0;
	out->rax = rax;
	return INVLPGB_OK;
}

uint32_t invlpgb_chunks(uint32_t pages, uint32_t max_pages)
{
	if (max_pages == 0)
		return 0;
	return pages / max_pages + (pages % max_pages != 0);
}

int invlpgb_encode_range(const struct invlpgb_req *req,
			 const struct invlpgb_caps *caps,
			 struct invlpgb_regs *out, size_t cap, size_t *n)
{
	struct invlpgb_req part = *req;
	uint32_t left = req->pages, max = max_per_insn(caps);
	size_t i = 0;
	int err;

	*n = 0;
	if (max == 0)
		return INVLPGB_ENOTSUP;
	/* Validate the whole range once; each chunk then only shrinks it. */
	part.pages = req->all_va || left <= max ? left : max;
	err = invlpgb_encode(&part, caps, &(struct invlpgb_regs){0});
	if (!err && !req->all_va &&
	    !canonical_span(req->va, req->va + (uint64_t)(left - 1) *
						       size_bytes(req->stride)))
		err = INVLPGB_ENONCANON;
	if (err)
		return err;
	if (cap < (req->all_va ? 1 : invlpgb_chunks(left, max)))
		return INVLPGB_ENOSPACE;
	do {
		part.pages = req->all_va || left <= max ? left : max;
		invlpgb_encode(&part, caps, &out[i++]);
		part.va += (uint64_t)part.pages * size_bytes(req->stride);
		left -= part.pages;
	} while (left && !req->all_va);
	*n = i;
	return INVLPGB_OK;
}

static int decode_ids(const struct invlpgb_regs *in,
		      const struct invlpgb_caps *caps, struct invlpgb_req *out)
{
	uint32_t pcid = in->edx >> INVLPGB_EDX_PCID_SHIFT;
	uint32_t asid = in->edx & INVLPGB_EDX_ASID_MASK;

	out->pcid_valid = in->rax & INVLPGB_RAX_PCID;
	out->all_asids = !(in->rax & INVLPGB_RAX_ASID);
	if (out->pcid_valid && pcid > INVLPGB_PCID_MAX)
		return INVLPGB_EPCID;
	if (out->pcid_valid && !caps->pcide)
		return INVLPGB_EPCIDE;
	if (!out->pcid_valid && pcid)
		return INVLPGB_EIGNORED;
	if (!out->all_asids && asid && !caps->svm)
		return INVLPGB_ESVM;
	if (out->all_asids && asid)
		return INVLPGB_EIGNORED;
	out->pcid = out->pcid_valid ? (uint16_t)pcid : 0;
	out->asid = out->all_asids ? 0 : asid;
	return INVLPGB_OK;
}

int invlpgb_decode(const struct invlpgb_regs *in,
		   const struct invlpgb_caps *caps, struct invlpgb_req *out)
{
	uint32_t count = in->ecx & INVLPGB_ECX_COUNT_MASK;
	struct invlpgb_req r = {0};
	uint64_t step;
	int err;

	if (caps->max_pages == 0)
		return INVLPGB_ENOTSUP;
	if ((in->rax & INVLPGB_RAX_RESERVED) ||
	    (in->ecx & INVLPGB_ECX_RESERVED))
		return INVLPGB_ERESERVED;
	r.all_va = !(in->rax & INVLPGB_RAX_VA);
	r.stride = (in->ecx & INVLPGB_ECX_2M_STRIDE) ? INVLPGB_2M : INVLPGB_4K;
	r.mapping = r.stride;
	r.include_global = in->rax & INVLPGB_RAX_GLOBAL;
	r.final_only = in->rax & INVLPGB_RAX_FINAL_ONLY;
	r.include_nested = in->rax & INVLPGB_RAX_NESTED;
	if (r.all_va) {
		if (in->ecx || (in->rax & ~0xfffull))
			return INVLPGB_EIGNORED;
		r.stride = r.mapping = INVLPGB_4K;
	} else {
		r.va = in->rax & ~0xfffull;
		r.pages = count + 1;
		if (r.pages > caps->max_pages)
			return INVLPGB_ETOOMANY;
		step = size_bytes(r.stride);
		if (!canonical_span(r.va, r.va + (uint64_t)count * step))
			return INVLPGB_ENONCANON;
	}
	err = decode_ids(in, caps, &r);
	if (err)
		return err;
	*out = r;
	return INVLPGB_OK;
}

const char *invlpgb_strerror(int err)
{
	static const char *const msg[] = {
		[0] = "success",
		[1] = "INVLPGB not supported",
		[2] = "zero pages",
		[3] = "more pages than CPUID's maximum per instruction",
		[4] = "2 MiB stride over 4 KiB mappings (would leave them "
		      "cached)",
		[5] = "address not aligned to the stride",
		[6] = "address not canonical",
		[7] = "PCID given while CR4.PCIDE is off",
		[8] = "PCID above 4095",
		[9] = "non-zero ASID with SVM disabled",
		[10] = "ASID above 0xffff",
		[11] = "unknown page size",
		[12] = "output array too small",
		[13] = "reserved bit set (rAX[11:6] or ECX[30:16])",
		[14] = "field given without its valid bit (ignored by the "
		       "hardware)",
	};

	if (err > 0 || err <= -(int)(sizeof(msg) / sizeof(msg[0])))
		return "unknown error";
	return msg[-err];
}
