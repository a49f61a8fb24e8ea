/* SPDX-License-Identifier: MIT */
/*
 * The experiments' parameters. The command line fills them through the
 * experiments' table of keys (bench/options.c) in lib/cmdline.c's one
 * parse of the line: numbers, flags and lists (pages=, targets=,
 * strategies=, bench=) as its own kinds, which also say what was wrong.
 * What is left here: the two values with a shape of their own,
 * invlpgb=MODE[,bug=KIND] and delay_handler=STRATEGY:CYCLES, and turning
 * targets= into responder counts once the number of CPUs is known.
 * Portable, tested on the host.
 *
 * As with the rest of the command line, bad input never stops a run, and
 * each problem is one `cmdline:` diagnostic that names the word and says
 * what was done instead, e.g.
 *   cmdline: 'invlpgb=emulated': mode 'emulated': expected
 *            auto|off|emulate|force: using 'auto'
 *   cmdline: 'targets=8': item '8': more than the 3 responders: using 3
 */
#ifndef BENCH_PARAMS_H
#define BENCH_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/stoppoint.h"
#include "lib/cmdline.h"

#define PARAM_LIST_MAX CMDLINE_LIST_MAX /* values per list */
#define PARAM_DIAG_LEN CMDLINE_DIAG_LEN
/* shootdown maps one page table's worth: bench/shootdown_pages.h */
#define PARAM_PAGES_MAX	    512
#define PARAM_PAGES_DEFAULT "1,2,8,32,33,64,512"
#define PARAM_TARGETS_MAX   65535
#define PARAM_SAMPLES_MAX   1000000
#define PARAM_WARMUP_MAX    100000
/*
 * PARAM_PAGES_DEFAULT as numbers, for the code that models the default
 * sweep (bench/plan.c) or reuses its page counts (bench/refill.c), so
 * that the text stays the one definition. Writes at most max; returns
 * how many there are.
 */
static inline size_t param_pages_default(uint32_t *out, size_t max)
{
	const char *s = PARAM_PAGES_DEFAULT;
	size_t n = 0;
	uint32_t v = 0;

	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint32_t)(*s - '0');
			continue;
		}
		if (n < max)
			out[n] = v;
		n++;
		v = 0;
		if (!*s)
			return n;
	}
}

/* Items of targets= that stand for a number known only at run time. */
#define PARAM_TARGETS_ALL  UINT32_MAX	    /* every responder */
#define PARAM_TARGETS_AUTO (UINT32_MAX - 1) /* 1, 2, 4, ... and all */

enum param_invlpgb_mode {
	PARAM_INVLPGB_AUTO, /* the instruction where CPUID has it, bare metal */
	PARAM_INVLPGB_OFF,  /* never */
	PARAM_INVLPGB_EMULATE, /* the software model (docs/mechanics.md) where absent */
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
	struct cmdline_list bench;	/* indices into the experiment table */
	struct cmdline_list strategies; /* indices into the strategy table */
	struct cmdline_list pages;	/* 1..PARAM_PAGES_MAX */
	struct cmdline_list
		targets; /* unresolved: see params_resolve_targets */
	struct param_invlpgb invlpgb;
	uint64_t samples, warmup;
	uint64_t reclaim_mb, hot_mb, duration_ms;
	uint64_t timeline_ms; /* reclaim: the timeline's finest bin, 0: off */
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

/* 1, 2, 4, 8, ... up to `responders`, then `responders` itself. */
void params_default_targets(uint32_t responders, struct cmdline_list *out);

/*
 * Turns a targets list into responder counts for a machine with
 * `responders` CPUs besides the initiator: `all` becomes that number,
 * `auto` (or an empty list) the default list, larger numbers are clamped
 * to it, each said through d (may be NULL) as a `cmdline:` diagnostic
 * naming targets=; repeats that this creates are dropped silently.
 * Nothing to run (out->n == 0) when responders == 0. Returns how many
 * diagnostics there were.
 */
size_t params_resolve_targets(const struct cmdline_list *in,
			      uint32_t responders, struct cmdline_list *out,
			      const struct diag_sink *d);

/*
 * invlpgb=MODE[,bug=KIND], an OPT_CUSTOM parse_notes parser: MODE
 * auto|off|emulate|force (default auto), KIND
 * none|count|stride|no-tlbsync|no-global|pcid (default none; ignored with
 * off). Fills *out completely; notes each problem through d (may be NULL)
 * and returns how many there were. An empty or NULL string is the default.
 */
size_t params_parse_invlpgb(const char *s, struct param_invlpgb *out,
			    const struct diag_sink *d);
const char *params_invlpgb_mode_name(enum param_invlpgb_mode mode);
const char *params_invlpgb_bug_name(enum param_invlpgb_bug bug);

/*
 * delay_handler=, an OPT_CUSTOM parse parser: `none` is off; else
 * STRATEGY:CYCLES with a name of `strategies` (NULL-terminated) and
 * CYCLES in 1..PARAM_DELAY_MAX (decimal or 0x hex). Anything else is
 * rejected: false, *out untouched, and why says what was expected.
 */
bool params_parse_delay(const char *s, const char *const *strategies,
			struct param_delay *out, char *why, size_t whylen);

/*
 * "1,2,8" (`all`/`auto` by name) into buf, always terminated when
 * size > 0; returns the length of the whole text, as snprintf does.
 */
size_t params_list_format(const struct cmdline_list *l, char *buf, size_t size);

#endif
