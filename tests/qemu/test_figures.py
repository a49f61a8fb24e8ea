#!/usr/bin/env python3
"""Tests of what plot draws and writes (tools/results/plots.py,
plot_reclaim.py, page.py) that a reader relies on: every figure's title
carries the run's caveats, the reclaim timeline's time axis is the real
one and its throughput is relative to each strategy's own rate before,
index.html puts the status, findings and failures first; and --help
names every subcommand. Synthetic runs and sample logs only (no QEMU);
tests/tools/test_page.py opens the page in a real browser.

Run alone: python3 tests/qemu/test_figures.py (make check runs it with
test_results.py's self-tests).
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHOOTDOWN = os.path.join(ROOT, "tools", "shootdown.py")
sys.dont_write_bytecode = True
for path in (HERE, os.path.join(ROOT, "tools"), os.path.join(ROOT, "tools", "results")):
    if path not in sys.path:
        sys.path.insert(0, path)

import results_synth as synth  # noqa: E402
import timeline  # noqa: E402

# Every subcommand tools/shootdown.py dispatches (cli.dispatch).
SUBCOMMANDS = ("check", "table", "compare", "answer", "plot", "tap", "junit", "lava",
               "lava-job")


def shootdown(argv):
    """tools/shootdown.py as a command: (status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, SHOOTDOWN] + argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, check=False, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def plot(test, path, outdir):
    """plot's manifest entries that were drawn, by name, and index.html."""
    status, out, err = shootdown(["plot", path, "-o", outdir])
    test.assertEqual(status, 0, out + err)
    with open(os.path.join(outdir, "manifest.json")) as f:
        drawn = {e["name"]: e for e in json.load(f)["figures"] if "skipped" not in e}
    with open(os.path.join(outdir, "index.html"), encoding="utf-8") as f:
        return drawn, f.read()


# Plots of synthetic runs, made once for the tests that read them (a plot
# takes seconds): {kind: (drawn, page)}.
_PLOTS = {}


def plotted(test, kind):
    """The plot of a synthetic run of every experiment: "tcg" (the guest
    tagged it QEMU TCG, its INVLPGB emulated) or "hardware" (no tag)."""
    if kind not in _PLOTS:
        recs = synth.make_records(emulated=True, caveats=["QEMU TCG"]) if kind == "tcg" \
            else synth.make_records()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.jsonl")
            synth.write_jsonl(path, recs)
            _PLOTS[kind] = plot(test, path, os.path.join(tmp, "p"))
    return _PLOTS[kind]


class Titles(unittest.TestCase):
    """The line under each figure's title: the run's caveats, read from
    its findings record (the guest decided them)."""

    def test_every_figure_carries_the_caveats(self):
        drawn, _ = plotted(self, "tcg")
        self.assertGreaterEqual(len(drawn), 7, sorted(drawn))
        for name, e in drawn.items():
            title, _, line = e["suptitle"].partition("\n")
            with self.subTest(figure=name):
                self.assertTrue(title)
                self.assertIn("QEMU TCG", line)
                if name == "reclaim-irqs":  # counts: exact, and where they ran
                    self.assertIn("exact counts, an answer on any machine", line)
                else:
                    self.assertIn("not a hardware answer here", line)
        self.assertIn("INVLPGB emulated", drawn["shootdown-crossover"]["suptitle"])
        self.assertIn("INVLPGB emulated", drawn["shootdown-pages"]["suptitle"])

    def test_a_hardware_run_has_no_caveat_line(self):
        drawn, _ = plotted(self, "hardware")
        self.assertGreaterEqual(len(drawn), 7, sorted(drawn))
        for name, e in drawn.items():
            with self.subTest(figure=name):
                self.assertNotIn("not a hardware answer", e["suptitle"])
                self.assertNotIn("caveats unknown", e["suptitle"])

    def test_a_run_without_findings_says_its_caveats_are_unknown(self):
        # The line every figure's title takes (plot_base.headline).
        import caveats
        from runs import Run
        run = Run("/x/r.jsonl", "jsonl")
        run.records = [r for r in synth.make_records() if r.get("type") != "findings"]
        for counts in (False, True):
            self.assertEqual(caveats.figure_line([run], "crossover", counts).split("; ")[-1],
                             "caveats unknown (no findings record): r.jsonl")


