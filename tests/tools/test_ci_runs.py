#!/usr/bin/env python3
"""Test of the repeats built in: `./run-qemu.sh --runs N` and
`tools/ci-run.sh --runs N` with the baseline's boots interleaved, under
TCG (so the same with and without a usable KVM), a few short shootdown
boots (about 1 s each).

The gate must fail a real slowdown and pass identical runs: the run under
test busy-waits 2,000,000 cycles in its ipi-range responder
(`delay_handler=ipi-range:2000000`, a test aid: its rows come out tens of
times slower) against three undelayed baseline boots, and must exit 1
with the boots themselves passing; the same kernel and arguments on both
sides must exit 0 (compare: no significant change; under TCG these rows
spread about 1% from boot to boot, well under the 5% threshold).

Run: python3 tests/tools/test_ci_runs.py  (make ci-test, in make check; the
kernel must be built: make).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor, wait

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CI_RUN = os.path.join(ROOT, "tools", "ci-run.sh")
RUN_QEMU = os.path.join(ROOT, "run-qemu.sh")
ELF = os.path.join(ROOT, "build", "shootdown.elf")
sys.dont_write_bytecode = True

QUICK = ["--no-build", "--accel", "tcg", "--smp", "2", "--timeout", "120"]
# Four configurations (ipi-range and ipi-page, unicast and broadcast).
BENCH = ["bench=shootdown", "strategies=ipi-range,ipi-page", "pages=1", "targets=1",
         "samples=20", "warmup=2"]
SLOW = "delay_handler=ipi-range:2000000"
RUNS = "3"


def run(cmd, timeout=600):
    """(exit status, stdout, stderr)."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class Repeats(unittest.TestCase):
    tmp = None

    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(ELF):
            raise unittest.SkipTest("build/shootdown.elf not built (make)")
        cls.tmp = tempfile.mkdtemp(prefix="ci-runs-test.")
        # The two gates' boots (3 + 3 each) at once, in two ci-run.sh
        # processes of their own: half the wall time on 2 cores, and each
        # gate's baseline and runs interleaved as always, so that what the
        # other one costs falls on both of its sides alike.
        pool = ThreadPoolExecutor(max_workers=2)
        cls.gates = {name: pool.submit(cls.gate, cls, name, args)
                     for name, args in (("same", BENCH), ("slow", [*BENCH, SLOW]))}
        pool.shutdown(wait=False)

    @classmethod
    def tearDownClass(cls):
        wait(getattr(cls, "gates", {}).values())  # nothing boots into a removed dir
        if cls.tmp:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def test_run_qemu_runs_layout_and_answer(self):
        log = self.path("rq", "console.log")
        # What an earlier repeat left beside it goes; anything else stays.
        os.makedirs(self.path("rq", "run-7"))
        for name in ("console.log", "keep.txt"):
            with open(self.path("rq", "run-7", name), "w") as f:
                f.write("earlier\n")
        status, _, stderr = run([RUN_QEMU, "--runs", "2", "--log", log, "--json",
                                 self.path("rq", "records.jsonl"), *QUICK, "--", *BENCH])
        self.assertEqual(status, 0, stderr[-2000:])
        self.assertEqual(sorted(os.listdir(self.path("rq"))), ["run-1", "run-2", "run-7"])
        self.assertEqual(os.listdir(self.path("rq", "run-7")), ["keep.txt"])
        logs = [self.path("rq", f"run-{k}", "console.log") for k in (1, 2)]
        for k in (1, 2):
            self.assertIn("EXIT: STATUS=0", read(logs[k - 1]))
            recs = read(self.path("rq", f"run-{k}", "records.jsonl")).splitlines()
            self.assertEqual(json.loads(recs[0])["type"], "env")
        self.assertIn("run-qemu: runs: 2 of 2 booted, exit 0 0", stderr)
        self.assertRegex(stderr, r"(?m)^run-qemu: runs: passed: exit 0$")
        # answer takes them as they lie, the run as the unit.
        status, stdout, stderr = run([sys.executable, os.path.join(ROOT, "tools", "shootdown.py"),
                                      "answer", "--json", *logs])
        self.assertEqual(status, 0, stderr)
        self.assertEqual(json.loads(stdout)["runs"], logs)

    def test_run_qemu_runs_worst_status(self):
        log = self.path("rqf", "console.log")
        status, _, stderr = run([RUN_QEMU, "--runs", "2", "--log", log, *QUICK, "--",
                                 "selftest=fail", "bench=none"])
        self.assertEqual(status, 1, stderr[-2000:])
        self.assertIn("runs: 2 of 2 booted, exit 1 1", stderr)

    def test_run_qemu_runs_usage(self):
        for args, words in ((["--runs", "0"], "'0' is not a number of boots"),
                            (["--runs", "2", "--dry-run"], "--runs with --dry-run"),
                            (["--runs", "2", "--log", self.tmp], "give a file name"),
                            (["--runs", "2", "--smp", "x"], "--smp: 'x'")):
            status, _, stderr = run([RUN_QEMU, *args, "--no-build"])
            self.assertEqual(status, 2, (args, stderr))
            self.assertIn(words, stderr, args)
        # A usage error boots nothing and removes nothing.
        self.assertNotIn("run 1 of", stderr)

    def gate(self, name, run_args):
        out = os.path.join(self.tmp, name)
        status, stdout, stderr = run([CI_RUN, "--runs", RUNS, "--baseline-kernel", ELF,
                                      "--baseline-args", " ".join(BENCH), out, *QUICK,
                                      "--", *run_args])
        return status, stdout, stderr, out

    def check_layout(self, out):
        for side in ("", "baseline"):
            for k in range(1, int(RUNS) + 1):
                d = os.path.join(out, side, f"run-{k}")
                self.assertRegex(read(os.path.join(d, "summary.txt")),
                                 r"^shootdown ci-run: exit 0 \(passed\)")
                self.assertTrue(os.path.isfile(os.path.join(d, "console.log")))
        suites = ET.parse(os.path.join(out, "junit.xml")).getroot().findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], [f"run-{k}" for k in (1, 2, 3)])
        json.loads(read(os.path.join(out, "findings.json")))
        summary = read(os.path.join(out, "summary.txt"))
        self.assertRegex(summary, rf"(?m)^runs: +{RUNS} of {RUNS} booted: exit 0 0 0$")
        self.assertRegex(summary, rf"(?m)^baseline: +{RUNS} boots: exit 0 0 0: ")
        self.assertRegex(summary, r"(?m)^accel: +tcg ")
        return summary

    def test_gate_identical_runs_pass(self):
        status, stdout, stderr, out = self.gates["same"].result()
        self.assertEqual(status, 0, stderr[-2000:] + stdout[-3000:])
        summary = self.check_layout(out)
        self.assertIn("compare: A = ", read(os.path.join(out, "compare.txt")))
        self.assertRegex(summary, rf"(?m)^note: +baseline: {RUNS} against {RUNS} runs: "
                         r"overall: no significant change")
        self.assertIn(summary, stdout)

    def test_gate_injected_slowdown_fails(self):
        status, stdout, stderr, out = self.gates["slow"].result()
        self.assertEqual(status, 1, stderr[-2000:] + stdout[-3000:])
        summary = self.check_layout(out)  # every boot passed: the gate failed it
        self.assertRegex(summary, r"^shootdown ci-run: exit 1 ")
        self.assertRegex(summary, r"(?m)^note: +baseline: significantly slower: ")
        rows = json.loads(read(os.path.join(out, "compare.json")))["rows"]
        slowed = [r for r in rows if r["key"]["strategy"] == "ipi-range"]
        self.assertTrue(slowed)
        for r in slowed:
            self.assertEqual((r["runs_a"], r["runs_b"]), (int(RUNS), int(RUNS)))
            self.assertEqual(r["verdict"], "slower", r)

    def test_a_failing_baseline_is_no_measure(self):
        # The runs pass; the baseline's boots fail a check: exit 2, said.
        out = self.path("badbase")
        status, stdout, stderr = run([CI_RUN, "--runs", "2", "--baseline-args",
                                      " ".join(["selftest=fail", *BENCH]), out, *QUICK,
                                      "--", *BENCH])
        self.assertEqual(status, 2, stderr[-2000:] + stdout[-3000:])
        summary = read(os.path.join(out, "summary.txt"))
        self.assertRegex(summary, r"(?m)^runs: +2 of 2 booted: exit 0 0$")
        self.assertRegex(summary, r"(?m)^note: +baseline: not every boot passed \(exit 1 1: ")

    def test_ci_run_usage(self):
        out = self.path("u")
        for args, words in ((["--baseline-args", "bench=none", out], "give --runs N"),
                            (["--runs", "2", "--baseline", self.tmp, "--baseline-kernel", ELF,
                              out], "one or the other"),
                            (["--runs", "x", out], "'x' is not a number of boots"),
                            (["--runs", "2", "--baseline-kernel", self.path("no.elf"), out],
                             "no such file")):
            status, _, stderr = run([CI_RUN, *args])
            self.assertEqual(status, 2, (args, stderr))
            self.assertIn(words, stderr, args)

    def test_check_args_boots_nothing(self):
        out = self.path("checked")
        status, stdout, stderr = run([CI_RUN, "--check-args", "--install-deps", "--runs", "2",
                                      "--baseline-args", "bench=none", out, "--smp", "4",
                                      "--", "bench=all"])
        self.assertEqual(status, 0, stderr)
        self.assertIn("would install the dependencies, then boot 2 run(s) into", stdout)
        self.assertIn("run-qemu.sh --accel kvm --smp 4 -- bench=all", stdout)
        self.assertIn("-- bench=none", stdout)
        self.assertFalse(os.path.exists(out))
        status, _, stderr = run([CI_RUN, "--check-args", out, "--boot", "floppy"])
        self.assertEqual(status, 2)
        self.assertIn("--boot: 'floppy'", stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
