// SPDX-License-Identifier: MIT
/*
 * The experiments' parameters (see params.h).
 *
 * Lists are comma-separated items. Each item is checked on its own, so one
 * typo costs one value, not the whole list; and a list left with nothing
 * valid falls back to its default, said out loud, rather than to an empty
 * run that would look like a pass.
 */
#include "params.h"
#include "kernel/kstring.h"

#define ITEM_SHOW 24 /* bytes of an item quoted in a diagnostic */
#define LIST_SHOW 40 /* bytes of a whole list quoted in a diagnostic */

/* What a list item may be besides a number: a word for a special value. */
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

/*
 * Emits one diagnostic, "params: KEY: " then fmt, where %s is a string, %u
 * a uint64_t, %q an item (const struct item *) and %Q a whole list (const
 * char *), both quoted, shortened and escaped by kbuf so that the message
 * is printable ASCII whatever the input. Returns 1, the diagnostic count.
 */
static size_t diag(const struct param_diag *d, const char *key,
		   const char *fmt, ...)
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
		switch (*++fmt) {
		case 's':
			kbuf_puts(&b, va_arg(ap, const char *));
			break;
		case 'u':
			kbuf_u64(&b, va_arg(ap, uint64_t));
			break;
		case 'q':
			it = va_arg(ap, const struct item *);
			kbuf_puts(&b, "'");
			kbuf_putn(&b, it->s, it->n, ITEM_SHOW);
			kbuf_puts(&b, "'");
			break;
		case 'Q':
			kbuf_puts(&b, "'");
			kbuf_putn(&b, va_arg(ap, const char *), SIZE_MAX,
				  LIST_SHOW);
			kbuf_puts(&b, "'");
			break;
		default: /* a bug in a format here: show it */
			kbuf_puts(&b, "%?");
			fmt -= !*fmt;
			break;
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

enum value_result { VALUE_OK, VALUE_NAN, VALUE_RANGE };

/* One item of a number list: a special word or a number in range. */
static enum value_result list_value(const struct list_spec *sp,
				    const struct item *it, uint32_t *v)
{
	uint64_t u;
	enum kparse_err e;

	for (size_t i = 0; sp->words && sp->words[i]; i++) {
		if (item_is(it, sp->words[i])) {
			*v = sp->word_vals[i];
			return VALUE_OK;
		}
	}
	e = kparse_u64(it->s, it->n, &u);
	if (e == KPARSE_INVALID)
		return VALUE_NAN;
	if (e == KPARSE_OVERFLOW || u < sp->min || u > sp->max)
		return VALUE_RANGE;
	*v = (uint32_t)u;
	return VALUE_OK;
}

static size_t value_diag(const struct list_spec *sp, const struct item *it,
			 enum value_result r, const struct param_diag *d)
{
	struct msg m;

	msg_start(&m, sp->key);
	kbuf_puts(&m.b, "item ");
	msg_quote(&m, it->s, it->n, ITEM_SHOW);
	if (r == VALUE_NAN) {
		kbuf_puts(&m.b, " is not a number");
	} else {
		kbuf_puts(&m.b, " is out of range ");
		kbuf_u64(&m.b, sp->min);
		kbuf_puts(&m.b, "..");
		kbuf_u64(&m.b, sp->max);
	}
	kbuf_puts(&m.b, ": skipped");
	return msg_emit(&m, d);
}

/* Adds every valid item of s to out; returns the diagnostics. */
static size_t list_items(const struct list_spec *sp, const char *s,
			 struct param_list *out, const struct param_diag *d)
{
	const char *p = s;
	struct item it;
	size_t nd = 0;

	while (next_item(&p, &it)) {
		enum value_result r;
		uint32_t v;

		if (!it.n) {
			nd += empty_diag(sp->key, s, d);
			continue;
		}
		r = list_value(sp, &it, &v);
		if (r != VALUE_OK) {
			nd += value_diag(sp, &it, r, d);
			continue;
		}
		switch (list_add(out, v)) {
		case ADD_DUP:
			nd += item_diag(sp->key, &it, " is repeated", d);
			break;
		case ADD_FULL:
			return nd + full_diag(sp->key, &it, d);
		case ADD_OK:
			break;
		}
	}
	return nd;
}

static size_t list_parse(const struct list_spec *sp, const char *s,
			 struct param_list *out, const struct param_diag *d)
{
	size_t nd = 0;

	kmemset(out, 0, sizeof(*out));
	if (s && *s)
		nd = list_items(sp, s, out, d);
	if (out->n || !sp->def)
		return nd;
	if (s && *s)
		nd += fallback_diag(sp->key, "no valid value in ", s, sp->def,
				    d);
	list_items(sp, sp->def, out, NULL);
	return nd;
}

size_t params_parse_uints(const char *key, const char *s, uint32_t min,
			  uint32_t max, const char *def, struct param_list *out,
			  const struct param_diag *d)
{
	struct list_spec sp = {.key = key, .min = min, .max = max, .def = def};

	return list_parse(&sp, s, out, d);
}

size_t params_parse_pages(const char *s, struct param_list *out,
			  const struct param_diag *d)
{
	return params_parse_uints("pages", s, 1, PARAM_PAGES_MAX,
				  PARAM_PAGES_DEFAULT, out, d);
}

static const char *const target_words[] = {"all", "auto", NULL};
static const uint32_t target_vals[] = {PARAM_TARGETS_ALL, PARAM_TARGETS_AUTO};

size_t params_parse_targets(const char *s, struct param_list *out,
			    const struct param_diag *d)
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

static size_t clamp_diag(uint32_t v, uint32_t responders,
			 const struct param_diag *d)
{
	struct msg m;

	msg_start(&m, "targets");
	kbuf_u64(&m.b, v);
	kbuf_puts(&m.b, " is more than the ");
	kbuf_u64(&m.b, responders);
	kbuf_puts(&m.b, responders == 1 ? " responder" : " responders");
	kbuf_puts(&m.b, ": using ");
	kbuf_u64(&m.b, responders);
	return msg_emit(&m, d);
}

static size_t resolved_full_diag(const struct param_diag *d)
{
	struct msg m;

	msg_start(&m, "targets");
	kbuf_puts(&m.b, "more than ");
	kbuf_u64(&m.b, PARAM_LIST_MAX);
	kbuf_puts(&m.b, " responder counts: the rest skipped");
	return msg_emit(&m, d);
}

size_t params_resolve_targets(const struct param_list *in, uint32_t responders,
			      struct param_list *out,
			      const struct param_diag *d)
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

		if (v == PARAM_TARGETS_AUTO) {
			for (uint32_t j = 0; j < def.n; j++)
				full |= list_add(out, def.v[j]) == ADD_FULL;
			continue;
		}
		if (v == PARAM_TARGETS_ALL) {
			v = responders;
		} else if (v > responders) {
			nd += clamp_diag(v, responders, d);
			v = responders;
		}
		full |= list_add(out, v) == ADD_FULL;
	}
	return full ? nd + resolved_full_diag(d) : nd;
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
	for (size_t i = 0; t && i < t->count && i <= UINT32_MAX; i++) {
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
			   const struct param_diag *d)
{
	struct msg m;
	bool first = true;

	msg_start(&m, key);
	kbuf_puts(&m.b, "unknown name ");
	msg_quote(&m, it->s, it->n, ITEM_SHOW);
	kbuf_puts(&m.b, allow_none ? " (expected all, none or "
				   : " (expected all or ");
	for (size_t i = 0; t && i < t->count; i++) {
		const char *name = params_name(t, i);

		if (!name)
			continue;
		kbuf_puts(&m.b, first ? "" : "|");
		kbuf_puts(&m.b, name);
		first = false;
	}
	kbuf_puts(&m.b, "): skipped");
	return msg_emit(&m, d);
}

