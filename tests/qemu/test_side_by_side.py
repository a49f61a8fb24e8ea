#!/usr/bin/env python3
"""answer's Linux side by side (tools/results/side_by_side.py) on synthetic
runs whose figures are known: the medians and intervals over runs, the
split by whether Linux used INVLPGB, the flush's share of Linux's loop,
interrupts per GiB, and that a Linux run is never pooled with the
harness's.

Run alone: python3 tests/qemu/test_side_by_side.py (make check runs it
with the results CLI self-test, tests/qemu/test_results.py)."""

import os
import re
import sys
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import side_by_side  # noqa: E402
from runs import Run  # noqa: E402


def harness_run(name, ops, loss, ipis):
    """A harness run: ipi-range flushloop at 2 CPUs, per-page reclaim."""
    run = Run(name, "jsonl")
    run.env = {"type": "env", "run_id": name}
    run.records = [
        {"type": "result", "bench": "flushloop", "strategy": "ipi-range", "cpus": 2,
         "ops_per_s": ops},
        {"type": "result", "bench": "reclaim", "strategy": "per-page", "batch": 1,
         "pages": 512, "worker_loss_pct": loss, "ipis_sent": ipis},
    ]
    return run


def linux_run(name, loops, loss, tlb, invlpgb=False):
    """A Linux-side run: tlb_flush2 at 2 threads, one page-out of 512 pages."""
    run = Run(name, "jsonl")
    run.env = {"type": "env", "side": "linux", "run_id": name,
               "invlpgb": {"in_use": invlpgb}}
    run.records = [
        {"type": "result", "bench": "linux", "workload": "tlb_flush2", "threads": 2,
         "loops_per_s": loops},
        {"type": "result", "bench": "linux", "workload": "pageout", "pages": 512,
         "worker_loss_pct": loss, "tlb_shootdowns": tlb},
    ]
    return run


class SideBySide(unittest.TestCase):
    def setUp(self):
        self.harness = [harness_run(f"h{i}", ops, loss, 512)
                        for i, (ops, loss) in enumerate([(1000, 70), (1200, 72), (1100, 68)])]
        self.linux = [linux_run(f"l{i}", loops, loss, 1024)
                      for i, (loops, loss) in enumerate([(400, 20), (500, 25), (450, 30)])]
        self.linux.append(linux_run("on", 900, 5, 0, invlpgb=True))

    def test_medians_and_ranges_over_runs(self):
        sbs = side_by_side.SideBySide(self.harness, self.linux)
        off = [r for r in sbs.flushloop if not r["linux_invlpgb"]]
        self.assertEqual(len(off), 1)
        self.assertEqual((off[0]["linux"]["median"], off[0]["linux"]["lo"],
                          off[0]["linux"]["hi"], off[0]["linux"]["runs"]), (450, 400, 500, 3))
        h = off[0]["harness"]["ipi-range"]
        self.assertEqual((h["median"], h["lo"], h["hi"]), (1100, 1000, 1200))
        self.assertIsNone(off[0]["harness"]["invlpgb"])
        self.assertEqual(sbs.loss["harness per-page 1"]["median"], 70)
        self.assertEqual(sbs.loss["Linux MADV_PAGEOUT (invlpgb not in use)"]["median"], 25)

    def test_results_are_found_by_role_not_name(self):
        """A record that says what it is (role, flush kind) is set beside
        Linux under its own name; one of another role is not, whatever
        its name."""
        for run in self.harness:
            fl, rc = run.records
            fl.update(strategy="ipi-range-v2", role="range", flush="ipi")
            rc.update(strategy="per-page-v2", role="page", flush="ipi")
            run.records.append(dict(rc, strategy="per-page", role="variant",
                                    worker_loss_pct=99))
        sbs = side_by_side.SideBySide(self.harness, self.linux)
        off = [r for r in sbs.flushloop if not r["linux_invlpgb"]]
        self.assertEqual(off[0]["harness"]["ipi-range-v2"]["median"], 1100)
        self.assertEqual(sbs.loss["harness per-page-v2 1"]["median"], 70)
        self.assertNotIn("harness per-page 1", sbs.loss)

    def test_invlpgb_in_use_is_its_own_row(self):
        sbs = side_by_side.SideBySide(self.harness, self.linux)
        on = [r for r in sbs.flushloop if r["linux_invlpgb"]]
        self.assertEqual([(r["linux"]["median"], r["linux"]["runs"]) for r in on], [(900, 1)])
        self.assertEqual(sbs.loss["Linux MADV_PAGEOUT (invlpgb in use)"]["runs"], 1)

    def test_share_and_interrupts_per_gib(self):
        sbs = side_by_side.SideBySide(self.harness, self.linux)
        text = sbs.render()
        # Linux 450 loops/s, harness 1100: the flush is 41% of Linux's loop.
        self.assertIn("the flush is 41% of Linux's loop", text)
        # 512 IPIs for 512 pages (2 MiB): 262144 a GiB; Linux 1024: twice.
        self.assertEqual(sbs.irqs["harness per-page 1"]["median"], 262144)
        self.assertEqual(sbs.irqs["Linux MADV_PAGEOUT (invlpgb not in use)"]["median"], 524288)
        self.assertEqual(sbs.irqs["Linux MADV_PAGEOUT (invlpgb in use)"]["median"], 0)
        self.assertIn("seed 001: about 53%", text)

    def test_few_runs_say_so(self):
        sbs = side_by_side.SideBySide(self.harness[:1], self.linux[:1])
        self.assertIn("one boot never decides", sbs.render())
        self.assertEqual(sbs.loss["harness per-page 1"]["coverage"], 0.0)

    def test_each_side_s_caveats_qualify_the_figures(self):
        # no findings record on the harness side, none in the Linux env:
        # nothing says the figures are not the hardware's
        sbs = side_by_side.SideBySide(self.harness, self.linux)
        self.assertEqual([q for _, q, _ in sbs.sections()][:2], ["a hardware answer"] * 2)
        # the Linux side's own tags (its env) qualify the timed sections;
        # the interrupt counts stay counts
        self.linux[0].env["caveats"] = ["QEMU TCG"]
        sbs = side_by_side.SideBySide(self.harness, self.linux)
        quals = [q for _, q, _ in sbs.sections()]
        self.assertEqual(quals[:2], ["not a hardware answer here: QEMU TCG"] * 2)
        self.assertNotIn("QEMU TCG", quals[2])
        self.assertIn("(the Linux side, l0)", dict(sbs.why())["QEMU TCG"])
        self.assertIn("  not a hardware answer here: QEMU TCG:", sbs.render())

    def test_a_linux_run_is_told_apart(self):
        self.assertTrue(side_by_side.is_linux(self.linux[0]))
        self.assertFalse(side_by_side.is_linux(self.harness[0]))


