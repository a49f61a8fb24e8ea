# shootdown: build the kernel image, the ISO, and run the tests.
# `make help` lists the targets.

CROSS_COMPILE ?=
CC := $(CROSS_COMPILE)gcc
LD := $(CROSS_COMPILE)ld
OBJCOPY := $(CROSS_COMPILE)objcopy
HOSTCC ?= cc
PYTHON ?= python3

BUILD := build
ELF := $(BUILD)/shootdown.elf
ISO := $(BUILD)/shootdown.iso

# Every kernel source; the folder says which part of the system it is.
KERNEL_DIRS := lib boot kernel mm smp bench init
SRCS := $(foreach d,$(KERNEL_DIRS),$(wildcard $(d)/*.c $(d)/*.S))
OBJS := $(patsubst %,$(BUILD)/%.o,$(basename $(SRCS)))

# Freestanding, no red zone (interrupts push onto the same stack), no
# SSE/x87 (their state is never saved), frame pointers for backtraces.
KCFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-strict-aliasing \
	-mno-red-zone -mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 \
	-mno-80387 -mcmodel=small -m64 -I. -I$(BUILD)/gen -MMD -MP
KASFLAGS := -m64 -I. -I$(BUILD)/gen -MMD -MP -D__ASSEMBLY__
KLDFLAGS := -nostdlib -static -no-pie -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments -T linker.ld

.PHONY: all iso linux check unit qemu-check sol-test lava-check launcher-test page-test ci-test ci-run-test ci-runs-test ci-lint format format-check clean help deps \
	deps-ensure layers-check soak soak-smoke soak-faults \
	FORCE

all: $(ELF)

help:
	@echo "make              build $(ELF) (multiboot1 + multiboot2 ELF64)"
	@echo "make iso          build $(ISO) (GRUB hybrid: BIOS, UEFI, USB dd)"
	@echo "make linux        the Linux side's initramfs (docs/linux.md; the"
	@echo "                  kernel: tools/fetch-linux.sh)"
	@echo "make check        format, layers, freestanding and host unit tests,"
	@echo "                  sol-test, launcher-test, page-test, ci-lint, fuzz smoke, the QEMU"
	@echo "                  integration cases, ci-test, soak-smoke, lava-check"
	@echo "                  (9 to 10 minutes on 2 quiet cores)"
	@echo "make unit         host unit tests (cmocka), every floor's; one floor's:"
	@echo "                  lib-unit kernel-unit mm-unit smp-unit bench-unit"
	@echo "make freestanding-check  the portable files with the kernel's flags"
	@echo "make layers-check fail on an #include from a lower floor to a higher"
	@echo "                  (tools/check-layers.py), after its own self-test"
	@echo "make qemu-check   QEMU integration cases only (tests/qemu)"
	@echo "make page-test    plot's index.html in headless chromium (tests/tools)"
	@echo "make soak         SOAK_BOOTS (200) boots across the QEMU matrix, random"
	@echo "                  kernel arguments (SOAK_SEED, SOAK_JOBS); soak-smoke: 6;"
	@echo "                  soak-faults: SOAK_FAULT_BOOTS (100) hang-ap/slow-ap boots"
	@echo "make sol-test     tools/sol-capture.sh against a fake ipmitool (tests/sol)"
	@echo "make launcher-test run-qemu.sh --boot ipxe, --media usb, --emulator bochs and --linux options, dry runs"
	@echo "make ci-lint      ci/*.yml against their schemas, their commands unbooted"
	@echo "make ci-test      tools/ci-run.sh under TCG: artifacts, exit statuses, --runs and its gate"
	@echo "make lava-check   the LAVA jobs of lava/ under lava-run (tests/lava)"
	@echo "make fuzz         each libFuzzer target for FUZZ_SECONDS (60)"
	@echo "make fuzz-smoke   each for FUZZ_SMOKE_SECONDS (2), as in check"
	@echo "make format       clang-format every C file in place"
	@echo "make format-check fail if any C file is not clang-formatted"
	@echo "make deps         install the build/test dependencies (root)"
	@echo "make clean        remove $(BUILD)/"
	@echo "Variables: CROSS_COMPILE=x86_64-elf- (non-x86 hosts), HOSTCC,"
	@echo "           FUZZ_CC (clang), FUZZ_TARGETS (tests/fuzz/fuzz.mk)"

# The build's identity, baked into the env record. Rewritten only when it
# changes so that an unchanged tree does not relink.
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define BUILD_VERSION "$(VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/init/main.o $(BUILD)/init/env.o: $(BUILD)/gen/version.h

# V=1 shows the full commands.
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/%.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KASFLAGS) -c $< -o $@

$(ELF): $(OBJS) linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(OBJS)

# The Linux side (docs/linux.md): a static /init of linux/ and the
# harness's portable C it shares (the JSON writer, the timeline and its
# loss interval, CPUID), in an initramfs with the modules zram needs.
# The kernel and modules come from tools/fetch-linux.sh.
LINUX_DIR := $(BUILD)/linux
LINUX_INIT := $(LINUX_DIR)/init
LINUX_INITRD := $(LINUX_DIR)/initramfs.cpio.gz
LINUX_SRCS := $(wildcard linux/*.c) lib/json.c lib/printf.c kernel/cpu.c \
	bench/caveats.c bench/rc_timeline.c bench/rc_timeline_json.c bench/stats.c \
	kernel/tsc_estimate.c lib/muldiv.c
LINUX_CFLAGS := -std=gnu11 -O2 -s -Wall -Wextra -Werror -static -pthread \
	-I. -I$(BUILD)/gen

linux: $(LINUX_INITRD)
$(LINUX_INIT): $(LINUX_SRCS) $(wildcard linux/*.h) $(BUILD)/gen/version.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(HOSTCC) $(LINUX_CFLAGS) -o $@ $(LINUX_SRCS)
$(LINUX_INITRD): $(LINUX_INIT) linux/mkinitramfs.py $(LINUX_DIR)/modules/order
	$(Q)$(PYTHON) linux/mkinitramfs.py --init $(LINUX_INIT) \
		--modules $(LINUX_DIR)/modules -o $@ --gzip
$(LINUX_DIR)/modules/order:
	@echo "no Linux kernel unpacked: run tools/fetch-linux.sh" \
		"(or tools/install-deps.sh --linux)"; exit 2

# The ISO carries the Linux side too (its menu entries [7]-[0]) once
# tools/fetch-linux.sh has unpacked a kernel; without one, the harness only.
ISO_LINUX := $(if $(wildcard $(LINUX_DIR)/modules/order),$(LINUX_INITRD))
iso: $(ISO)
$(ISO): $(ELF) tools/mkiso.sh $(ISO_LINUX)
	$(if $(ISO_LINUX),,@echo "make iso: no Linux side in it (tools/fetch-linux.sh)")
	tools/mkiso.sh $@ --elf $(ELF) $(if $(ISO_LINUX),--linux $(LINUX_DIR))

include tests/unit/unit.mk
include tests/fuzz/fuzz.mk

# Formatting and host tests first: they are quick and name the broken
# function; then a few seconds of each fuzz target; then the QEMU cases;
# then the tools that boot the harness their own way. The targets of one
# line that leave a core idle (waits on a console, a browser, one QEMU at a
# time) run at once, each one's output kept together: the LAVA cases (a
# quarter of a core, mostly waiting on lava-run's prompts and timeouts)
# beside the QEMU cases, everything they boot built first.
check: deps-ensure
	$(MAKE) format-check layers-check freestanding-check unit
	$(MAKE) -j2 --output-sync=target sol-test launcher-test page-test ci-lint \
		fuzz-smoke
	$(MAKE) $(ELF) $(ISO)
	$(MAKE) -j2 --output-sync=target qemu-check lava-check
	$(MAKE) -j2 --output-sync=target ci-run-test ci-runs-test soak-smoke

# A fresh machine: as root, install what is missing; else say what to run.
# QEMU 10 too (x2APIC, > 255 CPUs: the qemu10 cases), and the Linux
# side's kernel (the linux cases), where they can be had.
deps-ensure:
	@tools/install-deps.sh --quiet --qemu10-try --ci --linux-try

qemu-check: $(ELF) $(ISO)
	$(PYTHON) tests/qemu/runner.py

# The floors, lowest first: lib boot kernel mm smp bench init (the order
# is written in the script). The self-test first, so that a checker that
# could no longer fail does not pass the tree.
layers-check:
	@out=$$($(PYTHON) tests/tools/test_check_layers.py 2>&1) || \
		{ echo "$$out"; echo "layers: the checker's self-test failed"; \
		exit 1; }
	@$(PYTHON) tools/check-layers.py

# The launcher's options that need no QEMU run (--dry-run): --boot ipxe,
# --media usb, --emulator bochs, --linux.
launcher-test:
	$(PYTHON) tests/tools/test_run_qemu_ipxe.py
	$(PYTHON) tests/tools/test_run_qemu_usb.py
	$(PYTHON) tests/tools/test_run_bochs.py
	$(PYTHON) tests/tools/test_run_linux.py

# plot's index.html in Debian's chromium, headless: it loads, shows every
# figure, no console errors (a SKIP line where chromium is not installed).
page-test:
	$(PYTHON) tests/tools/test_page.py

# ci/github-actions.yml and ci/gitlab-ci.yml against their schemas (the npm
# validators of tests/ci, install-deps.sh --ci; SKIP lines, saying why,
# where they cannot be had), and the commands they run, checked unbooted.
ci-lint:
	$(PYTHON) tests/ci/test_ci_lint.py

# tools/ci-run.sh as a CI job runs it, under TCG (and KVM where it starts):
# its artifacts and exit statuses (a few short boots); --runs N with the
# baseline interleaved, whose gate must fail an injected slowdown
# (delay_handler=) and pass identical runs (tests/tools/test_ci_runs.py).
ci-test: ci-run-test ci-runs-test
ci-run-test: $(ELF)
	$(PYTHON) tests/tools/test_ci_run.py
ci-runs-test: $(ELF)
	$(PYTHON) tests/tools/test_ci_runs.py

# Many boots across the QEMU matrix (boot path, machine, CPUs, QEMU 7.2/10,
# TCG threads, KVM), random valid kernel arguments from a printed seed:
# tests/qemu/soak.py. soak-smoke is make check's few cheap boots.
SOAK_BOOTS ?= 200
SOAK_JOBS ?= 2
SOAK_SEED ?=
soak:
	$(PYTHON) tests/qemu/runner.py soak --boots $(SOAK_BOOTS) --jobs $(SOAK_JOBS) \
		$(if $(SOAK_SEED),--seed $(SOAK_SEED))

SOAK_FAULT_BOOTS ?= 100
soak-faults:
	$(PYTHON) tests/qemu/runner.py soak --faults --boots $(SOAK_FAULT_BOOTS) \
		--jobs $(SOAK_JOBS) $(if $(SOAK_SEED),--seed $(SOAK_SEED))

soak-smoke: $(ELF)
	$(PYTHON) tests/qemu/runner.py soak --short --no-build --seed 1 --jobs $(SOAK_JOBS)

# The LAVA jobs of lava/ under lava-run on the device dictionaries as
# Debian's lava-server package renders them (about 2 minutes; SKIP lines
# where lava-run cannot run): tests/lava/run.py, docs/lab.md.
lava-check: $(ELF)
	$(PYTHON) tests/lava/test_lava.py
	$(PYTHON) tests/lava/test_figure_cases.py
	$(PYTHON) tests/lava/run.py

sol-test:
	tests/sol/test_sol_capture.sh

deps:
	tools/install-deps.sh

# Tracked files and new ones not yet added (but not ignored ones).
C_FILES = $(shell git ls-files --cached --others --exclude-standard '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(C_FILES)
format-check:
	@command -v clang-format >/dev/null || { echo "clang-format missing:" \
		"run tools/install-deps.sh (Debian package clang-format)"; \
		exit 2; }
	@clang-format --dry-run -Werror $(C_FILES) && echo "format: ok"

clean:
	rm -rf $(BUILD)

FORCE:

-include $(OBJS:.o=.d)
