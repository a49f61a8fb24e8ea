/* SPDX-License-Identifier: MIT */
/*
 * A fixed-size bitmap of CPUs, indexed by the dense CPU number (0..N-1 in
 * bring-up order), not by APIC ID. Portable: plain C plus GCC's __atomic
 * builtins, so the host unit tests use it as the kernel does.
 *
 * MAX_CPUS is 1024: the largest machines the harness targets are
 * two-socket AMD EPYC 9965 servers (2 x 192 cores x 2 threads = 768
 * logical CPUs); QEMU 10's 300-CPU q35 and 384-CPU servers fit with room.
 * A mask is 128 bytes, small enough to copy and to keep per mailbox.
 *
 * A CPU number at or above MAX_CPUS is never a member: set/clear ignore it
 * and test returns false, so a bad index cannot write outside the mask.
 *
 * The plain operations are not atomic; the _atomic ones are (LOCK-prefixed
 * read-modify-write with sequentially consistent ordering, a full barrier
 * on x86) for masks that several CPUs update at once, such as the set of
 * CPUs that still owe an acknowledgement.
 */
#ifndef SMP_CPUMASK_H
#define SMP_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_CPUS	  1024u
#define CPUMASK_WORD_BITS 64u
#define CPUMASK_WORDS	  (MAX_CPUS / CPUMASK_WORD_BITS)

struct cpumask {
	uint64_t bits[CPUMASK_WORDS];
};

static inline uint64_t cpumask_bit(unsigned int cpu)
{
	return 1ull << (cpu % CPUMASK_WORD_BITS);
}

static inline uint64_t *cpumask_word(struct cpumask *m, unsigned int cpu)
{
	return &m->bits[cpu / CPUMASK_WORD_BITS];
}

static inline void cpumask_zero(struct cpumask *m)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}

/* Sets CPUs 0..n-1 (all of them when n >= MAX_CPUS), clears the rest. */
static inline void cpumask_fill(struct cpumask *m, unsigned int n)
{
	if (n > MAX_CPUS)
		n = MAX_CPUS;
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++) {
		unsigned int lo = i * CPUMASK_WORD_BITS;

		if (n >= lo + CPUMASK_WORD_BITS)
			m->bits[i] = ~0ull;
		else if (n > lo)
			m->bits[i] = (1ull << (n - lo)) - 1;
		else
			m->bits[i] = 0;
	}
}

static inline void cpumask_set(unsigned int cpu, struct cpumask *m)
{
	if (cpu < MAX_CPUS)
		*cpumask_word(m, cpu) |= cpumask_bit(cpu);
}

static inline void cpumask_clear(unsigned int cpu, struct cpumask *m)
{
	if (cpu < MAX_CPUS)
		*cpumask_word(m, cpu) &= ~cpumask_bit(cpu);
}

static inline bool cpumask_test(unsigned int cpu, const struct cpumask *m)
{
	if (cpu >= MAX_CPUS)
		return false;
	return m->bits[cpu / CPUMASK_WORD_BITS] & cpumask_bit(cpu);
}

static inline void cpumask_set_atomic(unsigned int cpu, struct cpumask *m)
{
	if (cpu < MAX_CPUS)
		__atomic_fetch_or(cpumask_word(m, cpu), cpumask_bit(cpu),
				  __ATOMIC_SEQ_CST);
}

static inline void cpumask_clear_atomic(unsigned int cpu, struct cpumask *m)
{
	if (cpu < MAX_CPUS)
		__atomic_fetch_and(cpumask_word(m, cpu), ~cpumask_bit(cpu),
				   __ATOMIC_SEQ_CST);
}

/* Sets the bit; returns whether it was already set. */
static inline bool cpumask_test_and_set_atomic(unsigned int cpu,
					       struct cpumask *m)
{
	if (cpu >= MAX_CPUS)
		return false;
	return __atomic_fetch_or(cpumask_word(m, cpu), cpumask_bit(cpu),
				 __ATOMIC_SEQ_CST) &
	       cpumask_bit(cpu);
}

/* Clears the bit; returns whether it was set. */
static inline bool cpumask_test_and_clear_atomic(unsigned int cpu,
						 struct cpumask *m)
{
	if (cpu >= MAX_CPUS)
		return false;
	return __atomic_fetch_and(cpumask_word(m, cpu), ~cpumask_bit(cpu),
				  __ATOMIC_SEQ_CST) &
	       cpumask_bit(cpu);
}

