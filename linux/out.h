/* SPDX-License-Identifier: MIT */
/*
 * The Linux side's output (linux/out.c): the harness's line protocol and
 * @json records on the console (docs/output.md, docs/linux.md), so that
 * checklog and the results tools read both sides alike.
 */
#ifndef LINUX_OUT_H
#define LINUX_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/json.h"

/* The guest's EXIT statuses (tools/exitcodes.py). */
#define STATUS_PASS	   0
#define STATUS_FAIL	   1
#define STATUS_ALL_SKIPPED 38
#define STATUS_ABORTED	   63

/* Records of up to this many bytes (a page-out's timeline is the longest). */
#define RECORD_BYTES 16384

struct record {
	struct json j;
	char buf[RECORD_BYTES];
};

void out_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_pass(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* PASS or FAIL on ok, with the detail or the reason. */
void out_verdict(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A record of type, its seq already written; record_end prints it. */
void record_begin(struct record *r, const char *type);
void record_end(struct record *r);

/* The summary record and line, EXIT: STATUS=n; returns n. */
int out_finish(void);
/* How many FAILs so far (a workload's verdicts ask). */
unsigned out_failures(void);

#endif
