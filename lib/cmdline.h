/* SPDX-License-Identifier: MIT */
/*
 * Kernel command line: whitespace-separated `key=value` words (or a bare
 * `key` for flags), parsed against a table of options into a config struct.
 * Portable: no hardware access, tested on the host.
 *
 * One parse may apply several tables (struct cmdline_table), each with
 * the struct its offsets are into: the kernel's keys and those of the
 * layers above it, which the kernel does not know. They share the words,
 * the diagnostics and `help`.
 *
 * Bad input never stops the boot. Each problem becomes one diagnostic that
 * names the offending word and says the value that applies in the end
 * (the default, or the word whose value it is, whether earlier or later):
 *   cmdline: unknown key 'nosuchkey' in 'nosuchkey=1': ignored
 *   cmdline: 'exit=foo': expected halt|reboot: using default 'halt'
 *   cmdline: 'cpus=99999': out of range 0..65535: using 'cpus=3' (word 4)
 *   cmdline: 'cpus=2': overridden: using 'cpus=3' (word 4)
 *   cmdline: word 3 has a non-printable byte 0x01 ('ab\x01'): ignored
 *   cmdline: 'pages=1,x': item 'x': expected a number in 1..512: skipped
 *   cmdline: 'pages=0': no valid item: using default '1,2,8'
 * A list (OPT_LIST_UINT, OPT_LIST_NAME) is taken item by item: a bad item
 * costs only itself, and a list with no valid item is rejected as a whole,
 * so that the table's default (or an earlier word's list) stays, said out
 * loud, never an empty list that would run nothing and look like a pass.
 * Past the first CMDLINE_DIAG_MAX, each further problem is still named, in
 * a short entry of struct cmdline_diags' fold[], printed as
 *   cmdline: more (unknown key: ignored): 'a=1' 'b=2' 'c=3'
 * (only if even that fills, with a thousand problems or more in a line,
 * are the rest counted).
 * Diagnostics are plain printable ASCII (bytes outside 0x20..0x7e are shown
 * as \xNN) so that they can be printed and put into JSON as they are.
 *
 * A first word that starts with '/' or '(', or that has no '=' but a '/' or
 * a '.' (no key has either), is the image path that QEMU and some loaders
 * put in front of the arguments (QEMU -kernel passes its argument as given,
 * e.g. "build/shootdown.elf"); it is skipped silently and not counted when
 * words are numbered in diagnostics.
 */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CMDLINE_WORD_MAX 256 /* longer words are rejected as a whole */
/*
 * One diagnostic line: room for the longest quoted word and item beside a
 * list key's whole choice list (tests/unit/test_params.c checks the
 * strategies= one), so that what applies is never cut off.
 */
#define CMDLINE_DIAG_LEN   256
#define CMDLINE_DIAG_MAX   16
#define CMDLINE_FOLD_LEN   32768 /* the short entries past CMDLINE_DIAG_MAX */
#define CMDLINE_OPTS_MAX   256	 /* options whose use is tracked, per table */
#define CMDLINE_TABLES_MAX 4	 /* tables in one parse */
#define CMDLINE_LIST_MAX   32	 /* items in a list option's value */

/*
 * Where diagnostics go: each one a NUL-terminated printable line. A list,
 * or an OPT_CUSTOM parser that takes part of a value (parse_notes), notes
 * each problem through one, as "what: done instead" (e.g. "item 'x':
 * expected a number in 1..512: skipped"); cmdline_parse() puts
 * "cmdline: 'WORD': " in front and adds them to its own.
 */
struct diag_sink {
	void (*emit)(void *ctx, const char *msg); /* NULL: only counted */
	void *ctx;
};

enum opt_kind {
	OPT_FLAG,   /* bare `key` (or key=1/0/yes/no/on/off): bool */
	OPT_UINT,   /* decimal or 0x hex, within [min, max]: uint64_t */
	OPT_CHOICE, /* one of choices[], stored as its index: int */
	OPT_STRING, /* copied into a char[size] */
	OPT_CUSTOM, /* parse() decides */
	/*
	 * Comma-separated items, in the order given, repeats dropped, at
	 * most CMDLINE_LIST_MAX: struct cmdline_list. OPT_LIST_UINT: numbers
	 * as OPT_UINT's within [min, max] (max <= UINT32_MAX), or a word of
	 * choices[] for values[] at its index (values above max, such as
	 * "all" for a count known only at run time). OPT_LIST_NAME: names
	 * of choices[], stored as their index; `all` adds every name in
	 * table order; with `none` set, `none` alone is the empty list.
	 */
	OPT_LIST_UINT,
	OPT_LIST_NAME,
};

/* A list option's value. */
struct cmdline_list {
	uint32_t n;
	uint32_t v[CMDLINE_LIST_MAX];
};

