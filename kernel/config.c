// SPDX-License-Identifier: MIT
/*
 * The command-line keys of the harness (see config.h): one table that
 * cmdline_parse() applies, `help` prints and the README documents.
 */
#include <stddef.h>
#include "config.h"
#include "lib/kstring.h"

#define CONSOLE_EXPECT "expected com1..com4 or 0xPORT[,baud]"
/* A 16550 decodes 8 ports, so the last base that fits below 0x10000. */
#define PORT_MAX 0xfff8
/* The UART clock is 1.8432 MHz / 16: only divisors of it are exact. */
#define BAUD_BASE 115200

static const uint16_t com_ports[] = {0x3f8, 0x2f8, 0x3e8, 0x2e8};

static bool fail(char *why, size_t whylen, const char *reason)
{
	if (why)
		kstrlcpy(why, reason, whylen);
	return false;
}

static bool parse_port(const char *s, size_t n, uint16_t *port, char *why,
		       size_t whylen)
{
	uint64_t v;
	enum kparse_err e;

	if (n == 4 && !kstrncmp(s, "com", 3) && s[3] >= '1' && s[3] <= '4') {
		*port = com_ports[s[3] - '1'];
		return true;
	}
	if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return fail(why, whylen, CONSOLE_EXPECT);
	e = kparse_u64(s, n, &v);
	if (e == KPARSE_INVALID)
		return fail(why, whylen, CONSOLE_EXPECT);
	if (e == KPARSE_OVERFLOW || v == 0 || v > PORT_MAX)
		return fail(why, whylen, "port must be 0x1..0xfff8");
	*port = (uint16_t)v;
	return true;
}

static bool parse_baud(const char *s, uint32_t *baud, char *why, size_t whylen)
{
	uint64_t v;
	enum kparse_err e = kparse_u64(s, kstrlen(s), &v);

	if (e == KPARSE_INVALID)
		return fail(why, whylen, "expected a baud rate after ','");
	if (e == KPARSE_OVERFLOW || v == 0 || v > BAUD_BASE ||
	    BAUD_BASE % v != 0)
		return fail(
			why, whylen,
			"baud must divide 115200 (e.g. 9600, 38400, 115200)");
	*baud = (uint32_t)v;
	return true;
}

bool config_parse_console(const char *val, void *dst, char *why, size_t whylen)
{
	struct console_cfg c = {.baud = BAUD_BASE};
	size_t plen = 0;

	while (val[plen] && val[plen] != ',')
		plen++;
	if (!parse_port(val, plen, &c.port, why, whylen))
		return false;
	if (val[plen] == ',' &&
	    !parse_baud(val + plen + 1, &c.baud, why, whylen))
		return false;
	/* Only now: a rejected value must leave dst as it was. */
	kmemcpy(dst, &c, sizeof(c));
	return true;
}

static const char *const exit_choices[] = {"halt", "reboot", NULL};
static const char *const init_wait_choices[] = {"auto", "on", "off", NULL};
/* In the order of enum idle_mode. */
static const char *const idle_choices[] = {"auto", "poll", "hlt", "mwait",
					   NULL};
static const char *const output_choices[] = {"both", "human", "json", NULL};
static const char *const inject_choices[] = {
	"none",		 "fault",	    "fail", "fault-ap", "tsc-skew",
	"invlpgb-local", "flushloop-local", NULL,
};

#define CFG_OFF(f) offsetof(struct config, f)

