// SPDX-License-Identifier: MIT
/*
 * The platform clocks the TSC is timed against (tsc_clocks.h): the PIT,
 * the ACPI PM timer and the HPET.
 *
 * A platform clock is read between two TSC reads, and of a few tries the
 * one with the narrowest TSC bracket is kept, its TSC taken as the middle
 * of the bracket: a read that took long (a VM exit, an SMI, the host
 * preempting the vCPU) is not counted. Per window, each clock gives one
 * estimate; the median of the windows is that clock's estimate. The PIT is
 * read the same way (its channel 2 count, latched), not timed by polling
 * its output: a poll that notices the end of the window late, because the
 * host ran something else just then, made the PIT read 3-4% high on a
 * loaded machine. Only the early estimate, before the tables that name
 * the other clocks are read, times the PIT by its output.
 */
#include <stdbool.h>
#include "acpi.h"
#include "tsc.h"
#include "tsc_clocks.h"
#include "tsc_estimate.h"
#include "x86.h"

/*
 * PIT (Intel 8254) channel 2: its gate and output are wired to port 0x61
 * (bit 0 gate, bit 1 speaker enable, bit 5 OUT2), so it can be polled
 * without interrupts. Input clock 1.193182 MHz.
 */
#define PIT_HZ	      1193182ull
#define PIT_CH2_DATA  0x42
#define PIT_COMMAND   0x43
#define PIT_CH2_MODE0 0xb0 /* channel 2, lo/hi byte, mode 0, binary */
#define PIT_CH2_LATCH 0x80 /* channel 2, counter latch command */
/* Its 16-bit count wraps after 54.9 ms: a longer window is not counted. */
#define PIT_WRAP_US	  54000
#define PORT_61		  0x61
#define P61_GATE2	  0x01
#define P61_SPEAKER	  0x02
#define P61_OUT2	  0x20
#define PIT_EARLY_TICKS	  11932 /* 10.0 ms */
#define PIT_EARLY_WINDOWS 2
#define WINDOW_US	  50000
#define WINDOWS		  3
/* Polls of port 0x61 before giving up (a 50 ms window takes ~50k). */
#define PIT_POLL_LIMIT 50000000u

/* ACPI PM timer: 3.579545 MHz (ACPI 6.5, 4.8.3.3). */
#define PMTMR_HZ 3579545ull

/*
 * HPET registers (IA-PC HPET 1.0a, 2.3): capabilities (the upper half is
 * the main counter's period in femtoseconds, at most 10^8 = 100 ns), the
 * general configuration (bit 0 starts the main counter) and the counter.
 * Periods under 0.1 ns (a 10 GHz counter) are as implausible as Linux
 * finds them.
 */
#define HPET_CAP_PERIOD 0x04
#define HPET_CFG	0x10
#define HPET_CFG_ENABLE 1u
#define HPET_COUNTER	0xf0
#define HPET_MAP_LEN	0x100
#define HPET_PERIOD_MAX 100000000u
#define HPET_PERIOD_MIN 100000u
/* A counter that has not moved in 1 ms is not running. */
#define REF_MOVE_US 1000
/* Reads of a clock per sample: the narrowest TSC bracket is kept. */
#define REF_TRIES 5

/* A platform clock read between TSC reads (HPET, PM timer or PIT). */
struct ref_clock {
	enum tsc_src src;
	bool ok;
	uint32_t mask;		 /* counter width */
	uint64_t hz, fs;	 /* rate in Hz, or period in fs (one is 0) */
	uint16_t port;		 /* I/O port, or 0 for mmio */
	volatile uint32_t *reg;	 /* the counter in MMIO */
	uint64_t tsc0;		 /* window start: TSC ... */
	uint32_t val0;		 /* ... and counter */
	uint64_t khz[WINDOWS];	 /* per window, 0 if it failed */
	uint64_t ns[WINDOWS];	 /* per window, what the clock counted */
	volatile uint32_t *hpet; /* HPET registers */
	uint32_t hpet_cfg;	 /* its configuration as found */
	bool pit;		 /* the PIT's channel 2 count */
	uint8_t port61;		 /* port 0x61 as found */
};