struct cmdline_opt {
	const char *key;
	enum opt_kind kind;
	const char *def;   /* default, as it would be written on the line */
	const char *help;  /* one line for `help` */
	size_t offset;	   /* of the field in the config struct */
	uint64_t min, max; /* OPT_UINT */
	/* OPT_CHOICE, OPT_LIST_*: NULL-terminated (see enum opt_kind) */
	const char *const *choices;
	const uint32_t *values; /* OPT_LIST_UINT: what choices[i] stands for */
	bool none;		/* OPT_LIST_NAME: `none` alone is allowed */
	/*
	 * OPT_STRING: field size incl. NUL; OPT_CUSTOM and OPT_LIST_*:
	 * longest value + 1 (0: only CMDLINE_WORD_MAX limits it)
	 */
	size_t size;
	/*
	 * OPT_CUSTOM: parse the NUL-terminated value into dst; on error
	 * return false, leave dst untouched and put a short reason (e.g.
	 * "expected com1..com4 or 0xPORT[,baud]") into why.
	 */
	bool (*parse)(const char *val, void *dst, char *why, size_t whylen);
	/*
	 * OPT_CUSTOM, instead of parse: a value taken in part, where one
	 * bad part costs only itself (lists have their own kinds). Fills
	 * dst completely, passes each problem (saying what was done
	 * instead, without the word: see struct diag_sink) to note, which
	 * may be NULL, and returns how many there were. Never rejects.
	 */
	size_t (*parse_notes)(const char *val, void *dst,
			      const struct diag_sink *note);
};

/* One table of options and the struct its offsets are into. */
struct cmdline_table {
	const struct cmdline_opt *opts;
	size_t nopts;
	void *cfg;
	/* Bit i: option i took a valid value from the line; may be NULL. */
	uint64_t *given; /* CMDLINE_OPTS_MAX / 64 words */
};

/* A word of the line: its bytes line[off..off+n), its number (0: none). */
struct cmdline_word {
	uint32_t off, n, wordno;
};

struct cmdline_diags {
	size_t count;	/* how many were stored in msg[] */
	size_t folded;	/* how many more are named in fold[] */
	size_t dropped; /* how many more there were, only counted */
	char msg[CMDLINE_DIAG_MAX][CMDLINE_DIAG_LEN];
	/*
	 * Past the first CMDLINE_DIAG_MAX, short entries, each ending in
	 * '\n': groups of an action line ("unknown key: ignored", "using
	 * default '0'") and the words ('WORD') it is about, a problem with
	 * the action of the group before joining it; cmdline_fold_next()
	 * folds them onto lines.
	 */
	size_t fold_len;
	size_t fold_action; /* where the last group's action line starts */
	char fold[CMDLINE_FOLD_LEN];
	/*
	 * Bit i: option i of the (first) table took a valid value from the
	 * line (not a default).
	 */
	uint64_t given[CMDLINE_OPTS_MAX / 64];
	/* The parse's own: per option, the word whose value applies. */
	struct cmdline_word last[CMDLINE_TABLES_MAX][CMDLINE_OPTS_MAX];
};

/* Where cmdline_fold_next() is: start at {0, 0}. */
struct cmdline_fold_pos {
	size_t pos, action;
};

/*
 * The next line, "cmdline: more (ACTION): 'WORD' 'WORD' ...", of at most
 * cap - 1 bytes (cap >= CMDLINE_DIAG_LEN) of the folded entries; false
 * when there are none left. A group longer than a line goes on in the
 * next, its action said again.
 */
bool cmdline_fold_next(const struct cmdline_diags *d,
		       struct cmdline_fold_pos *it, char *out, size_t cap);

/* Whether option `key` is set in a diags->given mask (a copy of it). */
bool cmdline_given(const uint64_t given[CMDLINE_OPTS_MAX / 64],
		   const struct cmdline_opt *opts, size_t nopts,
		   const char *key);

/*
 * Sets every field to its option's default (defaults must parse). A NULL
 * default means false / min / index 0 / "" / an empty list (OPT_CUSTOM:
 * left as it is).
 */
void cmdline_defaults(const struct cmdline_opt *opts, size_t nopts, void *cfg);

/*
 * Applies the words of `line` to cfg in order (a later word wins). Fields of
 * rejected words keep what they had. diags (may be NULL) is cleared first;
 * with diags, the line is read twice, so that each diagnostic can say the
 * value that applies in the end (without, overrides are not counted).
 * Returns the number of diagnostics, folded and dropped ones included.
 */
size_t cmdline_parse(const char *line, const struct cmdline_opt *opts,
		     size_t nopts, void *cfg, struct cmdline_diags *diags);

/*
 * The same over up to CMDLINE_TABLES_MAX tables: a key is looked up in
 * each in turn (the first that has it wins), and each table's given
 * mask is filled.
 */
size_t cmdline_parse_tables(const char *line, const struct cmdline_table *t,
			    size_t nt, struct cmdline_diags *diags);

/*
 * A list option's value into *out as cmdline_parse() takes it, each item
 * dropped passed to note (may be NULL). False, with *out empty, if no
 * item is valid: the option then keeps what it had.
 */
bool cmdline_parse_list(const struct cmdline_opt *opt, const char *val,
			struct cmdline_list *out, const struct diag_sink *note);

/* Finds an option by key; NULL if there is none. */
const struct cmdline_opt *cmdline_find(const struct cmdline_opt *opts,
				       size_t nopts, const char *key,
				       size_t keylen);

/*
 * The items of a comma list, for the parsers of values of their own
 * shape (bench/params.c) as for the list kinds: one item is s[0..n).
 */
struct kbuf;

struct cmdline_item {
	const char *s;
	size_t n;
};

/* Steps through "a,b,,c": *p becomes NULL after the last item. */
bool cmdline_next_item(const char **p, struct cmdline_item *it);
bool cmdline_item_is(const struct cmdline_item *it, const char *word);
/* The item in quotes, cut at 24 bytes. */
void cmdline_put_item(struct kbuf *b, const struct cmdline_item *it);

#endif
