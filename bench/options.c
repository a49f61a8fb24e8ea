// SPDX-License-Identifier: MIT
/*
 * The experiments' command-line keys (bench/options.h): numbers, flags
 * and lists as lib/cmdline's own kinds, invlpgb= and delay_handler=
 * through bench/params.c's parsers. Each default is written here once, as
 * it would be on the line, and is what a list with no valid item keeps.
 */
#include "bench/options.h"
#include "bench/shootdown_sweep.h"

/* Each list of names once: the experiments' arrays and the keys' choices. */
#define BENCH_NAMES "primitives", "shootdown", "reclaim", "flushloop"
#define STRATEGY_NAMES                                               \
	"ipi-page", "ipi-range", "ipi-full", "ipi-linux", "invlpgb", \
		"invlpgb-linux"

const char *const bench_names[4] = {BENCH_NAMES};
const char *const strategy_names[S_COUNT] = {STRATEGY_NAMES};
static const char *const bench_choices[] = {BENCH_NAMES, NULL};
static const char *const strategy_choices[] = {STRATEGY_NAMES, NULL};

static const char *const target_words[] = {"all", "auto", NULL};
static const uint32_t target_values[] = {PARAM_TARGETS_ALL, PARAM_TARGETS_AUTO};

static size_t parse_invlpgb(const char *val, void *dst,
			    const struct diag_sink *d)
{
	return params_parse_invlpgb(val, dst, d);
}

static bool parse_delay(const char *val, void *dst, char *why, size_t whylen)
{
	return params_parse_delay(val, strategy_choices, dst, why, whylen);
}

#define P_OFF(f) offsetof(struct bench_params, f)

