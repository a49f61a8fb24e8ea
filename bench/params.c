// SPDX-License-Identifier: MIT
/*
 * The experiments' parameters (see params.h).
 *
 * Lists are comma-separated items. Each item is checked on its own, so one
 * typo costs one value, not the whole list; and a list left with nothing
 * valid falls back to its default, said out loud, rather than to an empty
 * run that would look like a pass.
 */
#include <stdarg.h>
#include "params.h"
#include "lib/kstring.h"

#define ITEM_SHOW 24 /* bytes of an item quoted in a diagnostic */
#define LIST_SHOW 40 /* bytes of a whole list quoted in a diagnostic */

/* A number list: its range, default and words for special values. */
struct list_spec {
	const char *key;
	uint32_t min, max;
	const char *def;
	const char *const *words; /* NULL-terminated, or NULL */
	const uint32_t *word_vals;
};

struct item {
	const char *s;
	size_t n;
};

enum add_result { ADD_OK, ADD_DUP, ADD_FULL };

static void put_quoted(struct kbuf *b, const char *s, size_t n, size_t max)
{
	kbuf_puts(b, "'");
	kbuf_putn(b, s, n, max);
	kbuf_puts(b, "'");
}

/*
 * Emits one diagnostic, "params: KEY: " then fmt, where %s is a string, %u
 * a uint64_t, %q an item (const struct item *) and %Q a whole list (const
 * char *); kbuf quotes, shortens and escapes them, so the message is
 * printable ASCII whatever the input. Returns 1: one diagnostic.
 */
static size_t diag(const struct diag_sink *d, const char *key, const char *fmt,
		   ...)
{
	char buf[PARAM_DIAG_LEN];
	const struct item *it;
	struct kbuf b;
	va_list ap;

	kbuf_init(&b, buf, sizeof(buf));
	kbuf_puts(&b, "params: ");
	kbuf_puts(&b, key);
	kbuf_puts(&b, ": ");
	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			kbuf_putn(&b, fmt, 1, SIZE_MAX);
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			kbuf_puts(&b, va_arg(ap, const char *));
		} else if (*fmt == 'u') {
			kbuf_u64(&b, va_arg(ap, uint64_t));
		} else if (*fmt == 'q') {
			it = va_arg(ap, const struct item *);
			put_quoted(&b, it->s, it->n, ITEM_SHOW);
		} else if (*fmt == 'Q') {
			put_quoted(&b, va_arg(ap, const char *), SIZE_MAX,
				   LIST_SHOW);
		} else {
			break; /* only the formats above are used */
		}
	}
	va_end(ap);
	if (d && d->emit)
		d->emit(d->ctx, buf);
	return 1;
}

/* Steps through "a,b,,c": *p becomes NULL after the last item. */
static bool next_item(const char **p, struct item *it)
{
	const char *s = *p;

	if (!s)
		return false;
	it->s = s;
	it->n = 0;
	while (s[it->n] && s[it->n] != ',')
		it->n++;
	*p = s[it->n] ? s + it->n + 1 : NULL;
	return true;
}

static bool item_is(const struct item *it, const char *word)
{
	return kstrlen(word) == it->n && !kstrncmp(it->s, word, it->n);
}

static enum add_result list_add(struct param_list *l, uint32_t v)
{
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->v[i] == v)
			return ADD_DUP;
	}
	if (l->n >= PARAM_LIST_MAX)
		return ADD_FULL;
	l->v[l->n++] = v;
	return ADD_OK;
}

/* One item of a number list into *v; returns the diagnostics. */
static size_t list_value(const struct list_spec *sp, const struct item *it,
			 uint32_t *v, const struct diag_sink *d)
{
	enum kparse_err e;
	uint64_t u;

	for (size_t i = 0; sp->words && sp->words[i]; i++) {
		if (item_is(it, sp->words[i])) {
			*v = sp->word_vals[i];
			return 0;
		}
	}
	e = kparse_u64(it->s, it->n, &u);
	if (e == KPARSE_INVALID)
		return diag(d, sp->key, "item %q is not a number: skipped", it);
	if (e == KPARSE_OVERFLOW || u < sp->min || u > sp->max)
		return diag(d, sp->key,
			    "item %q is out of range %u..%u: skipped", it,
			    (uint64_t)sp->min, (uint64_t)sp->max);
	*v = (uint32_t)u;
	return 0;
}

