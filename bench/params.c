// SPDX-License-Identifier: MIT
/*
 * The experiments' parameters (see params.h): the values lib/cmdline's
 * kinds do not describe, and targets= resolved against the machine.
 */
#include "params.h"
#include "lib/kstring.h"

#define WORD_SHOW 40 /* bytes of a word quoted, as lib/cmdline.c does */

/* Passes a finished note on; returns 1, one diagnostic. */
static size_t emit(const struct diag_sink *d, const struct kbuf *b)
{
	if (d && d->emit)
		d->emit(d->ctx, b->buf);
	return 1;
}

static int find_word(const char *const *words, const struct cmdline_item *it)
{
	for (int i = 0; words[i]; i++) {
		if (cmdline_item_is(it, words[i]))
			return i;
	}
	return -1;
}

/* Adds v unless it is there; false if the list is full. */
static bool list_add(struct cmdline_list *l, uint32_t v)
{
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->v[i] == v)
			return true;
	}
	if (l->n >= PARAM_LIST_MAX)
		return false;
	l->v[l->n++] = v;
	return true;
}

void params_default_targets(uint32_t responders, struct cmdline_list *out)
{
	kmemset(out, 0, sizeof(*out));
	/* Leave room for `responders` itself at the end. */
	for (uint64_t p = 1; p <= responders && out->n < PARAM_LIST_MAX - 1;
	     p *= 2)
		out->v[out->n++] = (uint32_t)p;
	if (responders)
		list_add(out, responders);
}

/*
 * "cmdline: 'targets=LIST': ", as lib/cmdline words a note on a word: the
 * run-time half of the same key's diagnostics.
 */
static void targets_begin(struct kbuf *b, const struct cmdline_list *in)
{
	static const char key[] = "targets=";
	char word[sizeof(key) + PARAM_DIAG_LEN];

	kmemcpy(word, key, sizeof(key) - 1);
	params_list_format(in, word + sizeof(key) - 1,
			   sizeof(word) - sizeof(key) + 1);
	kbuf_puts(b, "cmdline: '");
	kbuf_putn(b, word, SIZE_MAX, WORD_SHOW);
	kbuf_puts(b, "': ");
}

static size_t too_many(const struct cmdline_list *in, uint32_t v,
		       uint32_t responders, const struct diag_sink *d)
{
	char msg[PARAM_DIAG_LEN];
	struct kbuf b;

	kbuf_init(&b, msg, sizeof(msg));
	targets_begin(&b, in);
	kbuf_puts(&b, "item '");
	kbuf_u64(&b, v);
	kbuf_puts(&b, "': more than the ");
	kbuf_u64(&b, responders);
	kbuf_puts(&b, responders == 1 ? " responder: using "
				      : " responders: "
					"using ");
	kbuf_u64(&b, responders);
	return emit(d, &b);
}

static size_t full(const struct cmdline_list *in, const struct diag_sink *d)
{
	char msg[PARAM_DIAG_LEN];
	struct kbuf b;

	kbuf_init(&b, msg, sizeof(msg));
	targets_begin(&b, in);
	kbuf_puts(&b, "more than ");
	kbuf_u64(&b, PARAM_LIST_MAX);
	kbuf_puts(&b, " responder counts: the rest skipped");
	return emit(d, &b);
}

size_t params_resolve_targets(const struct cmdline_list *in,
			      uint32_t responders, struct cmdline_list *out,
			      const struct diag_sink *d)
{
	struct cmdline_list def;
	bool fits = true;
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
			fits &= list_add(out, def.v[j]);
		if (v == PARAM_TARGETS_AUTO)
			continue;
		if (v == PARAM_TARGETS_ALL)
			v = responders;
		if (v > responders) {
			nd += too_many(in, v, responders, d);
			v = responders;
		}
		fits &= list_add(out, v);
	}
	if (!fits)
		nd += full(in, d);
	return nd;
}

static const char *const invlpgb_modes[] = {"auto", "off", "emulate", "force",
					    NULL};
static const char *const invlpgb_bugs[] = {
	"none", "count", "stride", "no-tlbsync", "no-global", "pcid", NULL};

/* "expected a|b|c" */
static void put_expected(struct kbuf *b, const char *prefix,
			 const char *const *words)
{
	kbuf_puts(b, "expected ");
	kbuf_puts(b, prefix);
	for (size_t i = 0; words[i]; i++) {
		kbuf_puts(b, i ? "|" : "");
		kbuf_puts(b, words[i]);
	}
}

