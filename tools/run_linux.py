#!/usr/bin/env python3
"""Boot the Linux side under QEMU (./run-qemu.sh --linux): Debian's kernel
(tools/fetch-linux.sh) with the initramfs of linux/ (make linux), its
console streamed and judged as the harness's is (docs/linux.md).

usage: ./run-qemu.sh --linux [options] [-- WORKLOAD ARGS...]

  --smp N                   CPUs (default 2: the seed's one reader and one
                            reclaimer; at 4 under single-threaded TCG the
                            default page-out alone takes minutes)
  --mem SIZE                memory, as QEMU's -m takes it (default 1G)
  --machine q35|pc          machine type (default q35)
  --accel auto|kvm|tcg      as ./run-qemu.sh's (auto takes TCG on kvm-pvm)
  --cpu MODEL               CPU model (default max under TCG, host under KVM)
  --tcg-threads single|multi
                            single (default) or multi-threaded TCG
  --timeout SECONDS         stop QEMU after this long (default 300)
  --log FILE                write the whole console to FILE
  --json FILE               write the @json records to FILE, one a line
  --qemu PATH, --qemu10     the QEMU to run, as ./run-qemu.sh's
  --kernel-arg ARG          one more Linux boot parameter (repeatable), e.g.
                            clearcpuid=419 to turn INVLPGB off (Debian's 7.3
                            ignores clearcpuid=invlpgb)
  --no-build                do not run make linux first
  --dry-run                 print the QEMU command line and stop
  -v, --verbose             print the QEMU command line before running it
  -h, --help                this text

WORKLOAD ARGS are /init's (docs/linux.md): workloads=tlb_flush2,pageout,
threads=1,2,4, flush2_ms=300, flush2_pages=1, reclaim_mb=64, hot_mb=2,
duration_ms=500, zram_mb=. The kernel gets them after `--` on its command
line, which Linux hands to /init as its arguments.

Exit status as ./run-qemu.sh's: 0 passed, 1 a check failed, 77 every check
skipped, 2 usage or environment error (no kernel unpacked: run
tools/fetch-linux.sh), 3 aborted (QEMU ended without the guest reaching the
exit device, e.g. a kernel panic), 124 timed out, 130 interrupted.

Examples:
  ./run-qemu.sh --linux
  ./run-qemu.sh --linux --smp 2 --tcg-threads multi -- workloads=pageout
  ./run-qemu.sh --linux --smp 4 --log build/linux.log -- workloads=tlb_flush2 threads=1,2,4
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True

import run_qemu  # noqa: E402
from run_qemu import UsageError, EnvError, err  # noqa: E402

ROOT = run_qemu.ROOT
LINUX_DIR = os.path.join(ROOT, "build", "linux")
VMLINUZ = os.path.join(LINUX_DIR, "vmlinuz")
INITRD = os.path.join(LINUX_DIR, "initramfs.cpio.gz")
# The console on COM1; panic=-1: a kernel that panics reboots at once, and
# -no-reboot turns that into QEMU's exit (the launcher's "aborted").
BOOT_ARGS = ("console=ttyS0,115200", "panic=-1")

VALUED = {"--smp": "smp", "--mem": "mem", "--machine": "machine", "--cpu": "cpu",
          "--accel": "accel", "--tcg-threads": "tcg_threads", "--timeout": "timeout",
          "--log": "log", "--json": "json", "--qemu": "qemu", "--kernel-arg": "kernel_args"}
FLAGS = {"--no-build": ("build", False), "--dry-run": ("dry_run", True),
         "-v": ("verbose", True), "--verbose": ("verbose", True),
         "--qemu10": ("qemu", run_qemu.QEMU10)}


def parse_args(argv):
    """run_qemu's Options for a Linux boot; raises UsageError."""
    o = run_qemu.Options()
    o.smp = 2
    o.kernel_args = []
    run_qemu.scan_args(argv, o, __doc__, VALUED, FLAGS,
                       lambda a: f"--linux: unknown option '{a}' (its options: "
                                 f"./run-qemu.sh --linux --help)")
    bad = [w for w in o.kernel_args + o.kargs if not w or not all(" " < c <= "~" for c in w)]
    if bad:
        raise UsageError(f"--linux: argument {bad[0]!r} is not one printable word")
    if "--" in o.kernel_args:
        raise UsageError("--kernel-arg --: the workloads' arguments go after `--` of "
                         "./run-qemu.sh --linux itself")
    run_qemu.check_options(o)
    return o


def cmdline(o):
    """The kernel's command line: the console, the extra parameters, then
    `--` and the workloads' arguments (which Linux gives /init)."""
    words = list(BOOT_ARGS) + o.kernel_args
    if o.kargs:
        words += ["--"] + o.kargs
    return words


def build(o):
    """make linux (the initramfs); raises EnvError naming what is missing."""
    if not os.path.isfile(VMLINUZ) and not o.dry_run:
        raise EnvError("no Linux kernel unpacked under build/linux: run "
                       "tools/fetch-linux.sh (or tools/install-deps.sh --linux)")
    if o.build and not o.dry_run:
        if subprocess.run(["make", "-C", ROOT, "-s", "linux"], stdout=sys.stderr,
                          check=False).returncode:
            raise EnvError("make linux failed")
    if not os.path.isfile(INITRD) and not o.dry_run:
        raise EnvError(f"{os.path.relpath(INITRD)} not built (make linux)")


def run(o):
    build(o)
    o.kernel = VMLINUZ
    o.build = False  # run_qemu's own make builds the harness, not this
    o.boot = "kernel"
    o.kargs = cmdline(o)
    o.qemu_extra = ["-initrd", INITRD] + o.qemu_extra
    return run_qemu.run(o)


def main(argv):
    return run_qemu.guarded(lambda: run(parse_args(argv)), "try: ./run-qemu.sh --linux --help")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
