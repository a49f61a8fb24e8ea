#!/usr/bin/env python3
"""Self-test of run-qemu.sh --emulator bochs (tools/run_bochs.py) without
starting Bochs: its options (dry runs), the configuration it writes, how
it reads the guest's EXIT line off the console and the exit status and
last line it makes of each ending.

Run: python3 tests/tools/test_run_bochs.py  (make launcher-test runs it).
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAUNCHER = os.path.join(ROOT, "tools", "run_qemu.py")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))

import run_bochs  # noqa: E402
from exitcodes import E_PASS, E_FAIL, E_USAGE, E_ABORT, E_SKIP, E_TIMEOUT, E_INTR  # noqa: E402


def launch(*args):
    """(exit status, stderr) of a Bochs dry run with these arguments."""
    p = subprocess.run([sys.executable, LAUNCHER, "--emulator", "bochs", "--dry-run",
                        "--no-build", *args], capture_output=True, text=True)
    return p.returncode, p.stderr


class Options(unittest.TestCase):
    def test_dry_run_configuration(self):
        status, err = launch("--smp", "4", "--mem", "1G", "--", "bench=none")
        self.assertEqual(status, 0, err)
        self.assertRegex(err, r"bochs -q -f \S+/bochsrc -rc \S+/debug\.rc")
        self.assertIn("cpu: model=corei7_haswell_4770, count=4, ips=200000000, quantum=16,", err)
        self.assertIn("memory: guest=1024, host=1024", err)
        self.assertIn("options=fastboot", err)
        self.assertIn("display_library: term", err)
        self.assertRegex(err, r"com1: enabled=1, mode=file, dev=/\S+")
        self.assertIn("boot: cdrom", err)

    def test_default_timeout_grows_with_the_cpus(self):
        # The default suite at 2 CPUs took 229-331 s here, over 300 once;
        # every CPU more is interpreted on the same host thread.
        self.assertEqual(run_bochs.parse_args(["--smp", "1"]).timeout, 300)
        self.assertEqual(run_bochs.parse_args(["--smp", "2"]).timeout, 400)
        self.assertEqual(run_bochs.parse_args(["--smp", "4"]).timeout, 800)
        self.assertEqual(run_bochs.parse_args(["--smp", "4", "--timeout", "30"]).timeout, 30)

    def test_xapic_model(self):
        status, err = launch("--cpu", "ryzen", "--smp", "2")
        self.assertEqual(status, 0, err)
        self.assertIn("cpu ryzen (xAPIC, no PCID", err)
        self.assertIn("cpu: model=ryzen, count=2,", err)

    def test_refused(self):
        for args, why in ((("--boot", "kernel"), "only bios"),
                          (("--boot", "uefi"), "only bios"),
                          (("--ips", "3500000000"), "signed 32-bit"),
                          (("--quantum", "33"), "1..32"),
                          (("--accel", "kvm"), "a QEMU option"),
                          (("--machine", "q35"), "a QEMU option"),
                          (("--cpu", "a;b"), "not a Bochs CPU model"),
                          (("--smp", "0"), "not a positive number"),
                          (("--mem", "1X"), "not a size"),
                          (("--bogus",), "unknown option")):
            status, err = launch(*args)
            self.assertEqual(status, E_USAGE, args)
            self.assertIn(why, err, args)

    def test_emulator_must_be_known(self):
        p = subprocess.run([sys.executable, LAUNCHER, "--emulator", "vbox", "--dry-run"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, E_USAGE)
        self.assertIn("'vbox' is not qemu or bochs", p.stderr)

    def test_emulator_after_dashdash_is_a_kernel_argument(self):
        _, rest = run_bochs.run_qemu.emulator_of(["--smp", "2", "--", "--emulator", "bochs"])
        self.assertEqual(rest, ["--smp", "2", "--", "--emulator", "bochs"])


class Missing(unittest.TestCase):
    def test_names_the_packages(self):
        why = run_bochs.missing("/nonexistent/bochs")
        self.assertIn("apt-get install bochs bochsbios bochs-term vgabios", why)

    def test_bochs_present_or_why(self):
        why = run_bochs.missing()
        self.assertTrue(why is None or "apt-get install" in why, why)


class Tail(unittest.TestCase):
    def test_exit_line_across_reads(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "console")
            tail = run_bochs.Tail(path)
            tail.out = run_bochs.run_qemu.Sink()
            tail.poll()  # no file yet
            with open(path, "wb") as f:
                f.write(b"PASS: x\r\nEXIT: STA")
                f.flush()
                tail.poll()
                self.assertIsNone(tail.exit_status)
                f.write(b"TUS=38\r\n")
                f.flush()
                tail.poll()
                self.assertEqual(tail.exit_status, 38)
            tail.close()


class Verdict(unittest.TestCase):
    def setUp(self):
        self.o = run_bochs.Options()
        self.out = run_bochs.Outcome()

    def verdict(self, printed, log_empty=False, last=None):
        return run_bochs.verdict(self.out, printed, log_empty, self.o, last)

    def test_guest_statuses(self):
        for printed, want, words in ((0, E_PASS, "passed: guest status 0"),
                                     (1, E_FAIL, "failed: guest status 1"),
                                     (38, E_SKIP, "skipped: guest status 38"),
                                     (63, E_ABORT, "aborted: guest status 63")):
            status, line = self.verdict(printed)
            self.assertEqual(status, want)
            self.assertTrue(line.startswith(words), line)
        self.assertEqual(self.verdict(5)[0], E_ABORT)

    def test_endings_without_exit_line(self):
        self.out.timed_out = True
        self.assertEqual(self.verdict(None)[0], E_TIMEOUT)
        self.out.timed_out = False
        self.out.rc = 1
        status, line = self.verdict(None, last="00012p[CPU0 ] >>PANIC<< triple fault")
        self.assertEqual(status, E_ABORT)
        self.assertIn("triple fault", line)
        self.assertEqual(self.verdict(None, log_empty=True)[0], E_USAGE)
        self.out.interrupted = "SIGINT"
        self.assertEqual(self.verdict(0)[0], E_INTR)


if __name__ == "__main__":
    unittest.main()
