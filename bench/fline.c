// SPDX-License-Identifier: MIT
/* The findings' line builder (bench/fline.h). */
#include <stdarg.h>
#include "bench/fline.h"
#include "lib/printf.h"
#include "lib/string.h"

/* Appends s (n bytes), clamped to the buffer; true if it all fitted. */
static bool put(struct fline *l, const char *s, size_t n)
{
	size_t room = sizeof(l->buf) - 1 - l->len;
	bool whole = n <= room;

	if (!whole)
		n = room;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	l->buf[l->len] = '\0';
	return whole;
}

static void put_str(struct fline *l, const char *s)
{
	put(l, s, strlen(s));
}

/* Head, ", continued" after the first line, the caveat: the figures next. */
static void start(struct fline *l)
{
	l->len = 0;
	l->buf[0] = '\0';
	put_str(l, l->head);
	if (l->lines)
		put_str(l, ", continued");
	put_str(l, ": ");
	if (l->caveat[0]) {
		put_str(l, l->caveat);
		put_str(l, ": ");
	}
	l->body = l->len;
}

static void emit(struct fline *l)
{
	l->sink(l->buf, l->arg);
	l->lines++;
}

void fline_begin(struct fline *l, fline_sink sink, void *arg,
		 unsigned int caveats, const char *fmt, ...)
{
	va_list ap;

	l->sink = sink;
	l->arg = arg;
	l->lines = 0;
	l->cut = false;
	va_start(ap, fmt);
	kvsnprintf(l->head, sizeof(l->head), fmt, ap);
	va_end(ap);
	findings_caveats_text(caveats, l->caveat, sizeof(l->caveat));
	start(l);
}

/* A piece's text without the separator a fresh line does not need. */
static const char *unseparated(const char *s)
{
	if ((s[0] == ',' || s[0] == ';') && s[1] == ' ')
		return s + 2;
	return s;
}

void fline_add(struct fline *l, const char *fmt, ...)
{
	char piece[FLINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(piece)) {
		n = (int)sizeof(piece) - 1;
		l->cut = true;
	}
	if (l->len + (size_t)n < sizeof(l->buf)) {
		put(l, piece, (size_t)n);
		return;
	}
	if (l->len > l->body) {
		emit(l);
		start(l);
	}
	if (!put(l, unseparated(piece), strlen(unseparated(piece))))
		l->cut = true;
}

unsigned fline_end(struct fline *l)
{
	emit(l);
	return l->lines;
}