/*
 * TSC cycles across one window of `ticks` PIT clocks; 0 if OUT2 was high
 * at once (no PIT answering) or did not rise in `limit` TSC cycles.
 */
static uint64_t pit_window(uint16_t ticks, uint64_t limit, const char **why)
{
	uint8_t saved = inb(PORT_61);
	uint64_t t0, t1;
	uint32_t polls = 0;

	outb(PORT_61, (saved & ~P61_SPEAKER) | P61_GATE2);
	/* Mode 0: OUT2 goes low now and high when the count reaches 0. */
	outb(PIT_COMMAND, PIT_CH2_MODE0);
	outb(PIT_CH2_DATA, ticks & 0xff);
	outb(PIT_CH2_DATA, ticks >> 8);
	t0 = rdtsc_ordered();
	while (!(inb(PORT_61) & P61_OUT2)) {
		/* The TSC only now and then: it may trap (rdtsc_trapped). */
		if (++polls > PIT_POLL_LIMIT ||
		    (!(polls & 1023) && rdtsc() - t0 > limit)) {
			outb(PORT_61, saved);
			*why = "channel 2 did not count down in time";
			return 0;
		}
	}
	t1 = rdtsc_ordered();
	outb(PORT_61, saved);
	if (!polls) {
		*why = "channel 2 output was high at once (no 8254?)";
		return 0;
	}
	return t1 - t0;
}

uint64_t tsc_pit_early_khz(const char **why)
{
	uint64_t d[PIT_EARLY_WINDOWS] = {0};

	/*
	 * The shorter of two 10 ms PIT windows (a host that preempts the
	 * vCPU lengthens one); at most 1 s each if the PIT does not count.
	 */
	for (int i = 0; i < PIT_EARLY_WINDOWS && !*why; i++)
		d[i] = pit_window(PIT_EARLY_TICKS, us_to_cycles(1000000), why);
	return tsc_khz_from(tsc_min_nonzero(d, PIT_EARLY_WINDOWS),
			    tsc_ticks_to_ns_hz(PIT_EARLY_TICKS, PIT_HZ));
}

/*
 * The PIT's channel 2 counts down: latch it (8254 counter latch command),
 * read the low then the high byte, and turn it into ticks counted up.
 */
static uint32_t pit_read(void)
{
	uint32_t lo, hi;

	outb(PIT_COMMAND, PIT_CH2_LATCH);
	lo = inb(PIT_CH2_DATA);
	hi = inb(PIT_CH2_DATA);
	return 0x10000u - (lo | hi << 8);
}

static uint32_t ref_read(const struct ref_clock *c)
{
	if (c->pit)
		return pit_read() & c->mask;
	return (c->reg ? *c->reg : inl(c->port)) & c->mask;
}

/* One (TSC, counter) point: the tightest of REF_TRIES brackets. */
static void ref_sample(const struct ref_clock *c, uint64_t *tsc, uint32_t *val)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < REF_TRIES; i++) {
		uint64_t a = rdtsc_ordered();
		uint32_t v = ref_read(c);
		uint64_t b = rdtsc_ordered();

		if (b - a < best) {
			best = b - a;
			*tsc = a + best / 2;
			*val = v;
		}
	}
}

/* The counter must move within REF_MOVE_US, or it is not running. */
static bool ref_moves(const struct ref_clock *c)
{
	uint32_t v0 = ref_read(c);
	uint64_t t0 = rdtsc(), limit = us_to_cycles(REF_MOVE_US);

	while (ref_read(c) == v0) {
		if (rdtsc() - t0 > limit)
			return false;
		cpu_relax();
	}
	return true;
}

/* The FADT's PM timer: an I/O port (almost always) or MMIO. */
static bool pmtimer_setup(const struct acpi_info *ai,
			  void *(*map_mmio)(uint64_t, size_t),
			  struct ref_clock *c)
{
	const struct acpi_gas *g = &ai->fadt.pm_timer_reg;
	enum tsc_src s = TSC_SRC_PMTIMER;

