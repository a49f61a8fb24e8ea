/* SPDX-License-Identifier: MIT */
/*
 * A findings line being built (bench/fline.c), portable: a head ("findings:
 * crossover (ipi-linux vs invlpgb)"), then the caveat, then the figures,
 * piece by piece. The caveat comes before any figure so that no cut can
 * take it, and a piece that does not fit goes whole onto a continuation
 * line ("HEAD, continued: CAVEAT: ..."), which repeats the caveat: no
 * figure is ever printed bare, no line is longer than FLINE_MAX - 1 bytes,
 * and nothing is dropped. Like Linux's seq_buf, every write is clamped.
 */
#ifndef BENCH_FLINE_H
#define BENCH_FLINE_H

#include <stdbool.h>
#include <stddef.h>
#include "bench/caveats.h"

/* One line's bytes, its NUL included: about 3 s at 115200 baud a line. */
#define FLINE_MAX  400
#define FLINE_HEAD 160

/* Where a finished line goes (report_info in the guest, a test's list). */
typedef void (*fline_sink)(const char *line, void *arg);

struct fline {
	char buf[FLINE_MAX];
	size_t len;  /* bytes in buf */
	size_t body; /* where this line's figures start */
	char head[FLINE_HEAD];
	char caveat[CAVEATS_TEXT]; /* "" for a hardware answer */
	unsigned lines;		   /* emitted so far */
	bool cut;		   /* a piece longer than a whole line */
	fline_sink sink;
	void *arg;
};

/* A new line: its head (printf-style) and its caveat bits (0: none). */
void fline_begin(struct fline *l, fline_sink sink, void *arg,
		 unsigned int caveats, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/*
 * One piece of figures, whole on this line or the next. A piece that
 * opens a continuation line loses its leading ", " or "; ".
 */
void fline_add(struct fline *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Emits what is left; returns the lines emitted in all. */
unsigned fline_end(struct fline *l);

#endif