const struct cmdline_opt bench_opts[] = {
	{
		.key = "bench",
		.kind = OPT_LIST_NAME,
		.def = "all",
		.help = "experiments to run: all, none or a comma-separated "
			"list of names",
		.offset = P_OFF(bench),
		.choices = bench_choices,
		.none = true,
		.size = 128,
	},
	{
		.key = "seed",
		.kind = OPT_UINT,
		.def = "1",
		.help = "seed for the randomised orders of the experiments",
		.offset = P_OFF(seed),
		.min = 0,
		.max = UINT64_MAX,
	},
	{
		.key = "pages",
		.kind = OPT_LIST_UINT,
		.def = PARAM_PAGES_DEFAULT,
		.help = "pages invalidated per shootdown: a comma-separated "
			"list of 1..512",
		.offset = P_OFF(pages),
		.min = 1,
		.max = PARAM_PAGES_MAX,
		.size = 128, /* 32 items of 3 digits, commas, NUL */
	},
	{
		.key = "targets",
		.kind = OPT_LIST_UINT,
		.def = "auto",
		.help = "responder counts: a comma-separated list of numbers, "
			"all (every other CPU) or auto (1,2,4,... and all)",
		.offset = P_OFF(targets),
		.min = 1,
		.max = PARAM_TARGETS_MAX,
		.choices = target_words,
		.values = target_values,
		.size = 160,
	},
	{
		.key = "strategies",
		.kind = OPT_LIST_NAME,
		.def = "all",
		.help = "invalidation strategies to compare: all or a "
			"comma-separated list (ipi-page,ipi-range,...)",
		.offset = P_OFF(strategies),
		.choices = strategy_choices,
		.size = 128,
	},
	{
		.key = "budget_s",
		.kind = OPT_UINT,
		.def = "12",
		.help = "seconds the experiments may take: sizes the user did "
			"not set are cut to fit; 0: no limit",
		.offset = P_OFF(budget_s),
		.min = 0,
		.max = 1000000,
	},
	{
		.key = "samples",
		.kind = OPT_UINT,
		.def = "200",
		.help = "timed samples per configuration (1..1000000)",
		.offset = P_OFF(samples),
		.min = 1,
		.max = PARAM_SAMPLES_MAX,
	},
	{
		.key = "warmup",
		.kind = OPT_UINT,
		.def = "20",
		.help = "untimed runs before the samples of each configuration "
			"(0..100000)",
		.offset = P_OFF(warmup),
		.min = 0,
		.max = PARAM_WARMUP_MAX,
	},
	{
		.key = "reclaim_mb",
		.kind = OPT_UINT,
		.def = "0",
		.help = "reclaim: MiB of cold memory to page out; 0 sizes it "
			"from free RAM (a third, at most 20 GiB)",
		.offset = P_OFF(reclaim_mb),
		.min = 0,
		.max = 1048576,
	},
	{
		.key = "hot_mb",
		.kind = OPT_UINT,
		.def = "0",
		.help = "reclaim: MiB each worker reads at random; 0 sizes it "
			"from free RAM (at most 2 GiB)",
		.offset = P_OFF(hot_mb),
		.min = 0,
		.max = 1048576,
	},
	{
		.key = "writers",
		.kind = OPT_FLAG,
		.def = "on",
		.help = "reclaim: workers also write into the pages being "
			"paged "
			"out, so that lost writes can be detected",
		.offset = P_OFF(writers),
	},
	{
		.key = "duration_ms",
		.kind = OPT_UINT,
		.def = "100",
		.help = "reclaim: worker baseline window; flushloop: time per "
			"strategy and CPU count (1..60000 ms)",
		.offset = P_OFF(duration_ms),
		.min = 1,
		.max = 60000,
	},
	{
		/*
		 * 1 ms, so a finest bin of 20 us (RC_TL_FINE): a default
		 * run's batch-512 pass pages out in about 12 ms under TCG,
		 * polled every 16 pages, so it gets 100 bins of some 120 us;
		 * longer passes' bins grow.
		 */
		.key = "timeline_ms",
		.kind = OPT_UINT,
		.def = "1",
		.help = "reclaim: timeline records' bins, 1/50 of it the "
			"finest (0: none; bins grow with each window)",
		.offset = P_OFF(timeline_ms),
		.min = 0,
		.max = 1000,
	},
	{
		.key = "handler_timing",
		.kind = OPT_FLAG,
		.def = "off",
		.help = "shootdown: time every responder's handler (two "
			"ordered TSC reads in it: handler_p50/p99/max in the "
			"records); off keeps them out of the measured path",
		.offset = P_OFF(handler_timing),
	},
	{
		.key = "raw",
		.kind = OPT_FLAG,
		.def = "off",
		.help = "also print every timed sample, in raw records after "
			"each result record (a lot of console: 5-7 bytes a "
			"sample)",
		.offset = P_OFF(raw),
	},
	{
		.key = "delay_handler",
		.kind = OPT_CUSTOM,
		.def = "none",
		.help = "test aid: STRATEGY:CYCLES busy-waits CYCLES TSC "
			"cycles in every shootdown responder handler of that "
			"strategy (records carry delay_cycles); none: off",
		.offset = P_OFF(delay),
		.size = 48,
		.parse = parse_delay,
	},
	{
		.key = "invlpgb",
		.kind = OPT_CUSTOM,
		.def = "auto",
		.help = "INVLPGB: auto, off, emulate (software model where "
			"absent) or force; optionally ,bug=count|stride|"
			"no-tlbsync|no-global|pcid",
		.offset = P_OFF(invlpgb),
		.size = 32,
		.parse_notes = parse_invlpgb,
	},
};

const size_t bench_nopts = sizeof(bench_opts) / sizeof(bench_opts[0]);

struct cmdline_table bench_options(struct bench_params *p)
{
	return (struct cmdline_table){bench_opts, bench_nopts, p, p->given};
}

void bench_options_from_kernel(struct bench_params *p, const struct config *cfg)
{
	p->flushloop_local = cfg->inject == INJECT_FLUSHLOOP_LOCAL;
	p->inject_hang_ap = cfg->inject == INJECT_HANG_AP;
	p->inject_slow_ap = cfg->inject == INJECT_SLOW_AP;
	p->fault_at = cfg->fault_at;
	p->inject_nmi = cfg->inject == INJECT_NMI;
	p->inject_oom = cfg->inject == INJECT_OOM;
}

bool bench_given(const struct bench_params *p, const char *key)
{
	return cmdline_given(p->given, bench_opts, bench_nopts, key);
}
