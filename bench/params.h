/* SPDX-License-Identifier: MIT */
/*
 * The experiments' parameters, and the parsers of their lists: pages=,
 * targets=, strategies=, bench=, invlpgb=, delay_handler=. They run as the
 * OPT_CUSTOM parsers of the experiments' command-line keys
 * (bench/options.c), which lib/cmdline.c applies in the one parse of
 * the line; numbers and flags are its plain OPT_UINT and OPT_FLAG keys.
 * Portable, tested on the host.
 *
 * As with the command line itself, bad input never stops a run. Each
 * problem becomes one diagnostic, plain printable ASCII, that names the
 * item and says what was done instead, e.g.
 *   params: pages: item 'x' is not a number: skipped
 *   params: pages: item '0' is out of range 1..512: skipped
 *   params: pages: no valid value in 'x,0': using default '1,2,8,32,33,64,512'
 *   params: strategies: unknown name 'ipi-fast' (expected all or
 *           ipi-page|ipi-range|...): skipped
 *   params: targets: 8 is more than the 3 responders: using 3
 * Lists keep the order given and drop repeats (reported), so a user who
 * types pages=512,1 gets them in that order.
 */
#ifndef BENCH_PARAMS_H
#define BENCH_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/stoppoint.h"
#include "lib/cmdline.h"

#define PARAM_LIST_MAX 32 /* values per list */
#define PARAM_DIAG_LEN 160
/* shootdown maps one page table's worth: bench/shootdown_pages.h */
#define PARAM_PAGES_MAX	    512
#define PARAM_PAGES_DEFAULT "1,2,8,32,33,64,512"
#define PARAM_TARGETS_MAX   65535
#define PARAM_SAMPLES_MAX   1000000
#define PARAM_WARMUP_MAX    100000
/* Items of targets= that stand for a number known only at run time. */
#define PARAM_TARGETS_ALL  UINT32_MAX	    /* every responder */
#define PARAM_TARGETS_AUTO (UINT32_MAX - 1) /* 1, 2, 4, ... and all */

struct param_list {
	uint32_t n;
	uint32_t v[PARAM_LIST_MAX];
};

/*
 * Diagnostics go to a struct diag_sink (lib/cmdline.h): the command
 * line's own channel when these parsers run as its options' parsers
 * (bench/options.c). Each is NUL-terminated, < PARAM_DIAG_LEN bytes.
 */

/*
 * A caller's table of names (strategies, experiments): `count` elements,
 * `stride` bytes apart, each with a `const char *` at `offset`. NULL names
 * are skipped. Only the first PARAM_LIST_MAX can be selected.
 */
struct param_names {
	const void *base;
	size_t count;
	size_t stride;
	size_t offset;
};

/* From `static const char *const names[] = {...}`. */
#define PARAM_NAMES_ARRAY(arr)                                       \
	((struct param_names){(arr), sizeof(arr) / sizeof((arr)[0]), \
			      sizeof((arr)[0]), 0})
/* From an array of structs with a `const char *field`. */
#define PARAM_NAMES_FIELD(arr, field)                                    \
	((struct param_names){                                           \
		(arr), sizeof(arr) / sizeof((arr)[0]), sizeof((arr)[0]), \
		__builtin_offsetof(__typeof__((arr)[0]), field)})

enum param_invlpgb_mode {
	PARAM_INVLPGB_AUTO, /* the instruction where CPUID has it, bare metal */
	PARAM_INVLPGB_OFF,  /* never */
	PARAM_INVLPGB_EMULATE, /* the software model (docs/experiments.md) where absent */
	PARAM_INVLPGB_FORCE, /* execute it anyway: the #UD must be caught */
};

/* A wrong encoding injected on purpose, to prove the verifier catches it. */
enum param_invlpgb_bug {
	PARAM_BUG_NONE,
	PARAM_BUG_COUNT,      /* ECX count one page too few */
	PARAM_BUG_STRIDE,     /* 2 MiB stride bit over 4 KiB mappings */
	PARAM_BUG_NO_TLBSYNC, /* INVLPGB without the TLBSYNC after it */
	PARAM_BUG_NO_GLOBAL,  /* global pages without include-global */
	PARAM_BUG_PCID,	      /* PCID-valid with another PCID than CR3's */
};

struct param_invlpgb {
	enum param_invlpgb_mode mode;
	enum param_invlpgb_bug bug;
};

/*
 * delay_handler=STRATEGY:CYCLES, a test aid: every shootdown responder
 * handler of that strategy busy-waits CYCLES TSC cycles after its flush.
 */
