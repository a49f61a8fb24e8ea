#!/usr/bin/env python3
"""Host tests of the LAVA side (no lava-run needed): the monitors'
patterns against console lines as a pty gives them, the job templates,
the timeouts, and tools/shootdown.py lava on a log made the way LAVA's
logger makes it.

Run: python3 tests/lava/test_lava.py (make lava-check runs it first).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))

import checklog  # noqa: E402
import lava  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devices import SANBOOT_ISO_URL as ISO_URL  # noqa: E402
import verdictline  # noqa: E402

SAMPLE = os.path.join(ROOT, "tests", "qemu", "samples", "good-schema2.log")


def need_yaml():
    try:
        import yaml
    except ImportError:
        raise unittest.SkipTest("python3-yaml not installed (lava-dispatcher brings it)")
    return yaml


def monitors():
    """The monitors of the job templates, as LAVA reads them."""
    yaml = need_yaml()
    text = lava.render_job("qemu", {"KERNEL_URL": "file:///x.elf"})
    return yaml.safe_load(text)["actions"][2]["test"]["monitors"]


def sample_console(sample=SAMPLE):
    with open(sample, "rb") as f:
        data = f.read().decode("ascii").replace("\r\n", "\n")
    return "".join(line + "\r\n" for line in data.split("\n")
                   if not line.startswith("# "))


def lava_log(console, drop_exit=False, flip=None, exit_result=None):
    """A lava-run log of console, as its ShellLogger and monitors make
    one: \\r dropped, '"' escaped, one target entry a line, and a result
    per monitor match (exit_result: what the exit case says instead)."""
    out = []
    for line in console.replace("\r", "").split("\n"):
        if drop_exit and line.startswith("EXIT: "):
            continue
        if line:
            out.append({"dt": "t", "lvl": "target", "msg": line.replace('"', '\\"')})
        v = verdictline.split(line)
        if v:
            result = v[0].lower() if v[1] != flip else "fail"
            out.append({"dt": "t", "lvl": "results", "msg": {
                "definition": "shootdown", "case": lava.lava_case_name(v[1]),
                "result": result, "extra": {"test_case_id": v[1]}}})
        m = re.match(r"EXIT: STATUS=([0-9]+)$", line)
        if m:
            out.append({"dt": "t", "lvl": "results", "msg": {
                "definition": "shootdown-exit", "case": "exit",
                "result": exit_result or lava.EXIT_RESULTS[int(m.group(1))],
                "extra": {"test_case_id": "EXIT"}}})
    return "\n".join(json.dumps(o) for o in out) + "\n"


def gate_of(text):
    return lava.gate(lava.parse_entries(text))[0]


class Monitors(unittest.TestCase):
    def test_verdict_pattern_on_pty_lines(self):
        pat = re.compile(monitors()[0]["pattern"])
        for line in ("PASS: tsc: frequency -- 2445436 kHz from hpet",
                     "SKIP: tlb: invpcid -- CPUID.7:EBX[10] is clear",
                     "PASS: smp: bringup: all cpus online"):
            m = pat.match(line + "\r\r\n")
            self.assertIsNotNone(m, line)
            self.assertEqual(m.group("test_case_id"), verdictline.split(line)[1])
        # A line is matched only once it is whole.
        self.assertIsNone(pat.match("PASS: smp: bringup: all cpus onl"))

    def test_exit_monitor_maps_every_status(self):
        exit_mon = monitors()[2]
        pat = re.compile(exit_mon["pattern"])
        for status, result in lava.EXIT_RESULTS.items():
            m = pat.match(f"EXIT: STATUS={status}\r\r\n")
            self.assertIsNotNone(m, status)
            self.assertEqual(exit_mon["fixupdict"][m.group("result")], result)
        self.assertIsNone(pat.match("EXIT: STATUS=6\r\r\n"))
        self.assertIsNone(pat.match("EXIT: STATUS=63"))

    def test_every_template_renders(self):
        yaml = need_yaml()
        # each template's own variables only (the others are refused)
        urls = {"ipxe-sanboot": {"ISO_URL": ISO_URL},
                "qemu-linux": {"KERNEL_URL": "file:///vmlinuz",
                               "RAMDISK_URL": "file:///initramfs.cpio.gz"}}
        for kind in lava.KINDS:
            text = lava.render_job(kind, urls.get(kind, {"KERNEL_URL": "file:///x.elf"}))
            self.assertNotIn("{{", text, kind)
            job = yaml.safe_load(text)
            self.assertEqual(len(job["actions"][-1]["test"]["monitors"]), 3, kind)
        with self.assertRaises(lava.LavaError):
            lava.substitute("{{NOPE}}", {})

    def test_a_variable_no_template_uses_is_refused(self):
        with self.assertRaisesRegex(lava.LavaError, r"^KERNEL_ARG: not a variable of the qemu "
                                    r"job \(its variables: .*KERNEL_ARGS"):
            lava.render_job("qemu", {"KERNEL_URL": "file:///x.elf", "KERNEL_ARG": "bench=none"})
        # The server's power-on wait is the grub job's, not the qemu one's.
        with self.assertRaisesRegex(lava.LavaError, "POWER_ON_TIMEOUT: not a variable"):
            lava.render_job("qemu", {"KERNEL_URL": "file:///x.elf", "POWER_ON_TIMEOUT": "60"})
        self.assertIn("-append \"bench=none\"",
                      lava.render_job("qemu", {"KERNEL_URL": "file:///x.elf",
                                               "KERNEL_ARGS": "bench=none"}))
        status = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "shootdown.py"),
                                 "lava-job", "qemu", "KERNEL_URL=file:///x.elf", "KERNEL_ARG=x"],
                                capture_output=True, text=True)
        self.assertEqual(status.returncode, 2)
        self.assertIn("KERNEL_ARG: not a variable of the qemu job", status.stderr)

    def test_timeouts(self):
        self.assertEqual(lava.wait_timeout(""), 120)
        self.assertEqual(lava.wait_timeout("budget_s=60"), 300)
        with self.assertRaises(lava.LavaError):
            lava.wait_timeout("budget_s=0")


class Gate(unittest.TestCase):
    def test_console_comes_back(self):
        entries = lava.parse_entries(lava_log(sample_console()))
        rep = checklog.check_log(lava.console_text(entries))
        self.assertEqual(rep.problems, [])
        self.assertEqual(rep.status, 0)

    def test_a_clean_run_passes(self):
        self.assertEqual(gate_of(lava_log(sample_console())), [])

    def test_a_failed_case_fails(self):
        problems = gate_of(lava_log(sample_console(), flip="tsc: frequency"))
        self.assertTrue(any("tsc_frequency: fail" in p for p in problems), problems)

    def test_a_missing_exit_fails(self):
        problems = gate_of(lava_log(sample_console(), drop_exit=True))
        self.assertTrue(any("no exit case" in p for p in problems), problems)

    def test_a_case_the_monitor_missed_fails(self):
        lines = lava_log(sample_console()).splitlines()
        i = next(n for n, line in enumerate(lines) if '"results"' in line)
        problems = gate_of("\n".join(lines[:i] + lines[i + 1:]))
        self.assertTrue(any("the monitor recorded" in p for p in problems), problems)

    def test_a_console_that_says_failed_fails_whatever_the_exit_case(self):
        """A console whose EXIT says 1 under an exit case of pass (a monitor
        or a mutated log): the console is what the run printed."""
        console = sample_console().replace("EXIT: STATUS=0", "EXIT: STATUS=1")
        problems = gate_of(lava_log(console, exit_result="pass"))
        self.assertIn("the console says EXIT: STATUS=1 (failed)", problems)
        self.assertIn("the exit case says pass, but the console says STATUS=1 (fail)",
                      problems)
        self.assertTrue(any(p.startswith("check: ") and "STATUS=1 but the verdicts" in p
                            for p in problems), problems)

    def test_the_console_is_checked_as_check_checks_it(self):
        """A summary record that miscounts the verdicts (which the monitors
        cannot see) fails the gate as it fails check."""
        console = re.sub(r'("type":"summary".*"passed":)([0-9]+)',
                         lambda m: m.group(1) + str(int(m.group(2)) + 1), sample_console())
        self.assertNotEqual(console, sample_console())
        problems = gate_of(lava_log(console))
        self.assertTrue(any(p.startswith("check: ") and "summary record says passed" in p
                            for p in problems), problems)

    def test_an_all_skipped_run_gets_77(self):
        skipped = sample_console(os.path.join(os.path.dirname(SAMPLE), "good-skipped.log"))
        self.assertIn("EXIT: STATUS=38", skipped)
        problems, _, status = lava.gate(lava.parse_entries(lava_log(skipped)))
        self.assertEqual((problems, status), ([], 77))
        self.assertEqual(lava.gate(lava.parse_entries(lava_log(sample_console())))[2], 0)

    def test_server_log_yaml_list(self):
        text = "".join("- " + line + "\n" for line in lava_log(sample_console()).splitlines())
        self.assertEqual(gate_of(text), [])

    def test_cli_exit_statuses(self):
        with tempfile.TemporaryDirectory() as tmp:
            good, bad = os.path.join(tmp, "good.log"), os.path.join(tmp, "bad.log")
            with open(good, "w", encoding="utf-8") as f:
                f.write(lava_log(sample_console()))
            with open(bad, "w", encoding="utf-8") as f:
                f.write(lava_log(sample_console(), drop_exit=True))
            skipped = os.path.join(tmp, "skipped.log")
            with open(skipped, "w", encoding="utf-8") as f:
                f.write(lava_log(sample_console(os.path.join(os.path.dirname(SAMPLE),
                                                             "good-skipped.log"))))
            devnull = open(os.devnull, "w", encoding="utf-8")
            old, sys.stdout = sys.stdout, devnull
            try:
                self.assertEqual(lava.main(["lava", good, "--gate"]), 0)
                self.assertEqual(lava.main(["lava", bad, "--gate"]), 1)
                self.assertEqual(lava.main(["lava", skipped, "--gate"]), 77)
                self.assertEqual(lava.main(["lava", SAMPLE, "--gate"]), 2)
            finally:
                sys.stdout = old
                devnull.close()


if __name__ == "__main__":
    unittest.main()
