/* SPDX-License-Identifier: MIT */
/*
 * Verdicts and records, as docs/output.md defines them. Portable: all output goes through one line
 * writer, which the kernel points at the console and the host tests at a
 * buffer.
 *
 *   PASS: <name>            report_pass("mm: alloc: %d frames", n)
 *   FAIL: <name>: <why>     report_fail("mm: alloc", "got %d", n)
 *   SKIP: <name>: <why>     report_skip("tlb: invlpgb", "CPUID 8000_0008 ...")
 *   INFO: <text>            report_info("cmdline: ...")
 *   @json {...}             record_begin() ... record_end()
 *   SUMMARY: ...            report_summary()
 *
 * Names get the current prefixes in front ("smp: bringup: all cpus online").
 */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/json.h"

#define REPORT_LINE_MAX	  512
#define REPORT_PREFIX_MAX 8
#define RECORD_SCHEMA	  1

/* Exit statuses (docs/output.md "Ending a run"). */
#define STATUS_PASS	   0
#define STATUS_FAIL	   1
#define STATUS_ALL_SKIPPED 38
#define STATUS_ABORTED	   63

/*
 * Writes head, then len bytes of body, then "\n", as one line that no other
 * CPU's output can interleave with.
 */
typedef void (*report_writer)(const char *head, const char *body, size_t len);

void report_init(report_writer w);

void report_prefix_push(const char *prefix);
void report_prefix_pop(void);

void report_pass(const char *name_fmt, ...)
	__attribute__((format(printf, 1, 2)));
void report_fail(const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_skip(const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* PASS: name, or FAIL: name: why. Returns ok. */
bool report_check(bool ok, const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct report_counts {
	unsigned passed, failed, skipped;
	unsigned records; /* records printed so far */
};
struct report_counts report_get_counts(void);

/* 0 when nothing failed, 1 when something did, 38 when all skipped. */
int report_status(void);

struct record {
	struct json j; /* add the record's fields with json_*(&r.j, ...) */
	unsigned seq;
};

/*
 * Whether records reach the writer (output=human turns them off); on by
 * default. Off, records are still built and counted but not printed.
 */
void report_records(bool on);

/* Starts a record in buf: {"type":type,"seq":N, ... */
void record_begin(struct record *r, char *buf, size_t cap, const char *type);
/*
 * Closes and prints it. If it did not fit, prints a FAIL verdict and a short
 * "error" record with the same seq instead, so that seq stays gapless.
 */
void record_end(struct record *r);

/*
 * One more field of the summary record, a number with two decimals (e.g.
 * the shootdown's protocol overhead); a later call replaces it.
 */
void report_summary_x100(const char *key, uint64_t hundredths);

/* The summary record and the SUMMARY line; returns report_status(). */
int report_summary(void);

#endif