class ReclaimTimeline(unittest.TestCase):
    """The timeline's points: real milliseconds, and throughput over each
    strategy's own rate before its page-out."""

    def timeline(self, width, scale=1, dip=0.5):
        rec = synth.timeline_record(random.Random(1), "per-page", 1, 3, 2048, dip,
                                    width=width)
        if scale != 1:  # a pass whose workers read `scale` times as fast
            import timeline_codec
            rec["reads"] = [timeline_codec.encode([c * scale for c in timeline_codec.decode(s)])
                            for s in rec["reads"]]
        return timeline.Timeline(rec)

    def test_points_on_the_real_time_axis(self):
        import plot_reclaim
        long_tl, short_tl = self.timeline(2000), self.timeline(50)
        for tl in (long_tl, short_tl):
            xs, _ = plot_reclaim.relative_points(tl)
            lo, hi = tl.window("during")
            ms = xs[lo:hi]
            with self.subTest(width=tl.width_us["during"]):
                # The page-out's bins lie within [0, its length in ms].
                self.assertTrue(all(0 < x < tl.pageout_us / 1000.0 for x in ms), ms)
                # Before it: negative times, its own window's length.
                self.assertAlmostEqual(xs[0], -sum(tl.time_us[:lo]) / 1000.0 +
                                       tl.time_us[0] / 2000.0)
        # A page-out 40 times shorter is drawn 40 times shorter.
        self.assertAlmostEqual(long_tl.pageout_us / short_tl.pageout_us, 40)

    def test_relative_to_each_strategys_own_rate_before(self):
        import plot_reclaim
        for scale in (1, 5):
            tl = self.timeline(1000, scale=scale)
            _, ys = plot_reclaim.relative_points(tl)
            lo, hi = tl.window("during")
            before, during = ys[:lo], ys[lo:hi]
            with self.subTest(scale=scale):
                self.assertAlmostEqual(sum(before) / len(before), 1.0, delta=0.02)
                self.assertAlmostEqual(sum(during) / len(during), 0.5, delta=0.03)

    def test_bins_no_snapshot_closed_are_left_out(self):
        import plot_reclaim
        tl = self.timeline(1000)
        lo, _ = tl.window("during")
        tl.time_us[lo + 3], tl.total[lo + 3] = 0, 0
        xs, ys = plot_reclaim.relative_points(tl)
        self.assertEqual(len(xs), tl.n() - 1)
        self.assertNotIn(None, ys)


