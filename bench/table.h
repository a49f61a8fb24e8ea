/* SPDX-License-Identifier: MIT */
/*
 * Compact human tables for an 80-column serial console (often a BMC's
 * serial-over-LAN, where a wrapped line is hard to read). The records for
 * scripts are separate (@json lines); these are for a person watching.
 *
 * Every line is at most TABLE_WIDTH (79) characters of printable ASCII,
 * without trailing spaces, handed to a caller-provided writer (which adds
 * the line ending), so the code is portable and tested on the host. The
 * results table is 78 columns wide; its left 62 (p99 cyc and stale follow):
 *
 *   shootdown: 4 cpus
 *   strategy   mode      pages targets   p50 ns   p99 ns   p50 cyc ...
 *   ---------- --------- ----- ------- -------- -------- --------- ...
 *   ipi-page   unicast       1       1     1404     2210      4212 ...
 *   invlpgb*   -           512       3 30411522 41152263  91234567 ...
 *   * emulated: INVLPGB software model, the timings mean nothing
 *
 * Numbers that do not fit their column are abbreviated with a decimal
 * suffix, truncated toward zero so that they never overstate: 1234567 in
 * 5 columns is "1234k", in 4 "1.2M"; UINT64_MAX in 5 is "18.4E". Any
 * 64-bit value fits in 4 columns (at worst "999k", "999M", ... "18E"), the
 * minimum width of a number column. Text that does not fit ends in '~'.
 */
#ifndef BENCH_TABLE_H
#define BENCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stats.h"

#define TABLE_WIDTH    79
#define TABLE_MAX_COLS 16
#define TABLE_NUM_MIN  4 /* narrowest number column: "999M" */

/* Receives one line: NUL-terminated, no line ending. */
typedef void (*table_emit_fn)(void *ctx, const char *line);

enum table_kind {
	TABLE_TEXT, /* left-aligned, cut with '~' */
	TABLE_NUM,  /* right-aligned, abbreviated (k, M, G, T, P, E) */
};

struct table_col {
	const char *name; /* header; cut to the width like text */
	unsigned int width;
	enum table_kind kind;
};

/* One value per column of the table_begin() call, in that order. */
struct table_cell {
	const char *text; /* TABLE_TEXT; NULL shows "-" */
	uint64_t num;	  /* TABLE_NUM */
	bool none;	  /* TABLE_NUM: no value (e.g. ns, TSC unknown): "-" */
};

struct table {
	table_emit_fn emit;
	void *ctx;
	const struct table_col *cols;
	unsigned int width[TABLE_MAX_COLS]; /* as shown */
	size_t ncols;			    /* given */
	size_t nshow;			    /* that fit in TABLE_WIDTH */
	size_t rows;			    /* printed so far */
	bool emulated; /* a row was marked emulated (results table) */
};

/*
 * Prints the title, the header and a rule. Columns are separated by one
 * space; the rightmost ones that would pass TABLE_WIDTH are dropped and
 * number columns narrower than TABLE_NUM_MIN are widened, and then -1 is
 * returned (a bug in the caller's layout, which a test should catch);
 * otherwise 0. The columns must stay valid until the last row.
 */
int table_begin(struct table *t, const char *title,
		const struct table_col *cols, size_t ncols, table_emit_fn emit,
		void *ctx);

/* Prints one row: cells[i] for column i of table_begin(). */
void table_row(struct table *t, const struct table_cell *cells);

/* Prints free text (a footnote), cut to TABLE_WIDTH. */
void table_note(struct table *t, const char *text);

/* Ends the table: explains the '*' of emulated rows, if there were any. */
void table_end(struct table *t);

/*
 * v right-aligned in exactly `width` characters (abbreviated as above)
 * into buf[width + 1]; width < TABLE_NUM_MIN may give '#'s. Returns width.
 */
size_t table_format_num(uint64_t v, size_t width, char *buf);

/*
 * The results table of the timing experiments: strategy, ipi_mode, pages,
 * targets, p50 and p99 in ns and in cycles, stale reads.
 */
struct table_result {
	const char *strategy;
	const char *ipi_mode; /* NULL: "-" (not an IPI strategy) */
	uint64_t pages, targets;
	const struct stats *cycles; /* overhead already subtracted */
	uint64_t tsc_khz;	    /* 0: the ns columns show "-" */
	uint64_t stale_reads;
	bool emulated; /* strategy shown with '*', explained by table_end */
};

int table_results_begin(struct table *t, const char *title, table_emit_fn emit,
			void *ctx);
void table_result_row(struct table *t, const struct table_result *r);

#endif
