// SPDX-License-Identifier: MIT
/*
 * List options, OPT_LIST_UINT and OPT_LIST_NAME (see cmdline.h).
 *
 * Each item is checked on its own, so one typo costs one value, not the
 * whole list. Notes name the item alone: cmdline.c puts the word in front.
 */
#include "lib/cmdline_value.h"

#define ITEM_SHOW 24 /* bytes of an item quoted in a note */

/* Shared with lib/cmdline.c (cmdline_value.h): a number and a choice list. */
bool cmdline_uint_in(const struct cmdline_opt *opt, const char *s, size_t n,
		     uint64_t *out, struct kbuf *why)
{
	enum kparse_err e = kparse_u64(s, n, out);

	if (e == KPARSE_OK && *out >= opt->min && *out <= opt->max)
		return true;
	kbuf_puts(why, e == KPARSE_INVALID ? "expected a number in "
					   : "out of range ");
	kbuf_u64(why, opt->min);
	kbuf_puts(why, "..");
	kbuf_u64(why, opt->max);
	if (e == KPARSE_INVALID && opt->choices) {
		kbuf_puts(why, " or ");
		cmdline_put_choices(why, opt->choices);
	}
	return false;
}

void cmdline_put_choices(struct kbuf *b, const char *const *choices)
{
	for (size_t i = 0; choices && choices[i]; i++) {
		if (i)
			kbuf_puts(b, "|");
		kbuf_puts(b, choices[i]);
	}
}

enum add_result { ADD_OK, ADD_DUP, ADD_FULL };

bool cmdline_next_item(const char **p, struct cmdline_item *it)
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

bool cmdline_item_is(const struct cmdline_item *it, const char *word)
{
	return kstrlen(word) == it->n && !kstrncmp(it->s, word, it->n);
}

static enum add_result list_add(struct cmdline_list *l, uint32_t v)
{
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->v[i] == v)
			return ADD_DUP;
	}
	if (l->n >= CMDLINE_LIST_MAX)
		return ADD_FULL;
	l->v[l->n++] = v;
	return ADD_OK;
}

void cmdline_put_item(struct kbuf *b, const struct cmdline_item *it)
{
	kbuf_puts(b, "'");
	kbuf_putn(b, it->s, it->n, ITEM_SHOW);
	kbuf_puts(b, "'");
}

static void emit(const struct diag_sink *note, const struct kbuf *b)
{
	if (note && note->emit)
		note->emit(note->ctx, b->buf);
}

/* `all`: every name in table order, as far as the list holds them. */
static void add_all(const struct cmdline_opt *opt, struct cmdline_list *out)
{
	for (uint32_t i = 0; opt->choices[i] && out->n < CMDLINE_LIST_MAX; i++)
		list_add(out, i);
}

static bool uint_value(const struct cmdline_opt *opt,
		       const struct cmdline_item *it, uint32_t *v,
		       struct kbuf *why)
{
	uint64_t u;

	for (size_t i = 0; opt->choices && opt->choices[i]; i++) {
		if (cmdline_item_is(it, opt->choices[i])) {
			*v = opt->values[i];
			return true;
		}
	}
	if (!cmdline_uint_in(opt, it->s, it->n, &u, why))
		return false;
	*v = (uint32_t)u;
	return true;
}

static bool name_value(const struct cmdline_opt *opt,
		       const struct cmdline_item *it, uint32_t *v,
		       struct kbuf *why)
{
	if (opt->none && cmdline_item_is(it, "none")) {
		kbuf_puts(why, "mixed with other names");
		return false;
	}
	for (uint32_t i = 0; opt->choices[i]; i++) {
		if (cmdline_item_is(it, opt->choices[i])) {
			*v = i;
			return true;
		}
	}
	kbuf_puts(why, opt->none ? "expected all|none|" : "expected all|");
	cmdline_put_choices(why, opt->choices);
	return false;
}

/* One item into out; false once the list is full (the rest is skipped). */
static bool take_item(const struct cmdline_opt *opt,
		      const struct cmdline_item *it, struct cmdline_list *out,
		      const struct diag_sink *note)
{
	char msg[CMDLINE_DIAG_LEN];
	struct kbuf b;
	uint32_t v;
	bool ok;

	kbuf_init(&b, msg, sizeof(msg));
	if (!it->n) {
		kbuf_puts(&b, "empty item: skipped");
		emit(note, &b);
		return true;
	}
	if (opt->kind == OPT_LIST_NAME && cmdline_item_is(it, "all")) {
		add_all(opt, out);
		return true;
	}
	kbuf_puts(&b, "item ");
	cmdline_put_item(&b, it);
	kbuf_puts(&b, ": ");
	ok = opt->kind == OPT_LIST_NAME ? name_value(opt, it, &v, &b)
					: uint_value(opt, it, &v, &b);
	if (!ok) {
		kbuf_puts(&b, ": skipped");
		emit(note, &b);
		return true;
	}
	switch (list_add(out, v)) {
	case ADD_OK:
		return true;
	case ADD_DUP:
		kbuf_puts(&b, "repeated: skipped");
		emit(note, &b);
		return true;
	case ADD_FULL:
		break;
	}
	kbuf_puts(&b, "list full (");
	kbuf_u64(&b, CMDLINE_LIST_MAX);
	kbuf_puts(&b, " items): skipped with the rest");
	emit(note, &b);
	return false;
}

bool cmdline_parse_list(const struct cmdline_opt *opt, const char *val,
			struct cmdline_list *out, const struct diag_sink *note)
{
	const char *p = val;
	struct cmdline_item it;

	kmemset(out, 0, sizeof(*out));
	if (!val)
		return false;
	if (opt->kind == OPT_LIST_NAME && opt->none && !kstrcmp(val, "none"))
		return true;
	while (cmdline_next_item(&p, &it)) {
		if (!take_item(opt, &it, out, note))
			break;
	}
	return out->n > 0;
}
