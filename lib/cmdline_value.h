/* SPDX-License-Identifier: MIT */
/*
 * What lib/cmdline.c and lib/cmdline_list.c share: one reading of a
 * number and one spelling of a list of choices, so that a word and an
 * item of a list are checked, and their problems worded, the same way.
 * Internal to lib/cmdline*.c. Portable.
 */
#ifndef LIB_CMDLINE_VALUE_H
#define LIB_CMDLINE_VALUE_H

#include "lib/cmdline.h"
#include "lib/kstring.h"

/*
 * The n bytes at s as a number in [opt->min, opt->max]; else false, and
 * why says "expected a number in MIN..MAX" (adding " or " and the words
 * of opt->choices, if any) or "out of range MIN..MAX".
 */
bool cmdline_uint_in(const struct cmdline_opt *opt, const char *s, size_t n,
		     uint64_t *out, struct kbuf *why);

/* "a|b|c" */
void cmdline_put_choices(struct kbuf *b, const char *const *choices);

#endif
