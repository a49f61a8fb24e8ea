// SPDX-License-Identifier: MIT
/* Verdict lines, counters and JSON records (see report.h). */
#include <stdarg.h>
#include "lib/printf.h"
#include "report.h"

static struct {
	report_writer write;
	unsigned passed, failed, skipped;
	unsigned seq;
	const char *ratio_key; /* a summary field: report_summary_x100() */
	uint64_t ratio_x100;
	bool records_off; /* output=human */
} rep;

void report_init(report_writer w)
{
	rep.write = w;
}

struct line {
	char buf[REPORT_LINE_MAX];
	size_t len;
};

static void line_add(struct line *l, const char *fmt, va_list ap)
{
	size_t room = sizeof(l->buf) - l->len;
	int n = kvsnprintf(l->buf + l->len, room, fmt, ap);

	l->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void line_addf(struct line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line_add(l, fmt, ap);
	va_end(ap);
}

/* "KIND: " */
static void line_start(struct line *l, const char *kind)
{
	l->len = 0;
	line_addf(l, "%s: ", kind);
}

/* Ends the line; an over-long one is cut and marked, never split. */
static void line_emit(struct line *l)
{
	if (l->len >= sizeof(l->buf) - 1)
		l->len = sizeof(l->buf) - 5, line_addf(l, "...");
	if (rep.write)
		rep.write("", l->buf, l->len);
}

static void verdict(const char *kind, unsigned *counter, const char *name,
		    const char *why_fmt, va_list ap)
{
	struct line l;

	line_start(&l, kind);
	line_addf(&l, "%s", name);
	if (why_fmt) {
		line_addf(&l, REPORT_DETAIL);
		line_add(&l, why_fmt, ap);
	}
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
	line_emit(&l);
}

void report_pass(const char *name_fmt, ...)
{
	struct line l;
	va_list ap;

	line_start(&l, "PASS");
	va_start(ap, name_fmt);
	line_add(&l, name_fmt, ap);
	va_end(ap);
	__atomic_fetch_add(&rep.passed, 1, __ATOMIC_RELAXED);
	line_emit(&l);
}

void report_pass_detail(const char *name, const char *detail_fmt, ...)
{
	va_list ap;

	va_start(ap, detail_fmt);
	verdict("PASS", &rep.passed, name, detail_fmt, ap);
	va_end(ap);
}

void report_fail(const char *name, const char *why_fmt, ...)
{
	va_list ap;

	va_start(ap, why_fmt);
	verdict("FAIL", &rep.failed, name, why_fmt, ap);
	va_end(ap);
}

void report_skip(const char *name, const char *why_fmt, ...)
{
	va_list ap;

	va_start(ap, why_fmt);
	verdict("SKIP", &rep.skipped, name, why_fmt, ap);
	va_end(ap);
}

void report_info(const char *fmt, ...)
{
	struct line l;
	va_list ap;

	line_start(&l, "INFO");
	va_start(ap, fmt);
	line_add(&l, fmt, ap);
	va_end(ap);
	line_emit(&l);
}

void report_figure(const char *name, const char *value, const char *unit,
		   const char *caveat)
{
	struct line l;

	line_start(&l, "FIGURE");
	line_addf(&l, "%s = %s %s", name, value, unit);
	if (caveat && caveat[0])
		line_addf(&l, " -- %s", caveat);
	line_emit(&l);
}

bool report_check(bool ok, const char *name, const char *why_fmt, ...)
{
	va_list ap;

	if (ok) {
		report_pass("%s", name);
		return true;
	}
	va_start(ap, why_fmt);
	verdict("FAIL", &rep.failed, name, why_fmt, ap);
	va_end(ap);
	return false;
}

/* Where REPORT_DETAIL starts in s, or its end: the length of the name. */
static size_t name_len(const char *s, size_t len)
{
	static const char mark[] = REPORT_DETAIL;
	const size_t m = sizeof(mark) - 1;

	for (size_t i = 0; i + m <= len; i++) {
		size_t j = 0;

		while (j < m && s[i + j] == mark[j])
			j++;
		if (j == m)
			return i;
	}
	return len;
}

/*
 * KIND: then fmt, one format for the name and, after REPORT_DETAIL, the
 * why; name_only: the name alone (a check that passed).
 */
static void verdict_line(const char *kind, unsigned *counter, bool name_only,
			 const char *fmt, va_list ap)
{
	struct line l;
	size_t head;

	line_start(&l, kind);
	head = l.len;
	line_add(&l, fmt, ap);
	if (name_only)
		l.len = head + name_len(l.buf + head, l.len - head);
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
	line_emit(&l);
}

void report_failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict_line("FAIL", &rep.failed, false, fmt, ap);
	va_end(ap);
}

void report_skipf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict_line("SKIP", &rep.skipped, false, fmt, ap);
	va_end(ap);
}

