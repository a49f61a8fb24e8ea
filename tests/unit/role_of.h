/* SPDX-License-Identifier: MIT */
/*
 * The role and flush kind each producer gives the records the tests make
 * up (test_ceiling.c, test_findings.c), as bench/primitives.c, refill.c,
 * shootdown_sample.c, reclaim.c and flushloop.c set them: the consumers
 * read these, never the name, so a test names a strategy only to be read.
 */
#ifndef TESTS_UNIT_ROLE_OF_H
#define TESTS_UNIT_ROLE_OF_H

#include <string.h>
#include "bench/role.h"

static const struct {
	const char *bench, *strategy;
	enum result_role role;
	enum flush_kind flush;
} role_table[] = {
	{"primitives", "invlpg-range", ROLE_RANGE, FK_LOCAL},
	{"primitives", "cr3-reload", ROLE_FULL, FK_LOCAL},
	{"primitives", "invlpgb-all+tlbsync", ROLE_FULL, FK_INVLPGB},
	{"primitives", "refill-after-full", ROLE_REFILL_FULL, FK_NONE},
	{"primitives", "refill-after-range", ROLE_REFILL_RANGE, FK_NONE},
	{"primitives", "ipi-roundtrip", ROLE_ROUNDTRIP, FK_IPI},
	{"shootdown", "ipi-page", ROLE_PAGE, FK_IPI},
	{"shootdown", "ipi-range", ROLE_RANGE, FK_IPI},
	{"shootdown", "ipi-full", ROLE_FULL, FK_IPI},
	{"shootdown", "ipi-linux", ROLE_LINUX, FK_IPI},
	{"shootdown", "invlpgb", ROLE_RANGE, FK_INVLPGB},
	{"shootdown", "invlpgb-linux", ROLE_LINUX, FK_INVLPGB},
	{"reclaim", "per-page", ROLE_PAGE, FK_IPI},
	{"reclaim", "batch", ROLE_BATCH, FK_IPI},
	{"flushloop", "ipi-page", ROLE_PAGE, FK_IPI},
	{"flushloop", "ipi-range", ROLE_RANGE, FK_IPI},
	{"flushloop", "invlpgb", ROLE_RANGE, FK_INVLPGB},
};

/* Sets *role and *flush for bench's strategy; ROLE_NONE if not above. */
static inline void role_of(const char *bench, const char *strategy,
			   enum result_role *role, enum flush_kind *flush)
{
	*role = ROLE_NONE;
	*flush = FK_LOCAL;
	for (size_t i = 0; i < sizeof(role_table) / sizeof(*role_table); i++)
		if (!strcmp(role_table[i].bench, bench) &&
		    !strcmp(role_table[i].strategy, strategy)) {
			*role = role_table[i].role;
			*flush = role_table[i].flush;
		}
}

#endif
