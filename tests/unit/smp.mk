# Host unit tests (cmocka) of the portable SMP code in smp/: the ACPI
# parsers, CPU topology decoding, the cpumask, the choice of the wait
# after INIT, the choice of the idle loop and the rules of the TSC
# handshake.
#
# Included from the top-level Makefile, or used on its own from the top of
# the repository:  make -f tests/unit/smp.mk smp-unit
#
#   smp-unit          compile the portable smp/ files as the kernel does
#                     (smp-freestanding), then build build/host/test_{acpi,
#                     topology,cpumask,initwait,idle,tsc_handshake} with
#                     ASan/UBSan and run them; fails if any test fails
#   smp-freestanding  compile kernel/acpi*.c, smp/topology.c, smp/initwait.c,
#                     smp/idle.c and smp/cpumask.h with the kernel's flags plus
#                     -fno-builtin: no libc, no SSE, no red zone
#   smp-unit-clean    remove what these targets built
#
# test_acpi reads the tables captured from QEMU in tests/unit/data/acpi/
# (tools/capture-acpi.py); their absolute path is compiled in.
#
# Every variable is SMP_-prefixed (HOSTCC and CC aside) so that this file
# can be included next to unit.mk and mm.mk.

# Standalone, the default goal is smp-unit; included, keep the including
# Makefile's default goal (this file defines targets too).
ifeq ($(words $(MAKEFILE_LIST)),1)
SMP_DEFAULT_GOAL := smp-unit
else
SMP_DEFAULT_GOAL := $(.DEFAULT_GOAL)
endif

HOSTCC ?= cc
SMP_UNIT_DIR := tests/unit
SMP_OUT := build/host
SMP_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. \
	-fsanitize=address,undefined -fno-sanitize-recover=all
SMP_LDLIBS := -lcmocka
SMP_KCFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding \
	-fno-builtin -fno-pic -fno-pie -fno-stack-protector -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 -m64 -I.

SMP_TESTS := acpi topology cpumask initwait idle tsc_handshake
SMP_ACPI_SRCS := kernel/acpi.c kernel/acpi_rsdp.c kernel/acpi_madt.c \
	kernel/acpi_tables.c
SMP_SRCS_acpi := $(SMP_ACPI_SRCS) lib/kstring.c lib/printf.c
SMP_SRCS_topology := smp/topology.c
SMP_SRCS_cpumask :=
SMP_SRCS_initwait := smp/initwait.c lib/kstring.c
SMP_SRCS_idle := smp/idle.c
SMP_SRCS_tsc_handshake :=
SMP_XFLAGS_acpi := -DACPI_DATA_DIR='"$(abspath $(SMP_UNIT_DIR)/data/acpi)"'
SMP_XLIBS_cpumask := -pthread

SMP_BINS := $(SMP_TESTS:%=$(SMP_OUT)/test_%)
SMP_HDRS := $(wildcard kernel/acpi*.h) smp/topology.h smp/cpumask.h \
	smp/initwait.h smp/idle.h smp/tsc_handshake.h kernel/config.h lib/cmdline.h \
	kernel/multiboot.h lib/kstring.h lib/printf.h \
	$(SMP_UNIT_DIR)/unit.h

# The freestanding objects live apart from the kernel's build/smp/ ones.
SMP_KSRCS := $(SMP_ACPI_SRCS) smp/topology.c smp/initwait.c smp/idle.c
SMP_KOBJS := $(SMP_KSRCS:%.c=$(SMP_OUT)/freestanding/%.o)
SMP_KMASK := $(SMP_OUT)/freestanding/smp/cpumask.o

define SMP_RULE
$(SMP_OUT)/test_$(1): $(SMP_UNIT_DIR)/test_$(1).c $$(SMP_SRCS_$(1)) \
		$(SMP_HDRS) $(SMP_UNIT_DIR)/smp.mk
	@mkdir -p $$(@D)
	$$(HOSTCC) $$(SMP_CFLAGS) $$(SMP_XFLAGS_$(1)) -o $$@ \
		$$(filter %.c,$$^) $$(SMP_LDLIBS) $$(SMP_XLIBS_$(1))
endef
$(foreach t,$(SMP_TESTS),$(eval $(call SMP_RULE,$(t))))

$(SMP_KOBJS): $(SMP_OUT)/freestanding/%.o: %.c $(SMP_HDRS) \
		$(SMP_UNIT_DIR)/smp.mk
	@mkdir -p $(@D)
	$(CC) $(SMP_KCFLAGS) -c $< -o $@

# cpumask.h is all inline: compile a file that uses every kind of
# operation, and fail if it calls anything (the atomics must become
# LOCK-prefixed instructions, not libatomic calls; no libgcc popcount).
SMP_MASK_USE := \#include "smp/cpumask.h"\n\
unsigned int use_all(struct cpumask *m, unsigned int c) {\n\
	unsigned int n = 0, i;\n\
	cpumask_set_atomic(c, m);\n\
	cpumask_clear_atomic(c + 1, m);\n\
	n += cpumask_test_and_set_atomic(c, m);\n\
	n += cpumask_test_and_clear_atomic(c, m);\n\
	n += cpumask_test_atomic(c, m);\n\
	for_each_cpu (i, m) n += i;\n\
	cpumask_andnot(m, m, m);\n\
	return n + cpumask_count(m);\n\
}\n

$(SMP_KMASK): smp/cpumask.h $(SMP_UNIT_DIR)/smp.mk
	@mkdir -p $(@D)
	printf '$(SMP_MASK_USE)' | $(CC) $(SMP_KCFLAGS) -x c -c - -o $@
	@if nm -u $@ | grep -q .; then \
		echo "$@: calls $$(nm -u $@ | awk '{print $$2}')"; \
		rm -f $@; exit 1; \
	fi

# Every binary runs (so that all failures show); the exit status says
# whether any of them failed.
.PHONY: smp-unit smp-freestanding smp-unit-clean
smp-unit: smp-freestanding $(SMP_BINS)
	@failed=""; \
	for t in $(SMP_BINS); do \
		echo "== $$t"; \
		./$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "smp-unit: FAILED:$$failed"; exit 1; \
	fi; \
	echo "smp-unit: all $(words $(SMP_BINS)) test programs passed"

smp-freestanding: $(SMP_KOBJS) $(SMP_KMASK)

smp-unit-clean:
	rm -rf $(SMP_BINS) $(SMP_OUT)/freestanding/smp

.DEFAULT_GOAL := $(SMP_DEFAULT_GOAL)
