/* SPDX-License-Identifier: MIT */
/*
 * The shootdown sweep's pieces, shared by its files: the variants and
 * their samples (shootdown_sample.c), their records, the negative control
 * and the verdicts (shootdown_verdict.c), and the sweep over page and
 * responder counts (shootdown_sweep.c).
 */
#ifndef BENCH_SHOOTDOWN_SAMPLE_H
#define BENCH_SHOOTDOWN_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/flush.h"
#include "bench/role.h"
#include "bench/shootdown_pages.h"
#include "bench/shootdown_sweep.h"
#include "bench/table.h"
#include "mm/invlpgb.h"
#include "smp/cpumask.h"

struct report_control;

#define MAX_VARIANTS (4 * S_COUNT) /* modes x global or not */
/* invlpgb, invlpgb-global, invlpgb-linux: the variants with an encoding */
#define SD_INVLPGB_VARIANTS 3

/* A strategy in one IPI mode, on global pages or not, and its samples. */
struct variant {
	enum strategy s;
	enum ipi_mode mode;
	bool global; /* on global pages (PTE.G) */
	struct flush_plan plan;
	uint64_t *samples, *handler;
	size_t n, nh;	    /* samples kept, handler times */
	uint64_t discarded; /* samples an NMI landed in */
	uint64_t icr, irqs;
	/* Stale reads its own samples left, and where the first one was. */
	uint64_t stale, stale_samples, first_va;
	unsigned first_sample, first_cpu;
};

/* Per strategy and mode, over the whole sweep: for the final verdicts. */
struct tally {
	unsigned configs;
	uint64_t stale;
	bool counts_wrong;
	bool emulated;
};

/*
 * A sweep's state (or the pilot's), handed down from shootdown_sweep():
 * this configuration's responders, the tallies the verdicts come from.
 */
struct sweep_state {
	const struct sd_config *sw;
	/* The pages, which the responders reach through their argument. */
	struct sd_pages *pages;
	struct cpumask resp;
	unsigned nresp;
	const char *distance; /* one responder of this class, or NULL */
	struct table table;   /* the human one, beside the records */
	/*
	 * The INVLPGB variants' encodings, one each (sd_insns_of): planned
	 * together, so a shared array would run the last one's encoding.
	 */
	struct invlpgb_regs insns[SD_INVLPGB_VARIANTS][SD_MAX_PAGES];
	struct tally tally[S_COUNT][2][2]; /* [strategy][broadcast][global] */
	bool nmi_due;	       /* selftest=nmi: in the first kept sample */
	uint64_t nmi_discards; /* samples an NMI landed in */
};

/* The name of a variant in records, tables and verdicts. */
const char *sd_variant_name(int s, bool global);
/* Its name, role and flush kind, for its result records. */
struct result_what sd_variant_what(int s, bool global);

/* delay_handler=: the busy-wait of this variant's handlers, or 0. */
uint64_t sd_delay_of(const struct variant *v, const struct sd_config *sw);

/* The first t online CPUs other than this one become the responders. */
void sd_choose_responders(struct sweep_state *st, unsigned t);

/*
 * The variants of configuration (k pages, the responders), each with its
 * flush planned; report: say what the encoder refused.
 */
size_t sd_build_variants(struct sweep_state *st, struct variant *v, unsigned k,
			 bool report);

/* v's sample buffers (and handler times); false if memory is out. */
bool sd_alloc_variant(struct variant *v, const struct sd_config *sw,
		      unsigned nresp);
void sd_free_variant(struct variant *v, const struct sd_config *sw,
		     unsigned nresp);

/*
 * One sample of one variant: warm, change, time the flush, verify; the
 * stale reads are this sample's, charged to this variant; then clean.
 * index: the sample's number, for the first stale read's FAIL.
 */
void sd_sample(struct sweep_state *st, struct variant *v, unsigned k,
	       unsigned index);

/*
 * The stale reads the last verification counted, on every CPU, and where
 * the first was (lowest CPU); the counters are reset.
 */
uint64_t sd_take_stale(struct sd_pages *pg, unsigned *cpu_out,
		       uint64_t *va_out);

/* Every entry on every CPU of the sweep, global ones included. */
void sd_clean_tlbs(struct sweep_state *st);

/* v's record, table row and tally, once all its samples are taken. */
void sd_finish(struct sweep_state *st, struct variant *v, unsigned k);

/*
 * Changes PTEs and never flushes: every responder must then read stale
 * data, or the verifier cannot prove anything for it.
 */
void sd_negative_control(struct sweep_state *st, struct report_control *ctl);

/* Every variant's verdicts, as the negative control decides them. */
void sd_verdicts(const struct sweep_state *st,
		 const struct report_control *ctl);

#endif
