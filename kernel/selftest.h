/* SPDX-License-Identifier: MIT */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include "config.h"

/*
 * Checks that the harness's own machinery works on this machine before any
 * experiment trusts it, and the fault injection of selftest=fault, fail
 * and tsc-skew.
 */
void selftest_run(const struct config *cfg);

#endif
