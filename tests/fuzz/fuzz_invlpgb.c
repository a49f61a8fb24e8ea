// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the INVLPGB encoder (mm/invlpgb.c), checked against a
 * reference decoder written here from the AMD APM vol. 3 register layout
 * and nothing else: no macro or helper of mm/invlpgb.h is used to read
 * the registers, so a layout error in the header cannot hide itself.
 *
 *   rAX  bit 0 VA valid, 1 PCID valid, 2 ASID valid, 3 include global,
 *        4 final translations only, 5 include nested; 11:6 reserved;
 *        63:12 the virtual address (page-aligned)
 *   ECX  15:0 pages beyond the first; 30:16 reserved; 31 2 MiB stride
 *   EDX  27:16 PCID, 15:0 ASID (31:28 beyond any PCID)
 *   at most CPUID Fn8000_0008 EDX[15:0] + 1 pages per instruction
 *
 * For every request invlpgb_encode_range() accepts, the instructions it
 * returns must, decoded so, name exactly the pages asked for (the same
 * first page, stride and count, in chunks that neither overlap nor leave
 * a gap) with exactly the flags, PCID and ASID asked for: an encoding
 * that names fewer pages is the silent under-invalidation of FreeBSD
 * EN-26:10. invlpgb_encode() must agree with it on one-chunk requests,
 * and invlpgb_decode() must give back each instruction's request. On raw
 * registers, what invlpgb_decode() accepts must be what the reference
 * decoder reads, and must encode back to them (see decode_only()).
 *
 * Input: u8 flags, u8 shape, then the fields read below in order.
 */
#include "fuzz.h"
#include "mm/invlpgb.h"

/* flags */
#define I_ALL_VA     0x01
#define I_PCID_VALID 0x02
#define I_ALL_ASIDS  0x04
#define I_GLOBAL     0x08
#define I_FINAL	     0x10
#define I_NESTED     0x20
#define I_PCIDE	     0x40
#define I_SVM	     0x80
/* shape: bits 0-1 stride, 2-3 mapping (3: not a size), then: */
#define S_TIDY_VA  0x10 /* sign-extend bit 47, align to the stride */
#define S_RAW_CAPS 0x20 /* caps.max_pages as any u32, not from CPUID */
#define S_RAW_PAGE 0x40 /* pages as any u32, not a u16 */
#define S_DECODE   0x80 /* raw registers into invlpgb_decode() */

#define SZ_4K	   (1ull << 12)
#define SZ_2M	   (1ull << 21)

/* One instruction as the CPU reads its operands. */
struct ref {
	bool va_valid, pcid_valid, asid_valid, global, final_only, nested;
	bool reserved; /* rAX[11:6], ECX[30:16] or EDX[31:28] set */
	uint64_t va;
	uint64_t pages; /* ECX[15:0] + 1 */
	uint64_t step;	/* bytes between the pages */
	uint32_t pcid, asid;
};

static struct ref ref_decode(uint64_t rax, uint32_t ecx, uint32_t edx)
{
	return (struct ref){
		.va_valid = rax & 1,
		.pcid_valid = (rax >> 1) & 1,
		.asid_valid = (rax >> 2) & 1,
		.global = (rax >> 3) & 1,
		.final_only = (rax >> 4) & 1,
		.nested = (rax >> 5) & 1,
		.reserved = ((rax >> 6) & 0x3f) || ((ecx >> 16) & 0x7fff) ||
			    (edx >> 28),
		.va = rax >> 12 << 12,
		.pages = (uint64_t)(ecx & 0xffff) + 1,
		.step = ecx >> 31 ? SZ_2M : SZ_4K,
		.pcid = (edx >> 16) & 0xfff,
		.asid = edx & 0xffff,
	};
}

static bool canonical(uint64_t va)
{
	uint64_t top = va >> 47;

	return top == 0 || top == 0x1ffff;
}

static uint64_t step_of(enum invlpgb_size s)
{
	return s == INVLPGB_2M ? SZ_2M : SZ_4K;
}

