# Host unit tests (cmocka) of the portable memory code in mm/: the frame
# allocator, the page tables and the INVLPGB encoder.
#
# Included from the top-level Makefile, or used on its own from the top of
# the repository:  make -f tests/unit/mm.mk mm-unit
#
#   mm-unit          build build/host/test_{pmm,pt,invlpgb} with ASan/UBSan
#                    and run them; fails if any test fails
#   mm-freestanding  compile the portable mm/ sources as the kernel does (no
#                    libc, no SSE, no red zone) to catch hosted-only code
#
# Every variable is MM_-prefixed so that this file and unit.mk can both be
# included into one Makefile.

# Standalone, the default goal is mm-unit; included, keep the including
# Makefile's default goal (this file defines targets too).
ifeq ($(words $(MAKEFILE_LIST)),1)
MM_DEFAULT_GOAL := mm-unit
else
MM_DEFAULT_GOAL := $(.DEFAULT_GOAL)
endif

HOSTCC ?= cc
MM_UNIT_DIR := tests/unit
MM_OUT := build/host
MM_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. \
	-fsanitize=address,undefined -fno-sanitize-recover=all
MM_LDLIBS := -lcmocka
MM_KCFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding \
	-fno-pic -fno-pie -fno-stack-protector -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 -m64 -I.

MM_TESTS := pmm pt invlpgb
MM_SRCS_pmm := mm/pmm.c mm/pmm_map.c
MM_SRCS_pt := mm/pt.c mm/pt_range.c
MM_SRCS_invlpgb := mm/invlpgb.c

MM_BINS := $(MM_TESTS:%=$(MM_OUT)/test_%)
MM_HDRS := mm/pmm.h mm/pmm_internal.h mm/pt.h mm/invlpgb.h \
	kernel/multiboot.h lib/string.h $(MM_UNIT_DIR)/unit.h
MM_KSRCS := $(sort $(foreach t,$(MM_TESTS),$(MM_SRCS_$(t))))
MM_KOBJS := $(MM_KSRCS:%.c=$(MM_OUT)/freestanding/%.o)

define MM_RULE
$(MM_OUT)/test_$(1): $(MM_UNIT_DIR)/test_$(1).c $$(MM_SRCS_$(1)) \
		$(MM_HDRS) $(MM_UNIT_DIR)/mm.mk
	@mkdir -p $$(@D)
	$$(HOSTCC) $$(MM_CFLAGS) -o $$@ $$(filter %.c,$$^) $$(MM_LDLIBS)
endef
$(foreach t,$(MM_TESTS),$(eval $(call MM_RULE,$(t))))

$(MM_OUT)/freestanding/%.o: %.c $(MM_HDRS) $(MM_UNIT_DIR)/mm.mk
	@mkdir -p $(@D)
	$(CC) $(MM_KCFLAGS) -c $< -o $@

# Every binary runs (so that all failures show); the exit status says
# whether any of them failed.
.PHONY: mm-unit mm-freestanding mm-unit-clean
mm-unit: $(MM_BINS)
	@failed=""; \
	for t in $(MM_BINS); do \
		echo "== $$t"; \
		./$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "mm-unit: FAILED:$$failed"; exit 1; \
	fi; \
	echo "mm-unit: all $(words $(MM_BINS)) test programs passed"

mm-freestanding: $(MM_KOBJS)

mm-unit-clean:
	rm -rf $(MM_BINS) $(MM_OUT)/freestanding

.DEFAULT_GOAL := $(MM_DEFAULT_GOAL)
