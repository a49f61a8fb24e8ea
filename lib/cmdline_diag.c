// SPDX-License-Identifier: MIT
/*
 * The diagnostics of a parse (see cmdline.h): each names its word and the
 * value that applies in the end. The first CMDLINE_DIAG_MAX are whole
 * lines; the rest are short entries, folded onto lines when printed, so
 * that a long line of mistakes still names every word.
 */
#include "lib/cmdline_value.h"

#define DEF_SHOW 24 /* bytes of a default quoted in a diagnostic */

void cmdline_put_word(struct kbuf *b, const char *w, size_t n)
{
	kbuf_puts(b, "'");
	kbuf_putn(b, w, n, CMDLINE_WORD_SHOW);
	kbuf_puts(b, "'");
}

/* Appends s and a '\n' to the fold, if both fit. */
static bool fold_put(struct cmdline_diags *d, const char *s)
{
	size_t n = kstrlen(s);

	if (n + 1 > CMDLINE_FOLD_LEN - d->fold_len)
		return false;
	kmemcpy(d->fold + d->fold_len, s, n);
	d->fold[d->fold_len + n] = '\n';
	d->fold_len += n + 1;
	return true;
}

/*
 * The fold is groups: an action line, then the words it is about, one a
 * line (a word starts with a quote, an action never does). A problem with
 * the action of the group before joins it: a line of mistakes of one kind
 * costs little more than its words.
 */
static void fold_add(struct cmdline_diags *d, const char *word,
		     const char *action)
{
	const char *last = d->fold + d->fold_action;
	size_t n = kstrlen(action), room = d->fold_len;
	bool same = d->folded && d->fold_action + n < d->fold_len &&
		    !kstrncmp(last, action, n) && last[n] == '\n';

	if ((same || fold_put(d, action)) && fold_put(d, word)) {
		if (!same)
			d->fold_action = room;
		d->folded++;
		return;
	}
	d->fold_len = room; /* no action line without its word */
	d->dropped++;
}

void cmdline_diag_emit(struct parse_state *st, const char *msg,
		       const char *word, const char *action)
{
	struct cmdline_diags *d = st->diags;

	if (st->quiet)
		return;
	st->ndiag++;
	if (!d)
		return;
	if (d->count < CMDLINE_DIAG_MAX)
		kstrlcpy(d->msg[d->count++], msg, CMDLINE_DIAG_LEN);
	else
		fold_add(d, word, action);
}

struct cmdline_word *cmdline_last(const struct parse_state *st,
				  const struct opt_ref *r)
{
	if (!st->diags || r->ti >= CMDLINE_TABLES_MAX ||
	    r->idx >= CMDLINE_OPTS_MAX)
		return NULL;
	return &st->diags->last[r->ti][r->idx];
}

void cmdline_put_action(struct kbuf *b, const struct parse_state *st,
			const struct opt_ref *r)
{
	const struct cmdline_word *w = cmdline_last(st, r);

	if (w && w->wordno) {
		kbuf_puts(b, "using ");
		cmdline_put_word(b, st->line + w->off, w->n);
		kbuf_puts(b, " (word ");
		kbuf_u64(b, w->wordno);
		kbuf_puts(b, ")");
	} else if (r->opt->def) {
		kbuf_puts(b, "using default '");
		kbuf_putn(b, r->opt->def, SIZE_MAX, DEF_SHOW);
		kbuf_puts(b, "'");
	} else {
		kbuf_puts(b, "using the default");
	}
}

static size_t entry_len(const struct cmdline_diags *d, size_t pos)
{
	size_t n = 0;

	while (pos + n < d->fold_len && d->fold[pos + n] != '\n')
		n++;
	return n;
}

/*
 * "cmdline: more (ACTION): 'w1' 'w2' ...": each line says what applies
 * to its words, so a group that goes on past a line repeats its action.
 */
bool cmdline_fold_next(const struct cmdline_diags *d,
		       struct cmdline_fold_pos *it, char *out, size_t cap)
{
	size_t *pos = &it->pos, used, act = it->pos, alen, words = 0;
	struct kbuf b;

	if (*pos >= d->fold_len || *pos >= CMDLINE_FOLD_LEN)
		return false;
	/* A line that goes on with a group: its action is the group's. */
	if (d->fold[act] == '\'')
		act = it->action;
	else
		*pos += entry_len(d, act) + 1;
	alen = entry_len(d, act);
	kbuf_init(&b, out, cap);
	kbuf_puts(&b, "cmdline: more (");
	kbuf_putn(&b, d->fold + act, alen, SIZE_MAX);
	kbuf_puts(&b, "):");
	used = sizeof("cmdline: more ():") - 1 + alen;
	while (*pos < d->fold_len && d->fold[*pos] == '\'') {
		size_t n = entry_len(d, *pos);

		/* A word too long for any line still gets one, cut. */
		if (words && used + 1 + n > cap - 1)
			break;
		kbuf_puts(&b, " ");
		kbuf_putn(&b, d->fold + *pos, n, SIZE_MAX);
		used += 1 + n;
		*pos += n + 1;
		words++;
	}
	it->action = act;
	return true;
}
