// SPDX-License-Identifier: MIT
/*
 * The kernel's command-line keys (see config.h): one table that
 * cmdline_parse_tables() applies, `help` prints and the README documents,
 * beside the tables of the layers above.
 */
#include <stddef.h>
#include "config.h"
#include "kernel/cpu.h"
#include "lib/kstring.h"

#define CONSOLE_EXPECT "expected com1..com4 or 0xPORT[,baud]"
/* wait_ms='s default as text, from the one number (kernel/cpu.h). */
#define WAIT_MS_DEFAULT_TEXT STR_OF_VALUE(CPU_WAIT_MS_DEFAULT)
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

/*
 * Ports that are never a 16550's, all of them 8-aligned at or above 0x100:
 * the probe writes its registers, so only a port that could be a UART may
 * be tried at all (0xcf8: a write at +4 would land in PCI configuration).
 */
static const struct {
	uint16_t base, last;
	const char *what;
} not_uart[] = {
	{0x170, 0x177, "the secondary IDE channel"},
	{0x1f0, 0x1f7, "the primary IDE channel"},
	{0x370, 0x377, "the secondary floppy controller"},
	{0x3b0, 0x3df, "VGA"},
	{0x3f0, 0x3f7, "the floppy controller"},
	{0x4d0, 0x4d7, "the interrupt edge/level registers"},
	{0x510, 0x51f, "QEMU's firmware configuration"},
	{0xcf8, 0xcff, "PCI configuration"},
};