static size_t invlpgb_mode(const struct cmdline_item *it,
			   struct param_invlpgb *r, const struct diag_sink *d)
{
	char msg[PARAM_DIAG_LEN];
	int i = find_word(invlpgb_modes, it);
	struct kbuf b;

	if (i >= 0) {
		r->mode = (enum param_invlpgb_mode)i;
		return 0;
	}
	kbuf_init(&b, msg, sizeof(msg));
	kbuf_puts(&b, "mode ");
	cmdline_put_item(&b, it);
	kbuf_puts(&b, ": ");
	put_expected(&b, "", invlpgb_modes);
	kbuf_puts(&b, ": using 'auto'");
	return emit(d, &b);
}

/* The options after the mode: only bug=KIND so far. */
static size_t invlpgb_option(const struct cmdline_item *it,
			     struct param_invlpgb *r, const struct diag_sink *d)
{
	char msg[PARAM_DIAG_LEN];
	struct cmdline_item v;
	struct kbuf b;
	int i;

	kbuf_init(&b, msg, sizeof(msg));
	if (it->n < 4 || kstrncmp(it->s, "bug=", 4)) {
		kbuf_puts(&b, "item ");
		cmdline_put_item(&b, it);
		kbuf_puts(&b, ": ");
		put_expected(&b, "bug=", invlpgb_bugs);
		kbuf_puts(&b, ": skipped");
		return emit(d, &b);
	}
	v.s = it->s + 4;
	v.n = it->n - 4;
	i = find_word(invlpgb_bugs, &v);
	r->bug = i < 0 ? PARAM_BUG_NONE : (enum param_invlpgb_bug)i;
	if (i >= 0)
		return 0;
	kbuf_puts(&b, "bug ");
	cmdline_put_item(&b, &v);
	kbuf_puts(&b, ": ");
	put_expected(&b, "", invlpgb_bugs);
	kbuf_puts(&b, ": using 'none'");
	return emit(d, &b);
}

/* A bug injected into no INVLPGB at all would look like a pass. */
static size_t invlpgb_off_bug(struct param_invlpgb *r,
			      const struct diag_sink *d)
{
	char msg[PARAM_DIAG_LEN];
	struct kbuf b;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_puts(&b, "bug=");
	kbuf_puts(&b, invlpgb_bugs[r->bug]);
	kbuf_puts(&b, ": no effect with 'off': ignored");
	r->bug = PARAM_BUG_NONE;
	return emit(d, &b);
}

size_t params_parse_invlpgb(const char *s, struct param_invlpgb *out,
			    const struct diag_sink *d)
{
	struct param_invlpgb r = {PARAM_INVLPGB_AUTO, PARAM_BUG_NONE};
	const char *p = s;
	struct cmdline_item it;
	size_t nd = 0;

	if (s && *s && cmdline_next_item(&p, &it)) {
		nd += invlpgb_mode(&it, &r, d);
		while (cmdline_next_item(&p, &it))
			nd += invlpgb_option(&it, &r, d);
	}
	if (r.mode == PARAM_INVLPGB_OFF && r.bug != PARAM_BUG_NONE)
		nd += invlpgb_off_bug(&r, d);
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

bool params_parse_delay(const char *s, const char *const *strategies,
			struct param_delay *out, char *why, size_t whylen)
{
	struct cmdline_item name = {s, 0}, num;
	struct kbuf b;
	uint64_t v;
	int i;

	kbuf_init(&b, why, whylen);
	if (!kstrcmp(s, "none")) {
		*out = (struct param_delay){0};
		return true;
	}
	while (s[name.n] && s[name.n] != ':')
		name.n++;
	if (!s[name.n]) {
		kbuf_puts(&b, "expected none or STRATEGY:CYCLES");
		return false;
	}
	i = find_word(strategies, &name);
	if (i < 0) {
		kbuf_puts(&b, "strategy ");
		cmdline_put_item(&b, &name);
		kbuf_puts(&b, ": ");
		put_expected(&b, "", strategies);
		return false;
	}
	num.s = s + name.n + 1;
	num.n = kstrlen(num.s);
	if (kparse_u64(num.s, num.n, &v) != KPARSE_OK || !v ||
	    v > PARAM_DELAY_MAX) {
		kbuf_puts(&b, "cycles ");
		cmdline_put_item(&b, &num);
		kbuf_puts(&b, ": expected a number in 1..");
		kbuf_u64(&b, PARAM_DELAY_MAX);
		return false;
	}
	*out = (struct param_delay){true, (uint32_t)i, v};
	return true;
}

size_t params_list_format(const struct cmdline_list *l, char *buf, size_t size)
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