/* Checks what an accepted request was encoded into. */
static void check_accepted(const struct invlpgb_req *req,
			   const struct invlpgb_caps *caps,
			   const struct invlpgb_regs *out, size_t n)
{
	/* The CPU's limit: what ECX[15:0] + 1 can say, and CPUID's value. */
	uint64_t limit = caps->max_pages < 65536 ? caps->max_pages : 65536;
	uint64_t next = req->va, covered = 0, step = step_of(req->stride);

	FUZZ_CHECK(n >= 1, "accepted, no instruction");
	if (!req->all_va) {
		FUZZ_CHECK(req->stride == INVLPGB_4K ||
				   req->stride == INVLPGB_2M,
			   "accepted stride %d", req->stride);
		/* A 2 MiB stride over 4 KiB pages skips 511 of each 512. */
		FUZZ_CHECK(!(req->stride == INVLPGB_2M &&
			     req->mapping == INVLPGB_4K),
			   "accepted a 2 MiB stride over 4 KiB mappings");
		FUZZ_CHECK(req->va % step == 0, "accepted va 0x%llx, step %llu",
			   (unsigned long long)req->va,
			   (unsigned long long)step);
	}
	FUZZ_CHECK(!(req->pcid_valid && !caps->pcide),
		   "accepted a PCID with CR4.PCIDE off (#GP)");
	FUZZ_CHECK(req->all_asids || !req->asid || caps->svm,
		   "accepted ASID %u with SVM off (#GP)", req->asid);

	for (size_t i = 0; i < n; i++) {
		struct ref r = ref_decode(out[i].rax, out[i].ecx, out[i].edx);
		struct invlpgb_req back;
		int err;

		FUZZ_CHECK(!r.reserved,
			   "insn %zu: reserved bit set: %llx %x %x", i,
			   (unsigned long long)out[i].rax, out[i].ecx,
			   out[i].edx);
		FUZZ_CHECK(r.global == req->include_global &&
				   r.final_only == req->final_only &&
				   r.nested == req->include_nested,
			   "insn %zu: flags", i);
		FUZZ_CHECK(r.pcid_valid == req->pcid_valid,
			   "insn %zu: PCID-valid", i);
		FUZZ_CHECK(r.pcid == (req->pcid_valid ? req->pcid : 0u),
			   "insn %zu: PCID %u for %u", i, r.pcid, req->pcid);
		FUZZ_CHECK(r.asid_valid == !req->all_asids,
			   "insn %zu: ASID-valid", i);
		FUZZ_CHECK(r.asid == (req->all_asids ? 0u : req->asid),
			   "insn %zu: ASID %u for %u", i, r.asid, req->asid);
		if (req->all_va) {
			FUZZ_CHECK(
				n == 1 && !r.va_valid && !r.va && !out[i].ecx,
				"all addresses: %zu insns, rAX %llx ECX %x", n,
				(unsigned long long)out[i].rax, out[i].ecx);
		} else {
			FUZZ_CHECK(r.va_valid, "insn %zu: VA-valid clear", i);
			FUZZ_CHECK(r.step == step, "insn %zu: stride", i);
			FUZZ_CHECK(r.va == next,
				   "insn %zu: starts at 0x%llx, not 0x%llx", i,
				   (unsigned long long)r.va,
				   (unsigned long long)next);
			FUZZ_CHECK(r.pages <= limit,
				   "insn %zu: %llu pages, CPU allows %llu", i,
				   (unsigned long long)r.pages,
				   (unsigned long long)limit);
			FUZZ_CHECK(canonical(r.va) &&
					   canonical(r.va +
						     (r.pages - 1) * step) &&
					   (r.va >> 47) ==
						   ((r.va +
						     (r.pages - 1) * step) >>
						    47),
				   "insn %zu: leaves its canonical half", i);
			next += r.pages * step;
			covered += r.pages;
		}
		/* The software model must read each back as it was meant. */
		err = invlpgb_decode(&out[i], caps, &back);
		FUZZ_CHECK(err == INVLPGB_OK, "insn %zu: decode: %s", i,
			   invlpgb_strerror(err));
		FUZZ_CHECK(back.all_va == req->all_va &&
				   back.pcid_valid == req->pcid_valid &&
				   back.all_asids == req->all_asids &&
				   back.pcid == r.pcid && back.asid == r.asid &&
				   back.include_global == r.global &&
				   back.final_only == r.final_only &&
				   back.include_nested == r.nested,
			   "insn %zu: decode differs", i);
		if (!req->all_va)
			FUZZ_CHECK(back.va == r.va && back.pages == r.pages &&
					   step_of(back.stride) == step,
				   "insn %zu: decode: va/pages/stride", i);
	}
	if (!req->all_va)
		FUZZ_CHECK(covered == req->pages,
			   "%llu pages invalidated for %u asked",
			   (unsigned long long)covered, req->pages);
}

