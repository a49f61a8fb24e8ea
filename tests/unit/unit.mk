# Host unit tests (cmocka) of the portable code, and its freestanding
# build. Included from the top-level Makefile, which defines KCFLAGS, CC
# and HOSTCC.
#
#   unit                every test program below, after freestanding-check;
#                       fails if any test fails (all of them run first)
#   lib-unit kernel-unit mm-unit smp-unit bench-unit
#                       the tests of one floor's files, after that floor's
#                       freestanding objects
#   freestanding-check  compile every portable file the tests use with the
#                       kernel's own flags (no libc, no SSE, no red zone)
#                       into build/host/freestanding/, and fail if an object
#                       needs a libgcc helper (such as __udivti3 for a
#                       128-bit division: the kernel does not link libgcc)
#                       or, for the ones that must call nothing at all,
#                       calls anything
#   unit-clean          remove build/host/
#
# The table: tests/unit/test_NAME.c is test NAME, listed under the floor
# of the code it tests; unit_srcs.NAME are the portable files it is linked
# with, unit_cflags.NAME and unit_ldlibs.NAME what it needs beyond the
# common flags, unit_includes.NAME the portable .c files it #includes.

UNIT_DIR := tests/unit
UNIT_OUT := build/host
UNIT_FLOORS := lib kernel mm smp bench

unit_tests.lib := kstring json cmdline cmdline_list cmdline_tables printf
unit_tests.kernel := config multiboot multiboot1 multiboot_query report smbios smbios_cpu tsc_estimate \
	spinlock acpi acpi_tables acpi_madt fwread usb_legacy smi_account
unit_tests.mm := pmm pmm_alloc pt pt_range invlpgb
unit_tests.smp := topology topology_package cpumask initwait idle tsc_handshake xcall_ack \
	barrier cpucount concurrency
unit_tests.bench := stats hist params params_shaped rng table plan reclaim_counts findings \
	ceiling reclaim_race rc_timeline caveats fline flush_how

unit_srcs.kstring := lib/kstring.c
unit_srcs.json := lib/json.c
unit_srcs.cmdline := lib/cmdline.c lib/cmdline_value.c lib/cmdline_diag.c lib/cmdline_list.c lib/kstring.c
unit_srcs.cmdline_list := $(unit_srcs.cmdline)
unit_srcs.cmdline_tables := $(unit_srcs.cmdline)
unit_srcs.printf := lib/printf.c
unit_srcs.config := kernel/config.c lib/cmdline.c lib/cmdline_value.c lib/cmdline_diag.c lib/cmdline_list.c \
	lib/kstring.c
unit_srcs.multiboot := kernel/multiboot.c kernel/multiboot_query.c \
	lib/kstring.c
unit_srcs.multiboot1 := $(unit_srcs.multiboot)
unit_srcs.multiboot_query := $(unit_srcs.multiboot)
unit_srcs.report := lib/printf.c lib/json.c
unit_includes.report := kernel/report.c
unit_srcs.smbios := kernel/smbios.c kernel/smbios_cpu.c lib/kstring.c \
	lib/printf.c
unit_srcs.smbios_cpu := kernel/smbios.c kernel/smbios_cpu.c lib/kstring.c \
	lib/printf.c
unit_srcs.tsc_estimate := kernel/tsc_estimate.c lib/muldiv.c
unit_ldlibs.spinlock := -pthread
unit_ldlibs.barrier := -pthread
# test_acpi reads the tables captured from QEMU in tests/unit/data/acpi/
# (tools/capture-acpi.py); their absolute path is compiled in.
unit_srcs.acpi := kernel/acpi.c kernel/acpi_rsdp.c kernel/acpi_madt.c \
	kernel/acpi_tables.c lib/kstring.c lib/printf.c