const struct cmdline_opt config_opts[] = {
	{
		.key = "console",
		.kind = OPT_CUSTOM,
		.def = "com1",
		.help = "serial console: com1..com4 or 0xPORT, optionally "
			",BAUD (a divisor of 115200)",
		.offset = CFG_OFF(console),
		.parse = config_parse_console,
	},
	{
		.key = "exit",
		.kind = OPT_CHOICE,
		.def = "halt",
		.help = "what to do on hardware after the last line: halt or "
			"reboot",
		.offset = CFG_OFF(exit_mode),
		.choices = exit_choices,
	},
	{
		.key = "bench",
		.kind = OPT_STRING,
		.def = "all",
		.help = "experiments to run: all, none or a comma-separated "
			"list of names",
		.offset = CFG_OFF(bench),
		.size = sizeof(((struct config *)0)->bench),
	},
	{
		.key = "selftest",
		.kind = OPT_CHOICE,
		.def = "none",
		.help = "inject a failure to test the harness: none, fault "
			"(an exception), fault-ap (one on the last cpu), fail "
			"(a FAIL verdict), tsc-skew (one TSC estimate 2% off "
			"for the sources check), invlpgb-local (a local "
			"INVLPG in place of the tlb: check's INVLPGB) or "
			"flushloop-local (flushloop's flushes skip the other "
			"cpus)",
		.offset = CFG_OFF(inject),
		.choices = inject_choices,
	},
	{
		.key = "help",
		.kind = OPT_FLAG,
		.def = "off",
		.help = "print every key with its default and meaning",
		.offset = CFG_OFF(help),
	},
	{
		.key = "cpus",
		.kind = OPT_UINT,
		.def = "0",
		.help = "number of CPUs to bring up; 0 means all of them",
		.offset = CFG_OFF(cpus),
		.min = 0,
		.max = 65535,
	},
	{
		.key = "init_wait",
		.kind = OPT_CHOICE,
		.def = "auto",
		.help = "bring-up: wait 10 ms after INIT (the MP spec's "
			"sequence): auto (only on CPUs that need it), on or "
			"off",
		.offset = CFG_OFF(init_wait),
		.choices = init_wait_choices,
	},
	{
		.key = "idle",
		.kind = OPT_CHOICE,
		.def = "auto",
		.help = "how idle cpus wait for IPIs and work: poll (PAUSE "
			"loop), hlt, mwait (MONITOR/MWAIT where CPUID has it, "
			"else hlt) or auto (poll on bare metal and dedicated "
			"KVM vCPUs, else hlt)",
		.offset = CFG_OFF(idle),
		.choices = idle_choices,
	},
	{
		.key = "seed",
		.kind = OPT_UINT,
		.def = "1",
		.help = "seed for the randomised orders of the experiments",
		.offset = CFG_OFF(seed),
		.min = 0,
		.max = UINT64_MAX,
	},
	{
		.key = "pages",
		.kind = OPT_STRING,
		.def = "1,2,8,32,33,64,512",
		.help = "pages invalidated per shootdown: a comma-separated "
			"list of 1..4096",
		.offset = CFG_OFF(pages),
		.size = sizeof(((struct config *)0)->pages),
	},
	{
		.key = "targets",
		.kind = OPT_STRING,
		.def = "auto",
		.help = "responder counts: a comma-separated list of numbers, "
			"all (every other CPU) or auto (1,2,4,... and all)",
		.offset = CFG_OFF(targets),
		.size = sizeof(((struct config *)0)->targets),
	},
	{
		.key = "strategies",
		.kind = OPT_STRING,
		.def = "all",
		.help = "invalidation strategies to compare: all or a "
			"comma-separated list (ipi-page,ipi-range,...)",
		.offset = CFG_OFF(strategies),
		.size = sizeof(((struct config *)0)->strategies),
	},
	{
		.key = "budget_s",
		.kind = OPT_UINT,
		.def = "12",
		.help = "seconds the experiments may take: sizes the user did "
			"not set are cut to fit; 0: no limit",
		.offset = CFG_OFF(budget_s),
		.min = 0,
		.max = 1000000,
	},
	{
		.key = "samples",
		.kind = OPT_UINT,
		.def = "200",
		.help = "timed samples per configuration (1..1000000)",
		.offset = CFG_OFF(samples),
		.min = 1,
		.max = 1000000,
	},
	{
		.key = "warmup",
		.kind = OPT_UINT,
		.def = "20",
		.help = "untimed runs before the samples of each configuration "
			"(0..100000)",
		.offset = CFG_OFF(warmup),
		.min = 0,
		.max = 100000,
	},
	{
		.key = "reclaim_mb",
		.kind = OPT_UINT,
		.def = "0",
		.help = "reclaim: MiB of cold memory to page out; 0 sizes it "
			"from free RAM (a third, at most 20 GiB)",
		.offset = CFG_OFF(reclaim_mb),
		.min = 0,
		.max = 1048576,
	},
	{
		.key = "hot_mb",
		.kind = OPT_UINT,
		.def = "0",
		.help = "reclaim: MiB each worker reads at random; 0 sizes it "
			"from free RAM (at most 2 GiB)",
		.offset = CFG_OFF(hot_mb),
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
		.offset = CFG_OFF(writers),
	},
	{
		.key = "duration_ms",
		.kind = OPT_UINT,
		.def = "100",
		.help = "reclaim: worker baseline window; flushloop: time per "
			"strategy and CPU count (1..60000 ms)",
		.offset = CFG_OFF(duration_ms),
		.min = 1,
		.max = 60000,
	},
	{
		.key = "handler_timing",
		.kind = OPT_FLAG,
		.def = "off",
		.help = "shootdown: time every responder's handler (two "
			"ordered TSC reads in it: handler_p50/p99/max in the "
			"records); off keeps them out of the measured path",
		.offset = CFG_OFF(handler_timing),
	},
	{
		.key = "raw",
		.kind = OPT_FLAG,
		.def = "off",
		.help = "also print every timed sample, in raw records after "
			"each result record (a lot of console: 5-7 bytes a "
			"sample)",
		.offset = CFG_OFF(raw),
	},
	{
		.key = "output",
		.kind = OPT_CHOICE,
		.def = "both",
		.help = "console output besides the verdict lines: both, "
			"human (no @json records) or json (no tables or "
			"progress lines)",
		.offset = CFG_OFF(output),
		.choices = output_choices,
	},
	{
		.key = "delay_handler",
		.kind = OPT_STRING,
		.def = "none",
		.help = "test aid: STRATEGY:CYCLES busy-waits CYCLES TSC "
			"cycles in every shootdown responder handler of that "
			"strategy (records carry delay_cycles); none: off",
		.offset = CFG_OFF(delay_handler),
		.size = sizeof(((struct config *)0)->delay_handler),
	},
	{
		.key = "invlpgb",
		.kind = OPT_STRING,
		.def = "auto",
		.help = "INVLPGB: auto, off, emulate (software model where "
			"absent) or force; optionally ,bug=count|stride|"
			"no-tlbsync",
		.offset = CFG_OFF(invlpgb),
		.size = sizeof(((struct config *)0)->invlpgb),
	},
};

const size_t config_nopts = sizeof(config_opts) / sizeof(config_opts[0]);

size_t config_parse(const char *line, struct config *cfg,
		    struct cmdline_diags *diags)
{
	size_t n;

	cmdline_defaults(config_opts, config_nopts, cfg);
	n = cmdline_parse(line, config_opts, config_nopts, cfg, diags);
	kmemcpy(cfg->given, diags->given, sizeof(cfg->given));
	return n;
}

bool config_given(const struct config *cfg, const char *key)
{
	return cmdline_given(cfg->given, config_opts, config_nopts, key);
}
