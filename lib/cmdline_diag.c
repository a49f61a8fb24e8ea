// SPDX-License-Identifier: MIT
/*
 * The diagnostics of a parse (see cmdline.h): each names its word and the
 * value that applies in the end. The first CMDLINE_DIAG_MAX are whole
 * lines; the rest are short entries, folded onto lines when printed, so
 * that a long line of mistakes still names every word.
 */
#include "lib/cmdline_value.h"

#define DEF_SHOW  24 /* bytes of a default quoted in a diagnostic */
#define FOLD_HEAD "cmdline: more: "

void cmdline_put_word(struct kbuf *b, const char *w, size_t n)
{
	kbuf_puts(b, "'");
	kbuf_putn(b, w, n, CMDLINE_WORD_SHOW);
	kbuf_puts(b, "'");
}

void cmdline_diag_emit(struct parse_state *st, const char *msg,
		       const char *entry)
{
	struct cmdline_diags *d = st->diags;
	size_t n = kstrlen(entry);

	if (st->quiet)
		return;
	st->ndiag++;
	if (!d)
		return;
	if (d->count < CMDLINE_DIAG_MAX) {
		kstrlcpy(d->msg[d->count++], msg, CMDLINE_DIAG_LEN);
	} else if (n + 1 <= CMDLINE_FOLD_LEN - d->fold_len) {
		kmemcpy(d->fold + d->fold_len, entry, n);
		d->fold[d->fold_len + n] = '\n';
		d->fold_len += n + 1;
		d->folded++;
	} else {
		d->dropped++;
	}
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

bool cmdline_fold_next(const struct cmdline_diags *d, size_t *pos, char *out,
		       size_t cap)
{
	struct kbuf b;
	size_t used = sizeof(FOLD_HEAD) - 1;

	if (*pos >= d->fold_len || *pos >= CMDLINE_FOLD_LEN)
		return false;
	kbuf_init(&b, out, cap);
	kbuf_puts(&b, FOLD_HEAD);
	for (bool first = true; *pos < d->fold_len; first = false) {
		size_t n = entry_len(d, *pos);

		/* An entry too long for any line still gets one, cut. */
		if (!first && used + 2 + n > cap - 1)
			break;
		if (!first)
			kbuf_puts(&b, "; ");
		kbuf_putn(&b, d->fold + *pos, n, SIZE_MAX);
		used += n + (first ? 0 : 2);
		*pos += n + 1;
	}
	return true;
}