/* Raw registers: what the model accepts must be what the encoder makes. */
static void decode_only(struct fuzz_in *in, const struct invlpgb_caps *caps)
{
	struct invlpgb_regs regs, again;
	struct invlpgb_req req;
	struct ref r;
	int err;

	regs.rax = fuzz_u64(in);
	regs.ecx = fuzz_u32(in);
	regs.edx = fuzz_u32(in);
	r = ref_decode(regs.rax, regs.ecx, regs.edx);
	err = invlpgb_decode(&regs, caps, &req);
	if (err != INVLPGB_OK)
		return;
	FUZZ_CHECK(!r.reserved, "decode accepted reserved bits");
	FUZZ_CHECK(r.va_valid || (!r.va && !regs.ecx),
		   "decode accepted an address without VA-valid");
	if (r.va_valid)
		FUZZ_CHECK(r.pages <= caps->max_pages,
			   "decode accepted %llu pages, CPU allows %u",
			   (unsigned long long)r.pages, caps->max_pages);
	/* The model carries out what the reference decoder reads. */
	FUZZ_CHECK(req.all_va == !r.va_valid &&
			   req.pcid_valid == r.pcid_valid &&
			   req.all_asids == !r.asid_valid &&
			   req.include_global == r.global &&
			   req.final_only == r.final_only &&
			   req.include_nested == r.nested &&
			   req.pcid == r.pcid && req.asid == r.asid,
		   "decode: flags or IDs differ from the registers");
	if (r.va_valid)
		FUZZ_CHECK(req.va == r.va && req.pages == r.pages &&
				   step_of(req.stride) == r.step,
			   "decode: va/pages/stride differ from the registers");
	/*
	 * The same request encodes back to the same registers, but for one
	 * refusal: a 2 MiB stride from a VA inside a 2 MiB page. The CPU
	 * runs that (the model must, for invlpgb=...,bug=stride), the
	 * encoder will not write it (it names other pages than the 2 MiB
	 * ones the caller would mean).
	 */
	err = invlpgb_encode(&req, caps, &again);
	if (err == INVLPGB_EUNALIGNED && r.step == SZ_2M && r.va % SZ_2M)
		return;
	FUZZ_CHECK(err == INVLPGB_OK, "decoded request refused: %s",
		   invlpgb_strerror(err));
	FUZZ_CHECK(again.rax == regs.rax && again.ecx == regs.ecx &&
			   again.edx == regs.edx,
		   "%llx %x %x decodes, encodes to %llx %x %x",
		   (unsigned long long)regs.rax, regs.ecx, regs.edx,
		   (unsigned long long)again.rax, again.ecx, again.edx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint8_t flags = fuzz_u8(&in), shape = fuzz_u8(&in);
	struct invlpgb_caps caps = {
		.pcide = flags & I_PCIDE,
		.svm = flags & I_SVM,
	};
	struct invlpgb_req req = {
		.all_va = flags & I_ALL_VA,
		.pcid_valid = flags & I_PCID_VALID,
		.all_asids = flags & I_ALL_ASIDS,
		.include_global = flags & I_GLOBAL,
		.final_only = flags & I_FINAL,
		.include_nested = flags & I_NESTED,
		.stride = (enum invlpgb_size)(shape & 3),
		.mapping = (enum invlpgb_size)((shape >> 2) & 3),
	};
	struct invlpgb_regs one, *out;
	size_t cap, n = 12345;
	int err, err1;

	/* What kernel/cpu.c does with CPUID, or anything at all. */
	caps.max_pages =
		shape & S_RAW_CAPS
			? fuzz_u32(&in)
			: (fuzz_u8(&in) & 1 ? invlpgb_max_pages(fuzz_u16(&in))
					    : 0);
	if (shape & S_DECODE) {
		decode_only(&in, &caps);
		return 0;
	}
	req.va = fuzz_u64(&in);
	if (shape & S_TIDY_VA) {
		req.va = (uint64_t)((int64_t)(req.va << 16) >> 16);
		req.va &= ~(step_of(req.stride) - 1);
	}
	req.pages = shape & S_RAW_PAGE ? fuzz_u32(&in) : fuzz_u16(&in);
	req.pcid = fuzz_u16(&in);
	req.asid = fuzz_u32(&in);
	cap = fuzz_u16(&in);

	out = malloc((cap ? cap : 1) * sizeof(*out));
	FUZZ_CHECK(out, "out of memory");
	err = invlpgb_encode_range(&req, &caps, out, cap, &n);
	FUZZ_CHECK(err <= 0 && err >= INVLPGB_EIGNORED, "error %d", err);
	fuzz_check_printable(invlpgb_strerror(err), 128);
	if (err == INVLPGB_OK) {
		FUZZ_CHECK(n <= cap, "%zu instructions in %zu slots", n, cap);
		check_accepted(&req, &caps, out, n);
	} else {
		FUZZ_CHECK(n == 0, "error %d, yet %zu instructions", err, n);
	}

	/* One instruction: the same answer as a range of one chunk. */
	err1 = invlpgb_encode(&req, &caps, &one);
	if (err1 == INVLPGB_OK) {
		check_accepted(&req, &caps, &one, 1);
		if (cap >= 1)
			FUZZ_CHECK(err == INVLPGB_OK && n == 1 &&
					   one.rax == out[0].rax &&
					   one.ecx == out[0].ecx &&
					   one.edx == out[0].edx,
				   "encode and encode_range differ");
	} else if (err == INVLPGB_OK && n == 1) {
		FUZZ_CHECK(false,
			   "encode refused (%s) one chunk encode_range "
			   "took",
			   invlpgb_strerror(err1));
	}
	free(out);
	return 0;
}