unit_cflags.acpi := -DACPI_DATA_DIR='"$(abspath $(UNIT_DIR)/data/acpi)"'
unit_srcs.acpi_tables := $(unit_srcs.acpi)
unit_srcs.acpi_madt := $(unit_srcs.acpi)
unit_srcs.usb_legacy := kernel/usb_legacy.c
unit_srcs.smi_account := kernel/smi_account.c
unit_srcs.fwread := kernel/fwread.c kernel/multiboot.c \
	kernel/multiboot_query.c lib/kstring.c lib/printf.c
unit_srcs.pmm := mm/pmm.c mm/pmm_map.c
unit_srcs.pmm_alloc := mm/pmm.c mm/pmm_map.c
unit_srcs.pt := mm/pt.c mm/pt_range.c
unit_srcs.pt_range := mm/pt.c mm/pt_range.c
unit_srcs.invlpgb := mm/invlpgb.c
unit_srcs.topology := smp/topology.c smp/topology_ids.c
unit_srcs.topology_package := smp/topology.c smp/topology_ids.c
unit_ldlibs.cpumask := -pthread
unit_srcs.initwait := smp/initwait.c lib/kstring.c
unit_srcs.cpucount := smp/cpucount.c kernel/acpi.c kernel/acpi_rsdp.c \
	kernel/acpi_madt.c kernel/acpi_tables.c lib/kstring.c lib/printf.c
unit_srcs.idle := smp/idle.c
unit_srcs.concurrency := smp/concurrency_decide.c lib/printf.c
unit_srcs.stats := bench/stats.c kernel/tsc_estimate.c lib/muldiv.c
unit_srcs.hist := bench/hist.c
unit_srcs.rc_timeline := bench/rc_timeline.c bench/stats.c \
	kernel/tsc_estimate.c lib/muldiv.c
unit_srcs.ceiling := bench/ceiling.c bench/ceiling_book.c bench/role.c lib/printf.c
unit_srcs.flush_how := bench/flush_how.c mm/invlpgb.c
unit_srcs.params := bench/params.c bench/options.c kernel/config.c \
	lib/cmdline.c lib/cmdline_value.c lib/cmdline_diag.c lib/cmdline_list.c lib/kstring.c
unit_srcs.params_shaped := $(unit_srcs.params)
unit_srcs.table := bench/table.c bench/stats.c kernel/tsc_estimate.c \
	lib/muldiv.c lib/kstring.c
unit_srcs.plan := bench/plan.c bench/plan_cost.c lib/printf.c lib/kstring.c
unit_srcs.findings := bench/findings_calc.c bench/role.c bench/caveats.c bench/stats.c \
	kernel/tsc_estimate.c lib/muldiv.c lib/printf.c
unit_srcs.caveats := bench/caveats.c lib/printf.c
unit_srcs.fline := bench/fline.c bench/findings_text.c bench/caveats.c \
	lib/printf.c

# Portable files no host test can link (lib/string.c would clash with the
# C library's own memcpy and the rest): built freestanding only.
UNIT_FREESTANDING_ONLY := lib/string.c
# Freestanding objects that must call nothing: lib/string.c's memcpy and
# memset call kstring.c's loops, so a loop compiled into a memcpy call
# would recurse forever; cpumask.h's atomics must be LOCK-prefixed
# instructions, not libatomic calls, and its counts no libgcc popcount.
UNIT_CALL_NOTHING := lib/kstring.c smp/cpumask.h

# The host build keeps the kernel's language and warnings (taken from
# KCFLAGS) and adds the sanitizers; the freestanding build is the kernel's
# (-ffreestanding implies -fno-builtin: no call is assumed to be libc's).
UNIT_CFLAGS = $(filter -std=% -W%,$(KCFLAGS)) -I. -g -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=all
UNIT_LDLIBS := -lcmocka -lm
UNIT_FREESTANDING_CFLAGS = $(KCFLAGS)

