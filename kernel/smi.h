/* SPDX-License-Identifier: MIT */
/*
 * SMIs counted on the CPU that times (kernel/smi_account.h has the rules):
 * one "smi" record per experiment (docs/records.md, "smi").
 */
#ifndef KERNEL_SMI_H
#define KERNEL_SMI_H

#include "kernel/smi_account.h"

/*
 * Starts t on the running CPU, choosing and (AMD) programming its counter
 * the first time; the INFO line saying which is printed then.
 */
void smi_tally_start(struct smi_tally *t);

/* The counter now (0 where there is none). */
uint64_t smi_read(const struct smi_tally *t);

/* The record of one experiment's tally, and a line if SMIs came. */
void smi_record(const char *bench, const struct smi_tally *t);

/* The SMIs counted over every experiment recorded so far (the caveat). */
uint64_t smi_run_total(void);

#endif
