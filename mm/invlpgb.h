/* SPDX-License-Identifier: MIT */
/*
 * A pure encoder of AMD INVLPGB operands: it computes rAX, ECX and EDX
 * for the instruction, and refuses what the hardware would fault on or,
 * worse, silently do wrong. Executing INVLPGB (0F 01 FE) and TLBSYNC
 * (0F 01 FF) is the CPU-helper header's job; this file has no hardware
 * access.
 *
 * Register layout (AMD APM vol. 3, INVLPGB, as docs/mechanics.md gives it):
 *   rAX: page-aligned VA | bit 0 VA valid | bit 1 PCID valid |
 *        bit 2 ASID valid | bit 3 include global | bit 4 final
 *        translations only | bit 5 include nested
 *   ECX: [15:0] number of pages *beyond the first*; [31] 2 MiB stride
 *   EDX: [27:16] PCID, [15:0] ASID
 * At most CPUID Fn8000_0008 EDX[15:0] + 1 pages per instruction.
 */
#ifndef MM_INVLPGB_H
#define MM_INVLPGB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INVLPGB_RAX_VA	       (1ull << 0)
#define INVLPGB_RAX_PCID       (1ull << 1)
#define INVLPGB_RAX_ASID       (1ull << 2)
#define INVLPGB_RAX_GLOBAL     (1ull << 3)
#define INVLPGB_RAX_FINAL_ONLY (1ull << 4)
#define INVLPGB_RAX_NESTED     (1ull << 5)
#define INVLPGB_RAX_RESERVED   0xfc0ull /* bits 11:6 */
#define INVLPGB_ECX_COUNT_MASK 0xffffu
#define INVLPGB_ECX_MAX_PAGES  0x10000u /* ECX[15:0] + 1 at most */
#define INVLPGB_ECX_2M_STRIDE  (1u << 31)
#define INVLPGB_ECX_RESERVED   0x7fff0000u /* bits 30:16 */
#define INVLPGB_EDX_PCID_SHIFT 16
#define INVLPGB_EDX_ASID_MASK  0xffffu
#define INVLPGB_PCID_MAX       0xfffu
#define INVLPGB_ASID_MAX       0xffffu

enum invlpgb_size { INVLPGB_4K, INVLPGB_2M, INVLPGB_1G };

/*
 * What to invalidate. A zeroed request means: one 4 KiB page at va 0,
 * all PCIDs, ASID 0 only (the host, on bare metal), non-global entries.
 */
struct invlpgb_req {
	uint64_t va;		  /* first page; ignored with all_va */
	uint32_t pages;		  /* >= 1; ignored with all_va */
	enum invlpgb_size stride; /* 4K or 2M: the step between pages */
	/* The smallest page size really mapping the range (see invlpgb.c). */
	enum invlpgb_size mapping;
	bool all_va;	 /* VA-valid clear: every address (of the PCID/ASID) */
	bool pcid_valid; /* only this PCID; else every PCID */
	uint16_t pcid;
	bool all_asids; /* ASID-valid clear: guests' entries too */
	uint32_t asid;	/* with !all_asids; 0 = the host */
	bool include_global, final_only, include_nested;
};

/* What the CPU allows, read at boot. */
struct invlpgb_caps {
	uint32_t
		max_pages; /* CPUID Fn8000_0008 EDX[15:0] + 1; 0 = no INVLPGB */
	bool pcide;	   /* CR4.PCIDE */
	bool svm;	   /* EFER.SVME */
};

struct invlpgb_regs {
	uint64_t rax;
	uint32_t ecx, edx;
};

enum invlpgb_err {
	INVLPGB_OK = 0,
	INVLPGB_ENOTSUP = -1,	 /* caps.max_pages == 0 */
	INVLPGB_EZERO = -2,	 /* zero pages */
	INVLPGB_ETOOMANY = -3,	 /* more pages than caps.max_pages */
	INVLPGB_ESTRIDE = -4,	 /* 2 MiB stride over 4 KiB mappings */
	INVLPGB_EUNALIGNED = -5, /* va not aligned to the stride */
	INVLPGB_ENONCANON = -6,	 /* va, or the last page, not canonical */
	INVLPGB_EPCIDE = -7,	 /* a PCID while CR4.PCIDE is off */
	INVLPGB_EPCID = -8,	 /* PCID > 4095 */
	INVLPGB_ESVM = -9,	 /* non-zero ASID with SVM disabled */
	INVLPGB_EASID = -10,	 /* ASID > 0xffff */
	INVLPGB_ESIZE = -11,	 /* stride or mapping not a known size */
	INVLPGB_ENOSPACE = -12,	 /* output array too small (chunking) */
	INVLPGB_ERESERVED = -13, /* decode: a reserved bit set */
	INVLPGB_EIGNORED = -14,	 /* decode: a field without its valid bit */
};

/* caps.max_pages from CPUID Fn8000_0008 EDX, given INVLPGB is supported. */
static inline uint32_t invlpgb_max_pages(uint32_t cpuid_edx)
{
	return (cpuid_edx & 0xffffu) + 1;
}

/*
 * Encodes one instruction; req->pages must not exceed caps->max_pages, nor
 * INVLPGB_ECX_MAX_PAGES whatever caps says.
 */
int invlpgb_encode(const struct invlpgb_req *req,
		   const struct invlpgb_caps *caps, struct invlpgb_regs *out);

/* Instructions needed for `pages` pages at max_pages per instruction. */
uint32_t invlpgb_chunks(uint32_t pages, uint32_t max_pages);

/*
 * Encodes req (any number of pages) as instructions of at most
 * caps->max_pages (and INVLPGB_ECX_MAX_PAGES) pages each, for "INVLPGB in CPUID-max chunks, then one
 * TLBSYNC". Fills out[0 .. *n) (cap entries available). On error *n is 0.
 */
int invlpgb_encode_range(const struct invlpgb_req *req,
			 const struct invlpgb_caps *caps,
			 struct invlpgb_regs *out, size_t cap, size_t *n);

/*
 * The other way round, for the software model (bench/invlpgb_emul.c): what
 * the hardware makes of rAX, ECX and EDX, or an error for an encoding it
 * would reject (#GP) or treat otherwise than the caller meant:
 *  - ERESERVED: rAX[11:6] or ECX[30:16] set (in rAX, an unaligned VA);
 *  - ETOOMANY: more pages than caps->max_pages (CPUID's limit);
 *  - ENONCANON: the first or the last page (count x stride on) outside
 *    the canonical half it starts in;
 *  - EPCID: EDX[31:28] set (a PCID above 4095);
 *  - EPCIDE: PCID-valid while CR4.PCIDE is off (non-zero: #GP);
 *  - ESVM: ASID-valid with a non-zero ASID while SVM is off (#GP);
 *  - EIGNORED: an address, count or stride without VA-valid, a PCID without
 *    PCID-valid, an ASID without ASID-valid: the hardware ignores them, so
 *    the caller did not get what it wrote.
 * out->mapping is not in the instruction: it is set to the stride. The
 * real page size of what each address maps is the model's business.
 */
int invlpgb_decode(const struct invlpgb_regs *in,
		   const struct invlpgb_caps *caps, struct invlpgb_req *out);

const char *invlpgb_strerror(int err);

#endif
