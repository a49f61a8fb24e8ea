/* SPDX-License-Identifier: MIT */
#ifndef INIT_ENV_H
#define INIT_ENV_H

/* Notes the TSC at boot, for the run id; the first thing kernel_main does. */
void env_note_boot(void);

/* Prints the env record (docs/records.md): the first record of every run. */
void env_report(const char *cmdline, const char *output);

#endif