/* Adds every valid item of s to out; returns the diagnostics. */
static size_t list_items(const struct list_spec *sp, const char *s,
			 struct param_list *out, const struct diag_sink *d)
{
	const char *p = s;
	struct item it;
	size_t nd = 0, bad;
	uint32_t v = 0;

	while (next_item(&p, &it)) {
		if (!it.n) {
			nd += diag(d, sp->key, "empty item in %Q: skipped", s);
			continue;
		}
		bad = list_value(sp, &it, &v, d);
		nd += bad;
		if (bad)
			continue;
		switch (list_add(out, v)) {
		case ADD_DUP:
			nd += diag(d, sp->key, "item %q is repeated: skipped",
				   &it);
			break;
		case ADD_FULL:
			return nd + diag(d, sp->key,
					 "more than %u values: %q and the "
					 "rest skipped",
					 (uint64_t)PARAM_LIST_MAX, &it);
		case ADD_OK:
			break;
		}
	}
	return nd;
}

static size_t list_parse(const struct list_spec *sp, const char *s,
			 struct param_list *out, const struct diag_sink *d)
{
	size_t nd = 0;

	kmemset(out, 0, sizeof(*out));
	if (s && *s)
		nd = list_items(sp, s, out, d);
	if (out->n || !sp->def)
		return nd;
	if (s && *s)
		nd += diag(d, sp->key, "no valid value in %Q: using default %Q",
			   s, sp->def);
	list_items(sp, sp->def, out, NULL);
	return nd;
}

size_t params_parse_uints(const char *key, const char *s, uint32_t min,
			  uint32_t max, const char *def, struct param_list *out,
			  const struct diag_sink *d)
{
	struct list_spec sp = {.key = key, .min = min, .max = max, .def = def};

	return list_parse(&sp, s, out, d);
}

size_t params_parse_pages(const char *s, struct param_list *out,
			  const struct diag_sink *d)
{
	return params_parse_uints("pages", s, 1, PARAM_PAGES_MAX,
				  PARAM_PAGES_DEFAULT, out, d);
}

static const char *const target_words[] = {"all", "auto", NULL};
static const uint32_t target_vals[] = {PARAM_TARGETS_ALL, PARAM_TARGETS_AUTO};

size_t params_parse_targets(const char *s, struct param_list *out,
			    const struct diag_sink *d)
{
	struct list_spec sp = {
		.key = "targets",
		.min = 1,
		.max = PARAM_TARGETS_MAX,
		.def = "auto",
		.words = target_words,
		.word_vals = target_vals,
	};

	return list_parse(&sp, s, out, d);
}

void params_default_targets(uint32_t responders, struct param_list *out)
{
	kmemset(out, 0, sizeof(*out));
	/* Leave room for `responders` itself at the end. */
	for (uint64_t p = 1; p <= responders && out->n < PARAM_LIST_MAX - 1;
	     p *= 2)
		out->v[out->n++] = (uint32_t)p;
	if (responders)
		list_add(out, responders);
}

size_t params_resolve_targets(const struct param_list *in, uint32_t responders,
			      struct param_list *out, const struct diag_sink *d)
{
	struct param_list def;
	bool full = false;
	size_t nd = 0;

	params_default_targets(responders, &def);
	if (!in->n || !responders) {
		*out = def;
		return 0;
	}
	kmemset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < in->n && i < PARAM_LIST_MAX; i++) {
		uint32_t v = in->v[i];

		for (uint32_t j = 0; v == PARAM_TARGETS_AUTO && j < def.n; j++)
			full |= list_add(out, def.v[j]) == ADD_FULL;
		if (v == PARAM_TARGETS_AUTO)
			continue;
		if (v == PARAM_TARGETS_ALL)
			v = responders;
		if (v > responders) {
			nd += diag(d, "targets",
				   "%u is more than the %u responder%s: "
				   "using %u",
				   (uint64_t)v, (uint64_t)responders,
				   responders == 1 ? "" : "s",
				   (uint64_t)responders);
			v = responders;
		}
		full |= list_add(out, v) == ADD_FULL;
	}
	if (full)
		nd += diag(d, "targets",
			   "more than %u responder counts: the rest skipped",
			   (uint64_t)PARAM_LIST_MAX);
	return nd;
}

