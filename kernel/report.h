/* SPDX-License-Identifier: MIT */
/*
 * Verdicts and records, as docs/output.md and docs/records.md define them.
 * Portable: all output goes through one line writer, which the kernel
 * points at the console and the host tests at a buffer.
 *
 *   PASS: <name>            report_pass("mm: alloc")
 *   PASS: <name> -- <detail> report_pass_detail("mm: alloc", "%d frames", n)
 *   FAIL: <name> -- <why>   report_fail("mm: alloc", "got %d", n)
 *   SKIP: <name> -- <why>   report_skip("tlb: invlpgb", "CPUID 8000_0008 ...")
 *   INFO: <text>            report_info("cmdline: ...")
 *   a check that a negative control decides: report_gated()
 *   @json {...}             record_begin() ... record_end()
 *   SUMMARY: ...            report_summary()
 *
 * A name starts with its subsystem ("smp: bringup: all cpus online"). A name is the same in every run of one configuration: it never holds a
 * measured number (a count, a rate, a time), which goes in the detail or
 * the why, after REPORT_DETAIL; names never contain REPORT_DETAIL and stay
 * under REPORT_NAME_MAX characters (docs/output.md, "Verdict names").
 */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/json.h"

#define REPORT_LINE_MAX 512
#define RECORD_SCHEMA	2
#define REPORT_DETAIL	" -- " /* ends the name of a verdict line */
#define REPORT_NAME_MAX 100

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

void report_pass(const char *name_fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* PASS: name -- detail: what was measured on the way to the verdict. */
void report_pass_detail(const char *name, const char *detail_fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_fail(const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_skip(const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * FIGURE: <name> = <value> <unit>, one headline number (bench/figures.c);
 * with a caveat, " -- <caveat>" after it, as a verdict's details.
 */
void report_figure(const char *name, const char *value, const char *unit,
		   const char *caveat);
/* PASS: name, or FAIL: name: why. Returns ok. */
bool report_check(bool ok, const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The same with the name formatted too: fmt is the whole verdict, its name
 * then REPORT_DETAIL then the why, one format for both, e.g.
 * report_checkf(ok, "reclaim: %s: exact counts" REPORT_DETAIL "%u IPIs",
 * name, n). A check that passes prints the name alone.
 */
void report_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_skipf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool report_checkf(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A negative control: a check run with the flush left out on purpose,
 * which must find the fault (a stale read, a lost write) that the checks
 * it decides look for. Where it finds none, this machine cannot show the
 * fault (it re-walks the page tables, its TLB evicts the entries, ...)
 * and a check that finds none proves nothing (docs/experiments.md).
 */
struct report_control {
	const char
		*name; /* its verdict's, e.g. "shootdown: negative control" */
	bool shown;    /* it found the fault wherever its checks speak */
	char missed[REPORT_LINE_MAX / 2]; /* if not: what it found instead */
};

/* Not run yet: the checks it decides SKIP, saying it did not run. */
void report_control_init(struct report_control *c, const char *name);
/* PASS: name -- what. The checks it decides can pass. */
void report_control_shown(struct report_control *c, const char *what_fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* SKIP: name -- what: the checks it decides prove nothing. */
void report_control_missed(struct report_control *c, const char *what_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * What a control found, without a verdict line of its own (a read before
 * the invalidation, say): only the checks it decides report it.
 */
void report_control_note(struct report_control *c, bool shown,
			 const char *what_fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum report_kind { REPORT_PASS, REPORT_FAIL, REPORT_SKIP };

/*
 * The rule a negative control sets: any bad result FAILs; none PASSes
 * only where the control showed the fault, and SKIPs elsewhere.
 */
enum report_kind report_gate(unsigned long long bad, bool control_shown);

/*
 * A check the control c decides, by report_gate():
 *   FAIL: <name> -- <fail_why>, or <bad> <unit> where fail_why is NULL
 *   PASS: <name>
 *   SKIP: <name> -- 0 <unit>, but that proves nothing (<c->name>: <missed>)
 * unit names what is counted ("stale reads"). Returns the verdict.
 */
enum report_kind report_gated(const struct report_control *c,
			      unsigned long long bad, const char *unit,
			      const char *fail_why, const char *name_fmt, ...)
	__attribute__((format(printf, 5, 6)));

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
