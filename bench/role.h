/* SPDX-License-Identifier: MIT */
/*
 * What a result record is, set by the code that measured it: its role
 * and the kind of flush it timed (bench/role.c). The consumers of records
 * (the flush ceiling, the findings, the protocol overhead) switch on these
 * rather than on strategy names, so a new strategy reaches them by the
 * role its producer gives it, and a renamed one still does. Printed in
 * the result record as "role" and "flush" (docs/records.md).
 *
 * Portable: no hardware access (tests/unit/test_ceiling.c,
 * tests/unit/test_findings.c).
 */
#ifndef BENCH_ROLE_H
#define BENCH_ROLE_H

/*
 * Each role, its name as printed and what it is: one list, from which the
 * enum and the names are made.
 */
#define RESULT_ROLES(X)                                                        \
	X(ROLE_UNSET, "unset")	   /* a producer forgot: a FAIL */             \
	X(ROLE_NONE, "none")	   /* measured for itself alone */             \
	X(ROLE_RANGE, "range")	   /* INVLPG a page, or one INVLPGB */         \
	X(ROLE_FULL, "full")	   /* CR3 reload, INVLPGB of all */            \
	X(ROLE_PAGE, "page")	   /* one flush a page */                      \
	X(ROLE_LINUX, "linux")	   /* a range up to 33, else full */           \
	X(ROLE_VARIANT, "variant") /* of another's: not compared */            \
	X(ROLE_BATCH, "batch")	   /* reclaim's one flush a batch */           \
	X(ROLE_REFILL_FULL, "refill-after-full")   /* re-reads after a full */ \
	X(ROLE_REFILL_RANGE, "refill-after-range") /* ... after a range */     \
	X(ROLE_ROUNDTRIP, "roundtrip") /* one IPI there and back */            \
	X(ROLE_CONTROL, "control")     /* a negative control */

/* The kinds of flush: what a record timed (docs/records.md "result"). */
#define FLUSH_KINDS(X)                                                   \
	X(FK_UNSET, "unset")	 /* a producer forgot: a FAIL */         \
	X(FK_NONE, "none")	 /* no TLB flush timed (a round trip) */ \
	X(FK_LOCAL, "local")	 /* this CPU's own TLB only */           \
	X(FK_IPI, "ipi")	 /* other CPUs', by interrupting them */ \
	X(FK_INVLPGB, "invlpgb") /* other CPUs', by INVLPGB or its model */

#define ROLE_ENUM(id, name) id,
enum result_role { RESULT_ROLES(ROLE_ENUM) ROLE_COUNT };
enum flush_kind { FLUSH_KINDS(ROLE_ENUM) FK_COUNT };
#undef ROLE_ENUM

/* What a result is: its strategy, role and the kind of flush it timed. */
struct result_what {
	const char *strategy;
	enum result_role role;
	enum flush_kind flush;
};

/* "none", "range", ... as printed; "?" out of range. */
const char *result_role_name(enum result_role r);
/* "none", "local", "ipi", "invlpgb"; "?" out of range. */
const char *flush_kind_name(enum flush_kind k);

#endif