const char *params_name(const struct param_names *t, size_t i)
{
	const char *name;

	if (!t || !t->base || i >= t->count)
		return NULL;
	/* The element type is the caller's: copy the pointer out bytewise. */
	kmemcpy(&name, (const char *)t->base + i * t->stride + t->offset,
		sizeof(name));
	return name;
}

static bool find_name(const struct param_names *t, const struct item *it,
		      uint32_t *idx)
{
	for (size_t i = 0; t && i < t->count && i < UINT32_MAX; i++) {
		const char *name = params_name(t, i);

		if (name && item_is(it, name)) {
			*idx = (uint32_t)i;
			return true;
		}
	}
	return false;
}

/* Every name in table order, as far as the list holds them. */
static void add_all(const struct param_names *t, struct param_list *out)
{
	for (size_t i = 0; t && i < t->count && out->n < PARAM_LIST_MAX; i++) {
		if (params_name(t, i))
			list_add(out, (uint32_t)i);
	}
}

static size_t unknown_diag(const char *key, const struct item *it,
			   const struct param_names *t, bool allow_none,
			   const struct diag_sink *d)
{
	char names[PARAM_DIAG_LEN];
	struct kbuf b;

	kbuf_init(&b, names, sizeof(names));
	kbuf_puts(&b, allow_none ? "all, none or " : "all or ");
	for (size_t i = 0, first = 1; t && i < t->count; i++) {
		const char *name = params_name(t, i);

		if (!name)
			continue;
		kbuf_puts(&b, first ? "" : "|");
		kbuf_puts(&b, name);
		first = 0;
	}
	return diag(d, key, "unknown name %q (expected %s): skipped", it,
		    names);
}

/* One item of a names list; returns the diagnostics, SIZE_MAX to stop. */
static size_t name_item(const char *key, const struct item *it,
			const struct param_names *t, bool allow_none,
			struct param_list *out, const struct diag_sink *d)
{
	uint32_t idx;

	if (item_is(it, "all")) {
		add_all(t, out);
		return 0;
	}
	if (allow_none && item_is(it, "none"))
		return diag(d, key,
			    "item %q is mixed with other names: skipped", it);
	if (!find_name(t, it, &idx))
		return unknown_diag(key, it, t, allow_none, d);
	switch (list_add(out, idx)) {
	case ADD_DUP:
		return diag(d, key, "item %q is repeated: skipped", it);
	case ADD_FULL:
		diag(d, key, "more than %u values: %q and the rest skipped",
		     (uint64_t)PARAM_LIST_MAX, it);
		return SIZE_MAX;
	case ADD_OK:
		break;
	}
	return 0;
}

size_t params_parse_names(const char *key, const char *s,
			  const struct param_names *names, bool allow_none,
			  struct param_list *out, const struct diag_sink *d)
{
	const char *p = s;
	struct item it;
	size_t nd = 0, n;

	kmemset(out, 0, sizeof(*out));
	if (!s || !*s) {
		add_all(names, out);
		return 0;
	}
	if (allow_none && !kstrcmp(s, "none"))
		return 0;
	while (next_item(&p, &it)) {
		if (!it.n) {
			nd += diag(d, key, "empty item in %Q: skipped", s);
			continue;
		}
		n = name_item(key, &it, names, allow_none, out, d);
		if (n == SIZE_MAX)
			return nd + 1;
		nd += n;
	}
	if (out->n)
		return nd;
	add_all(names, out);
	return nd + diag(d, key, "no valid name in %Q: using default 'all'", s);
}

static const char *const invlpgb_modes[] = {"auto", "off", "emulate", "force",
					    NULL};
static const char *const invlpgb_bugs[] = {
	"none", "count", "stride", "no-tlbsync", "no-global", "pcid", NULL};
#define BUG_WORDS "none|count|stride|no-tlbsync|no-global|pcid"

static int find_word(const char *const *words, const struct item *it)
{
	for (int i = 0; words[i]; i++) {
		if (item_is(it, words[i]))
			return i;
	}
	return -1;
}

