/* SPDX-License-Identifier: MIT */
/*
 * A simulated physical memory for the multiboot tests: SIM_SIZE bytes at
 * SIM_BASE, filled with garbage, with an optional unreadable hole, and
 * builders that lay out multiboot 1 and 2 structures in it byte by byte.
 *
 * sim_read() hands out a fresh heap copy of exactly the bytes asked for and
 * frees it on the next call, so ASan catches a parser that reads past what
 * it asked for or keeps using a pointer after its next read.
 */
#ifndef TESTS_UNIT_MBSIM_H
#define TESTS_UNIT_MBSIM_H

#include <stdlib.h>
#include "unit.h"

#define SIM_BASE 0x100000ull
#define SIM_SIZE 0x20000u
#define SIM_FILL 0xee

struct sim {
	uint8_t mem[SIM_SIZE];
	uint64_t hole_lo, hole_hi; /* [lo, hi) cannot be read */
	void *last;
	unsigned int reads;
};

static struct sim sim;

static const void *sim_read(void *ctx, uint64_t addr, size_t len)
{
	struct sim *s = ctx;
	uint64_t off = addr - SIM_BASE;

	free(s->last);
	s->last = NULL;
	s->reads++;
	if (!len || addr < SIM_BASE || off > SIM_SIZE || len > SIM_SIZE - off)
		return NULL;
	if (addr < s->hole_hi && addr + len > s->hole_lo)
		return NULL;
	s->last = malloc(len);
	assert_non_null(s->last);
	memcpy(s->last, s->mem + off, len);
	return s->last;
}

static inline int sim_setup(void **state)
{
	(void)state;
	memset(sim.mem, SIM_FILL, sizeof(sim.mem));
	sim.hole_lo = sim.hole_hi = 0;
	sim.last = NULL;
	sim.reads = 0;
	return 0;
}

static inline int sim_teardown(void **state)
{
	(void)state;
	free(sim.last);
	sim.last = NULL;
	return 0;
}

static inline uint8_t *sim_at(uint64_t addr, size_t len)
{
	assert_true(addr >= SIM_BASE && addr - SIM_BASE + len <= SIM_SIZE);
	return sim.mem + (addr - SIM_BASE);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline void w32(uint64_t addr, uint32_t v)
{
	put32(sim_at(addr, 4), v);
}

static inline void wbytes(uint64_t addr, const void *p, size_t n)
{
	memcpy(sim_at(addr, n), p, n);
}

/* Writes s with its NUL; returns the address just past it. */
static inline uint64_t wstr(uint64_t addr, const char *s)
{
	wbytes(addr, s, strlen(s) + 1);
	return addr + strlen(s) + 1;
}

/* Multiboot 2: a header, then tags each starting 8-byte aligned. */
struct mb2b {
	uint64_t start;
	uint32_t off;
};

static inline void mb2_begin(struct mb2b *b, uint64_t addr)
{
	b->start = addr;
	b->off = 8;
	w32(addr, 0xdeadbeef); /* total_size, set by mb2_end() */
	w32(addr + 4, 0);
}

/* A tag whose size field says `size` though plen payload bytes are written. */
static inline uint64_t mb2_raw(struct mb2b *b, uint32_t type, uint32_t size,
			       const void *payload, uint32_t plen)
{
	uint64_t a = b->start + b->off;

	w32(a, type);
	w32(a + 4, size);
	if (plen)
		wbytes(a + 8, payload, plen);
	b->off += (8 + plen + 7) & ~7u;
	return a;
}

static inline uint64_t mb2_tag(struct mb2b *b, uint32_t type,
			       const void *payload, uint32_t plen)
{
	return mb2_raw(b, type, 8 + plen, payload, plen);
}

static inline void mb2_str(struct mb2b *b, uint32_t type, const char *s)
{
	mb2_tag(b, type, s, (uint32_t)strlen(s) + 1);
}

static inline void mb2_u32s(struct mb2b *b, uint32_t type, uint32_t x,
			    uint32_t y)
{
	uint8_t p[8];

	put32(p, x);
	put32(p + 4, y);
	mb2_tag(b, type, p, sizeof(p));
}

struct region {
	uint64_t base, len;
	uint32_t type;
};

/* A type 6 tag with n entries of esize bytes (padding bytes: garbage). */
static inline void mb2_mmap(struct mb2b *b, uint32_t esize,
			    const struct region *r, size_t n)
{
	size_t plen = 8 + n * esize;
	uint8_t *p = malloc(plen);

	assert_non_null(p);
	memset(p, SIM_FILL, plen);
	put32(p, esize);
	put32(p + 4, 0);
	for (size_t i = 0; i < n && esize >= 24; i++) {
		uint8_t *e = p + 8 + i * esize;

		put64(e, r[i].base);
		put64(e + 8, r[i].len);
		put32(e + 16, r[i].type);
		put32(e + 20, 0);
	}
	mb2_tag(b, 6, p, (uint32_t)plen);
	free(p);
}

/* Adds the end tag and sets total_size; returns it. */
static inline uint32_t mb2_end(struct mb2b *b)
{
	mb2_tag(b, 0, NULL, 0);
	w32(b->start, b->off);
	return b->off;
}

#endif
