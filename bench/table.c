// SPDX-License-Identifier: MIT
/*
 * Human tables for an 80-column console (see table.h). Each line is built
 * in a buffer of TABLE_WIDTH bytes that cannot grow, so no input, however
 * wide, can make a line wrap.
 */
#include "table.h"
#include "lib/kstring.h"

#define EMULATED_NOTE \
	"* emulated: INVLPGB software model, the timings mean nothing"

struct line {
	char buf[TABLE_WIDTH + 1];
	size_t len;
};

static void line_putc(struct line *l, char c)
{
	if (l->len < TABLE_WIDTH)
		l->buf[l->len++] = kisprint((unsigned char)c) ? c : '?';
}

static void line_pad(struct line *l, size_t n)
{
	while (n--)
		line_putc(l, ' ');
}

/* s in exactly `width` columns: left-aligned, or cut and ended by '~'. */
static void line_text(struct line *l, const char *s, size_t width, bool right)
{
	size_t n = kstrnlen(s, width + 1);

	if (n > width) {
		for (size_t i = 0; i + 1 < width; i++)
			line_putc(l, s[i]);
		if (width)
			line_putc(l, '~');
		return;
	}
	if (right)
		line_pad(l, width - n);
	for (size_t i = 0; i < n; i++)
		line_putc(l, s[i]);
	if (!right)
		line_pad(l, width - n);
}

/* Trailing spaces help nobody on a serial line; drop them, then emit. */
static void line_emit(const struct table *t, struct line *l)
{
	while (l->len && l->buf[l->len - 1] == ' ')
		l->len--;
	l->buf[l->len] = '\0';
	if (t->emit)
		t->emit(t->ctx, l->buf);
	l->len = 0;
}

static size_t utoa(uint64_t v, char *buf)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/*
 * The most precise form of v that fits: "q.dX", then "qX", for X = k, M,
 * G, T, P, E in turn (powers of 1000), truncated toward zero. Into s[24].
 */
static size_t abbreviate(uint64_t v, size_t width, char *s)
{
	static const char suffix[] = "kMGTPE";
	uint64_t unit = 1;

	for (size_t i = 0; suffix[i]; i++) {
		uint64_t tenth;
		size_t n;

		unit *= 1000;
		if (v < unit)
			break; /* never "0k": that would hide the value */
		tenth = v % unit / (unit / 10);
		n = utoa(v / unit, s);
		if (n + 3 <= width) {
			s[n] = '.';
			s[n + 1] = (char)('0' + tenth);
			s[n + 2] = suffix[i];
			return n + 3;
		}
		if (n + 1 <= width) {
			s[n] = suffix[i];
			return n + 1;
		}
	}
	return 0;
}

size_t table_format_num(uint64_t v, size_t width, char *buf)
{
	char s[24];
	size_t n = utoa(v, s);

	if (n > width)
		n = abbreviate(v, width, s);
	if (!n) { /* only below TABLE_NUM_MIN */
		kmemset(buf, '#', width);
		buf[width] = '\0';
		return width;
	}
	kmemset(buf, ' ', width - n);
	kmemcpy(buf + width - n, s, n);
	buf[width] = '\0';
	return width;
}

/* Column i's separator, then `s` laid out as its kind says. */
static void put_cell(struct line *l, const struct table *t, size_t i,
		     const char *s)
{
	if (i)
		line_putc(l, ' ');
	line_text(l, s, t->width[i], t->cols[i].kind == TABLE_NUM);
}

