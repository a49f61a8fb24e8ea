/* SPDX-License-Identifier: MIT */
/*
 * The workloads' arguments (linux/args.c): the words after `--` on the
 * kernel's command line, which Linux hands to /init as its argv
 * (docs/linux.md lists them).
 */
#ifndef LINUX_ARGS_H
#define LINUX_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_COUNTS 16

struct args {
	bool flush2, pageout;		      /* workloads= */
	unsigned counts[MAX_COUNTS], ncounts; /* threads=; 0: 1, 2, 4 .. all */
	uint64_t flush2_ms, flush2_pages;
	uint64_t reclaim_mb, hot_mb, duration_ms, zram_mb;
};

/* Defaults, then argv's words; a bad word is named in an INFO line. */
void args_parse(struct args *a, int argc, char **argv, unsigned cpus);

#endif
