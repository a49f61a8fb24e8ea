// SPDX-License-Identifier: MIT
/*
 * Kernel command line parser (see cmdline.h).
 *
 * The line comes from the boot loader and may hold anything, so it is read
 * one byte at a time up to its NUL and each word is checked (length,
 * printable bytes) before any part of it is interpreted; its value is then
 * parsed and stored by lib/cmdline_value.c, only when it is valid. The
 * notes of parsers that take part of a value (parse_notes), and those of
 * the lists (cmdline_list.c), join the diagnostics with the word in front,
 * in the order the words came.
 *
 * Words are numbered from 1 in diagnostics, not counting a skipped image
 * path, so that "word 2" is the second argument as the user typed it.
 */
#include "lib/cmdline_value.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const struct cmdline_opt *cmdline_find(const struct cmdline_opt *opts,
				       size_t nopts, const char *key,
				       size_t keylen)
{
	for (size_t i = 0; i < nopts; i++) {
		const char *k = opts[i].key;

		if (kstrnlen(k, keylen + 1) == keylen &&
		    !kstrncmp(k, key, keylen))
			return &opts[i];
	}
	return NULL;
}

static void mark_set(struct parse_state *st, const struct opt_ref *r,
		     const struct cmdline_word *w)
{
	struct cmdline_word *last = cmdline_last(st, r);

	if (r->idx < CMDLINE_OPTS_MAX)
		st->set[r->ti][r->idx / 64] |= 1ull << (r->idx % 64);
	if (last && st->quiet)
		*last = *w;
}

/* The first table that has the key. */
static bool find_opt(struct parse_state *st, const char *key, size_t keylen,
		     struct opt_ref *r)
{
	for (r->ti = 0; keylen && r->ti < st->nt; r->ti++) {
		const struct cmdline_table *t = &st->t[r->ti];

		r->opt = cmdline_find(t->opts, t->nopts, key, keylen);
		if (r->opt) {
			r->idx = (size_t)(r->opt - t->opts);
			return true;
		}
	}
	return false;
}

/*
 * What a word rejected before its value is read leaves: "ignored", and
 * where its key is known, what applies for that key.
 */
static void put_ignored(struct parse_state *st, const char *w, size_t n,
			struct kbuf *b)
{
	struct opt_ref ref;
	size_t klen = 0;

	while (klen < n && w[klen] != '=')
		klen++;
	kbuf_puts(b, "ignored");
	if (find_opt(st, w, klen, &ref)) {
		kbuf_puts(b, ", ");
		cmdline_put_action(b, st, &ref);
	}
}

/* Rejects words that are too long or hold non-printable bytes. */
static bool check_word(struct parse_state *st, const struct cmdline_word *cw)
{
	static const char hex[] = "0123456789abcdef";
	const char *w = st->line + cw->off;
	char msg[CMDLINE_DIAG_LEN], word[CMDLINE_DIAG_LEN];
	char action[CMDLINE_DIAG_LEN];
	struct kbuf b, e, a;
	size_t i = 0, n = cw->n, tail;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_init(&e, word, sizeof(word));
	kbuf_init(&a, action, sizeof(action));
	while (i < n && kisprint((unsigned char)w[i]))
		i++;
	if (n <= CMDLINE_WORD_MAX && i == n)
		return true;
	kbuf_puts(&b, "cmdline: word ");
	kbuf_u64(&b, cw->wordno);
	cmdline_put_word(&e, w, n);
	if (n > CMDLINE_WORD_MAX) {
		kbuf_puts(&b, " is longer than ");
		kbuf_u64(&b, CMDLINE_WORD_MAX);
		kbuf_puts(&b, " bytes (");
	} else {
		char byte[] = {'0',
			       'x',
			       hex[(unsigned char)w[i] >> 4],
			       hex[(unsigned char)w[i] & 15],
			       ' ',
			       '(',
			       '\0'};

		kbuf_puts(&b, " has a non-printable byte ");
		kbuf_puts(&b, byte);
	}
	cmdline_put_word(&b, w, n);
	kbuf_puts(&b, "): ");
	kbuf_puts(&a, n > CMDLINE_WORD_MAX ? "too long: " : "non-printable: ");
	tail = a.len;
	put_ignored(st, w, n, &a);
	kbuf_puts(&b, action + tail);
	cmdline_diag_emit(st, msg, word, action);
	return false;
}

/* The word a list's or a parse_notes parser's notes are about. */
struct word_notes {
	struct parse_state *st;
	const char *w;
	size_t n;
};

/* One note: "cmdline: 'WORD': " and the note, one diagnostic. */
static void note_emit(void *ctx, const char *note)
{
	const struct word_notes *wn = ctx;
	char msg[CMDLINE_DIAG_LEN], word[CMDLINE_DIAG_LEN];
	struct kbuf b, e;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_init(&e, word, sizeof(word));
	kbuf_puts(&b, "cmdline: ");
	cmdline_put_word(&b, wn->w, wn->n);
	cmdline_put_word(&e, wn->w, wn->n);
	kbuf_puts(&b, ": ");
	kbuf_puts(&b, note);
	cmdline_diag_emit(wn->st, msg, word, note);
}

/*
 * "cmdline: 'WORD': WHY: WHAT APPLIES", or with why NULL "cmdline:
 * 'WORD': overridden: WHAT APPLIES"; the fold has no room for WHY.
 */