int table_begin(struct table *t, const char *title,
		const struct table_col *cols, size_t ncols, table_emit_fn emit,
		void *ctx)
{
	size_t used = 0, max = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
	struct line l = {.len = 0};
	int ret = ncols > max ? -1 : 0;

	kmemset(t, 0, sizeof(*t));
	t->emit = emit;
	t->ctx = ctx;
	t->cols = cols;
	t->ncols = ncols;
	for (; t->nshow < max; t->nshow++) {
		unsigned int w = cols[t->nshow].width;

		if (cols[t->nshow].kind == TABLE_NUM && w < TABLE_NUM_MIN) {
			w = TABLE_NUM_MIN;
			ret = -1;
		}
		if (used + !!t->nshow + w > TABLE_WIDTH) {
			ret = -1;
			break;
		}
		used += !!t->nshow + w;
		t->width[t->nshow] = w;
	}
	line_text(&l, title ? title : "", TABLE_WIDTH, false);
	line_emit(t, &l);
	for (size_t i = 0; i < t->nshow; i++)
		put_cell(&l, t, i, cols[i].name ? cols[i].name : "");
	line_emit(t, &l);
	for (size_t i = 0; i < t->nshow; i++) {
		line_pad(&l, !!i);
		for (unsigned int j = 0; j < t->width[i]; j++)
			line_putc(&l, '-');
	}
	line_emit(t, &l);
	return ret;
}

void table_row(struct table *t, const struct table_cell *cells)
{
	char num[TABLE_WIDTH + 1];
	struct line l = {.len = 0};

	for (size_t i = 0; i < t->nshow; i++) {
		const struct table_cell *c = &cells[i];
		const char *s = c->text ? c->text : "-";

		if (t->cols[i].kind == TABLE_NUM && !c->none) {
			table_format_num(c->num, t->width[i], num);
			s = num;
		} else if (t->cols[i].kind == TABLE_NUM) {
			s = "-";
		}
		put_cell(&l, t, i, s);
	}
	line_emit(t, &l);
	t->rows++;
}

void table_note(struct table *t, const char *text)
{
	struct line l = {.len = 0};

	line_text(&l, text ? text : "", TABLE_WIDTH, false);
	line_emit(t, &l);
}

void table_end(struct table *t)
{
	if (t->emulated)
		table_note(t, EMULATED_NOTE);
	t->emulated = false;
}

/*
 * The strategy column holds the longest name, so that none is cut into
 * another's (invlpgb-global and invlpgb-linux, ipi-full-global); the mode
 * column shootdown's "each" and "bcast".
 */
static const struct table_col result_cols[] = {
	{"strategy", 15, TABLE_TEXT}, {"mode", 5, TABLE_TEXT},
	{"pages", 5, TABLE_NUM},      {"targets", 7, TABLE_NUM},
	{"p50 ns", 8, TABLE_NUM},     {"p99 ns", 8, TABLE_NUM},
	{"p50 cyc", 9, TABLE_NUM},    {"p99 cyc", 9, TABLE_NUM},
	{"stale", 5, TABLE_NUM},
};

int table_results_begin(struct table *t, const char *title, table_emit_fn emit,
			void *ctx)
{
	return table_begin(t, title, result_cols,
			   sizeof(result_cols) / sizeof(result_cols[0]), emit,
			   ctx);
}

/* "name*" in the strategy column, the '*' kept even when the name is cut. */
static const char *mark_emulated(const char *name, char *buf, size_t width)
{
	size_t n = kstrnlen(name, width);

	if (n + 1 > width && width >= 2) {
		kmemcpy(buf, name, width - 2);
		kmemcpy(buf + width - 2, "~*", 3);
		return buf;
	}
	kmemcpy(buf, name, n);
	kmemcpy(buf + n, "*", 2);
	return buf;
}

void table_result_row(struct table *t, const struct table_result *r)
{
	char name[TABLE_WIDTH + 2];
	struct stats ns = {0};
	const struct stats *c = r->cycles;
	bool no_ns = !c || !r->tsc_khz;
	const char *strategy = r->strategy ? r->strategy : "-";
	struct table_cell cells[9] = {
		{.text = strategy},
		{.text = r->ipi_mode},
		{.num = r->pages},
		{.num = r->targets},
		{.num = 0, .none = no_ns},
		{.num = 0, .none = no_ns},
		{.num = c ? c->p50 : 0, .none = !c},
		{.num = c ? c->p99 : 0, .none = !c},
		{.num = r->stale_reads},
	};

	if (c) {
		stats_to_ns(c, r->tsc_khz, &ns);
		cells[4].num = ns.p50;
		cells[5].num = ns.p99;
	}
	if (r->emulated && t->nshow) {
		cells[0].text = mark_emulated(strategy, name, t->width[0]);
		t->emulated = true;
	}
	table_row(t, cells);
}