/* The options after the mode: only bug=KIND so far. */
static size_t invlpgb_option(const struct item *it, struct param_invlpgb *r,
			     const struct diag_sink *d)
{
	struct item v;
	int i;

	if (it->n < 4 || kstrncmp(it->s, "bug=", 4))
		return diag(d, "invlpgb",
			    "item %q is not an option (expected "
			    "bug=" BUG_WORDS "): skipped",
			    it);
	v.s = it->s + 4;
	v.n = it->n - 4;
	i = find_word(invlpgb_bugs, &v);
	if (i < 0) {
		r->bug = PARAM_BUG_NONE;
		return diag(d, "invlpgb",
			    "unknown bug %q (expected " BUG_WORDS
			    "): using 'none'",
			    &v);
	}
	r->bug = (enum param_invlpgb_bug)i;
	return 0;
}

size_t params_parse_invlpgb(const char *s, struct param_invlpgb *out,
			    const struct diag_sink *d)
{
	struct param_invlpgb r = {PARAM_INVLPGB_AUTO, PARAM_BUG_NONE};
	const char *p = s;
	struct item it;
	size_t nd = 0;
	int i;

	if (s && *s && next_item(&p, &it)) {
		i = find_word(invlpgb_modes, &it);
		if (i < 0)
			nd += diag(d, "invlpgb",
				   "unknown mode %q (expected "
				   "auto|off|emulate|force): using 'auto'",
				   &it);
		else
			r.mode = (enum param_invlpgb_mode)i;
		while (next_item(&p, &it))
			nd += invlpgb_option(&it, &r, d);
	}
	if (r.mode == PARAM_INVLPGB_OFF && r.bug != PARAM_BUG_NONE) {
		nd += diag(d, "invlpgb",
			   "bug=%s has no effect with 'off': "
			   "ignored",
			   invlpgb_bugs[r.bug]);
		r.bug = PARAM_BUG_NONE;
	}
	*out = r;
	return nd;
}

const char *params_invlpgb_mode_name(enum param_invlpgb_mode mode)
{
	if ((unsigned int)mode > PARAM_INVLPGB_FORCE)
		return "?";
	return invlpgb_modes[mode];
}

const char *params_invlpgb_bug_name(enum param_invlpgb_bug bug)
{
	if ((unsigned int)bug > PARAM_BUG_PCID)
		return "?";
	return invlpgb_bugs[bug];
}

size_t params_parse_delay(const char *s, const struct param_names *strategies,
			  struct param_delay *out, const struct diag_sink *d)
{
	struct item name = {s, 0}, num;
	uint64_t v;

	*out = (struct param_delay){0};
	if (!s || !*s || !kstrcmp(s, "none"))
		return 0;
	while (s[name.n] && s[name.n] != ':')
		name.n++;
	if (!s[name.n])
		return diag(d, "delay_handler",
			    "%Q is not STRATEGY:CYCLES: no delay", s);
	if (!find_name(strategies, &name, &out->strategy))
		return diag(d, "delay_handler", "unknown strategy %q: no delay",
			    &name);
	num.s = s + name.n + 1;
	num.n = kstrlen(num.s);
	if (kparse_u64(num.s, num.n, &v) != KPARSE_OK || !v ||
	    v > PARAM_DELAY_MAX) {
		out->strategy = 0;
		return diag(d, "delay_handler",
			    "cycles %q is not a number in 1..%u: no delay",
			    &num, PARAM_DELAY_MAX);
	}
	out->on = true;
	out->cycles = v;
	return 0;
}

size_t params_list_format(const struct param_list *l, char *buf, size_t size)
{
	size_t len = 0;

	for (uint32_t i = 0; i < l->n && i < PARAM_LIST_MAX; i++) {
		char num[12], *p = num + sizeof(num) - 1;
		uint32_t v = l->v[i];

		*p = '\0';
		do {
			*--p = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		if (l->v[i] == PARAM_TARGETS_ALL)
			p = "all";
		else if (l->v[i] == PARAM_TARGETS_AUTO)
			p = "auto";
		for (const char *c = i ? "," : ""; *c || *p; len++) {
			char ch = *c ? *c++ : *p++;

			if (len + 1 < size)
				buf[len] = ch;
		}
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return len;
}