static void word_diag(struct parse_state *st, const char *w, size_t n,
		      const char *why, const struct opt_ref *r)
{
	char msg[CMDLINE_DIAG_LEN], word[CMDLINE_DIAG_LEN];
	char action[CMDLINE_DIAG_LEN];
	struct kbuf b, e, a;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_init(&e, word, sizeof(word));
	kbuf_init(&a, action, sizeof(action));
	cmdline_put_word(&e, w, n);
	if (!why)
		kbuf_puts(&a, "overridden: ");
	cmdline_put_action(&a, st, r);
	kbuf_puts(&b, "cmdline: ");
	kbuf_puts(&b, word);
	kbuf_puts(&b, ": ");
	if (why) {
		kbuf_puts(&b, why);
		kbuf_puts(&b, ": ");
	}
	kbuf_puts(&b, action);
	cmdline_diag_emit(st, msg, word, action);
}

static void unknown_key(struct parse_state *st, const char *w, size_t n,
			size_t klen)
{
	char msg[CMDLINE_DIAG_LEN], word[CMDLINE_DIAG_LEN];
	struct kbuf b, e;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_init(&e, word, sizeof(word));
	kbuf_puts(&b, klen ? "cmdline: unknown key '" : "cmdline: empty key");
	kbuf_putn(&b, w, klen, CMDLINE_WORD_SHOW);
	kbuf_puts(&b, klen ? "' in " : " in ");
	cmdline_put_word(&b, w, n);
	kbuf_puts(&b, ": ignored");
	cmdline_put_word(&e, w, n);
	cmdline_diag_emit(st, msg, word,
			  klen ? "unknown key: ignored" : "empty key: ignored");
}

/* Splits key=value, finds the option and applies the value. */
static void apply_word(struct parse_state *st, const struct cmdline_word *cw)
{
	const char *w = st->line + cw->off;
	size_t n = cw->n, klen = 0;
	char whybuf[CMDLINE_WHY_LEN], val[CMDLINE_WORD_MAX + 1];
	struct word_notes wn = {st, w, n};
	const struct diag_sink note = {note_emit, &wn};
	const struct cmdline_word *last;
	struct opt_ref ref;
	struct kbuf why;

	while (klen < n && w[klen] != '=')
		klen++;
	kbuf_init(&why, whybuf, sizeof(whybuf));
	if (!find_opt(st, w, klen, &ref)) {
		unknown_key(st, w, n, klen);
		return;
	}
	if (klen == n && ref.opt->kind == OPT_FLAG) {
		kstrlcpy(val, "1", sizeof(val));
	} else {
		kmemcpy(val, w + klen + (klen < n), n - klen - (klen < n));
		val[n - klen - (klen < n)] = '\0';
	}
	if (val[0] &&
	    cmdline_apply_value(ref.opt, val, st->t[ref.ti].cfg, &why, &note)) {
		mark_set(st, &ref, cw);
		last = cmdline_last(st, &ref);
		/* A later word's value applies: this one is overridden. */
		if (last && last->wordno != cw->wordno)
			word_diag(st, w, n, NULL, &ref);
		return;
	}
	word_diag(st, w, n,
		  !val[0]     ? "missing value"
		  : whybuf[0] ? whybuf
			      : "invalid value",
		  &ref);
}

/*
 * The image path that loaders put in front of the arguments: GRUB writes
 * "/boot/x" or "(hd0)/boot/x", QEMU -kernel passes its argument as given
 * ("build/x.elf"). No key holds a '/' or a '.', so a first word without
 * '=' that does is a file name, while a mistyped flag is still reported.
 */
static bool is_image_path(const char *w, size_t n)
{
	bool file = false;

	if (w[0] == '/' || w[0] == '(')
		return true;
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '=')
			return false;
		if (w[i] == '/' || w[i] == '.')
			file = true;
	}
	return file;
}

/* One reading of the whole line. */
static void parse_words(struct parse_state *st)
{
	const char *line = st->line;
	struct cmdline_word w = {0, 0, 0};
	bool first = true;

	while (*line) {
		size_t n = 0;

		if (is_space(*line)) {
			line++;
			continue;
		}
		while (line[n] && !is_space(line[n]))
			n++;
		w.off = (uint32_t)(line - st->line);
		w.n = (uint32_t)n;
		if (!first || !is_image_path(line, n)) {
			w.wordno++;
			if (check_word(st, &w))
				apply_word(st, &w);
		}
		first = false;
		line += n;
	}
}

size_t cmdline_parse_tables(const char *line, const struct cmdline_table *t,
			    size_t nt, struct cmdline_diags *diags)
{
	struct parse_state st = {
		.t = t,
		.nt = nt < CMDLINE_TABLES_MAX ? nt : CMDLINE_TABLES_MAX,
		.line = line ? line : "",
		.diags = diags};

	if (diags) {
		kmemset(diags, 0, sizeof(*diags));
		/* Values are applied twice, the same way: the second wins. */
		st.quiet = true;
		parse_words(&st);
		st.quiet = false;
	}
	parse_words(&st);
	for (size_t i = 0; i < st.nt; i++)
		if (t[i].given)
			kmemcpy(t[i].given, st.set[i], sizeof(st.set[i]));
	if (diags)
		kmemcpy(diags->given, st.set[0], sizeof(diags->given));
	return st.ndiag;
}

size_t cmdline_parse(const char *line, const struct cmdline_opt *opts,
		     size_t nopts, void *cfg, struct cmdline_diags *diags)
{
	const struct cmdline_table t = {opts, nopts, cfg, NULL};

	return cmdline_parse_tables(line, &t, 1, diags);
}

bool cmdline_given(const uint64_t given[CMDLINE_OPTS_MAX / 64],
		   const struct cmdline_opt *opts, size_t nopts,
		   const char *key)
{
	const struct cmdline_opt *opt =
		cmdline_find(opts, nopts, key, kstrlen(key));
	size_t idx = opt ? (size_t)(opt - opts) : CMDLINE_OPTS_MAX;

	return idx < CMDLINE_OPTS_MAX &&
	       (given[idx / 64] & (1ull << (idx % 64)));
}