#define PARAM_DELAY_MAX 1000000000ull /* cycles: about 0.3 s at 3 GHz */
struct param_delay {
	bool on;
	uint32_t strategy; /* index into the strategy table */
	uint64_t cycles;   /* 1..PARAM_DELAY_MAX */
};

/*
 * Everything the experiments take from the command line, each field
 * written by its key's parser (bench/options.c), with its default.
 */
struct bench_params {
	struct param_list bench;      /* indices into the experiment table */
	struct param_list strategies; /* indices into the strategy table */
	struct param_list pages;      /* 1..PARAM_PAGES_MAX */
	struct param_list targets; /* unresolved: see params_resolve_targets */
	struct param_invlpgb invlpgb;
	uint64_t samples, warmup;
	uint64_t reclaim_mb, hot_mb, duration_ms;
	uint64_t budget_s;
	bool writers;
	bool handler_timing; /* shootdown: time the responders' handlers */
	/*
	 * selftest=flushloop-local (a kernel key: bench_init sets it):
	 * flushloop's strategies flush this CPU only, so that its cross-CPU
	 * check must FAIL them.
	 */
	bool flushloop_local;
	/* The other selftest= faults of the experiments (bench/inject.h). */
	bool inject_hang_ap;	  /* the last CPU stops answering */
	bool inject_slow_ap;	  /* it answers one cross-call late */
	struct fault_at fault_at; /* where (fault_at=, a kernel key) */
	bool inject_nmi;	  /* an NMI inside a timed shootdown flush */
	bool inject_oom;	  /* shootdown runs out of frames */
	bool raw;		  /* raw=on: every sample in raw records */
	struct param_delay delay; /* delay_handler= */
	uint64_t seed;
	/* Which keys the line gave a valid value: see bench_given(). */
	uint64_t given[CMDLINE_OPTS_MAX / 64];
};

/*
 * Each parser below fills *out completely, emits its diagnostics through d
 * (which may be NULL) and returns how many there were. An empty or NULL
 * string means the default, silently.
 */

/* Numbers in [min, max]; if none is valid, `def` (parsed the same way). */
size_t params_parse_uints(const char *key, const char *s, uint32_t min,
			  uint32_t max, const char *def, struct param_list *out,
			  const struct diag_sink *d);

/* pages=: 1..PARAM_PAGES_MAX, default PARAM_PAGES_DEFAULT. */
size_t params_parse_pages(const char *s, struct param_list *out,
			  const struct diag_sink *d);

/* targets=: 1..PARAM_TARGETS_MAX, `all` and `auto` (the default). */
size_t params_parse_targets(const char *s, struct param_list *out,
			    const struct diag_sink *d);

/* 1, 2, 4, 8, ... up to `responders`, then `responders` itself. */
void params_default_targets(uint32_t responders, struct param_list *out);

/*
 * Turns a targets list into responder counts for a machine with
 * `responders` CPUs besides the initiator: `all` becomes that number,
 * `auto` (or an empty list) the default list, larger numbers are clamped
 * to it (reported); repeats that this creates are dropped silently.
 * Nothing to run (out->n == 0) when responders == 0.
 */
size_t params_resolve_targets(const struct param_list *in, uint32_t responders,
			      struct param_list *out,
			      const struct diag_sink *d);

/*
 * Names from a table, as indices into it. `all` selects every name (in
 * table order); `none`, when allow_none and alone, selects nothing. If no
 * item is valid, the result is `all`.
 */
size_t params_parse_names(const char *key, const char *s,
			  const struct param_names *names, bool allow_none,
			  struct param_list *out, const struct diag_sink *d);

/* The name at index i of a table (NULL if out of range). */
const char *params_name(const struct param_names *names, size_t i);

/*
 * invlpgb=MODE[,bug=KIND]: MODE auto|off|emulate|force (default auto),
 * KIND none|count|stride|no-tlbsync|no-global|pcid (default none; ignored
 * with off).
 */
size_t params_parse_invlpgb(const char *s, struct param_invlpgb *out,
			    const struct diag_sink *d);
const char *params_invlpgb_mode_name(enum param_invlpgb_mode mode);
const char *params_invlpgb_bug_name(enum param_invlpgb_bug bug);

/*
 * delay_handler=: `none` (or empty) is off; else STRATEGY:CYCLES with a
 * name from `strategies` and CYCLES in 1..PARAM_DELAY_MAX (decimal or
 * 0x hex). Anything else is reported and leaves it off.
 */
size_t params_parse_delay(const char *s, const struct param_names *strategies,
			  struct param_delay *out, const struct diag_sink *d);

/*
 * "1,2,8" (`all`/`auto` by name) into buf, always terminated when
 * size > 0; returns the length of the whole text, as snprintf does.
 */
size_t params_list_format(const struct param_list *l, char *buf, size_t size);

#endif