/* Whether port can be a 16550's base; why says why not. */
static bool port_usable(uint64_t v, char *why, size_t whylen)
{
	char msg[96];
	struct kbuf b;

	kbuf_init(&b, msg, sizeof(msg));
	if (v < 0x100) {
		/* PIC, PIT, DMA pages, the FPU, a debug-exit device... */
		kbuf_puts(&b,
			  "ports below 0x100 are the chipset's, not a UART");
	} else if (v % 8) {
		kbuf_puts(&b, "a 16550's port is a multiple of 8 (it has 8 "
			      "registers)");
	} else {
		for (size_t i = 0; i < sizeof(not_uart) / sizeof(not_uart[0]);
		     i++) {
			if (v < not_uart[i].base || v > not_uart[i].last)
				continue;
			kbuf_puts(&b, "port is ");
			kbuf_puts(&b, not_uart[i].what);
			kbuf_puts(&b, ", not a UART");
			return fail(why, whylen, msg);
		}
		return true;
	}
	return fail(why, whylen, msg);
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
	if (e == KPARSE_OVERFLOW || v > PORT_MAX)
		return fail(why, whylen, "port must be 0x100..0xfff8");
	if (!port_usable(v, why, whylen))
		return false;
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

static const char *const stop_site_names[] = STOP_SITE_NAMES;

const char *stop_site_name(unsigned site)
{
	return site <= STOP_ANY ? stop_site_names[site] : "?";
}

bool fault_at_parse(const char *val, struct fault_at *at, char *why,
		    size_t whylen)
{
	size_t n = 0;
	uint64_t nth = 0;

	if (!kstrcmp(val, "seed")) {
		*at = (struct fault_at){.seeded = true};
		return true;
	}
	while (val[n] && val[n] != ':')
		n++;
	for (unsigned s = 0; s <= STOP_ANY; s++) {
		if (kstrlen(stop_site_names[s]) != n ||
		    kstrncmp(val, stop_site_names[s], n))
			continue;
		if (val[n] != ':' ||
		    kparse_u64(val + n + 1, kstrlen(val + n + 1), &nth) !=
			    KPARSE_OK ||
		    nth < 1 || nth > FAULT_AT_NTH_MAX) {
			return fail(why, whylen,
				    "expected a count 1..1000000 after SITE:");
		}
		*at = (struct fault_at){.site = (uint8_t)s,
					.nth = (uint32_t)nth};
		return true;
	}
	return fail(why, whylen,
		    "expected SITE:N (SITE xcall, mbox-ticket, mbox-lock, "
		    "pt-lock, frame-lock, console-lock or any) or seed");
}

static bool config_parse_fault_at(const char *val, void *dst, char *why,
				  size_t whylen)
{
	struct fault_at at;

	if (!fault_at_parse(val, &at, why, whylen))
		return false;
	kmemcpy(dst, &at, sizeof(at));
	return true;
}

static const char *const exit_choices[] = {"halt", "reboot", NULL};
static const char *const init_wait_choices[] = {"auto", "on", "off", NULL};
/* In the order of enum idle_mode. */
static const char *const idle_choices[] = {"auto", "poll", "hlt", "mwait",
					   NULL};
static const char *const output_choices[] = {"both", "human", "json", NULL};
static const char *const inject_choices[] = {
	"none",		 "fault",	    "fail",    "fault-ap", "tsc-skew",
	"invlpgb-local", "flushloop-local", "hang-ap", "slow-ap",  "nmi",
	"oom",		 "fault-all",	    NULL,
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
		.key = "selftest",
		.kind = OPT_CHOICE,
		.def = "none",
		.help = "inject a failure to test the harness: none, fault "
			"(an exception), fault-ap (one on the last cpu), fail "
			"(a FAIL verdict), tsc-skew (one TSC estimate 2% off "
			"for the sources check), invlpgb-local (a local "
			"INVLPG in place of the tlb: check's INVLPGB), "
			"flushloop-local (flushloop's flushes skip the other "
			"cpus), hang-ap (the last cpu stops answering), "
			"slow-ap (it answers once too late), nmi (an NMI "
			"inside a timed shootdown sample) or oom (shootdown "
			"runs out of frames), fault-all (every cpu at once)",
		.offset = CFG_OFF(inject),
		.choices = inject_choices,
	},
	{
		.key = "fault_at",
		.kind = OPT_CUSTOM,
		.def = FAULT_AT_DEFAULT,
		.help = "where selftest=hang-ap or slow-ap strikes its cpu: "
			"SITE:N, the Nth time it passes SITE (xcall: a "
			"cross-call handler before it answers; mbox-ticket, "
			"mbox-lock: a mailbox ticket drawn, the mailboxes "
			"locked; pt-lock, frame-lock, console-lock: that lock "
			"held; any: any of them), or seed: drawn from seed=",
		.offset = CFG_OFF(fault_at),
		.size = 32,
		.parse = config_parse_fault_at,
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
		.key = "wait_ms",
		.kind = OPT_UINT,
		.def = WAIT_MS_DEFAULT_TEXT,
		.help = "how long a cpu waits for another (a cross-call's "
			"answer, a lock's holder) before it calls it slow or "
			"stopped, in ms",
		.offset = CFG_OFF(wait_ms),
		.min = 100,
		.max = 600000,
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
		.key = "output",
		.kind = OPT_CHOICE,
		.def = "both",
		.help = "console output besides the verdict lines: both, "
			"human (no @json records) or json (no tables or "
			"progress lines)",
		.offset = CFG_OFF(output),
		.choices = output_choices,
	},
};

const size_t config_nopts = sizeof(config_opts) / sizeof(config_opts[0]);

size_t config_parse(const char *line, struct config *cfg,
		    const struct cmdline_table *more, size_t nmore,
		    struct cmdline_diags *diags)
{
	struct cmdline_table t[CMDLINE_TABLES_MAX] = {
		{config_opts, config_nopts, cfg, cfg->given}};
	size_t nt = 1;

	cmdline_defaults(config_opts, config_nopts, cfg);
	for (size_t i = 0; i < nmore && nt < CMDLINE_TABLES_MAX; i++) {
		cmdline_defaults(more[i].opts, more[i].nopts, more[i].cfg);
		t[nt++] = more[i];
	}
	return cmdline_parse_tables(line, t, nt, diags);
}

bool config_given(const struct config *cfg, const char *key)
{
	return cmdline_given(cfg->given, config_opts, config_nopts, key);
}
