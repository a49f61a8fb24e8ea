// SPDX-License-Identifier: MIT
/*
 * Host tests of the INVLPGB operand encoder and decoder (mm/invlpgb.c;
 * the decoder is the software model's reading of the registers, with the
 * hardware's refusals) against the
 * register layout in docs/mechanics.md: rAX = VA | bit0 VA valid | bit1 PCID valid
 * | bit2 ASID valid | bit3 global | bit4 final only | bit5 nested; ECX[15:0]
 * = additional pages, ECX[31] = 2 MiB stride; EDX[27:16] = PCID, EDX[15:0]
 * = ASID. The expected values are written as literals, not with the
 * header's macros, so that a wrong macro fails too.
 */
#include "unit.h"
#include "mm/invlpgb.h"

static const struct invlpgb_caps zen4 = {.max_pages = 8, .pcide = true};

static struct invlpgb_regs enc_ok(const struct invlpgb_req *req,
				  const struct invlpgb_caps *caps)
{
	struct invlpgb_regs r = {0x5a5a, 0x5a5a, 0x5a5a};

	assert_int_equal(invlpgb_encode(req, caps, &r), INVLPGB_OK);
	return r;
}

static void enc_err(const struct invlpgb_req *req,
		    const struct invlpgb_caps *caps, int err)
{
	struct invlpgb_regs r = {1, 2, 3};

	assert_int_equal(invlpgb_encode(req, caps, &r), err);
	/* Nothing written on refusal. */
	assert_int_equal(r.rax, 1);
	assert_int_equal(r.ecx, 2);
	assert_int_equal(r.edx, 3);
}

/* The zeroed request: one 4 KiB page, all PCIDs, host ASID 0 only. */
static void test_default_request(void **state)
{
	struct invlpgb_req req = {.va = 0x7f0000001000, .pages = 1};
	struct invlpgb_regs r;

	(void)state;
	r = enc_ok(&req, &zen4);
	assert_int_equal(r.rax, 0x7f0000001000 | 0x1 | 0x4);
	assert_int_equal(r.ecx, 0);
	assert_int_equal(r.edx, 0);
}

static void test_layout(void **state)
{
	struct invlpgb_req req = {
		.va = 0xffffffff80200000,
		.pages = 8,
		.stride = INVLPGB_2M,
		.mapping = INVLPGB_2M,
		.pcid_valid = true,
		.pcid = 0xabc,
	};
	struct invlpgb_caps svm = zen4;
	struct invlpgb_regs r;

	(void)state;
	r = enc_ok(&req, &zen4);
	assert_int_equal(r.rax, 0xffffffff80200000 | 0x1 | 0x2 | 0x4);
	assert_int_equal(r.ecx, 0x80000007);
	assert_int_equal(r.edx, 0x0abc0000);
	req.include_global = true;
	assert_int_equal(enc_ok(&req, &zen4).rax & 0x3f, 0x0f);
	req.include_global = false;
	req.final_only = true;
	assert_int_equal(enc_ok(&req, &zen4).rax & 0x3f, 0x17);
	req.final_only = false;
	req.include_nested = true;
	assert_int_equal(enc_ok(&req, &zen4).rax & 0x3f, 0x27);
	/* An ASID other than the host's needs SVM. */
	svm.svm = true;
	req.asid = 0x1234;
	r = enc_ok(&req, &svm);
	assert_int_equal(r.edx, 0x0abc1234);
	assert_int_equal(r.rax & 0x4, 0x4);
	/* Every ASID: bit 2 clear, EDX[15:0] 0. */
	req.all_asids = true;
	r = enc_ok(&req, &svm);
	assert_int_equal(r.rax & 0x3f, 0x23);
	assert_int_equal(r.edx, 0x0abc0000);
	/* One 2 MiB page: count 0, stride bit kept. */
	req.pages = 1;
	assert_int_equal(enc_ok(&req, &svm).ecx, 0x80000000);
}

/* VA-valid clear: every address of the PCID; the count means nothing. */
static void test_all_va(void **state)
{
	struct invlpgb_req req = {.all_va = true,
				  .va = 0x1234567,
				  .pages = 0,
				  .stride = INVLPGB_2M,
				  .pcid_valid = true,
				  .pcid = 5};
	struct invlpgb_regs r;

	(void)state;
	r = enc_ok(&req, &zen4);
	assert_int_equal(r.rax, 0x2 | 0x4);
	assert_int_equal(r.ecx, 0);
	assert_int_equal(r.edx, 5 << 16);
	req.include_global = true;
	req.pcid_valid = false;
	assert_int_equal(enc_ok(&req, &zen4).rax, 0x4 | 0x8);
}

