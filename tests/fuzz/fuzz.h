/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets in tests/fuzz/: a byte reader over the
 * fuzzer's input, a simulated physical memory of blobs, and the check
 * macro that turns a broken property into a crash libFuzzer records.
 *
 * The memory hands out a fresh heap copy of exactly the bytes asked for
 * and frees it on the next read, as the unit tests' readers do, so ASan
 * catches a parser that reads past the length it asked for or keeps a
 * pointer past its next read. Low memory (below FUZZ_LOW_MEM) that no
 * blob covers reads as zeros, as the BIOS area and the BDA exist on a PC;
 * above it only ranges wholly inside one blob are readable.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * abort() rather than a return: libFuzzer saves the input that broke the
 * property and stops, exactly as for a sanitizer report.
 */
#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* The fuzzer's input, consumed from the front; zeros once it runs out. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t v = 0;

	if (in->n) {
		v = *in->p++;
		in->n--;
	}
	return v;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

static inline uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint64_t lo = fuzz_u32(in);

	return lo | (uint64_t)fuzz_u32(in) << 32;
}

/* Up to n bytes of the input (fewer at its end); *len says how many. */
static inline const uint8_t *fuzz_bytes(struct fuzz_in *in, size_t n,
					size_t *len)
{
	const uint8_t *p = in->p;

	*len = n < in->n ? n : in->n;
	in->p += *len;
	in->n -= *len;
	return p;
}

static inline void fuzz_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void fuzz_put64(uint8_t *p, uint64_t v)
{
	fuzz_put32(p, (uint32_t)v);
	fuzz_put32(p + 4, (uint32_t)(v >> 32));
}

/* Fails unless s is NUL-terminated within max bytes and printable ASCII. */
static inline void fuzz_check_printable(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	FUZZ_CHECK(n < max, "not terminated within %zu bytes", max);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(s[i] >= 0x20 && s[i] <= 0x7e,
			   "byte %zu of \"%s\" is 0x%02x", i, s,
			   (unsigned char)s[i]);
}

/* --- simulated physical memory ----------------------------------------- */

#define FUZZ_LOW_MEM   0x100000ull
#define FUZZ_MAX_BLOBS 40

struct fuzz_blob {
	uint64_t pa;
	size_t len;
	const uint8_t *data; /* owned by the caller, alive during the parse */
};

struct fuzz_mem {
	struct fuzz_blob b[FUZZ_MAX_BLOBS];
	size_t n;
	bool low_zeros;	  /* unmapped low memory reads as zeros */
	bool refuse_zero; /* address 0 is not readable (the kernel's rule) */
	void *last;
};

static inline void fuzz_mem_add(struct fuzz_mem *m, uint64_t pa,
				const uint8_t *data, size_t len)
{
	if (m->n < FUZZ_MAX_BLOBS && len)
		m->b[m->n++] = (struct fuzz_blob){pa, len, data};
}

/* A phys_reader (kernel/multiboot.h) over a struct fuzz_mem. */
static inline const void *fuzz_mem_read(void *ctx, uint64_t pa, size_t len)
{
	struct fuzz_mem *m = ctx;

	free(m->last);
	m->last = NULL;
	/* The parsers promise never to ask for nothing or to wrap. */
	FUZZ_CHECK(len > 0 && pa + len > pa, "read of %zu bytes at 0x%llx", len,
		   (unsigned long long)pa);
	if (m->refuse_zero && pa == 0)
		return NULL;
	if (m->low_zeros && pa + len <= FUZZ_LOW_MEM) {
		uint8_t *p = calloc(1, len);

		FUZZ_CHECK(p, "out of memory");
		for (size_t i = 0; i < m->n; i++) {
			const struct fuzz_blob *b = &m->b[i];
			uint64_t lo = b->pa > pa ? b->pa : pa;
			uint64_t hi = b->pa + b->len < pa + len ? b->pa + b->len
								: pa + len;

			if (lo < hi)
				memcpy(p + (lo - pa), b->data + (lo - b->pa),
				       hi - lo);
		}
		return m->last = p;
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct fuzz_blob *b = &m->b[i];

		if (pa >= b->pa && pa - b->pa <= b->len &&
		    len <= b->len - (pa - b->pa)) {
			m->last = malloc(len);
			FUZZ_CHECK(m->last, "out of memory");
			memcpy(m->last, b->data + (pa - b->pa), len);
			return m->last;
		}
	}
	return NULL;
}

static inline void fuzz_mem_done(struct fuzz_mem *m)
{
	free(m->last);
	m->last = NULL;
}

#endif
