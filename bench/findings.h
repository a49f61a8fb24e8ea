/* SPDX-License-Identifier: MIT */
/*
 * The findings: what a run answers about the questions it was booted for
 * (where INVLPGB beats IPIs, the seeds' claims), decided at the end of the
 * run from the run's own result records, and printed as a few INFO lines
 * and one `findings` record (docs/findings.md, "Findings").
 *
 * result_emit() notes each record in a findings_book (findings_note); the
 * decisions (findings_calc.c) are portable and have no hardware access,
 * so the host tests cover them. This is the one place they are made:
 * tools/shootdown.py answer reads the findings record (and the records
 * it names) and pools runs, without deciding a run's findings again.
 *
 * A finding that the machine cannot answer says why ("not a hardware
 * answer here: WHY"), with its numbers; one the run has no data for says
 * that. One boot gives no interval over launches: a number that has no
 * interval within the run says so, and `tools/shootdown.py answer` pools
 * several runs with the run as the unit.
 */
#ifndef BENCH_FINDINGS_H
#define BENCH_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/caveats.h"
#include "bench/fline.h"
#include "bench/role.h"

struct result;

/* Enough for a default run (about 170 records) and a long one. */
#define FINDINGS_RECORDS 512
#define FINDINGS_NAME	 24

enum findings_bench { FB_OTHER, FB_SHOOTDOWN, FB_RECLAIM, FB_FLUSHLOOP };

/* What the findings need of one result record. */
struct findings_rec {
	enum findings_bench bench;
	char strategy[FINDINGS_NAME];
	enum result_role role; /* what it is, by its producer (bench/role.h) */
	enum flush_kind flush;
	unsigned seq; /* the record's seq: the host reads the cells by it */
	bool unicast; /* ipi_mode "unicast", or none */
	bool emulated;
	uint64_t pages, targets, samples, p50;
	/* Counter fields; 0 where the record has none. */
	uint64_t delay_cycles, irqs, batch, ops_per_s, cpus;
	bool has_loss, has_loss_ci;
	int64_t loss_pct, loss_lo_pct, loss_hi_pct;
};

struct findings_book {
	struct findings_rec rec[FINDINGS_RECORDS];
	size_t n;
	size_t dropped; /* records past FINDINGS_RECORDS, not considered */
};

/* Notes r, printed as record seq (result_emit calls it, after printing). */
void findings_note(struct findings_book *b, const struct result *r,
		   unsigned seq);

/*
 * The machine's caveats, and the words of each, are bench/caveats.h's
 * (struct findings_machine, FC_*, findings_timing_caveats); a finding
 * adds its records' own (emulated, delayed).
 */

/*
 * The crossover of IPIs and INVLPGB at the point estimates. Each cell
 * names the two records it compares (pair[]), so that `answer` pools
 * exactly these over runs without choosing records again.
 */
#define FINDINGS_PAGE_COUNTS 16
#define FINDINGS_CELLS	     160
struct findings_crossover {
	/* The strategies compared: their records' names (bench/role.h) */
	char ipi[FINDINGS_NAME], invlpgb[FINDINGS_NAME];
	size_t cells;	     /* 0: no data */
	const char *no_data; /* why there are no cells, or NULL */
	struct {
		uint64_t pages, targets;
		unsigned ipi_seq, invlpgb_seq;
		bool broadcast; /* the IPI side is the all-but-self record */
		bool linux_invlpgb; /* Linux's rule picks INVLPGB here */
	} pair[FINDINGS_CELLS];
	size_t npairs, pairs_dropped;
	struct {
		uint64_t pages;
		uint64_t lean_from; /* fewest targets where INVLPGB is faster */
		bool lean;	    /* false: faster at none */
	} frontier[FINDINGS_PAGE_COUNTS];
	size_t nfrontier;
	size_t linux_slower; /* cells where Linux's rule picks the slower */
	unsigned int caveats;
};

/* The seed's interrupt arithmetic, measured and redone here. */
struct findings_irqs {
	bool have;
	uint64_t targets;
	uint64_t per_page, batch512; /* interrupts per GiB, measured */
	uint64_t seed_per_page, seed_batch512; /* the seed's arithmetic */
	uint64_t ratio_x100;		       /* per_page / batch512 */
};

/* Worker loss during page-out, per-page against batch 512. */
struct findings_loss_side {
	bool have, has_ci;
	int64_t pct, lo, hi;
};
struct findings_loss {
	struct findings_loss_side per_page, batch512;
	unsigned int caveats;
};

/* flushloop: INVLPGB's throughput over IPIs', per CPU count. */
#define FINDINGS_CPU_COUNTS 16
struct findings_throughput {
	char ipi[FINDINGS_NAME]; /* the IPI strategy compared */
	struct {
		uint64_t cpus, ipi_ops, invlpgb_ops, ratio_x100;
	} row[FINDINGS_CPU_COUNTS];
	size_t n;
	const char *no_data;
	unsigned int caveats;
};

struct findings {
	struct findings_crossover cross;
	struct findings_irqs irqs;
	struct findings_loss loss;
	struct findings_throughput tput;
};

/* Decides every finding from the book (portable). */
void findings_decide(const struct findings_book *b,
		     const struct findings_machine *m, struct findings *out);

/* Interrupts per GiB of irqs over pages 4 KiB pages; 0 without pages. */
uint64_t findings_irqs_per_gib(uint64_t irqs, uint64_t pages);

/* Each finding's INFO lines into sink (bench/findings_text.c, portable). */
void findings_print_crossover(const struct findings_crossover *c,
			      fline_sink sink, void *arg);
void findings_print_irqs(const struct findings_irqs *q, fline_sink sink,
			 void *arg);
void findings_print_loss(const struct findings_loss *f, fline_sink sink,
			 void *arg);
void findings_print_throughput(const struct findings_throughput *t,
			       fline_sink sink, void *arg);

/*
 * Prints the findings block and record (bench/findings.c), the flush
 * ceiling's part from c (bench/ceiling_book.h), decided before.
 */
struct ceiling_decision;
void findings_report(const struct findings_book *b,
		     const struct ceiling_decision *c);

/*
 * The FIGURE lines of the findings, the flush ceiling's K* (from c) and
 * the shootdown p50s (figures.c), each with its caveats on machine m.
 */
void figures_report(const struct findings_book *b,
		    const struct findings_machine *m, const struct findings *f,
		    const struct ceiling_decision *c);
/* A record's own caveats (emulated, delayed): FC_* bits. */
unsigned int findings_record_caveats(const struct findings_rec *r);

#endif