static void test_refusals(void **state)
{
	const struct invlpgb_req ok = {.va = 0x200000, .pages = 8};
	struct invlpgb_req req;
	struct invlpgb_caps caps = zen4;

	(void)state;
	enc_ok(&ok, &caps);
	caps.max_pages = 0;
	enc_err(&ok, &caps, INVLPGB_ENOTSUP);
	caps = zen4;
	req = ok, req.pages = 0;
	enc_err(&req, &caps, INVLPGB_EZERO);
	req = ok, req.pages = 9;
	enc_err(&req, &caps, INVLPGB_ETOOMANY);
	/* The FreeBSD bug: 2 MiB steps over 4 KiB mappings. */
	req = ok, req.stride = INVLPGB_2M;
	enc_err(&req, &caps, INVLPGB_ESTRIDE);
	req.mapping = INVLPGB_2M;
	enc_ok(&req, &caps);
	req.mapping = INVLPGB_1G;
	enc_ok(&req, &caps);
	/* 4 KiB steps over 2 MiB mappings are merely wasteful. */
	req = ok, req.mapping = INVLPGB_2M;
	enc_ok(&req, &caps);
	req = ok, req.va = 0x200800;
	enc_err(&req, &caps, INVLPGB_EUNALIGNED);
	req = ok, req.va = 0x201000, req.stride = INVLPGB_2M;
	req.mapping = INVLPGB_2M;
	enc_err(&req, &caps, INVLPGB_EUNALIGNED);
	req = ok, req.va = 0x0000800000000000;
	enc_err(&req, &caps, INVLPGB_ENONCANON);
	/* The last page leaves the lower half. */
	req = ok, req.va = 0x00007ffffffff000, req.pages = 2;
	enc_err(&req, &caps, INVLPGB_ENONCANON);
	req.pages = 1;
	enc_ok(&req, &caps);
	req = ok, req.va = 0xfffffffffffff000, req.pages = 2;
	enc_err(&req, &caps, INVLPGB_ENONCANON);
	req = ok, req.pcid_valid = true, req.pcid = 4096;
	enc_err(&req, &caps, INVLPGB_EPCID);
	req.pcid = 4095;
	enc_ok(&req, &caps);
	caps.pcide = false;
	enc_err(&req, &caps, INVLPGB_EPCIDE);
	req.pcid = 0;
	enc_err(&req, &caps, INVLPGB_EPCIDE);
	req.pcid_valid = false;
	enc_ok(&req, &caps);
	req = ok, req.asid = 1;
	enc_err(&req, &caps, INVLPGB_ESVM);
	req.all_asids = true; /* the ASID is then not used */
	enc_ok(&req, &caps);
	caps.svm = true;
	req = ok, req.asid = 0x10000;
	enc_err(&req, &caps, INVLPGB_EASID);
	req.asid = 0xffff;
	assert_int_equal(enc_ok(&req, &caps).edx, 0xffff);
	req = ok, req.stride = INVLPGB_1G;
	enc_err(&req, &caps, INVLPGB_ESIZE);
	req = ok, req.mapping = (enum invlpgb_size)7;
	enc_err(&req, &caps, INVLPGB_ESIZE);
}

static void test_max_pages(void **state)
{
	struct invlpgb_caps big = {.max_pages = invlpgb_max_pages(0xffff)};
	struct invlpgb_req req = {.va = 0x10000000, .pages = 65536};

	(void)state;
	assert_int_equal(invlpgb_max_pages(7), 8);
	assert_int_equal(invlpgb_max_pages(0xabcd0007), 8);
	assert_int_equal(invlpgb_max_pages(0), 1);
	assert_int_equal(big.max_pages, 65536);
	assert_int_equal(enc_ok(&req, &big).ecx, 0xffff);
	req.pages = 65537;
	enc_err(&req, &big, INVLPGB_ETOOMANY);
}

/*
 * ECX[15:0] + 1 can say at most 65536 pages, whatever caps.max_pages
 * claims: with a larger limit, 65537 pages were encoded as a count of 0,
 * one page invalidated for 65537 asked (found by fuzz_invlpgb; CPUID
 * cannot report more than 65536, but nothing else stopped it).
 */