class Page(unittest.TestCase):
    """index.html: status, findings, verdicts (failures first), figures,
    tables, env, in that order."""

    def test_order_and_failures_first(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, page = plot(self, os.path.join(HERE, "samples", "good-fail.log"), tmp)
        at = [page.index(f'id="{k}"') for k in
              ("status", "findings", "verdicts", "figures", "tables", "env")]
        self.assertEqual(at, sorted(at))
        self.assertIn('class="status fail">FAILED: 3 passed, 1 failed, 0 skipped '
                      '(EXIT: STATUS=1)', page)
        verdicts = page[at[2]:at[3]]
        self.assertLess(verdicts.index("FAIL: selftest: injected failure"),
                        verdicts.index("<summary>3 passed, and log: complete and consistent "
                                       "(checklog)</summary>"))

    def test_findings_and_caveats_of_a_run(self):
        drawn, page = plotted(self, "tcg")
        self.assertIn("Not a hardware answer here, because:", page)
        self.assertIn("<b>QEMU TCG</b>: under QEMU TCG", page)
        for title in ("crossover: where INVLPGB beats IPIs", "flush ceiling",
                      "seed 001: worker loss during page-out"):
            self.assertIn(title, page)
        self.assertIn("seed 000, the will-it-scale tlb_flush2", page)
        self.assertIn("No verdict lines: a JSONL file has none", page)
        self.assertEqual(page.count("<img "), len(drawn))


    def test_several_runs_pool_their_findings(self):
        """plot RUN MORE...: one boot never decides, so the page of three
        boots reads the findings over the three (as answer does), names
        each one's status and warns where their builds differ; the page of
        one of them does not decide."""
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, name in enumerate("abc"):
                paths.append(os.path.join(tmp, f"{name}.jsonl"))
                env = {"run_id": f"run-{name}", "version": "other" if name == "c" else "synthetic"}
                synth.write_jsonl(paths[-1], synth.make_records(
                    seed=i + 1, launch=1 + 0.02 * i, env=env))
            status, out, err = shootdown(["plot", *paths, "-o", os.path.join(tmp, "p3")])
            self.assertEqual(status, 0, out + err)
            with open(os.path.join(tmp, "p3", "index.html"), encoding="utf-8") as f:
                three = f.read()
            _, one = plot(self, paths[0], os.path.join(tmp, "p1"))
        self.assertIn("<h1>shootdown results: a.jsonl and 2 more</h1>", three)
        for name in "abc":
            self.assertIn(f">{name}.jsonl: passed: 3 passed, 0 failed, 0 skipped</p>", three)
        self.assertIn("Over 3 runs (a.jsonl, b.jsonl, c.jsonl)", three)
        self.assertIn('<li class="warning">warning: build differs: &quot;synthetic&quot; '
                      'in run:a.jsonl, run:b.jsonl; &quot;other&quot; in run:c.jsonl</li>',
                      three)
        self.assertNotIn("warning:", one)
        self.assertIn("pages=1: INVLPGB wins from 1 targets", three)
        self.assertNotIn("not determined: one run", three)
        self.assertIn("not determined: one run", one)
        self.assertNotIn("Over 1 runs", one)

    def test_a_run_without_findings_is_left_out_not_the_page(self):
        """plot a run and one that did not finish: the page reads the
        findings of the one that has them and names the other, left out
        (as answer does); a page of the unfinished one alone has none."""
        with tempfile.TemporaryDirectory() as tmp:
            whole, cut = (os.path.join(tmp, n) for n in ("whole.jsonl", "cut.jsonl"))
            recs = synth.make_records(env={"run_id": "run-whole"})
            synth.write_jsonl(whole, recs)
            synth.write_jsonl(cut, [dict(r, run_id="run-cut") if r["type"] == "env" else r
                                    for r in recs if r["type"] not in ("findings", "summary")])
            status, out, err = shootdown(["plot", whole, cut, "-o", os.path.join(tmp, "p")])
            self.assertEqual(status, 0, out + err)
            with open(os.path.join(tmp, "p", "index.html"), encoding="utf-8") as f:
                both = f.read()
            _, alone = plot(self, cut, os.path.join(tmp, "p1"))
        self.assertIn("warning: cut.jsonl: no findings record", both)
        self.assertIn("<h3>crossover: where INVLPGB beats IPIs</h3>", both)
        self.assertIn("<p>No findings: no findings record", alone)


class Help(unittest.TestCase):
    def test_help_names_every_subcommand(self):
        status, out, err = shootdown(["--help"])
        self.assertEqual(status, 0, err)
        listed = [ln.split()[0] for ln in out.splitlines()
                  if ln.startswith("    ") and not ln.startswith("     ")]
        self.assertEqual(listed, list(SUBCOMMANDS))


CLASSES = (Titles, ReclaimTimeline, Page, Help)

if __name__ == "__main__":
    unittest.main(verbosity=1)
