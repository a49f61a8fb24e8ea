/* SPDX-License-Identifier: MIT */
#ifndef KERNEL_ENV_H
#define KERNEL_ENV_H

/* Prints the env record (docs/output.md): the first record of every run. */
void env_report(const char *cmdline, const char *output);

#endif
