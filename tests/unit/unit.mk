# Host unit tests (cmocka) of the portable kernel code.
#
# Included from the top-level Makefile, or used on its own from the top of
# the repository:  make -f tests/unit/unit.mk unit
#
#   unit               build each tests/unit/test_X.c with the kernel sources
#                      in UNIT_SRCS_X into build/host/test_X (ASan/UBSan)
#                      and run them all; fails if any test fails
#   unit-freestanding  compile the portable kernel files as the kernel does,
#                      with -fno-builtin, to catch hosted-only code early
#
# Every variable is UNIT_-prefixed (HOSTCC and CC aside) so that this file
# can be included next to the other fragments in tests/unit/.

# Standalone use has no other goal to fall back on; included, keep the
# including Makefile's default goal (this file defines targets too).
ifeq ($(words $(MAKEFILE_LIST)),1)
UNIT_DEFAULT_GOAL := unit
else
UNIT_DEFAULT_GOAL := $(.DEFAULT_GOAL)
endif

HOSTCC ?= cc
UNIT_DIR := tests/unit
UNIT_OUT := build/host
UNIT_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. \
	-fsanitize=address,undefined -fno-sanitize-recover=all
UNIT_LDLIBS := -lcmocka

UNIT_TESTS := kstring json cmdline config multiboot printf report smbios \
	tsc_estimate spinlock

UNIT_SRCS_kstring := lib/kstring.c
UNIT_SRCS_json := lib/json.c
UNIT_SRCS_cmdline := lib/cmdline.c lib/kstring.c
UNIT_SRCS_config := kernel/config.c lib/cmdline.c lib/kstring.c
UNIT_SRCS_multiboot := kernel/multiboot.c lib/kstring.c
UNIT_SRCS_smbios := kernel/smbios.c lib/kstring.c lib/printf.c
UNIT_SRCS_printf := lib/printf.c
UNIT_SRCS_report := lib/printf.c lib/json.c
UNIT_SRCS_tsc_estimate := kernel/tsc_estimate.c lib/muldiv.c
UNIT_SRCS_spinlock :=
UNIT_XLIBS_spinlock := -pthread

# The kernel flags plus -fno-builtin: proves the portable files need
# nothing from a C library (see `unit-freestanding`).
UNIT_KCFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding \
	-fno-builtin -fno-pic -fno-pie -fno-stack-protector -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 -m64 -I.
UNIT_KSRCS := lib/json.c lib/cmdline.c kernel/config.c \
	kernel/multiboot.c lib/kstring.c lib/printf.c kernel/report.c \
	kernel/tsc_estimate.c kernel/smbios.c
UNIT_KOBJS := $(UNIT_KSRCS:%.c=$(UNIT_OUT)/freestanding/%.o)

UNIT_BINS := $(UNIT_TESTS:%=$(UNIT_OUT)/test_%)
UNIT_HDRS := $(wildcard lib/*.h kernel/*.h $(UNIT_DIR)/*.h)

define UNIT_RULE
$(UNIT_OUT)/test_$(1): $(UNIT_DIR)/test_$(1).c $$(UNIT_SRCS_$(1)) \
		$(UNIT_HDRS) $(UNIT_DIR)/unit.mk
	@mkdir -p $$(@D)
	$$(HOSTCC) $$(UNIT_CFLAGS) -o $$@ $$(filter %.c,$$^) $$(UNIT_LDLIBS) \
		$$(UNIT_XLIBS_$(1))
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call UNIT_RULE,$(t))))

$(UNIT_KOBJS): $(UNIT_OUT)/freestanding/%.o: %.c $(UNIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_KCFLAGS) -c $< -o $@

# Every binary runs (so that all failures show), each with cmocka's own
# output; the exit status says whether any of them failed.
.PHONY: unit unit-freestanding unit-clean
unit: $(UNIT_BINS)
	@failed=""; \
	for t in $(UNIT_BINS); do \
		echo "== $$t"; \
		./$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "unit: FAILED:$$failed"; exit 1; \
	fi; \
	echo "unit: all $(words $(UNIT_BINS)) test programs passed"

unit-freestanding: $(UNIT_KOBJS)

unit-clean:
	rm -rf $(UNIT_BINS) $(UNIT_OUT)/freestanding/kernel

.DEFAULT_GOAL := $(UNIT_DEFAULT_GOAL)
