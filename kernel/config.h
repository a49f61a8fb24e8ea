/* SPDX-License-Identifier: MIT */
/*
 * The harness's settings: the kernel's command-line keys, their defaults and
 * meanings (config.c holds the table that `help` prints and the README
 * documents). The experiments' keys are bench/options.c's table, which
 * the top hands to the same parse. Portable.
 */
#ifndef KERNEL_CONFIG_H
#define KERNEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/cmdline.h"
#include "stoppoint.h"

enum exit_mode { EXIT_HALT, EXIT_REBOOT };
enum selftest_inject {
	INJECT_NONE,
	INJECT_FAULT,
	INJECT_FAIL,
	INJECT_FAULT_AP,
	INJECT_TSC_SKEW,
	INJECT_INVLPGB_LOCAL,
	INJECT_FLUSHLOOP_LOCAL,
	INJECT_HANG_AP,
	INJECT_SLOW_AP,
	INJECT_NMI,
	INJECT_OOM,
	INJECT_FAULT_ALL
};
/* init_wait=: the 10 ms wait after INIT at bring-up (smp/initwait.h). */
enum init_wait_mode { INIT_WAIT_AUTO, INIT_WAIT_ON, INIT_WAIT_OFF };
/* idle=: how the other CPUs wait for work (smp/idle.h). */
enum idle_mode { IDLE_AUTO, IDLE_POLL, IDLE_HLT, IDLE_MWAIT };
/* output=: what goes to the console besides the verdicts (report.h). */
enum output_mode { OUTPUT_BOTH, OUTPUT_HUMAN, OUTPUT_JSON };

struct console_cfg {
	uint16_t port; /* I/O port of the 16550 */
	uint32_t baud;
};

struct config {
	struct console_cfg console; /* console=com1..com4|0xPORT[,baud] */
	int exit_mode;		    /* exit=halt|reboot (enum exit_mode) */
	int inject;		    /* selftest=none|fault|fail|... */
	struct fault_at fault_at;   /* fault_at=SITE:N|seed (hang/slow-ap) */
	bool help;		    /* help: print the keys and defaults */
	uint64_t cpus;		    /* cpus=N: bring up N CPUs, 0 = all */
	uint64_t wait_ms;	    /* wait_ms=N: cpu_wait_us in ms */
	int init_wait;		    /* init_wait=auto|on|off */
	int idle;		    /* idle=auto|poll|hlt|mwait */
	int output;		    /* output=both|human|json */
	/* Which keys the line gave a valid value: see config_given(). */
	uint64_t given[CMDLINE_OPTS_MAX / 64];
};

extern const struct cmdline_opt config_opts[];
extern const size_t config_nopts;

/*
 * Every key of cfg and of the `nmore` tables of the layers above to its
 * default, then the words of `line` over all of them in one parse
 * (cmdline_parse_tables), and which keys the line set; returns the number
 * of diagnostics.
 */
size_t config_parse(const char *line, struct config *cfg,
		    const struct cmdline_table *more, size_t nmore,
		    struct cmdline_diags *diags);

/* Whether the command line set `key` (rather than leaving the default). */
bool config_given(const struct config *cfg, const char *key);

/* Parses console=... values: "com1".."com4", "0x2f8", "0x2f8,9600". */
bool config_parse_console(const char *val, void *dst, char *why, size_t whylen);

#endif