# The logs of the cases that ran in this invocation of tests/qemu/runner.py
# (it fills this in): the Linux side and the harness on one configuration.
FRESH = {}
LINUX_CASE, HARNESS_CASE = "linux-mttcg-2cpu", "linux-harness-mttcg-2cpu"


class FreshLogs(unittest.TestCase):
    """answer on a harness log and a Linux log of one configuration (2
    vCPUs, multi-threaded TCG), as a user sends them back."""

    def need(self, *names):
        missing = [n for n in names if n not in FRESH]
        if missing:
            self.skipTest(f"case {', '.join(missing)} did not run in this invocation")
        return [FRESH[n] for n in names]

    def test_answer_puts_the_linux_run_beside_the_harness(self):
        import subprocess
        linux, harness = self.need(LINUX_CASE, HARNESS_CASE)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "shootdown.py"),
                            "answer", harness, linux], capture_output=True, text=True,
                           timeout=120, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("Linux side by side: 1 harness run(s), 1 Linux run(s)", out)
        # tlb_flush2 at 1 and 2 threads, each beside the harness's ipi-range
        for n in (1, 2):
            self.assertRegex(out, rf"(?m)^    {n} cpus, Linux invlpgb not in use: Linux \d+ "
                             rf".*\n      harness ipi-range \d+ .*of Linux's loop$")
        self.assertRegex(out, r"(?m)^    harness per-page 1: -?\d+% ")
        self.assertRegex(out, r"(?m)^    Linux MADV_PAGEOUT \(invlpgb not in use\): -?\d+% ")
        # Linux flushes about once a page here: interrupts per GiB within a
        # factor of 2 of per-page's 262144, never batch 512's 512
        m = re.search(r"(?m)^    Linux MADV_PAGEOUT \(invlpgb not in use\): (\d+) \[",
                      out.split("TLB-shootdown interrupts per GiB")[1])
        self.assertIsNotNone(m, out)
        self.assertGreater(int(m.group(1)), 262144 // 2)


    def test_plot_draws_the_linux_page_out_beside_the_harness(self):
        import json
        import subprocess
        import tempfile
        linux, harness = self.need(LINUX_CASE, HARNESS_CASE)
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "shootdown.py"),
                                "plot", harness, linux, "-o", tmp], capture_output=True,
                               text=True, timeout=300, check=False)
            if p.returncode and "matplotlib" in p.stderr:
                self.skipTest(p.stderr.strip().splitlines()[-1])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(tmp, "manifest.json")) as f:
                manifest = json.load(f)
        fig, = [f for f in manifest["figures"] if f["name"] == "reclaim-timeline"]
        labels = [a.get("ylabel", "") for a in fig["axes"]]
        self.assertTrue(any(lb.startswith("per-page 1") for lb in labels), labels)
        self.assertTrue(any(lb.startswith("Linux MADV_PAGEOUT") for lb in labels), labels)


CLASSES = (SideBySide,)

if __name__ == "__main__":
    unittest.main()