static void test_max_pages_beyond_ecx(void **state)
{
	struct invlpgb_caps huge = {.max_pages = 0x20000};
	struct invlpgb_req req = {.va = 0x10000000, .pages = 65537};
	struct invlpgb_regs out[3];
	size_t n = 99;

	(void)state;
	enc_err(&req, &huge, INVLPGB_ETOOMANY);
	req.pages = 65536;
	assert_int_equal(enc_ok(&req, &huge).ecx, 0xffff);
	/* A range: chunks of 65536, the most one instruction can name. */
	req.pages = 0x2c001;
	assert_int_equal(invlpgb_encode_range(&req, &huge, out, 2, &n),
			 INVLPGB_ENOSPACE);
	assert_int_equal(invlpgb_encode_range(&req, &huge, out, 3, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].rax, 0x10000000 | 5);
	assert_int_equal(out[0].ecx, 0xffff);
	assert_int_equal(out[1].rax, (0x10000000 + 0x10000ull * 4096) | 5);
	assert_int_equal(out[1].ecx, 0xffff);
	assert_int_equal(out[2].rax, (0x10000000 + 0x20000ull * 4096) | 5);
	assert_int_equal(out[2].ecx, 0xc000);
}

static void test_chunks(void **state)
{
	struct invlpgb_req req = {.va = 0x7f0000000000, .pages = 512};
	struct invlpgb_regs out[70];
	size_t n = 99;

	(void)state;
	assert_int_equal(invlpgb_chunks(512, 8), 64);
	assert_int_equal(invlpgb_chunks(513, 8), 65);
	assert_int_equal(invlpgb_chunks(1, 8), 1);
	assert_int_equal(invlpgb_chunks(0, 8), 0);
	assert_int_equal(invlpgb_chunks(5, 0), 0);
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 70, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 64);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(out[i].rax,
				 (0x7f0000000000 + i * 8 * 4096) | 5);
		assert_int_equal(out[i].ecx, 7);
		assert_int_equal(out[i].edx, 0);
	}
	req.pages = 513;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 70, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 65);
	assert_int_equal(out[64].rax, (0x7f0000000000 + 512 * 4096) | 5);
	assert_int_equal(out[64].ecx, 0);
	req.pages = 3;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 1, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].ecx, 2);
}

static void test_chunks_2m_and_errors(void **state)
{
	struct invlpgb_req req = {.va = 0x40000000,
				  .pages = 20,
				  .stride = INVLPGB_2M,
				  .mapping = INVLPGB_2M,
				  .include_global = true};
	struct invlpgb_regs out[4];
	size_t n = 99;

	(void)state;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 3, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].rax, 0x40000000 | 0xd);
	assert_int_equal(out[1].rax, (0x40000000 + 8 * 0x200000) | 0xd);
	assert_int_equal(out[2].rax, (0x40000000 + 16 * 0x200000) | 0xd);
	assert_int_equal(out[0].ecx, 0x80000007);
	assert_int_equal(out[2].ecx, 0x80000003);
	/* Errors leave n at 0. */
	n = 99;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 2, &n),
			 INVLPGB_ENOSPACE);
	assert_int_equal(n, 0);
	n = 99;
	req.mapping = INVLPGB_4K;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 4, &n),
			 INVLPGB_ESTRIDE);
	assert_int_equal(n, 0);
	/* Only the end of the range leaves the canonical half. */
	req = (struct invlpgb_req){.va = 0x00007ffffff00000, .pages = 300};
	n = 99;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 4, &n),
			 INVLPGB_ENONCANON);
	assert_int_equal(n, 0);
	req.pages = 0;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 4, &n),
			 INVLPGB_EZERO);
	req.all_va = true;
	assert_int_equal(invlpgb_encode_range(&req, &zen4, out, 4, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].rax, 0x4);
	assert_int_equal(invlpgb_encode_range(&req, &(struct invlpgb_caps){0},
					      out, 4, &n),
			 INVLPGB_ENOTSUP);
}

static void test_strerror(void **state)
{
	(void)state;
	for (int e = 0; e >= INVLPGB_EIGNORED; e--) {
		assert_printable(invlpgb_strerror(e), 80);
		for (int f = 0; f > e; f--)
			assert_string_not_equal(invlpgb_strerror(e),
						invlpgb_strerror(f));
	}
	assert_string_equal(invlpgb_strerror(INVLPGB_EIGNORED - 1),
			    "unknown error");
	assert_string_equal(invlpgb_strerror(1), "unknown error");
	assert_string_equal(invlpgb_strerror(-2147483647 - 1), "unknown error");
}

