#!/usr/bin/env python3
"""Self-test of run-qemu.sh --linux's options (tools/run_linux.py), with
--dry-run: nothing is built or started, and no kernel need be unpacked.
The kernel and the initramfs go to QEMU's -kernel and -initrd, the boot
parameters and then `--` and the workloads' arguments to -append; 2 CPUs
by default; what makes no sense is refused (exit 2). The boots themselves
are tests/qemu/cases.tsv's linux group.

Run: python3 tests/tools/test_run_linux.py  (make launcher-test runs it).
"""

import shlex
import sys
import unittest

sys.dont_write_bytecode = True

from dryrun import launch  # noqa: E402


def qemu_args(err):
    """The dry run's QEMU command line, as words."""
    return shlex.split(err.splitlines()[-1])


class Linux(unittest.TestCase):
    def test_kernel_initrd_and_command_line(self):
        status, err = launch("--linux", "--kernel-arg", "clearcpuid=419", "--",
                             "workloads=pageout", "reclaim_mb=8")
        self.assertEqual(status, 0, err)
        args = qemu_args(err)
        self.assertTrue(args[args.index("-kernel") + 1].endswith("build/linux/vmlinuz"))
        self.assertTrue(args[args.index("-initrd") + 1].endswith(
            "build/linux/initramfs.cpio.gz"))
        self.assertEqual(args[args.index("-append") + 1],
                         "console=ttyS0,115200 panic=-1 clearcpuid=419 -- "
                         "workloads=pageout reclaim_mb=8")
        self.assertEqual(args[args.index("-smp") + 1], "2")
        self.assertIn("isa-debug-exit,iobase=0xf4,iosize=0x04", args)

    def test_no_workload_args_no_separator(self):
        status, err = launch("--linux", "--smp", "4", "--tcg-threads", "multi")
        self.assertEqual(status, 0, err)
        args = qemu_args(err)
        self.assertEqual(args[args.index("-append") + 1], "console=ttyS0,115200 panic=-1")
        self.assertIn("tcg,thread=multi", args)
        self.assertEqual(args[args.index("-smp") + 1], "4")

    def test_refused(self):
        for args, words in ((("--linux", "--boot", "bios"), "unknown option '--boot'"),
                            (("--linux", "--kernel-arg", "a b"), "not one printable word"),
                            (("--linux", "--kernel-arg", "--"), "go after `--`"),
                            (("--linux", "--smp", "0"), "--smp: '0'")):
            with self.subTest(args=args):
                status, err = launch(*args)
                self.assertEqual(status, 2, err)
                self.assertIn(words, err)


if __name__ == "__main__":
    unittest.main()
