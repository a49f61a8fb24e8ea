/* SPDX-License-Identifier: MIT */
/*
 * The harness's settings: the kernel command line's keys, their defaults and
 * meanings (config.c holds the table that `help` prints and the README
 * documents). Portable.
 */
#ifndef KERNEL_CONFIG_H
#define KERNEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/cmdline.h"

enum exit_mode { EXIT_HALT, EXIT_REBOOT };
enum selftest_inject {
	INJECT_NONE,
	INJECT_FAULT,
	INJECT_FAIL,
	INJECT_FAULT_AP,
	INJECT_TSC_SKEW,
	INJECT_INVLPGB_LOCAL,
	INJECT_FLUSHLOOP_LOCAL
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
	char bench[128];	    /* bench=all|none|name,name,... */
	int inject;		    /* selftest=none|fault|fail|... */
	bool help;		    /* help: print the keys and defaults */
	uint64_t cpus;		    /* cpus=N: bring up N CPUs, 0 = all */
	int init_wait;		    /* init_wait=auto|on|off */
	int idle;		    /* idle=auto|poll|hlt|mwait */
	uint64_t seed;		    /* seed=N: for randomised orders */
	/* The experiments' parameters, parsed further by bench/params.c. */
	char pages[160];      /* pages=K,K,...: pages per shootdown */
	char targets[160];    /* targets=auto|all|T,T,...: responders */
	char strategies[128]; /* strategies=all|name,name,... */
	uint64_t samples;     /* samples=N: timed samples per configuration */
	uint64_t warmup;      /* warmup=N: untimed runs before them */
	uint64_t reclaim_mb;  /* reclaim_mb=N: cold memory paged out, 0 auto */
	uint64_t hot_mb;      /* hot_mb=N: per worker, 0 auto */
	bool writers;	      /* writers=on|off: write while paging out */
	uint64_t duration_ms; /* duration_ms=N: baseline / flushloop time */
	char invlpgb[32];     /* invlpgb=auto|off|emulate|force[,bug=...] */
	uint64_t budget_s;    /* budget_s=N: experiments' time, 0 unlimited */
	bool handler_timing;  /* handler_timing=on|off: time each handler */
	bool raw;	      /* raw=on|off: every sample in raw records */
	int output;	      /* output=both|human|json (enum output_mode) */
	char delay_handler[48]; /* delay_handler=STRATEGY:CYCLES (test aid) */
	/* Which keys the line gave a valid value: see config_given(). */
	uint64_t given[CMDLINE_OPTS_MAX / 64];
};

extern const struct cmdline_opt config_opts[];
extern const size_t config_nopts;

/*
 * Every key to its default, then the words of `line` (cmdline_parse), and
 * which keys the line set; returns the number of diagnostics.
 */
size_t config_parse(const char *line, struct config *cfg,
		    struct cmdline_diags *diags);

/* Whether the command line set `key` (rather than leaving the default). */
bool config_given(const struct config *cfg, const char *key);

/* Parses console=... values: "com1".."com4", "0x2f8", "0x2f8,9600". */
bool config_parse_console(const char *val, void *dst, char *why, size_t whylen);

#endif
