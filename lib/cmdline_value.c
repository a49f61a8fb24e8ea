// SPDX-License-Identifier: MIT
/*
 * A command-line value, typed (see cmdline_value.h): each kind's parse
 * and the options' defaults. A value is parsed into a temporary first and
 * only stored when it is valid, so a rejected word leaves the field as it
 * was. OPT_CUSTOM parsers must follow the same rule: leave dst untouched
 * when they return false; those that take part of a value (parse_notes)
 * never reject it, and report through note.
 */
#include "lib/cmdline_value.h"

static const char flag_expect[] = "expected 1|0|yes|no|on|off|true|false";

static void *field(const struct cmdline_opt *opt, void *cfg)
{
	return (char *)cfg + opt->offset;
}

static bool parse_flag(const char *val, bool *out)
{
	static const char *const on[] = {"1", "yes", "on", "true"};
	static const char *const off[] = {"0", "no", "off", "false"};

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		if (!kstrcmp(val, on[i]) || !kstrcmp(val, off[i])) {
			*out = !kstrcmp(val, on[i]);
			return true;
		}
	}
	return false;
}

static bool parse_choice(const struct cmdline_opt *opt, const char *val,
			 int *out, struct kbuf *why)
{
	const char *const *c = opt->choices;

	for (int i = 0; c && c[i]; i++) {
		if (!kstrcmp(val, c[i])) {
			*out = i;
			return true;
		}
	}
	kbuf_puts(why, "expected ");
	cmdline_put_choices(why, c);
	return false;
}

/* OPT_STRING's field, and a custom or list value's longest if it has one. */
static bool too_long(const struct cmdline_opt *opt, size_t len,
		     struct kbuf *why)
{
	if (opt->kind == OPT_STRING ? opt->size && len < opt->size
				    : !opt->size || len < opt->size)
		return false;
	kbuf_puts(why, "longer than ");
	kbuf_u64(why, opt->size ? opt->size - 1 : 0);
	kbuf_puts(why, " bytes");
	return true;
}

static bool apply_custom(const struct cmdline_opt *opt, const char *val,
			 void *dst, struct kbuf *why,
			 const struct diag_sink *note)
{
	if (too_long(opt, kstrlen(val), why))
		return false;
	if (opt->parse_notes) {
		opt->parse_notes(val, dst, note);
		return true;
	}
	if (opt->parse && opt->parse(val, dst, why->buf, why->cap))
		return true;
	if (!opt->parse)
		kbuf_puts(why, "no parser for this key");
	return false;
}

/* A list with no valid item is rejected: the option keeps what it had. */
static bool apply_list(const struct cmdline_opt *opt, const char *val,
		       void *dst, struct kbuf *why,
		       const struct diag_sink *note)
{
	struct cmdline_list l;

	if (too_long(opt, kstrlen(val), why))
		return false;
	if (!cmdline_parse_list(opt, val, &l, note)) {
		kbuf_puts(why, "no valid item");
		return false;
	}
	kmemcpy(dst, &l, sizeof(l));
	return true;
}

bool cmdline_apply_value(const struct cmdline_opt *opt, const char *val,
			 void *cfg, struct kbuf *why,
			 const struct diag_sink *note)
{
	void *dst = field(opt, cfg);
	size_t len = kstrlen(val);
	uint64_t u;
	bool b;
	int idx;

	switch (opt->kind) {
	case OPT_FLAG:
		if (!parse_flag(val, &b)) {
			kbuf_puts(why, flag_expect);
			return false;
		}
		*(bool *)dst = b;
		return true;
	case OPT_UINT:
		if (!cmdline_uint_in(opt, val, len, &u, why))
			return false;
		*(uint64_t *)dst = u;
		return true;
	case OPT_CHOICE:
		if (!parse_choice(opt, val, &idx, why))
			return false;
		*(int *)dst = idx;
		return true;
	case OPT_STRING:
		if (too_long(opt, len, why))
			return false;
		kmemcpy(dst, val, len + 1);
		return true;
	case OPT_CUSTOM:
		return apply_custom(opt, val, dst, why, note);
	case OPT_LIST_UINT:
	case OPT_LIST_NAME:
		return apply_list(opt, val, dst, why, note);
	}
	return false;
}

static void set_zero(const struct cmdline_opt *opt, void *cfg)
{
	void *dst = field(opt, cfg);

	switch (opt->kind) {
	case OPT_FLAG:
		*(bool *)dst = false;
		break;
	case OPT_UINT:
		*(uint64_t *)dst = opt->min;
		break;
	case OPT_CHOICE:
		*(int *)dst = 0;
		break;
	case OPT_STRING:
		if (opt->size)
			*(char *)dst = '\0';
		break;
	case OPT_CUSTOM:
		break; /* size unknown: only its default can set it */
	case OPT_LIST_UINT:
	case OPT_LIST_NAME:
		kmemset(dst, 0, sizeof(struct cmdline_list));
		break;
	}
}

void cmdline_defaults(const struct cmdline_opt *opts, size_t nopts, void *cfg)
{
	char whybuf[CMDLINE_WHY_LEN];
	struct kbuf why;

	for (size_t i = 0; i < nopts; i++) {
		kbuf_init(&why, whybuf, sizeof(whybuf));
		if (!opts[i].def || !cmdline_apply_value(&opts[i], opts[i].def,
							 cfg, &why, NULL))
			set_zero(&opts[i], cfg);
	}
}
