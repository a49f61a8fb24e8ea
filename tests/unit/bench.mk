# Host unit tests (cmocka) of the portable experiment code in bench/: the
# statistics, the parameter parsers (with the PRNG) and the console tables.
#
# Included from the top-level Makefile, or used on its own from the top of
# the repository:  make -f tests/unit/bench.mk bench-unit
#
#   bench-unit          build build/host/test_{stats,hist,params,...} with
#                       ASan/UBSan and run them (after bench-freestanding);
#                       fails if any test fails
#   bench-freestanding  compile the portable bench/ sources as the kernel
#                       does (no libc, no SSE, no red zone, -fno-builtin)
#                       and fail if an object needs a libgcc helper (such as
#                       __udivti3 for a 128-bit division): the kernel does
#                       not link libgcc
#
# Every variable is BENCH_-prefixed so that this file, unit.mk and mm.mk can
# all be included into one Makefile.

# Standalone, the default goal is bench-unit; included, keep the including
# Makefile's default goal (this file defines targets too).
ifeq ($(words $(MAKEFILE_LIST)),1)
BENCH_DEFAULT_GOAL := bench-unit
else
BENCH_DEFAULT_GOAL := $(.DEFAULT_GOAL)
endif

HOSTCC ?= cc
BENCH_UNIT_DIR := tests/unit
BENCH_OUT := build/host
BENCH_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. \
	-fsanitize=address,undefined -fno-sanitize-recover=all
BENCH_LDLIBS := -lcmocka -lm
BENCH_KCFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding \
	-fno-builtin -fno-pic -fno-pie -fno-stack-protector -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 -m64 -I.

BENCH_TESTS := stats hist params table plan
BENCH_SRCS_stats := bench/stats.c kernel/tsc_estimate.c lib/muldiv.c
BENCH_SRCS_hist := bench/hist.c
BENCH_SRCS_params := bench/params.c kernel/config.c lib/cmdline.c \
	lib/kstring.c
BENCH_SRCS_table := bench/table.c bench/stats.c kernel/tsc_estimate.c lib/muldiv.c lib/kstring.c
BENCH_SRCS_plan := bench/plan.c lib/printf.c lib/kstring.c

BENCH_BINS := $(BENCH_TESTS:%=$(BENCH_OUT)/test_%)
BENCH_HDRS := bench/stats.h bench/hist.h bench/params.h bench/rng.h bench/table.h bench/plan.h \
	lib/printf.h \
	kernel/config.h lib/cmdline.h lib/kstring.h \
	$(BENCH_UNIT_DIR)/unit.h
BENCH_KSRCS := bench/stats.c bench/hist.c bench/params.c bench/table.c bench/plan.c
BENCH_KOBJS := $(BENCH_KSRCS:%.c=$(BENCH_OUT)/freestanding/%.o)

define BENCH_RULE
$(BENCH_OUT)/test_$(1): $(BENCH_UNIT_DIR)/test_$(1).c $$(BENCH_SRCS_$(1)) \
		$(BENCH_HDRS) $(BENCH_UNIT_DIR)/bench.mk
	@mkdir -p $$(@D)
	$$(HOSTCC) $$(BENCH_CFLAGS) -o $$@ $$(filter %.c,$$^) $$(BENCH_LDLIBS)
endef
$(foreach t,$(BENCH_TESTS),$(eval $(call BENCH_RULE,$(t))))

# Static pattern rule: unlike mm.mk's plain pattern, it cannot compete with
# the rules of the other fragments for the same build/host/freestanding/%.o.
$(BENCH_KOBJS): $(BENCH_OUT)/freestanding/%.o: %.c $(BENCH_HDRS) \
		$(BENCH_UNIT_DIR)/bench.mk
	@mkdir -p $(@D)
	$(CC) $(BENCH_KCFLAGS) -c $< -o $@
	@if nm -u $@ | grep ' __'; then \
		echo "$<: needs the libgcc helpers above"; rm -f $@; exit 1; \
	fi

# Every binary runs (so that all failures show); the exit status says
# whether any of them failed.
.PHONY: bench-unit bench-freestanding bench-unit-clean
bench-unit: bench-freestanding $(BENCH_BINS)
	@failed=""; \
	for t in $(BENCH_BINS); do \
		echo "== $$t"; \
		./$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "bench-unit: FAILED:$$failed"; exit 1; \
	fi; \
	echo "bench-unit: all $(words $(BENCH_BINS)) test programs passed"

bench-freestanding: $(BENCH_KOBJS)

bench-unit-clean:
	rm -rf $(BENCH_BINS) $(BENCH_OUT)/freestanding/bench

.DEFAULT_GOAL := $(BENCH_DEFAULT_GOAL)
