#!/usr/bin/env python3
"""Tests of tools/shootdown.py's outputs on the sample logs and synthetic
runs: tap and junit, check and table, the reclaim timeline, plot (run with the
results self-test: test_results.SELFTEST_CLASSES).
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import struct
import unittest
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from results_cli import (ROOT, SAMPLES, check_plot, png_size, prove_problem,  # noqa: E402,F401
                         run_cli, run_script, strict_tap, verdict_counts)
import checklog  # noqa: E402
import cli  # noqa: E402
import answer  # noqa: E402
import hist  # noqa: E402
import results_synth as synth  # noqa: E402
import findings  # noqa: E402
import stats  # noqa: E402
import test_ceiling  # noqa: E402
import verdicts  # noqa: E402
from runs import InputError, load, load_all  # noqa: E402


class VerdictFormats(unittest.TestCase):
    """tap and junit on the sample logs."""

    def test_tap_of_every_sample_is_strict(self):
        for name in sorted(os.listdir(SAMPLES)):
            path = os.path.join(SAMPLES, name)
            try:
                run = load(path)
            except Exception:  # noqa: BLE001  (an empty sample is not a run)
                continue
            with self.subTest(sample=name):
                points = strict_tap(verdicts.to_tap(run))
                p, f, s = (sum(1 for v in run.verdicts if v.kind == k)
                           for k in ("PASS", "FAIL", "SKIP"))
                self.assertEqual(len(points), p + f + s + 1)
                self.assertEqual(sum(1 for pt in points if not pt[0]),
                                 f + (1 if run.problems else 0))
                self.assertEqual(sum(1 for pt in points if pt[3] == "SKIP"), s)

    def test_tap_escapes_hash_and_prove_reads_it(self):
        run = load(os.path.join(SAMPLES, "good-fail.log"))
        run.verdicts.append(verdicts.Point("SKIP", "x: a # b", "why # not", "SKIP: ..."))
        text = verdicts.to_tap(run)
        self.assertIn("ok 5 - x: a \\# b # SKIP why \\# not", text)
        strict_tap(text)
        self.assertIsNone(prove_problem(text))

    def test_schema2_names_and_pass_details(self):
        """A schema 2 log: names end at ' -- ', a PASS detail goes in the TAP
        point's YAML block and in JUnit's system-out, never in the name."""
        run = load(os.path.join(SAMPLES, "good-schema2.log"))
        tsc = [v for v in run.verdicts if v.name == "tsc: frequency"]
        self.assertEqual(len(tsc), 1)
        self.assertRegex(tsc[0].why, r"^[0-9]+ kHz from hpet$")
        skip = [v for v in run.verdicts if v.name == "tlb: invpcid"]
        self.assertEqual(skip[0].kind, "SKIP")
        text = verdicts.to_tap(run)
        self.assertRegex(text, r"ok [0-9]+ - tsc: frequency\n  ---\n  detail: \"[0-9]+ kHz")
        strict_tap(text)
        self.assertIsNone(prove_problem(text))
        xml = verdicts.junit_text(run)
        self.assertRegex(xml, r'name="tsc: frequency">\s*<system-out>[0-9]+ kHz from hpet<')

    def test_strict_reader_rejects_bad_tap(self):
        for bad in ("1..1\nok 1\n", "TAP version 13\n1..2\nok 1\nok 3\n",
                    "TAP version 13\n1..2\nok 1\n", "TAP version 13\n1..1\nok 1 - a\n  --\n",
                    "TAP version 13\n1..1\nnot ok 1\n  ---\n  message: unquoted\n  ...\n"):
            with self.assertRaises(AssertionError):
                strict_tap(bad)

    def test_junit_counts_and_xml(self):
        path = os.path.join(SAMPLES, "good-fail.log")
        status, out, _ = run_cli(["junit", path])
        self.assertEqual(status, 0)
        root = ET.fromstring(out.encode())
        suite = root.find("testsuite")
        cases = suite.findall("testcase")
        p, f, s = verdict_counts(path)
        self.assertEqual(len(cases), p + f + s + 1)
        self.assertEqual(int(suite.get("failures")), f)
        self.assertEqual(len([c for c in cases if c.find("failure") is not None]), f)
        self.assertEqual(len([c for c in cases if c.find("skipped") is not None]), s)
        self.assertEqual(run_cli(["junit", path, "--status"])[0], 1)

    def test_status_is_run_qemu_s(self):
        """--status exits as run-qemu.sh would have for the run
        (tools/exitcodes.py): 0 passed, 1 failed, 77 every check skipped,
        3 aborted; the log check failing is a failure."""
        want = {"good-schema2.log": 0, "good-fail.log": 1, "good-skipped.log": 77,
                "good-fault.log": 1, "bad-truncated.log": 1, "bad-status-skip.log": 1}
        for name, status in want.items():
            for cmd in ("tap", "junit"):
                with self.subTest(sample=name, cmd=cmd):
                    path = os.path.join(SAMPLES, name)
                    self.assertEqual(run_cli([cmd, path, "--status"])[0], status)
                    self.assertEqual(run_cli([cmd, path])[0], 0)
        run = load(os.path.join(SAMPLES, "good-skipped.log"))
        run.verdicts, run.status = [], 63
        self.assertEqual(verdicts.gate_status(run, log_check=False), 3)

    def test_a_log_of_two_runs_is_refused(self):
        """Two consoles in one file, one after the other or interleaved:
        refused (exit 2, the run_ids named), never read as one run."""
        with open(os.path.join(SAMPLES, "good-schema2.log"), "rb") as f:
            one = f.read()
        other = one.replace(b"0x816ddf928e78bd78", b"0x0123456789abcdef")
        mixed = b"\n".join(x for pair in zip(one.split(b"\n"), other.split(b"\n"))
                           for x in pair)
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in (("after", one + other), ("mixed", mixed)):
                path = os.path.join(tmp, name + ".log")
                with open(path, "wb") as f:
                    f.write(data)
                for cmd in (["answer", path], ["table", path], ["tap", path]):
                    with self.subTest(how=name, cmd=cmd[0]):
                        status, _, err = run_cli(cmd)
                        self.assertEqual(status, 2)
                        self.assertIn("holds 2 runs (env records with run_id "
                                      "0x816ddf928e78bd78, 0x0123456789abcdef)", err)

    def test_junit_is_xml_whatever_the_line_carries(self):
        run = load(os.path.join(SAMPLES, "good-fail.log"))
        run.verdicts.append(verdicts.Point("FAIL", "x\x01y", "why\x02 <&>", "FAIL: ..."))
        root = ET.fromstring(verdicts.junit_text(run).encode())
        self.assertEqual(root.find("testsuite").get("failures"), "2")

    def test_truncated_log_fails_the_log_point(self):
        status, out, _ = run_cli(["tap", os.path.join(SAMPLES, "bad-truncated.log")])
        self.assertEqual(status, 0)
        self.assertRegex(out, r"not ok \d+ - log: complete and consistent")

    def test_a_console_cut_before_the_harness_spoke_is_named(self):
        """A console saved while Linux still booted has no protocol line:
        answer and table say so (exit 2), not a JSON parser's complaint."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cut.log")
            with open(path, "wb") as f:
                f.write(b"\r\n[    0.000000] Linux version 7.3.4\r\n"
                        b"[    0.000000] Command line: console=ttyS0\r\n")
            for cmd in ("answer", "table"):
                with self.subTest(cmd=cmd):
                    status, _, err = run_cli([cmd, path])
                    self.assertEqual(status, 2)
                    self.assertIn("cut.log:2: no protocol line", err)
                    self.assertNotIn("JSON object", err)
            # check judges the log: a failed verdict, not bad input.
            status, out, err = run_cli(["check", path])
            self.assertEqual(status, 1)
            self.assertIn("no protocol line at all", out + err)

    def test_jsonl_has_no_verdicts(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.jsonl")
            synth.write_jsonl(path, synth.make_records())
            self.assertEqual(run_cli(["tap", path])[0], 2)


class CheckAndTable(unittest.TestCase):
    """check is checklog; table renders every experiment."""

    def test_check_is_checklog(self):
        for name in sorted(os.listdir(SAMPLES)):
            path = os.path.join(SAMPLES, name)
            with self.subTest(sample=name):
                out = io.StringIO()
                with redirect_stdout(out), redirect_stderr(io.StringIO()):
                    want = checklog.main([path])
                status, text, _ = run_cli(["check", path])
                self.assertEqual((status, text), (want, out.getvalue()))
        self.assertEqual(run_cli(["check", "/nonexistent.log"])[0], 2)

    def test_table_has_every_experiment(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.jsonl")
            synth.write_jsonl(path, synth.make_records())
            status, out, _ = run_cli(["table", path])
        self.assertEqual(status, 0)
        for head in ("primitives:", "shootdown:", "reclaim:", "flushloop:"):
            self.assertIn(head, out)
        self.assertRegex(out, r"ipi-range +broadcast +64 +3 ")
        self.assertRegex(out, r"batch +512 .* 1,536 ")  # 12 irqs / 8 MiB -> 1536 per GiB


class ReclaimTimeline(unittest.TestCase):
    """tools/results/timeline.py: the record decoded, the loss and its
    interval as the kernel computes them, the figure's structure, and the
    caveat where the CPUs take turns."""

    def test_round_trip(self):
        import random
        import timeline
        rng = random.Random(3)
        for _ in range(50):
            values = [rng.choice((0, 1, 31, 32, 1 << 40, rng.randint(0, 10 ** 6)))
                      for _ in range(rng.randint(0, 40))]
            self.assertEqual(timeline.decode(timeline.encode(values)), values)
        self.assertEqual(timeline.encode([0, 5, 10, 15, 15, 0]), "0AAA0T")
        for bad in ("!", "0W", "1"):
            with self.assertRaises(timeline.DecodeError):
                timeline.decode(bad)

    def test_loss_as_the_kernel_has_it(self):
        import timeline
        # tests/unit/test_rc_timeline.c's no dip: 27 bins, blocks of 5, a narrow interval
        steady = [1000 + 10 * (i % 3) for i in range(27)]
        loss, half = timeline.loss_interval((steady, [1000] * 27), (steady, [1000] * 27))
        self.assertAlmostEqual(loss, 0.0)
        self.assertTrue(0 < half < 2, half)
        self.assertEqual(timeline.batch_means((steady, [1000] * 27), (steady, [1000] * 27)),
                         (5, 27))
        # uneven bins: rates are counts over time
        times = [500 * (1 + i % 4) for i in range(25)] + [0]
        loss, half = timeline.loss_interval(([100] * 25, [1000] * 25),
                                            ([t // 10 for t in times], times))
        self.assertAlmostEqual(loss, 0.0)
        self.assertAlmostEqual(half, 0.0)
        self.assertIsNone(timeline.loss_interval(([5], [1]), ([5, 5], [1, 1])))
        # two bins a side: the loss, no interval (the old one: t(1) = 12.7)
        loss, half = timeline.loss_interval(([1000, 1010], [1000] * 2), ([10, 12], [1000] * 2))
        self.assertAlmostEqual(loss, 98.9, places=1)
        self.assertIsNone(half)
        # a step: bins correlated as can be, so one event, not 25: no interval
        step = [100] * 5 + [0] * 20
        self.assertIsNone(timeline.loss_interval(([100] * 25, [1000] * 25),
                                                 (step, [1000] * 25))[1])
        # the kernel's rule for blocks (bench/rc_timeline.h)
        self.assertEqual([timeline.block_len(100, r) for r in (0, -900, 500, 840)],
                         [10, 10, 10, 12])
        self.assertEqual(timeline.effective_bins(20, 840), 1)

    def synthetic(self, tmp, name="r.jsonl", seed=1, caveats=(), **env):
        path = os.path.join(tmp, name)
        synth.write_jsonl(path, synth.make_records(seed=seed, env=env or None,
                                                   caveats=caveats))
        return path

    def test_records_agree(self):
        import timeline
        with tempfile.TemporaryDirectory() as tmp:
            run = load(self.synthetic(tmp))
        tls = timeline.timelines(run)
        self.assertEqual([t.label for t in tls], ["per-page 1", "batch 512"])
        for tl in tls:
            self.assertEqual(tl.problems(), [])
            self.assertEqual(timeline.check_against(tl, timeline.result_for(run, tl)), [])
        loss, _ = tls[0].loss()
        self.assertTrue(45 < loss < 55, loss)  # the synthetic dip: half the reads
        self.assertTrue(all(abs(w[0] - loss) < 5 for w in tls[0].worker_losses()))
        self.assertLess(abs(tls[1].loss()[0]), 5)  # batch 512: no dip
        self.assertLess(abs(tls[0].loss(against="after")[0]), 5)  # recovered after

    def test_figure_structure_and_overlay(self):
        with tempfile.TemporaryDirectory() as tmp:
            one = self.synthetic(tmp)
            two = self.synthetic(tmp, "s.jsonl", seed=2)
            status, _, err = run_script(["plot", one, two, "-o", os.path.join(tmp, "p")])
            self.assertEqual(status, 0, err)
            with open(os.path.join(tmp, "p", "manifest.json")) as f:
                fig = {e["name"]: e for e in json.load(f)["figures"]}["reclaim-timeline"]
        *strips, loss = fig["axes"]
        self.assertEqual(len(strips), 2)  # a strip per strategy
        # each: a line per run and the line at 1 (the rate before)
        self.assertEqual([s["lines"] for s in strips], [3, 3])
        self.assertTrue(all("page-out" in s["ylabel"] for s in strips), strips)
        self.assertIn("time since the strategy's page-out began (ms", strips[-1]["xlabel"])
        self.assertIn("worker loss", loss["ylabel"])
        self.assertIn("2 runs", fig["suptitle"])
        self.assertNotIn("not a hardware answer", fig["suptitle"])

    def test_caveat_where_cpus_take_turns(self):
        # The guest's tag (its findings record's caveats) heads the table
        # and the figure; the host decides none.
        why = "the cpus take turns: over 100 ms cpu 0 saw ... (a cpu running beside"
        with tempfile.TemporaryDirectory() as tmp:
            path = self.synthetic(tmp, cpus_concurrent=False, cpus_concurrent_why=why,
                                  caveats=["CPUs take turns"])
            status, out, _ = run_cli(["table", path])
            self.assertEqual(status, 0)
            self.assertRegex(out, r"reclaim: .*\nnot a hardware answer here: the CPUs were "
                             r"seen not running at the same time \(the concurrency probe")
            status, _, err = run_script(["plot", path, "-o", os.path.join(tmp, "p")])
            self.assertEqual(status, 0, err)
            with open(os.path.join(tmp, "p", "manifest.json")) as f:
                fig = {e["name"]: e for e in json.load(f)["figures"]}["reclaim-timeline"]
            self.assertIn("not a hardware answer here: the CPUs take turns", fig["suptitle"])
            import caveats
            tags = [t for t, _ in caveats.union([load(path)], "worker_loss")]
            bare = self.synthetic(tmp, name="b.jsonl", cpus_concurrent=False)
            status, out, _ = run_cli(["table", bare])
        self.assertIn("CPUs take turns", tags)
        self.assertNotIn("not a hardware answer here: the CPUs", out)


class Plot(unittest.TestCase):
    """plot writes every figure of a run that has every experiment."""

    def test_plot_synthetic_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.jsonl")
            synth.write_jsonl(path, synth.make_records())
            check_plot(self, path, os.path.join(tmp, "plots"), expect_all=True)

    def test_plot_ceiling(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.jsonl")
            synth.write_jsonl(path, test_ceiling.records())
            manifest = check_plot(self, path, os.path.join(tmp, "plots"))
            fig, = [e for e in manifest["figures"] if e["name"] == "ceiling"]
            self.assertEqual((fig["axes"][0]["xscale"], fig["axes"][0]["yscale"]),
                             ("log", "log"))
            # The curve, K* of each W, the full side of each W, and 33.
            self.assertGreaterEqual(fig["axes"][0]["lines"], 6)
            self.assertIn("flush ceiling (unicast)", fig["suptitle"])


CLASSES = (VerdictFormats, CheckAndTable, ReclaimTimeline, Plot)


if __name__ == "__main__":
    unittest.main(verbosity=1)