	c->src = s;
	if (!ai->fadt.present)
		return tsc_set_absent(s, "no FADT");
	if (ai->fadt.hw_reduced)
		return tsc_set_absent(s,
				      "hardware-reduced ACPI has no PM timer");
	if (!ai->fadt.pm_timer)
		return tsc_set_absent(s, "the FADT gives no PM timer");
	if (g->space == ACPI_GAS_IO && g->addr <= 0xfffc) {
		c->port = (uint16_t)g->addr;
	} else if (g->space == ACPI_GAS_MEMORY) {
		c->reg = map_mmio(g->addr, 4);
		if (!c->reg)
			return tsc_set_absent(s, "cannot map it at 0x%llx",
					      (unsigned long long)g->addr);
	} else {
		return tsc_set_absent(s, "at 0x%llx in address space %u",
				      (unsigned long long)g->addr, g->space);
	}
	c->mask = ai->fadt.pm_timer_32bit ? 0xffffffffu : 0xffffffu;
	c->hz = PMTMR_HZ;
	if (!ref_moves(c))
		return tsc_set_absent(s,
				      "the counter at %s 0x%llx does not move",
				      c->reg ? "address" : "port",
				      (unsigned long long)g->addr);
	return c->ok = true;
}

/* The HPET's main counter, started if the firmware left it stopped. */
static bool hpet_setup(const struct acpi_info *ai,
		       void *(*map_mmio)(uint64_t, size_t), struct ref_clock *c)
{
	const struct acpi_gas *g = &ai->hpet.base;
	enum tsc_src s = TSC_SRC_HPET;
	uint32_t period;

	c->src = s;
	if (!ai->hpet.present)
		return tsc_set_absent(s, "no HPET table");
	if (g->space != ACPI_GAS_MEMORY || !g->addr)
		return tsc_set_absent(s,
				      "the HPET table gives no MMIO address");
	c->hpet = map_mmio(g->addr, HPET_MAP_LEN);
	if (!c->hpet)
		return tsc_set_absent(s, "cannot map it at 0x%llx",
				      (unsigned long long)g->addr);
	period = c->hpet[HPET_CAP_PERIOD / 4];
	if (period < HPET_PERIOD_MIN || period > HPET_PERIOD_MAX)
		return tsc_set_absent(
			s, "period of %u fs at 0x%llx: no HPET there", period,
			(unsigned long long)g->addr);
	c->hpet_cfg = c->hpet[HPET_CFG / 4];
	if (!(c->hpet_cfg & HPET_CFG_ENABLE))
		c->hpet[HPET_CFG / 4] = c->hpet_cfg | HPET_CFG_ENABLE;
	c->reg = &c->hpet[HPET_COUNTER / 4];
	c->mask = 0xffffffffu; /* the low half, also of a 64-bit counter */
	c->fs = period;
	if (!ref_moves(c)) {
		c->hpet[HPET_CFG / 4] = c->hpet_cfg;
		return tsc_set_absent(s, "the main counter does not move");
	}
	return c->ok = true;
}

/*
 * PIT channel 2 counting down from 65536 in mode 0 (it goes on through 0),
 * gated on through port 0x61 with the speaker off.
 */
static bool pit_setup(struct ref_clock *c)
{
	c->src = TSC_SRC_PIT;
	c->pit = true;
	c->port61 = inb(PORT_61);
	outb(PORT_61, (c->port61 & ~P61_SPEAKER) | P61_GATE2);
	outb(PIT_COMMAND, PIT_CH2_MODE0);
	outb(PIT_CH2_DATA, 0);
	outb(PIT_CH2_DATA, 0);
	c->mask = 0xffffu;
	c->hz = PIT_HZ;
	if (!ref_moves(c)) {
		outb(PORT_61, c->port61);
		return tsc_set_absent(TSC_SRC_PIT,
				      "channel 2 does not count (no 8254?)");
	}
	return c->ok = true;
}

static void pit_restore(const struct ref_clock *c)
{
	if (c->ok)
		outb(PORT_61, c->port61);
}

/* Leaves the HPET as the firmware left it. */
static void hpet_restore(const struct ref_clock *c)
{
	if (c->hpet && !(c->hpet_cfg & HPET_CFG_ENABLE))
		c->hpet[HPET_CFG / 4] = c->hpet_cfg;
}