/* --- the decoder (the software model's view of the registers) ------- */

static struct invlpgb_req dec_ok(uint64_t rax, uint32_t ecx, uint32_t edx,
				 const struct invlpgb_caps *caps)
{
	struct invlpgb_regs in = {rax, ecx, edx};
	struct invlpgb_req r;

	memset(&r, 0x5a, sizeof(r));
	assert_int_equal(invlpgb_decode(&in, caps, &r), INVLPGB_OK);
	return r;
}

static void dec_err(uint64_t rax, uint32_t ecx, uint32_t edx,
		    const struct invlpgb_caps *caps, int err)
{
	struct invlpgb_regs in = {rax, ecx, edx};
	struct invlpgb_req r = {.va = 77};

	assert_int_equal(invlpgb_decode(&in, caps, &r), err);
	assert_int_equal(r.va, 77); /* nothing written on refusal */
}

/* Every field, written as literals against the APM's layout. */
static void test_decode_fields(void **state)
{
	struct invlpgb_caps svm = zen4;
	struct invlpgb_req r;

	(void)state;
	r = dec_ok(0x7f0000003000 | 0x5, 7, 0, &zen4);
	assert_false(r.all_va);
	assert_int_equal(r.va, 0x7f0000003000);
	assert_int_equal(r.pages, 8);
	assert_int_equal(r.stride, INVLPGB_4K);
	assert_false(r.pcid_valid);
	assert_false(r.all_asids);
	assert_int_equal(r.asid, 0);
	assert_false(r.include_global || r.final_only || r.include_nested);
	r = dec_ok(0xffffffff80200000 | 0x3f, 0x80000003, 0x0abc0000, &zen4);
	assert_int_equal(r.va, 0xffffffff80200000);
	assert_int_equal(r.pages, 4);
	assert_int_equal(r.stride, INVLPGB_2M);
	assert_true(r.pcid_valid);
	assert_int_equal(r.pcid, 0xabc);
	assert_true(r.include_global && r.final_only && r.include_nested);
	/* ASID-valid clear: every ASID, the host's and the guests'. */
	r = dec_ok(0x1000 | 0x1, 0, 0, &zen4);
	assert_true(r.all_asids);
	/* VA-valid clear: every address; nothing else may be given. */
	r = dec_ok(0x4 | 0x8, 0, 0, &zen4);
	assert_true(r.all_va);
	assert_true(r.include_global);
	svm.svm = true;
	r = dec_ok(0x1000 | 0x5, 0, 0x1234, &svm);
	assert_int_equal(r.asid, 0x1234);
}

/*
 * The full flush of invlpgb-linux beyond the ceiling (Linux's
 * invlpgb_flush_single_pcid_nosync() with PCIDs off): VA-valid clear,
 * ASID-valid with ASID 0, no include-global. The model must read it as
 * every non-global entry of the host, and round-trip it.
 */
static void test_decode_full_nonglobal(void **state)
{
	struct invlpgb_req in = {.all_va = true}, r;
	struct invlpgb_caps nopcid = {.max_pages = 8};
	struct invlpgb_regs e;

	(void)state;
	r = dec_ok(0x4, 0, 0, &nopcid);
	assert_true(r.all_va);
	assert_false(r.include_global || r.pcid_valid || r.all_asids);
	assert_int_equal(r.asid, 0);
	e = enc_ok(&in, &nopcid);
	assert_int_equal(e.rax, 0x4);
	assert_int_equal(e.ecx, 0);
	assert_int_equal(e.edx, 0);
	assert_int_equal(invlpgb_decode(&e, &nopcid, &r), INVLPGB_OK);
	assert_memory_equal(&in, &r, sizeof(in));
	/* A count or a stride with it is ignored by the CPU: refused. */
	dec_err(0x4, 1, 0, &nopcid, INVLPGB_EIGNORED);
	dec_err(0x4, 0x80000000, 0, &nopcid, INVLPGB_EIGNORED);
}