UNIT_TESTS := $(foreach f,$(UNIT_FLOORS),$(unit_tests.$(f)))
UNIT_BINS := $(UNIT_TESTS:%=$(UNIT_OUT)/test_%)
UNIT_HDRS := $(wildcard $(UNIT_DIR)/*.h $(UNIT_FLOORS:%=%/*.h))
UNIT_PORTABLE := $(sort $(foreach t,$(UNIT_TESTS),$(unit_srcs.$(t)) \
	$(unit_includes.$(t))) $(UNIT_FREESTANDING_ONLY))
UNIT_FS_OBJS := $(UNIT_PORTABLE:%.c=$(UNIT_OUT)/freestanding/%.o)
# cpumask.h is all inline: a file that uses every kind of operation.
UNIT_FS_MASK := $(UNIT_OUT)/freestanding/smp/cpumask.o

define UNIT_TEST_RULE
$(UNIT_OUT)/test_$(1): $(UNIT_DIR)/test_$(1).c $(unit_srcs.$(1)) \
		$(unit_includes.$(1)) $(UNIT_HDRS) $(UNIT_DIR)/unit.mk
	@mkdir -p $$(@D)
	$$(HOSTCC) $$(UNIT_CFLAGS) $(unit_cflags.$(1)) -o $$@ \
		$(UNIT_DIR)/test_$(1).c $(unit_srcs.$(1)) $$(UNIT_LDLIBS) \
		$(unit_ldlibs.$(1))
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call UNIT_TEST_RULE,$(t))))

# $(call unit_nm_check,OBJECT,SOURCE): fails (and removes OBJECT) if it
# needs a libgcc helper, or anything at all if SOURCE must call nothing.
unit_nm_check = if nm -u $(1) | grep '$(if $(filter $(2),$(UNIT_CALL_NOTHING)),.,U __)'; \
	then echo "$(2): calls the symbols above (see tests/unit/unit.mk)"; \
	rm -f $(1); exit 1; fi

$(UNIT_FS_OBJS): $(UNIT_OUT)/freestanding/%.o: %.c $(UNIT_DIR)/unit.mk
	@mkdir -p $(@D)
	$(CC) $(UNIT_FREESTANDING_CFLAGS) -c $< -o $@
	@$(call unit_nm_check,$@,$<)

UNIT_MASK_USE := \#include "smp/cpumask.h"\n\
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

$(UNIT_FS_MASK): smp/cpumask.h $(UNIT_DIR)/unit.mk
	@mkdir -p $(@D)
	printf '$(UNIT_MASK_USE)' | \
		$(CC) $(UNIT_FREESTANDING_CFLAGS) -x c -c - -o $@
	@$(call unit_nm_check,$@,smp/cpumask.h)

-include $(UNIT_FS_OBJS:.o=.d) $(UNIT_FS_MASK:.o=.d)

# $(call unit_run,TARGET,BINARIES): runs every binary, each with cmocka's
# own output, so that all failures show; then fails if any failed.
define unit_run
@failed=""; \
for t in $(2); do \
	echo "== $$t"; \
	./$$t || failed="$$failed $$t"; \
done; \
if [ -n "$$failed" ]; then echo "$(1): FAILED:$$failed"; exit 1; fi; \
echo "$(1): all $(words $(2)) test programs passed"
endef

define UNIT_FLOOR_RULE
.PHONY: $(1)-unit
$(1)-unit: $(filter $(UNIT_OUT)/freestanding/$(1)/%,$(UNIT_FS_OBJS) \
		$(UNIT_FS_MASK)) $(unit_tests.$(1):%=$(UNIT_OUT)/test_%)
	$$(call unit_run,$(1)-unit,$(unit_tests.$(1):%=$(UNIT_OUT)/test_%))
endef
$(foreach f,$(UNIT_FLOORS),$(eval $(call UNIT_FLOOR_RULE,$(f))))

.PHONY: unit freestanding-check unit-clean
unit: freestanding-check $(UNIT_BINS)
	$(call unit_run,unit,$(UNIT_BINS))

freestanding-check: $(UNIT_FS_OBJS) $(UNIT_FS_MASK)
	@echo "freestanding: all $(words $^) objects built with the kernel's flags"

unit-clean:
	rm -rf $(UNIT_OUT)