/* An acquire load of the bit, for polling a mask that others update. */
static inline bool cpumask_test_atomic(unsigned int cpu,
				       const struct cpumask *m)
{
	if (cpu >= MAX_CPUS)
		return false;
	return __atomic_load_n(&m->bits[cpu / CPUMASK_WORD_BITS],
			       __ATOMIC_ACQUIRE) &
	       cpumask_bit(cpu);
}

/*
 * Population count without __builtin_popcountll: with -mgeneral-regs-only
 * and no -mpopcnt GCC turns that into a call to libgcc's __popcountdi2,
 * which the kernel does not link.
 */
static inline unsigned int cpumask_popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((x * 0x0101010101010101ull) >> 56);
}

static inline unsigned int cpumask_count(const struct cpumask *m)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		n += cpumask_popcount64(m->bits[i]);
	return n;
}

/* The first member at or after cpu, or MAX_CPUS if there is none. */
static inline unsigned int cpumask_next_from(unsigned int cpu,
					     const struct cpumask *m)
{
	unsigned int i = cpu / CPUMASK_WORD_BITS;
	uint64_t w;

	if (cpu >= MAX_CPUS)
		return MAX_CPUS;
	/* Bits below cpu in its word are masked off. */
	w = m->bits[i] & (~0ull << (cpu % CPUMASK_WORD_BITS));
	for (;;) {
		if (w) /* ctz is inline BSF/TZCNT on x86-64, no libgcc call */
			return i * CPUMASK_WORD_BITS +
			       (unsigned int)__builtin_ctzll(w);
		if (++i == CPUMASK_WORDS)
			return MAX_CPUS;
		w = m->bits[i];
	}
}

/* The lowest member, or MAX_CPUS if the mask is empty. */
static inline unsigned int cpumask_first(const struct cpumask *m)
{
	return cpumask_next_from(0, m);
}

/* The first member after cpu, or MAX_CPUS if there is none. */
static inline unsigned int cpumask_next(unsigned int cpu,
					const struct cpumask *m)
{
	if (cpu >= MAX_CPUS - 1)
		return MAX_CPUS;
	return cpumask_next_from(cpu + 1, m);
}

/*
 * As cpumask_next_from, for masks whose members are all below limit (the
 * CPU count): the search stops at limit's word instead of going through
 * all CPUMASK_WORDS. On the cross-call paths that matters where every
 * instruction is expensive: under an emulating hypervisor (about a
 * microsecond an instruction) going through 16 words for a 2-CPU mask
 * took most of an IPI round.
 */
static inline unsigned int cpumask_next_below(unsigned int cpu,
					      const struct cpumask *m,
					      unsigned int limit)
{
	unsigned int i, last;
	uint64_t w;

	if (limit > MAX_CPUS)
		limit = MAX_CPUS;
	if (cpu >= limit)
		return MAX_CPUS;
	i = cpu / CPUMASK_WORD_BITS;
	last = (limit - 1) / CPUMASK_WORD_BITS;
	w = m->bits[i] & (~0ull << (cpu % CPUMASK_WORD_BITS));
	for (;;) {
		if (w) {
			unsigned int c = i * CPUMASK_WORD_BITS +
					 (unsigned int)__builtin_ctzll(w);

			return c < limit ? c : MAX_CPUS;
		}
		if (++i > last)
			return MAX_CPUS;
		w = m->bits[i];
	}
}

/* dst = a & b (dst may be a or b). */
static inline void cpumask_and(struct cpumask *dst, const struct cpumask *a,
			       const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] & b->bits[i];
}

/* dst = a | b (dst may be a or b). */
static inline void cpumask_or(struct cpumask *dst, const struct cpumask *a,
			      const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

/* dst = a & ~b: the members of a that are not in b. */
static inline void cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
				  const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] & ~b->bits[i];
}

static inline void cpumask_copy(struct cpumask *dst, const struct cpumask *src)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = src->bits[i];
}

static inline bool cpumask_equal(const struct cpumask *a,
				 const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++) {
		if (a->bits[i] != b->bits[i])
			return false;
	}
	return true;
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++) {
		if (m->bits[i])
			return false;
	}
	return true;
}

/*
 * Iterates cpu (an unsigned int) over the members of mask in increasing
 * order. Clearing the current CPU inside the loop is safe; a CPU added
 * behind the cursor is not visited.
 */
#define for_each_cpu(cpu, mask)                             \
	for ((cpu) = cpumask_first(mask); (cpu) < MAX_CPUS; \
	     (cpu) = cpumask_next((cpu), (mask)))

#endif
