// SPDX-License-Identifier: MIT
/*
 * The line protocol on stdout (the console): one line per call, written
 * with one write(2) so that the kernel's own messages, should any reach
 * the console, fall between lines rather than inside one.
 */
#include "linux/out.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned passed, failed, skipped, records;

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* prefix, then the formatted text, then " -- " and the detail if any */
static void vline(const char *prefix, const char *name, const char *fmt,
		  va_list ap)
{
	char buf[4096];
	size_t n = 0;
	int k;

	k = snprintf(buf, sizeof(buf), "%s%s", prefix, name ? name : "");
	n = k < 0 ? 0 : (size_t)k;
	if (fmt && n < sizeof(buf)) {
		if (name)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " -- ");
		if (n < sizeof(buf)) {
			k = vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
			n += k < 0 ? 0 : (size_t)k;
		}
	}
	if (n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	for (size_t i = 0; i < n; i++) /* printable ASCII only */
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			buf[i] = '?';
	buf[n++] = '\n';
	put(buf, n);
}

void out_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("", NULL, fmt, ap);
	va_end(ap);
}

void out_pass(const char *name, const char *fmt, ...)
{
	va_list ap;

	passed++;
	va_start(ap, fmt);
	vline("PASS: ", name, fmt, ap);
	va_end(ap);
}

void out_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	failed++;
	va_start(ap, fmt);
	vline("FAIL: ", name, fmt, ap);
	va_end(ap);
}

void out_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	skipped++;
	va_start(ap, fmt);
	vline("SKIP: ", name, fmt, ap);
	va_end(ap);
}

void out_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("INFO: ", NULL, fmt, ap);
	va_end(ap);
}

void out_verdict(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		passed++;
	else
		failed++;
	va_start(ap, fmt);
	vline(ok ? "PASS: " : "FAIL: ", name, fmt, ap);
	va_end(ap);
}

void record_begin(struct record *r, const char *type)
{
	json_init(&r->j, r->buf, sizeof(r->buf));
	json_begin_object(&r->j, NULL);
	json_str(&r->j, "type", type);
	json_u64(&r->j, "seq", records);
}

void record_end(struct record *r)
{
	const char *text;
	char err[128];

	json_end_object(&r->j);
	text = json_finish(&r->j);
	if (!text) {
		/* The contract's stand-in for a record that did not fit. */
		snprintf(err, sizeof(err),
			 "{\"type\":\"error\",\"seq\":%u,\"why\":\"record "
			 "longer than %d bytes\"}",
			 records, RECORD_BYTES);
		text = err;
		out_fail("report: record", "a record did not fit its buffer");
	}
	records++;
	put("@json ", 6);
	put(text, strlen(text));
	put("\n", 1);
}

unsigned out_failures(void)
{
	return failed;
}

int out_finish(void)
{
	struct record *r = &(struct record){0};
	int status;

	record_begin(r, "summary");
	json_u64(&r->j, "passed", passed);
	json_u64(&r->j, "failed", failed);
	json_u64(&r->j, "skipped", skipped);
	json_u64(&r->j, "records", records);
	record_end(r);
	out_line("SUMMARY: %u tests, %u unexpected failures, %u skipped",
		 passed + failed + skipped, failed, skipped);
	if (failed)
		status = STATUS_FAIL;
	else if (skipped && !passed)
		status = STATUS_ALL_SKIPPED;
	else
		status = STATUS_PASS;
	out_line("EXIT: STATUS=%d", status);
	return status;
}
