#!/usr/bin/env python3
"""Tests of tools/shootdown.py's statistics on synthetic runs: histograms,
the statistics module, the run-level tests, and compare (run with the
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

from results_cli import (ROOT, SAMPLES, png_size, prove_problem, run_cli,  # noqa: E402,F401
                         run_script, strict_tap, verdict_counts)
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


class Histograms(unittest.TestCase):
    """hist.py against the contract."""

    def test_quantile_interpolates_on_the_log_scale(self):
        d = hist.Dist(counts={40: 10})  # [2^10, 2^10.25) cycles, 10 samples
        self.assertAlmostEqual(d.quantile(0.5), 2 ** 10.125)
        self.assertAlmostEqual(d.quantile(1.0), 2 ** 10.25)

    def test_records_with_different_lo_pool_on_one_grid(self):
        a = hist.Dist.of_record({"samples": 3, "hist": {"lo": 1024, "per_octave": 4,
                                                         "counts": [1, 2]}})
        b = hist.Dist.of_record({"samples": 1, "hist": {"lo": 2048, "per_octave": 4,
                                                         "counts": [1]}})
        self.assertEqual(hist.Dist.pool([a, b]).counts, {40: 1, 41: 2, 44: 1})

    def test_contract_violations_are_named(self):
        good = {"samples": 3, "hist": {"lo": 64, "per_octave": 4, "counts": [1, 2]}}
        self.assertIsNone(hist.hist_problem(good))
        for bad, why in ((dict(good, samples=4), "sum to 3"),
                         ({"samples": 3, "hist": {"lo": 48, "per_octave": 4,
                                                  "counts": [1, 2]}}, "power of two"),
                         ({"samples": 3, "hist": {"lo": 64, "per_octave": 4,
                                                  "counts": [1, 2, 0]}}, "trailing"),
                         ({"samples": 65, "hist": {"lo": 64, "per_octave": 4,
                                                   "counts": [1] * 65}}, "64")):
            self.assertIn(why, hist.hist_problem(bad))
            self.assertIsNone(hist.Dist.of_record(bad))

    def test_synthetic_hist_follows_the_contract(self):
        rec = {"samples": 500}
        synth.set_stats(rec, synth.draw(__import__("random").Random(1), 500, 5000, 0.5), 0.5)
        self.assertIsNone(hist.hist_problem(rec))


class Statistics(unittest.TestCase):
    """stats.py against known values."""

    def test_mann_whitney_known_value(self):
        r = stats.mann_whitney([(v, 1) for v in range(1, 6)], [(v, 1) for v in range(6, 11)])
        self.assertEqual(r.u, 0)
        self.assertAlmostEqual(r.p, 0.01218, places=4)  # normal approx., continuity

    def test_mann_whitney_all_tied(self):
        self.assertEqual(stats.mann_whitney([(5, 10)], [(5, 7)]).p, 1.0)

    def test_holm(self):
        self.assertEqual(stats.holm([0.01, 0.04, None, 0.03]), [0.03, 0.06, None, 0.06])

    def test_bootstrap_interval_covers_the_shift(self):
        rng = __import__("random").Random(2)
        a = hist.Dist(raw=synth.draw(rng, 400, 1000, 0.2))
        b = hist.Dist(raw=synth.draw(rng, 400, 1300, 0.2))
        lo, hi = stats.bootstrap_ratio_ci(a, b, iterations=500)
        self.assertLess(lo, 30)
        self.assertGreater(hi, 30)
        self.assertGreater(lo, 15)


# Launch factors of synthetic boots of one configuration: every time of a
# boot is multiplied by its factor (launch-to-launch variance, here +-10%;
# a single pair 1.0 vs 1.25 is what made the old sample-pooling compare call
# two runs of one configuration different).
LAUNCH_A = (1.0, 1.1, 0.92)
LAUNCH_B = (0.95, 1.08, 1.02)
IPI_RANGE = lambda r: r.get("strategy") == "ipi-range"  # noqa: E731


class RunLevelStatistics(unittest.TestCase):
    """The decision logic of stats.run_test / paired_test (the run is the
    unit), on per-run p50s."""

    def test_one_run_a_side_is_not_testable(self):
        for a, b in (([1000], [1250]), ([1000], [10000])):
            res = stats.run_test(a, b)
            self.assertIsNone(res.p)
            self.assertIsNone(res.ci)
            self.assertIn("launch-to-launch variance", res.why)
            self.assertAlmostEqual(res.change_pct, (b[0] / a[0] - 1) * 100)

    def test_launch_variance_is_not_a_change(self):
        res = stats.run_test([1000 * f for f in LAUNCH_A], [1000 * f for f in LAUNCH_B])
        self.assertGreater(res.p, 0.5)
        self.assertLess(res.ci[0], 0)
        self.assertGreater(res.ci[1], 0)

    def test_a_shift_beyond_launch_variance_is_significant(self):
        res = stats.run_test([1000 * f for f in LAUNCH_A], [3000 * f for f in LAUNCH_B])
        self.assertLess(res.p, 1e-4)
        self.assertEqual(res.df, 4)
        self.assertLess(res.ci[0], 200)
        self.assertGreater(res.ci[0], 100)

    def test_several_against_one_pools_the_variance(self):
        res = stats.run_test([1000 * f for f in LAUNCH_A], [3000])
        self.assertEqual(res.df, 2)
        self.assertLess(res.p, 0.01)
        self.assertGreater(stats.run_test([1000 * f for f in LAUNCH_A], [1100]).p, 0.3)

    def test_known_t_values(self):
        self.assertAlmostEqual(stats.t_quantile(0.05, 2), 4.3027, places=3)
        self.assertAlmostEqual(stats.t_quantile(0.05, 30), 2.0423, places=3)
        self.assertAlmostEqual(stats.t_two_sided_p(2.0, 4), 0.11612, places=4)

    def test_paired(self):
        self.assertIsNone(stats.paired_test([0.5]).p)
        self.assertLess(stats.paired_test([0.5, 0.52, 0.48]).p, 0.01)
        self.assertGreater(stats.paired_test([0.9, 1.1, 1.0]).p, 0.5)


class Compare(unittest.TestCase):
    """compare over synthetic runs with known differences and launch
    variance."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="results-test-")
        cls.files = {}
        runs = {"nohist": {"seed": 6, "hists": False}, "cpus8": {"seed": 7, "cpus": 8}}
        for i, f in enumerate(LAUNCH_A):
            runs[f"a{i + 1}"] = {"seed": 1 + i, "launch": f}
            runs[f"nohist{i + 1}"] = {"seed": 40 + i, "launch": f, "hists": False}
        for i, f in enumerate(LAUNCH_B):
            runs[f"b{i + 1}"] = {"seed": 10 + i, "launch": f}
            runs[f"slow{i + 1}"] = {"seed": 20 + i, "launch": f, "shift": 3.0,
                                    "which": IPI_RANGE}
            runs[f"fast{i + 1}"] = {"seed": 30 + i, "launch": f, "shift": 0.5,
                                    "which": IPI_RANGE}
            runs[f"mild{i + 1}"] = {"seed": 50 + i, "shift": 1.08, "which": IPI_RANGE}
        for i in range(3):
            runs[f"base{i + 1}"] = {"seed": 60 + i}
        for name, kw in runs.items():
            path = os.path.join(cls.tmp, name + ".jsonl")
            synth.write_jsonl(path, synth.make_records(**kw))
            cls.files[name] = path

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def compare(self, *args):
        f = self.files
        return run_cli(["compare"] + [f.get(a, a) for a in args])

    def sides(self, a, b, *more):
        """compare a1 a2 a3 -- b1 b2 b3."""
        return self.compare(*more, *[f"{a}{i}" for i in (1, 2, 3)], "--",
                            *[f"{b}{i}" for i in (1, 2, 3)])

    def test_one_run_a_side_cannot_tell(self):
        # a2 is a whole boot 10% slower than a1, a1 vs slow1 3x for ipi-range:
        # with one run a side neither is called significant.
        for other in ("a2", "slow1"):
            status, out, _ = self.compare("a1", other)
            self.assertEqual(status, 0, out)
            self.assertIn("overall: cannot tell: one run a side: launch-to-launch variance "
                          "cannot be told from a change", out)
            self.assertNotRegex(out, r"(?m)(slower|faster|no significant change)$")

    def test_three_runs_of_one_configuration_no_significant_change(self):
        status, out, _ = self.sides("a", "b")
        self.assertEqual(status, 0, out)
        self.assertIn("(3 runs)", out)
        self.assertIn("overall: no significant change", out)
        self.assertNotRegex(out, r"(?m)(slower|faster)$")

    def test_three_runs_slowdown_is_detected_with_exit_1(self):
        status, out, _ = self.sides("a", "slow")
        self.assertEqual(status, 1, out)
        self.assertIn("overall: slower", out)
        for line in out.splitlines():
            if re.match(r"shootdown +ipi-range ", line):
                self.assertTrue(line.endswith("slower"), line)
            elif re.match(r"shootdown +ipi-page ", line):
                self.assertTrue(line.endswith("no significant change"), line)

    def test_threshold_above_the_shift_calls_it_no_change(self):
        status, out, _ = self.sides("base", "mild")
        self.assertEqual(status, 1, out)
        status, out, _ = self.sides("base", "mild", "--threshold", "10")
        self.assertEqual(status, 0, out)
        self.assertIn("overall: no significant change", out)

    def test_speedup_is_faster_and_exit_0(self):
        status, out, _ = self.sides("a", "fast")
        self.assertEqual(status, 0, out)
        self.assertIn("overall: faster", out)

    def test_several_against_one(self):
        f = self.files
        status, out, _ = run_cli(["compare", "--bench", "shootdown"] +
                                 [x for i in (1, 2, 3) for x in ("--a", f[f"a{i}"])] +
                                 ["--b", f["b1"]])
        self.assertIn("(3 runs)", out)
        self.assertEqual(status, 0, out)
        self.assertIn("overall: no significant change", out)
        # ipi-range 3x slower in one boot: beyond six boots' spread (with
        # three, df = 2, and Holm over 21 rows asks for more than that).
        status, out, _ = self.compare("--bench", "shootdown", "a1", "a2", "a3", "b1", "b2",
                                      "b3", "--", "slow1")
        self.assertEqual(status, 1, out)
        self.assertRegex(out, r"(?m)^shootdown +ipi-range unicast pages=1 targets=1 .* 6/1 .*slower$")

    def test_no_histograms_still_tested_over_runs(self):
        status, out, _ = self.compare("a1", "nohist")
        self.assertEqual(status, 0, out)
        self.assertIn("cannot tell", out)
        status, out, _ = self.sides("a", "nohist")
        self.assertEqual(status, 0, out)
        self.assertIn("overall: no significant change", out)

    def test_env_mismatch_is_warned(self):
        _, out, _ = self.compare("a1", "cpus8")
        self.assertRegex(out, r"warning: cpus_online differs: 4 in A:a1.jsonl; 8 in B:cpus8")

    def test_bad_input_is_exit_2(self):
        garbage = os.path.join(self.tmp, "garbage.txt")
        with open(garbage, "w") as f:
            f.write("hello\n")
        self.assertEqual(self.compare("a1", "/nonexistent.log")[0], 2)
        self.assertEqual(self.compare("a1", garbage)[0], 2)
        only_env = os.path.join(self.tmp, "env.jsonl")
        synth.write_jsonl(only_env, [synth.ENV])
        self.assertEqual(self.compare("a1", only_env)[0], 2)

    def test_json_output(self):
        out_json = os.path.join(self.tmp, "cmp.json")
        status, _, _ = self.sides("a", "slow", "--json", out_json)
        import json
        with open(out_json) as f:
            data = json.load(f)
        self.assertEqual((status, data["status"], data["overall"]), (1, 1, "slower"))
        self.assertTrue(all(r["test"] == "t" and r["df"] == 4 for r in data["rows"]))



CLASSES = (Histograms, Statistics, RunLevelStatistics, Compare,)


if __name__ == "__main__":
    unittest.main(verbosity=1)