static void ref_window_end(struct ref_clock *c, int w)
{
	uint64_t tsc, ns;
	uint32_t val;

	ref_sample(c, &tsc, &val);
	if (c->pit && tsc - c->tsc0 > us_to_cycles(PIT_WRAP_US)) {
		c->khz[w] = 0; /* the count may have wrapped */
		return;
	}
	if (c->fs)
		ns = tsc_ticks_to_ns_fs((val - c->val0) & c->mask, c->fs);
	else
		ns = tsc_ticks_to_ns_hz((val - c->val0) & c->mask, c->hz);
	c->ns[w] = ns;
	c->khz[w] = tsc_khz_from(tsc - c->tsc0, ns);
}

/*
 * The PIT wraps after 54.9 ms, and a 50 ms window under a loaded host
 * can run longer than that. The guard in ref_window_end() goes by the
 * early TSC estimate, which the same load can make high (a PIT window
 * then read 16x fast). So the window also goes by the other clocks: the
 * PIT's window is dropped where it counted half a wrap less than the
 * first of them that timed the same window.
 */
static void pit_check_wrap(struct ref_clock *refs, int n, int pit, int w)
{
	uint64_t wrap_ns = tsc_ticks_to_ns_hz(0x10000, PIT_HZ);

	if (!refs[pit].ok || !refs[pit].khz[w])
		return;
	for (int i = 0; i < n; i++) {
		if (i == pit || !refs[i].ok || !refs[i].khz[w])
			continue;
		if (tsc_pit_wrapped(refs[pit].ns[w], refs[i].ns[w], wrap_ns))
			refs[pit].khz[w] = 0;
		return;
	}
}

/* Median of the clock's windows; absent (with the reason) if none. */
static void ref_finish(struct ref_clock *c)
{
	if (!c->ok)
		return;
	tsc_freq.estimate[c->src] = tsc_median_nonzero(c->khz, WINDOWS);
	if (!tsc_freq.estimate[c->src])
		tsc_set_absent(c->src, "no window gave a rate");
}

/*
 * Waits about one window: by the first platform clock that counts (the
 * TSC rate is only the early estimate yet), else by the TSC.
 */
static void wait_window(const struct ref_clock *refs, int n, uint64_t cycles)
{
	uint64_t t0 = rdtsc();

	for (int i = 0; i < n; i++) {
		const struct ref_clock *c = &refs[i];
		uint64_t ticks;
		uint32_t v0;

		if (!c->ok)
			continue;
		ticks = c->fs ? WINDOW_US * 1000000000ull / c->fs
			      : WINDOW_US * c->hz / 1000000;
		v0 = ref_read(c);
		/* The TSC bounds it, should the counter stop. */
		while (((ref_read(c) - v0) & c->mask) < ticks &&
		       rdtsc() - t0 < 4 * cycles)
			cpu_relax();
		return;
	}
	while (rdtsc() - t0 < cycles)
		cpu_relax();
}

void tsc_clocks_measure(const struct acpi_info *ai,
			void *(*map_mmio)(uint64_t pa, size_t len))
{
	struct ref_clock refs[3] = {{0}, {0}, {0}};
	uint64_t window = us_to_cycles(WINDOW_US);

	/* In tsc_choose()'s order: the first that counts times the window. */
	hpet_setup(ai, map_mmio, &refs[0]);
	pmtimer_setup(ai, map_mmio, &refs[1]);
	pit_setup(&refs[2]);
	for (int w = 0; w < WINDOWS; w++) {
		for (int i = 0; i < 3; i++) {
			if (refs[i].ok)
				ref_sample(&refs[i], &refs[i].tsc0,
					   &refs[i].val0);
		}
		wait_window(refs, 3, window);
		for (int i = 0; i < 3; i++) {
			if (refs[i].ok)
				ref_window_end(&refs[i], w);
		}
		pit_check_wrap(refs, 3, 2, w);
	}
	hpet_restore(&refs[0]);
	pit_restore(&refs[2]);
	for (int i = 0; i < 3; i++)
		ref_finish(&refs[i]);
}
