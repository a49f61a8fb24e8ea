/* SPDX-License-Identifier: MIT */
/*
 * What lib/cmdline.c, lib/cmdline_value.c and lib/cmdline_list.c share:
 * one typed reading of a value, one reading of a number and one spelling
 * of a list of choices, so that a word and an item of a list are checked,
 * and their problems worded, the same way.
 * Internal to lib/cmdline*.c. Portable.
 */
#ifndef LIB_CMDLINE_VALUE_H
#define LIB_CMDLINE_VALUE_H

#include "lib/cmdline.h"
#include "lib/kstring.h"

#define CMDLINE_WORD_SHOW 40 /* bytes of a word quoted in a diagnostic */
/* Room for the longest list of choices (selftest=: 97 bytes). */
#define CMDLINE_WHY_LEN 128

/*
 * Parses val for opt and stores it in cfg only if it is valid, else why
 * says what was expected; note: where a parse_notes parser reports (NULL
 * for defaults: silent). lib/cmdline_value.c.
 */
bool cmdline_apply_value(const struct cmdline_opt *opt, const char *val,
			 void *cfg, struct kbuf *why,
			 const struct diag_sink *note);

/*
 * The n bytes at s as a number in [opt->min, opt->max]; else false, and
 * why says "expected a number in MIN..MAX" (adding " or " and the words
 * of opt->choices, if any) or "out of range MIN..MAX".
 */
bool cmdline_uint_in(const struct cmdline_opt *opt, const char *s, size_t n,
		     uint64_t *out, struct kbuf *why);

/* "a|b|c" */
void cmdline_put_choices(struct kbuf *b, const char *const *choices);

/*
 * One parse (lib/cmdline.c). The line is read twice when there are
 * diagnostics: first quietly, to learn which word's value each option
 * ends with, then to say so in each diagnostic (lib/cmdline_diag.c).
 */
struct parse_state {
	const struct cmdline_table *t;
	size_t nt;
	const char *line; /* words are offsets into it */
	struct cmdline_diags *diags;
	bool quiet; /* the first reading: applies, records, says nothing */
	size_t ndiag;
	uint64_t set[CMDLINE_TABLES_MAX][CMDLINE_OPTS_MAX / 64];
};

/* An option of table ti, by its index there. */
struct opt_ref {
	size_t ti, idx;
	const struct cmdline_opt *opt;
};

/*
 * One problem: msg ("cmdline: ...") while msg[] has room, else word
 * ("'WORD'") and action (what applies) into the fold. Nothing in the
 * quiet reading.
 */
void cmdline_diag_emit(struct parse_state *st, const char *msg,
		       const char *word, const char *action);

/* Where r's final word is recorded; NULL if it is not tracked. */
struct cmdline_word *cmdline_last(const struct parse_state *st,
				  const struct opt_ref *r);

/* "using default 'X'", or "using 'WORD' (word N)": what applies for r. */
void cmdline_put_action(struct kbuf *b, const struct parse_state *st,
			const struct opt_ref *r);

/* 'WORD', cut to a readable length. */
void cmdline_put_word(struct kbuf *b, const char *w, size_t n);

#endif