/* What the hardware rejects, or does otherwise than the caller wrote. */
static void test_decode_refusals(void **state)
{
	struct invlpgb_caps nopcid = {.max_pages = 8};

	(void)state;
	dec_err(0x1005, 0, 0, &(struct invlpgb_caps){0}, INVLPGB_ENOTSUP);
	/* The CPUID count limit: 8 pages is the most; 9 is refused. */
	dec_ok(0x1005, 7, 0, &zen4);
	dec_err(0x1005, 8, 0, &zen4, INVLPGB_ETOOMANY);
	dec_err(0x1005, 0xffff, 0, &zen4, INVLPGB_ETOOMANY);
	/* Reserved: rAX[11:6] (an unaligned VA), ECX[30:16]. */
	dec_err(0x1045, 0, 0, &zen4, INVLPGB_ERESERVED);
	dec_err(0x1805, 0, 0, &zen4, INVLPGB_ERESERVED);
	dec_err(0x1005, 0x00010000, 0, &zen4, INVLPGB_ERESERVED);
	dec_err(0x1005, 0x40000000, 0, &zen4, INVLPGB_ERESERVED);
	/* A PCID: not above 4095, and only with CR4.PCIDE. */
	dec_err(0x1007, 0, 0x10000000, &zen4, INVLPGB_EPCID);
	dec_err(0x1007, 0, 0x00010000, &nopcid, INVLPGB_EPCIDE);
	dec_err(0x1007, 0, 0, &nopcid, INVLPGB_EPCIDE);
	/* A non-zero ASID on bare metal (SVM off). */
	dec_err(0x1005, 0, 1, &zen4, INVLPGB_ESVM);
	/* Fields without their valid bit. */
	dec_err(0x1005, 0, 0x00010000, &zen4, INVLPGB_EIGNORED);
	dec_err(0x1001, 0, 5, &zen4, INVLPGB_EIGNORED);
	dec_err(0x4, 3, 0, &zen4, INVLPGB_EIGNORED);
	dec_err(0x4, 0x80000000, 0, &zen4, INVLPGB_EIGNORED);
	dec_err(0x1004, 0, 0, &zen4, INVLPGB_EIGNORED);
	/* The last page (count x stride on) leaves the canonical half. */
	dec_ok(0x00007ffffff00000 | 5, 7, 0, &zen4);
	dec_ok(0x00007ffffffff000 | 5, 0, 0, &zen4);
	dec_err(0x00007ffffffff000 | 5, 1, 0, &zen4, INVLPGB_ENONCANON);
	dec_ok(0x00007fffffe00000 | 5, 0x80000000, 0, &zen4);
	dec_err(0x00007fffffe00000 | 5, 0x80000001, 0, &zen4,
		INVLPGB_ENONCANON);
	dec_err(0x0000800000000000 | 5, 0, 0, &zen4, INVLPGB_ENONCANON);
	dec_err(0xfffffffffffff000 | 5, 1, 0, &zen4, INVLPGB_ENONCANON);
}

/* Whatever the encoder emits, the decoder reads back as it was asked. */
static void test_decode_round_trip(void **state)
{
	static const uint64_t vas[] = {0x200000, 0x7f0000200000,
				       0xffff888000000000};
	struct invlpgb_caps caps = {
		.max_pages = 16, .pcide = true, .svm = true};
	struct invlpgb_regs r;
	struct invlpgb_req in, out;

	(void)state;
	for (unsigned v = 0; v < ARRAY_SIZE(vas); v++) {
		for (unsigned bits = 0; bits < 64; bits++) {
			in = (struct invlpgb_req){
				.va = vas[v],
				.pages = 1 + bits % 16,
				.stride = (bits & 1) ? INVLPGB_2M : INVLPGB_4K,
				.mapping = (bits & 1) ? INVLPGB_2M : INVLPGB_4K,
				.pcid_valid = bits & 2,
				.pcid = (bits & 2) ? 0x123 : 0,
				.all_asids = bits & 4,
				.asid = (bits & 4) ? 0 : 7,
				.include_global = bits & 8,
				.final_only = bits & 16,
				.include_nested = bits & 32,
			};
			assert_int_equal(invlpgb_encode(&in, &caps, &r),
					 INVLPGB_OK);
			assert_int_equal(invlpgb_decode(&r, &caps, &out),
					 INVLPGB_OK);
			assert_memory_equal(&in, &out, sizeof(in));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_request),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_all_va),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_max_pages),
		cmocka_unit_test(test_max_pages_beyond_ecx),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_chunks_2m_and_errors),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_decode_full_nonglobal),
		cmocka_unit_test(test_decode_refusals),
		cmocka_unit_test(test_decode_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
