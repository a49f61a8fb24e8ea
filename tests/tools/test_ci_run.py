#!/usr/bin/env python3
"""Test of tools/ci-run.sh as a CI job runs it, under TCG: boots of the
harness (bench=none or a few primitives samples) whose artifacts must be
there and valid (the JUnit parses as XML, the TAP passes `prove`, every
record is JSON), whose exit statuses must be run-qemu.sh's (0 passed, 1 a
check failed, 2 KVM asked for but unusable, 2 usage), and whose summary
and stdout name the accelerator and CPU model.

A KVM that cannot run is simulated as a user who may not open /dev/kvm:
as root, the run is made as `nobody` (setpriv); as a user who cannot open
it already, as that user; as a user who can, that test is skipped. Real
KVM use is left alone. Where KVM can start the harness here, one more run
under --accel kvm (SHOOTDOWN_CI_KVM=0 skips it; under kvm-pvm, which
--accel auto does not take, only with SHOOTDOWN_CI_KVM=1).

Run: python3 tests/tools/test_ci_run.py  (make ci-test, in make check; the
kernel must be built: make).
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "tools", "ci-run.sh")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))

import run_qemu  # noqa: E402

# Cheap: two CPUs, run-qemu.sh's kernel boot, nothing built.
QUICK = ["--no-build", "--accel", "tcg", "--smp", "2", "--timeout", "120"]
BENCH = ["bench=primitives", "samples=5", "warmup=0"]


def ci_run(*args, user=None, env=None):
    """(exit status, stdout, stderr) of tools/ci-run.sh ARGS."""
    cmd = [SCRIPT, *args]
    if user:
        import pwd
        pw = pwd.getpwnam(user)
        cmd = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600,
                       stdin=subprocess.DEVNULL, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class CiRun(unittest.TestCase):
    tmp = None
    passed = None  # (status, stdout, stderr, outdir) of the passing run

    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(os.path.join(ROOT, "build", "shootdown.elf")):
            raise unittest.SkipTest("build/shootdown.elf not built (make)")
        cls.tmp = tempfile.mkdtemp(prefix="ci-run-test.")
        out = os.path.join(cls.tmp, "pass")
        cls.passed = (*ci_run(out, *QUICK, "--", *BENCH), out)

    @classmethod
    def tearDownClass(cls):
        if cls.tmp:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def outdir(self, name):
        return os.path.join(self.tmp, name)

    def test_pass_exit_0_and_summary(self):
        status, stdout, stderr, out = self.passed
        self.assertEqual(status, 0, stderr[-2000:])
        summary = read(os.path.join(out, "summary.txt"))
        self.assertRegex(summary, r"^shootdown ci-run: exit 0 \(passed\)")
        self.assertRegex(summary, r"(?m)^accel: +tcg \(asked for \(--accel tcg\)\)$")
        self.assertRegex(summary, r"(?m)^cpu model: +max$")
        self.assertRegex(summary, r"(?m)^guest cpu: +QEMU TCG CPU")
        self.assertRegex(summary, r"(?m)^run-qemu: +exit 0: passed: guest status 0 \[[0-9.]+s\]$")
        # The reviewer sees the same on stdout, after the console.
        self.assertIn(summary, stdout)
        self.assertIn("@json {\"type\":\"env\"", stdout)

    def test_pass_artifacts_valid(self):
        _, _, stderr, out = self.passed
        for name in ("summary.txt", "console.log", "run-qemu.txt", "records.jsonl",
                     "check.txt", "junit.xml", "results.tap", "findings.txt",
                     "findings.md", "findings.json"):
            path = os.path.join(out, name)
            self.assertTrue(os.path.isfile(path) and os.path.getsize(path) > 0,
                            f"{name} missing or empty; {stderr[-1500:]}")
            if name != "summary.txt":
                self.assertIn(f"  {name} ", read(os.path.join(out, "summary.txt")))
        suite = ET.parse(os.path.join(out, "junit.xml")).getroot()
        cases = suite.findall(".//testcase")
        self.assertGreater(len(cases), 5)
        self.assertEqual(suite.findall(".//failure"), [])
        if shutil.which("prove"):
            p = subprocess.run(["prove", "-e", "cat", os.path.join(out, "results.tap")],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("Result: PASS", p.stdout)
        types = set()
        with open(os.path.join(out, "records.jsonl")) as f:
            for line in f:
                types.add(json.loads(line)["type"])
        self.assertIn("env", types)
        self.assertIn("result", types)
        json.loads(read(os.path.join(out, "findings.json")))
        self.assertIn("complete and consistent: no problems", read(os.path.join(out, "check.txt")))
        plots = os.path.join(out, "plots")
        self.assertTrue(os.path.isfile(os.path.join(plots, "index.html")), stderr[-1500:])
        manifest = json.loads(read(os.path.join(plots, "manifest.json")))
        self.assertTrue(manifest)
        pngs = [n for n in os.listdir(plots) if n.endswith(".png")]
        self.assertTrue(pngs, "no figure drawn")

    def test_selftest_fail_exit_1(self):
        out = self.outdir("fail")
        # GitHub's job page: the summary and the failed check with its why.
        page = os.path.join(self.tmp, "step-summary.md")
        status, stdout, stderr = ci_run(out, *QUICK, "--", "selftest=fail", "bench=none",
                                        env=dict(os.environ, GITHUB_STEP_SUMMARY=page))
        self.assertEqual(status, 1, stderr[-2000:])
        self.assertIn("shootdown ci-run: exit 1 (a check failed)", read(page))
        self.assertRegex(read(page), r"(?m)^\*\*\d+ checks, 1 failed, \d+ skipped\*\* ")
        self.assertIn("- FAIL console.log: `selftest: injected failure`: ", read(page))
        summary = read(os.path.join(out, "summary.txt"))
        self.assertRegex(summary, r"^shootdown ci-run: exit 1 \(a check failed\)")
        self.assertRegex(summary, r"(?m)^accel: +tcg ")
        suite = ET.parse(os.path.join(out, "junit.xml")).getroot()
        self.assertTrue(suite.findall(".//failure"))
        if shutil.which("prove"):
            p = subprocess.run(["prove", "-e", "cat", os.path.join(out, "results.tap")],
                               capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0, "prove passed a failed run's TAP")

    def test_baseline_one_run_a_side_cannot_tell(self):
        _, _, _, base = self.passed
        out = self.outdir("again")
        status, stdout, stderr = ci_run("--baseline", base, out, *QUICK, "--", *BENCH)
        self.assertEqual(status, 0, stderr[-2000:] + stdout[-2000:])
        self.assertIn("cannot tell", read(os.path.join(out, "compare.txt")))
        json.loads(read(os.path.join(out, "compare.json")))
        self.assertRegex(read(os.path.join(out, "summary.txt")),
                         r"(?m)^note: +baseline: overall: cannot tell")

    def test_kvm_unusable_exit_2(self):
        problem = run_qemu.kvm_device_problem()
        user = None
        if problem is None:
            if os.geteuid() != 0 or not shutil.which("setpriv"):
                self.skipTest("this user can open /dev/kvm and cannot become one who "
                              "cannot (needs root and setpriv)")
            # nobody may not open /dev/kvm (root:kvm, 0660 or 0600) ...
            mode = os.stat("/dev/kvm").st_mode
            if mode & stat.S_IROTH and mode & stat.S_IWOTH:
                self.skipTest("/dev/kvm is open to every user here (mode o+rw)")
            user = "nobody"
            os.chmod(self.tmp, 0o777)  # ... but may write its OUTDIR
        # --accel kvm, and no --accel at all: ci-run.sh asks for KVM then.
        for name, accel in (("nokvm", ["--accel", "kvm"]), ("default", [])):
            out = self.outdir(name)
            status, stdout, stderr = ci_run(out, "--no-build", "--smp", "2", *accel,
                                            "--", "bench=none", user=user)
            self.assertEqual(status, 2, stdout + stderr)
            summary = read(os.path.join(out, "summary.txt"))
            self.assertRegex(summary, r"^shootdown ci-run: exit 2 \(environment or usage problem\)")
            self.assertRegex(summary, r"(?m)^run-qemu: +exit 2: --accel kvm: .*/dev/kvm")
            self.assertRegex(summary, r"(?m)^accel: +none ")
            self.assertIn("--accel kvm: ", stdout)
            self.assertFalse(os.path.exists(os.path.join(out, "junit.xml")))

    def test_aborted_exit_3(self):
        # QEMU stops running the guest (paused through the monitor).
        out = self.outdir("abort")
        status, stdout, stderr = ci_run(out, *QUICK, "--stop-after", "2", "--",
                                        "bench=all", "budget_s=120")
        self.assertEqual(status, 3, stderr[-2000:])
        summary = read(os.path.join(out, "summary.txt"))
        self.assertRegex(summary, r"^shootdown ci-run: exit 3 \(aborted\)")
        self.assertRegex(summary, r"(?m)^run-qemu: +exit 3: aborted: guest stopped running")
        # What the console had is still turned into results: the log check fails.
        self.assertTrue(ET.parse(os.path.join(out, "junit.xml")).getroot().findall(".//failure"))

    def test_timeout_exit_124(self):
        out = self.outdir("timeout")
        status, stdout, stderr = ci_run(out, "--no-build", "--accel", "tcg", "--smp", "2",
                                        "--timeout", "3", "--", "bench=all",
                                        "budget_s=120")
        self.assertEqual(status, 124, stderr[-2000:])
        self.assertRegex(read(os.path.join(out, "summary.txt")),
                         r"^shootdown ci-run: exit 124 \(timed out\)")

    def test_no_dry_run(self):
        status, _, stderr = ci_run(self.outdir("dry"), "--dry-run")
        self.assertEqual(status, 2)
        self.assertIn("--dry-run: nothing to leave artifacts of", stderr)

    def test_usage_exit_2(self):
        empty = self.outdir("empty")
        os.makedirs(empty, exist_ok=True)
        for args, words in ((("--smp", "2"), "OUTDIR first"),
                            ((), "no OUTDIR"),
                            ((self.outdir("u"), "--log", "x.log"), "writes the console"),
                            (("--baseline", self.outdir("nowhere"), self.outdir("u")),
                             "not a directory"),
                            (("--baseline", empty, self.outdir("u")), "no console.log")):
            status, _, stderr = ci_run(*args)
            self.assertEqual(status, 2, (args, stderr))
            self.assertIn(words, stderr, args)

    @unittest.skipIf(os.environ.get("SHOOTDOWN_CI_KVM") == "0", "SHOOTDOWN_CI_KVM=0")
    def test_kvm_where_it_starts(self):
        qemu = run_qemu.Qemu(shutil.which("qemu-system-x86_64") or "qemu-system-x86_64")
        opts = run_qemu.parse_args(["--accel", "kvm", "--smp", "2", "--no-build"])
        if run_qemu.kvm_kind() == "kvm-pvm" and os.environ.get("SHOOTDOWN_CI_KVM") != "1":
            self.skipTest("/dev/kvm here is kvm-pvm, which --accel auto does not take (a boot "
                          "there takes ~20 s); SHOOTDOWN_CI_KVM=1 runs it anyway")
        model, why = run_qemu.try_kvm(qemu, opts)
        if model is None:
            self.skipTest(f"KVM cannot start the harness here: {why}")
        out = self.outdir("kvm")
        status, stdout, stderr = ci_run(out, "--no-build", "--smp", "2", "--timeout", "120",
                                        "--", "bench=none")
        self.assertEqual(status, 0, stderr[-2000:])
        summary = read(os.path.join(out, "summary.txt"))
        self.assertRegex(summary, r"(?m)^accel: +kvm \(asked for \(--accel kvm\)")
        self.assertRegex(summary, rf"(?m)^cpu model: +{model}$")
        ET.parse(os.path.join(out, "junit.xml"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
