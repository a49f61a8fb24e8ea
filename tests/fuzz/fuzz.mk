# libFuzzer targets (clang -fsanitize=fuzzer,address,undefined) for every
# parser that reads input from outside the harness: the multiboot
# information, the command line and every option's parser, the ACPI
# tables, the CPUID topology leaves, and the INVLPGB encoder (against a
# reference decoder). tests/fuzz/fuzz_T.c is target T; its seeds, small
# inputs derived from the unit tests' data, are in tests/fuzz/corpus/T/.
#
# Included from the top-level Makefile, or used on its own from the top of
# the repository:  make -f tests/fuzz/fuzz.mk fuzz
#
#   fuzz         build, then run each target for FUZZ_SECONDS (default 60),
#                growing build/fuzz/corpus/T; fails on any finding (the
#                input is saved as build/fuzz/artifacts/T-crash-...)
#   fuzz-smoke   each target for FUZZ_SMOKE_SECONDS (default 2) from its
#                seeds alone (part of make check); prints a SKIP line and
#                succeeds if FUZZ_CC cannot build libFuzzer targets (a
#                user without the packages; tools/install-deps.sh names
#                them)
#   fuzz-build   build build/fuzz/fuzz_T only
#   host-fuzz   the host tools' reader (tests/fuzz/host_reader.py: every
#                tools/shootdown.py subcommand on mutated logs, none may
#                raise) for FUZZ_SECONDS; fuzz and fuzz-smoke run it too,
#                fuzz-smoke for FUZZ_HOST_SMOKE_SECONDS (default 8) from
#                seed FUZZ_HOST_SEED (default 1; make fuzz a random one), after
#                replaying every input it ever broke on
#                (tests/fuzz/host_corpus/)
#   FUZZ_TARGETS=T... limits any of them to some targets; FUZZ_RUNS=N
#   (make fuzz FUZZ_RUNS=1000000 FUZZ_SECONDS=3600) also stops each after
#   N executions.
#
# Reproduce a finding:  build/fuzz/fuzz_T build/fuzz/artifacts/T-crash-...
# Every variable is FUZZ_-prefixed so that this file can be included next
# to the fragments in tests/unit/.

ifeq ($(words $(MAKEFILE_LIST)),1)
FUZZ_DEFAULT_GOAL := fuzz
else
FUZZ_DEFAULT_GOAL := $(.DEFAULT_GOAL)
endif

FUZZ_CC ?= clang
FUZZ_DIR := tests/fuzz
FUZZ_OUT := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 2
FUZZ_HOST_SMOKE_SECONDS ?= 8
# make check's host fuzzing starts from one seed, so that a run's verdict
# does not depend on where a random walk went; make fuzz draws a new one.
FUZZ_HOST_SEED ?= 1
FUZZ_PYTHON ?= python3
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

FUZZ_ALL := multiboot cmdline acpi acpi_table topology invlpgb
FUZZ_TARGETS ?= $(FUZZ_ALL)

# lib/kstring.c with its kmemset() and kmemcpy() renamed out of the way:
# tests/fuzz/kmem.c puts libc's (checked by ASan at once) in their place.
FUZZ_KSTRING := $(FUZZ_OUT)/kstring.o $(FUZZ_DIR)/kmem.c
FUZZ_ACPI_SRCS := kernel/acpi.c kernel/acpi_rsdp.c kernel/acpi_madt.c \
	kernel/acpi_tables.c lib/printf.c $(FUZZ_KSTRING)
FUZZ_SRCS_multiboot := kernel/multiboot.c kernel/multiboot_query.c \
	$(FUZZ_KSTRING)
FUZZ_SRCS_cmdline := lib/cmdline.c lib/cmdline_value.c lib/cmdline_diag.c lib/cmdline_list.c kernel/config.c \
	bench/params.c bench/options.c $(FUZZ_KSTRING)
FUZZ_SRCS_acpi := $(FUZZ_ACPI_SRCS)
FUZZ_SRCS_acpi_table := $(FUZZ_ACPI_SRCS)
FUZZ_SRCS_topology := smp/topology.c smp/topology_ids.c
FUZZ_SRCS_invlpgb := mm/invlpgb.c

FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_OUT)/fuzz_%)
FUZZ_HDRS := $(wildcard $(FUZZ_DIR)/*.h lib/*.h kernel/*.h smp/*.h mm/*.h bench/*.h)

define FUZZ_RULE
$(FUZZ_OUT)/fuzz_$(1): $(FUZZ_DIR)/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) \
		$(FUZZ_HDRS) $(FUZZ_DIR)/fuzz.mk
	@mkdir -p $$(@D)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$(filter %.c %.o,$$^)
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call FUZZ_RULE,$(t))))

$(FUZZ_OUT)/kstring.o: lib/kstring.c $(FUZZ_HDRS) $(FUZZ_DIR)/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Dkmemset=kstring_kmemset \
		-Dkmemcpy=kstring_kmemcpy -c -o $@ $<

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-clean host-fuzz
fuzz-build: $(FUZZ_BINS)

# Asked for by name, fuzzing without a fuzzer is an error; in make check
# (fuzz-smoke) it is a SKIP that says what is missing.
host-fuzz:
	$(FUZZ_PYTHON) $(FUZZ_DIR)/host_reader.py --seconds $(FUZZ_SECONDS)

fuzz: host-fuzz
	@tests/fuzz/run.sh --probe $(FUZZ_CC) || \
		{ echo "fuzz: make fuzz cannot run without them"; exit 2; }
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) \
		fuzz-build FUZZ_TARGETS="$(FUZZ_TARGETS)"
	@FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh --fuzz $(FUZZ_SECONDS) \
		$(FUZZ_TARGETS)

fuzz-smoke:
	$(FUZZ_PYTHON) $(FUZZ_DIR)/host_reader.py --seconds $(FUZZ_HOST_SMOKE_SECONDS) \
		--seed $(FUZZ_HOST_SEED)
	@if tests/fuzz/run.sh --probe $(FUZZ_CC); then \
		$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) \
			fuzz-build FUZZ_TARGETS="$(FUZZ_TARGETS)" && \
		tests/fuzz/run.sh --smoke $(FUZZ_SMOKE_SECONDS) \
			$(FUZZ_TARGETS); \
	fi

fuzz-clean:
	rm -rf $(FUZZ_OUT)

.DEFAULT_GOAL := $(FUZZ_DEFAULT_GOAL)