/* One item of a names list; returns the diagnostics (SIZE_MAX: stop). */
static size_t name_item(const char *key, const struct item *it,
			const struct param_names *t, bool allow_none,
			struct param_list *out, const struct param_diag *d)
{
	uint32_t idx;

	if (item_is(it, "all")) {
		add_all(t, out);
		return 0;
	}
	if (allow_none && item_is(it, "none"))
		return item_diag(key, it, " is mixed with other names", d);
	if (!find_name(t, it, &idx))
		return unknown_diag(key, it, t, allow_none, d);
	switch (list_add(out, idx)) {
	case ADD_DUP:
		return item_diag(key, it, " is repeated", d);
	case ADD_FULL:
		full_diag(key, it, d);
		return SIZE_MAX;
	case ADD_OK:
		break;
	}
	return 0;
}

size_t params_parse_names(const char *key, const char *s,
			  const struct param_names *names, bool allow_none,
			  struct param_list *out, const struct param_diag *d)
{
	const char *p = s;
	struct item it;
	size_t nd = 0;

	kmemset(out, 0, sizeof(*out));
	if (!s || !*s) {
		add_all(names, out);
		return 0;
	}
	if (allow_none && !kstrcmp(s, "none"))
		return 0;
	while (next_item(&p, &it)) {
		size_t n;

		if (!it.n) {
			nd += empty_diag(key, s, d);
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
	return nd + fallback_diag(key, "no valid name in ", s, "all", d);
}

static const char *const invlpgb_modes[] = {"auto", "off", "emulate", "force",
					    NULL};
static const char *const invlpgb_bugs[] = {"none", "count", "stride", NULL};

static int find_word(const char *const *words, const struct item *it)
{
	for (int i = 0; words[i]; i++) {
		if (item_is(it, words[i]))
			return i;
	}
	return -1;
}

/* "params: invlpgb: unknown WHAT 'X' (expected a|b|c): using 'DEF'" */
static size_t choice_diag(const char *what, const struct item *it,
			  const char *const *words, const struct param_diag *d)
{
	struct msg m;

	msg_start(&m, "invlpgb");
	kbuf_puts(&m.b, "unknown ");
	kbuf_puts(&m.b, what);
	kbuf_puts(&m.b, " ");
	msg_quote(&m, it->s, it->n, ITEM_SHOW);
	kbuf_puts(&m.b, " (expected ");
	for (int i = 0; words[i]; i++) {
		kbuf_puts(&m.b, i ? "|" : "");
		kbuf_puts(&m.b, words[i]);
	}
	kbuf_puts(&m.b, "): using '");
	kbuf_puts(&m.b, words[0]);
	kbuf_puts(&m.b, "'");
	return msg_emit(&m, d);
}

/* The options after the mode: only bug=KIND so far. */
static size_t invlpgb_option(const struct item *it, struct param_invlpgb *r,
			     const struct param_diag *d)
{
	struct item v = {it->s + 4, it->n - 4};
	int i;

	if (it->n < 4 || kstrncmp(it->s, "bug=", 4))
		return item_diag("invlpgb", it,
				 " is not an option (expected "
				 "bug=none|count|stride)",
				 d);
	i = find_word(invlpgb_bugs, &v);
	if (i < 0) {
		r->bug = PARAM_BUG_NONE;
		return choice_diag("bug", &v, invlpgb_bugs, d);
	}
	r->bug = (enum param_invlpgb_bug)i;
	return 0;
}

size_t params_parse_invlpgb(const char *s, struct param_invlpgb *out,
			    const struct param_diag *d)
{
	struct param_invlpgb r = {PARAM_INVLPGB_AUTO, PARAM_BUG_NONE};
	const char *p = s;
	struct item it;
	size_t nd = 0;
	int i;

	if (s && *s && next_item(&p, &it)) {
		i = find_word(invlpgb_modes, &it);
		if (i < 0)
			nd += choice_diag("mode", &it, invlpgb_modes, d);
		else
			r.mode = (enum param_invlpgb_mode)i;
		while (next_item(&p, &it))
			nd += invlpgb_option(&it, &r, d);
	}
	if (r.mode == PARAM_INVLPGB_OFF && r.bug != PARAM_BUG_NONE) {
		struct msg m;

		msg_start(&m, "invlpgb");
		kbuf_puts(&m.b, "bug=");
		kbuf_puts(&m.b, invlpgb_bugs[r.bug]);
		kbuf_puts(&m.b, " has no effect with 'off': ignored");
		nd += msg_emit(&m, d);
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
	if ((unsigned int)bug > PARAM_BUG_STRIDE)
		return "?";
	return invlpgb_bugs[bug];
}

static uint32_t clamp_u32(uint64_t v, uint32_t min, uint32_t max)
{
	return v < min ? min : v > max ? max : (uint32_t)v;
}

size_t params_from_config(const struct config *cfg,
			  const struct param_names *benches,
			  const struct param_names *strategies,
			  struct bench_params *out, const struct param_diag *d)
{
	size_t nd = 0;

	kmemset(out, 0, sizeof(*out));
	nd += params_parse_names("bench", cfg->bench, benches, true,
				 &out->bench, d);
	nd += params_parse_names("strategies", cfg->strategies, strategies,
				 false, &out->strategies, d);
	nd += params_parse_pages(cfg->pages, &out->pages, d);
	nd += params_parse_targets(cfg->targets, &out->targets, d);
	nd += params_parse_invlpgb(cfg->invlpgb, &out->invlpgb, d);
	/* cmdline.c checked the ranges; this only guards a zeroed config. */
	out->samples = clamp_u32(cfg->samples, 1, PARAM_SAMPLES_MAX);
	out->warmup = clamp_u32(cfg->warmup, 0, PARAM_WARMUP_MAX);
	out->seed = cfg->seed;
	return nd;
}

struct out_text {
	char *buf;
	size_t size, len;
};

static void out_puts(struct out_text *o, const char *s)
{
	for (; *s; s++, o->len++) {
		if (o->len + 1 < o->size)
			o->buf[o->len] = *s;
	}
}

size_t params_list_format(const struct param_list *l, char *buf, size_t size)
{
	struct out_text o = {buf, size, 0};

	for (uint32_t i = 0; i < l->n && i < PARAM_LIST_MAX; i++) {
		char num[12], *p = num + sizeof(num) - 1;
		uint32_t v = l->v[i];

		*p = '\0';
		do {
			*--p = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		out_puts(&o, i ? "," : "");
		if (l->v[i] == PARAM_TARGETS_ALL)
			p = "all";
		else if (l->v[i] == PARAM_TARGETS_AUTO)
			p = "auto";
		out_puts(&o, p);
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}
