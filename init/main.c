// SPDX-License-Identifier: MIT
/*
 * shootdown: from the loader's hand-off to the last line of output. Each
 * step depends on the ones above it; read this file as the checklist of
 * what the harness does.
 */
#include <stdint.h>
#include "bench/bench.h"
#include "bench/invlpgb_emul.h"
#include "bench/options.h"
#include "init/env.h"
#include "kernel/bootinfo.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/report.h"
#include "kernel/selftest.h"
#include "lib/string.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/usb_handoff.h"
#include "mm/mm_selftest.h"
#include "mm/pagefault.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "version.h"

static struct config cfg;
static struct bench_params params; /* the experiments' keys */
static struct cmdline_diags cmdline_diags;

static void report_to_console(const char *head, const char *body, size_t n)
{
	console_lock();
	console_write_locked(head, strlen(head));
	console_write_locked(body, n);
	console_write_locked("\n", 1);
	console_unlock();
}

static const char *const output_names[] = {
	[OUTPUT_BOTH] = "both",
	[OUTPUT_HUMAN] = "human",
	[OUTPUT_JSON] = "json",
};

/*
 * The kernel's keys and the experiments', in one parse of the line. A line
 * the loader gave longer than the kernel takes is applied not at all: its
 * cut copy could end in half a value (cpus=31 as cpus=3).
 */
static void config_load(const struct boot_info *bi)
{
	const struct cmdline_table bench = bench_options(&params);

	config_parse(bi->cmdline_truncated ? "" : bi->cmdline, &cfg, &bench, 1,
		     &cmdline_diags);
	/* Before the first record: output=human prints none of them. */
	report_records(cfg.output != OUTPUT_HUMAN);
	cpu_wait_us = (uint32_t)cfg.wait_ms * 1000; /* before any cpu waits */
}

static void config_report(void)
{
	struct cmdline_fold_pos pos = {0, 0};
	char line[CMDLINE_DIAG_LEN];

	if (boot_info.cmdline_truncated)
		report_fail("cmdline",
			    "%zu bytes, longer than the %u the kernel takes: "
			    "no word of it applied, running with the defaults",
			    boot_info.cmdline_len, BOOT_CMDLINE_MAX - 1);
	for (size_t i = 0; i < cmdline_diags.count; i++)
		report_info("%s", cmdline_diags.msg[i]);
	while (cmdline_fold_next(&cmdline_diags, &pos, line, sizeof(line)))
		report_info("%s", line);
	if (cmdline_diags.dropped)
		report_info("cmdline: %zu more problems not shown",
			    cmdline_diags.dropped);
	if (console_describe()[0])
		report_info("console: %s", console_describe());
	/*
	 * Always said, so that a reader of an output=human log, which has no
	 * env record, knows why it has no records at all.
	 */
	report_info("output: %s%s", output_names[cfg.output],
		    cfg.output == OUTPUT_HUMAN ? " (no @json records)"
		    : cfg.output == OUTPUT_JSON
			    ? " (no tables or progress lines)"
			    : "");
}

static void print_keys(const struct cmdline_opt *opts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kprintf("  %-10s default %-8s %s\n", opts[i].key, opts[i].def,
			opts[i].help);
}

/* `help`: every key with its default and meaning. */
static void config_print_help(void)
{
	kprintf("Kernel command line keys (key=value, separated by spaces):\n");
	print_keys(config_opts, config_nopts);
	print_keys(bench_opts, bench_nopts);
}

/* The tlb: checks, through the INVLPGB model where bench_init() started it. */
static void tlb_checks(void)
{
	static const struct tlb_invlpgb_model model = {
		.max_pages = INVLPGB_EMUL_MAX_PAGES,
		.report = invlpgb_emul_report,
	};

	tlb_selftest_run(&cfg, bench_invlpgb_model() ? &model : NULL);
}

/* The checklist reads best with its comments in one column. */
/* clang-format off */
void kernel_main(uint32_t magic, uint32_t info_addr)
{
	static const struct console_cfg com1 = { 0x3f8, 115200 };

	env_note_boot();                  /* the TSC at boot: for the run id */
	percpu_init_boot();               /* GS: this_cpu() works from here */
	cpu_identify();                   /* CPUID: vendor, model, features */
	console_init(&com1);              /* COM1 until the cmdline is read */
	report_init(report_to_console);   /* verdicts and records go there */
	traps_init_cpu(NULL, NULL);       /* GDT, TSS, IDT: faults reported */
	kprintf("\nshootdown %s: TLB invalidation cost harness\n",
		BUILD_VERSION);
	bootinfo_parse(magic, info_addr); /* copy the loader's information */
	config_load(&boot_info);          /* key=value words into cfg */
	console_init(&cfg.console);       /* the console the user asked for */
	if (console_port() != com1.port)  /* a new port: a clean first line */
		kprintf("\nshootdown %s: TLB invalidation cost harness\n",
			BUILD_VERSION);
	exit_init(cfg.exit_mode);         /* halt or reboot at the end */
	tsc_calibrate();                  /* the clock every timing uses */
	pagefault_init();                 /* expected #PF recorded, not fatal */
	mm_init();                        /* frames, own page tables, W^X */
	smp_init(&cfg);                   /* ACPI, APIC, every CPU online */
	tsc_crosscheck(&acpi, mmio_map);  /* TSC rate from every clock */
	env_report(boot_info.cmdline, output_names[cfg.output]); /* first record */
	config_report();                  /* what was wrong with the cmdline */
	bootinfo_report();                /* what the loader gave us */
	mm_report();                      /* how memory was set up */
	smp_report();                     /* CPUs, bring-up time, TSC */
	exit_report();                    /* exit=reboot: how it resets */
	tsc_report();                     /* each clock's TSC estimate */
	usb_handoff(mmio_map);            /* the firmware's USB SMIs stop */
	if (cfg.help)
		config_print_help();      /* every key, default, meaning */
	selftest_run(&cfg);               /* the harness checks itself */
	mm_selftest_run();                /* mappings, stale TLB, W^X */
	bench_init(&cfg, &params);        /* parameters, the INVLPGB model */
	tlb_checks();                     /* each flush primitive */
	smp_selftest_run(&cfg);           /* cross-calls, IPIs, barrier */
	bench_run();                      /* the experiments bench= names */
	run_exit(report_summary());       /* SUMMARY, EXIT: STATUS=n, stop */
}
/* clang-format on */