bool report_checkf(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (ok)
		verdict_line("PASS", &rep.passed, true, fmt, ap);
	else
		verdict_line("FAIL", &rep.failed, false, fmt, ap);
	va_end(ap);
	return ok;
}

void report_control_init(struct report_control *c, const char *name)
{
	c->name = name;
	c->shown = false;
	ksnprintf(c->missed, sizeof(c->missed), "it did not run");
}

void report_control_shown(struct report_control *c, const char *what_fmt, ...)
{
	va_list ap;

	c->shown = true;
	c->missed[0] = '\0';
	/* What it showed is counted: the detail, never the name. */
	va_start(ap, what_fmt);
	verdict("PASS", &rep.passed, c->name, what_fmt, ap);
	va_end(ap);
}

void report_control_missed(struct report_control *c, const char *what_fmt, ...)
{
	va_list ap;

	c->shown = false;
	va_start(ap, what_fmt);
	kvsnprintf(c->missed, sizeof(c->missed), what_fmt, ap);
	va_end(ap);
	report_skip(c->name, "%s: the checks it decides prove nothing",
		    c->missed);
}

void report_control_note(struct report_control *c, bool shown,
			 const char *what_fmt, ...)
{
	va_list ap;

	c->shown = shown;
	va_start(ap, what_fmt);
	kvsnprintf(c->missed, sizeof(c->missed), what_fmt, ap);
	va_end(ap);
}

enum report_kind report_gate(unsigned long long bad, bool control_shown)
{
	if (bad)
		return REPORT_FAIL;
	return control_shown ? REPORT_PASS : REPORT_SKIP;
}

enum report_kind report_gated(const struct report_control *c,
			      unsigned long long bad, const char *unit,
			      const char *fail_why, const char *name_fmt, ...)
{
	enum report_kind kind = report_gate(bad, c->shown);
	char name[REPORT_LINE_MAX / 2];
	va_list ap;

	va_start(ap, name_fmt);
	kvsnprintf(name, sizeof(name), name_fmt, ap);
	va_end(ap);
	if (kind == REPORT_FAIL && fail_why)
		report_fail(name, "%s", fail_why);
	else if (kind == REPORT_FAIL)
		report_fail(name, "%llu %s", bad, unit);
	else if (kind == REPORT_SKIP)
		report_skip(name, "0 %s, but that proves nothing (%s: %s)",
			    unit, c->name, c->missed);
	else
		report_pass("%s", name);
	return kind;
}

struct report_counts report_get_counts(void)
{
	return (struct report_counts){
		.passed = rep.passed,
		.failed = rep.failed,
		.skipped = rep.skipped,
		.records = rep.seq,
	};
}

int report_status(void)
{
	if (rep.failed)
		return STATUS_FAIL;
	if (rep.skipped && !rep.passed)
		return STATUS_ALL_SKIPPED;
	return STATUS_PASS;
}

void report_records(bool on)
{
	rep.records_off = !on;
}

void record_begin(struct record *r, char *buf, size_t cap, const char *type)
{
	r->seq = __atomic_fetch_add(&rep.seq, 1, __ATOMIC_RELAXED);
	json_init(&r->j, buf, cap);
	json_begin_object(&r->j, NULL);
	json_str(&r->j, "type", type);
	json_u64(&r->j, "seq", r->seq);
}

void record_end(struct record *r)
{
	char small[128];
	const char *text;
	size_t n = 0;

	json_end_object(&r->j);
	text = json_finish(&r->j);
	if (!text) {
		report_fail("report: record",
			    "record %u did not fit in its %zu-byte buffer",
			    r->seq, r->j.cap);
		ksnprintf(small, sizeof(small),
			  "{\"type\":\"error\",\"seq\":%u,"
			  "\"error\":\"record overflow\",\"cap\":%zu}",
			  r->seq, r->j.cap);
		text = small;
	}
	while (text[n])
		n++;
	if (rep.write && !rep.records_off)
		rep.write("@json ", text, n);
}

void report_summary_x100(const char *key, uint64_t hundredths)
{
	rep.ratio_key = key;
	rep.ratio_x100 = hundredths;
}

int report_summary(void)
{
	struct report_counts c = report_get_counts();
	struct record r;
	char buf[256];
	struct line l;

	record_begin(&r, buf, sizeof(buf), "summary");
	json_u64(&r.j, "passed", c.passed);
	json_u64(&r.j, "failed", c.failed);
	json_u64(&r.j, "skipped", c.skipped);
	json_u64(&r.j, "records", c.records);
	if (rep.ratio_key)
		json_x100(&r.j, rep.ratio_key, rep.ratio_x100);
	record_end(&r);
	l.len = 0;
	line_addf(&l, "SUMMARY: %u tests, %u unexpected failures, %u skipped",
		  c.passed + c.failed + c.skipped, c.failed, c.skipped);
	line_emit(&l);
	return report_status();
}
