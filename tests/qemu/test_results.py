#!/usr/bin/env python3
"""Tests of tools/shootdown.py (tools/results/): every subcommand.

Two kinds. The synthetic tests (everything but FreshLogs) need no QEMU:
runs made by results_synth with known distributions, and the sample logs
of tests/qemu/samples. FreshLogs works on the consoles that this same
`make check` produced: tests/qemu/runner.py runs it after the QEMU cases
and sets FRESH to the logs of the cases that ran; a test whose cases did
not run (a --case selection) is skipped, never fed a stale log.

Run alone: python3 tests/qemu/test_results.py (FreshLogs then skips).
"""

import json
import os
import re
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# results_cli puts tools/ and tools/results/ on the path.
from results_cli import (EXPECTED_LABELS, ROOT, SAMPLES, check_plot, png_size,  # noqa: E402,F401
                         prove_problem, run_cli, run_script, strict_tap, verdict_counts)
import checklog  # noqa: E402
import cli  # noqa: E402
import answer  # noqa: E402
import hist  # noqa: E402
import results_synth as synth  # noqa: E402
import findings  # noqa: E402
import stats  # noqa: E402
import test_ceiling  # noqa: E402
import test_compare_gate  # noqa: E402
import test_figures  # noqa: E402
import test_side_by_side  # noqa: E402
import verdicts  # noqa: E402
import test_results_outputs  # noqa: E402
import test_results_stats  # noqa: E402
from test_results_stats import LAUNCH_A  # noqa: E402
from runs import InputError, load, load_all  # noqa: E402

# The logs of the QEMU cases that ran in this invocation: {case: log path}.
# Set by tests/qemu/runner.py before it runs FreshLogs.
FRESH = {}
# Ten runs of one configuration, interleaved in cases.tsv with five runs
# of it with the kernel's responder delay (delay_handler=, a test aid, and
# raw=on). compare: one a side (same-a vs same-b) cannot tell; five a side
# no significant change; five against the delayed ones slower, all at the
# default threshold and alpha: the run is the unit, so TCG's launch
# variance is what the test weighs a change against. Five, not three: at
# targets=3 a TCG launch lands in one of two modes about 2x apart (six
# back-to-back runs: 12.6-13.7 us or 24.8-30.1 us), and with three a side
# all three slow launches fall on one side about one time in ten (2 of the
# 20 ways to split six runs), which looks exactly like a change; with five
# that is 2 in 252, and a 4/1 split is not significant. Three a side is
# tested on synthetic runs (Compare), where the launch factors are known.
SAME_A = tuple(f"results-same-{c}" for c in "acegi")
SAME_B = tuple(f"results-same-{c}" for c in "bdfhj")
SAME_CASES = (SAME_A[0], SAME_B[0])
# Where the delayed runs did not run in this invocation, the slowdown is
# synthetic: SAME_A's records with histograms drawn 3x slower for ipi-range.
DELAY_CASES = ("results-slow", "results-slow-2", "results-slow-3", "results-slow-4",
               "results-slow-5")
# A small run of every experiment with the INVLPGB model, and the same
# with the ipi-linux responders delayed: the findings (cases.tsv).
FINDINGS_CASES = ("results-findings", "results-findings-delay")
# Two default runs but for seed= (cases.tsv): the same verdict names.
NAME_CASES = ("names-seed-1", "names-seed-2")


TARGETS8 = (1, 2, 3, 5, 7)


def frontier_at(t_win):
    """An INVLPGB cost (cycles) 1.5x ipi-range's below t_win targets and
    0.6x from there: the frontier is t_win at every page count."""
    return lambda p, t: synth.ipi_cost(p, t) * (1.5 if t < t_win else 0.6)


def claims_run(name, loss=None, ratio=None, caveats=(), irqs=(10752, 21)):
    """A run whose findings record (as a guest prints it) holds the seeds'
    claims: loss (per-page, batch 512, each a pct or (pct, lo, hi)), ratio
    (INVLPGB over ipi-range loops per second at 1 and 4 CPUs), irqs (per
    page and batch 512 interrupts over 3584 pages), the run's caveat tags."""
    from runs import Run
    run = Run(name, "jsonl")
    run.env = {"type": "env"}
    sides = {}
    for key, got in zip(("per_page", "batch512"), loss or ()):
        if isinstance(got, tuple):
            sides[key] = {"pct": got[0], "lo_pct": got[1], "hi_pct": got[2]}
        elif got is not None:
            sides[key] = {"pct": got}
    gib = [n * 262144 // 3584 for n in irqs]
    rows = [] if ratio is None else [
        {"cpus": c, "ipi_ops_per_s": 1000, "invlpgb_ops_per_s": round(1000 * ratio),
         "ratio": round(ratio, 2)} for c in (1, 4)]
    tags = list(caveats)
    run.records = [run.env, {
        "type": "findings", "caveats": tags,
        "interrupts": {"targets": 3, "per_page_per_gib": gib[0], "batch512_per_gib": gib[1],
                       "seed_per_page_per_gib": 262144 * 3, "seed_batch512_per_gib": 512 * 3,
                       "ratio": round(gib[0] / gib[1], 2)} if loss else None,
        "worker_loss": {"per_page": sides.get("per_page"), "batch512": sides.get("batch512"),
                        "not_hardware": tags if sides else []},
        "throughput": {"ipi": "ipi-range", "rows": rows, "not_hardware": tags if rows else []}
        | ({} if rows else {"no_data": "no invlpgb records"})}]
    return run


class Claims(unittest.TestCase):
    """The seeds' claims of answer, pooled with the run as the unit."""

    def test_loss_over_runs_has_a_t_interval(self):
        runs = [claims_run(f"r{i}", loss=(50 + 5 * i, 2 + i)) for i in range(3)]
        text = "\n".join(findings.Claims(runs).loss_lines())
        # mean 55, sd 5, t(0.975, 2) = 4.303: 55 +- 12.4; 3 +- 2.5; 52 +- 9.9
        self.assertIn("per-page: 55% [43, 67] over 3 runs", text)
        self.assertIn("batch 512: 3% [1, 5] over 3 runs", text)
        self.assertIn("per-page - batch 512: 52 points [42, 62] over 3 runs", text)

    def test_pooled_loss_never_above_all_reads(self):
        # 99, 100, 99: the t interval reaches 101%, which no worker can lose.
        runs = [claims_run(f"r{i}", loss=(10, 99 + i % 2)) for i in range(3)]
        self.assertIn("batch 512: 99% [98, 100] over 3 runs",
                      findings.Claims(runs).loss_lines())

    def test_one_run_keeps_its_own_interval_or_says_it_has_none(self):
        got = findings.Claims([claims_run("a", loss=((53, 48, 58), 1))]).loss_lines()
        self.assertIn("per-page: 53% [48, 58] within the one boot (batch means over its "
                      "timeline's blocks)",
                      got)
        self.assertIn("batch 512: 1% (one run, no interval)", got)
        self.assertIn("per-page - batch 512: 52 points (one run, no interval)", got)

    def test_throughput_ratio_over_runs(self):
        runs = [claims_run(f"r{i}", ratio=r) for i, r in enumerate((1.9, 2.0, 2.1))]
        got = findings.Claims(runs).throughput_lines()
        self.assertRegex(got[0], r"^1 cpus: invlpgb / ipi-range = 2\.00 \[1\.7\d, 2\.2\d\] "
                         r"over 3 runs$")
        one = findings.Claims(runs[:1]).throughput_lines()
        self.assertIn("one run: launch-to-launch variance", one[0])

    def test_interrupts_are_exact_counts(self):
        c = findings.Claims([claims_run("a", loss=(1, 1)), claims_run("b", loss=(1, 1))])
        lines = c.interrupt_lines()
        self.assertIn("per-page 786,432, batch 512 1,536 per GiB paged out: 512.00x fewer",
                      lines[0])
        self.assertEqual(lines[-1], "exact counts, an answer on any machine (every run)")
        self.assertEqual(findings.Claims([claims_run("c")]).interrupt_lines(),
                         ["no data: no per-page and batch 512 reclaim records"])

    def test_what_the_machine_cannot_answer_is_named(self):
        # The guest's tags head each section, whatever its rows; the host
        # adds none of its own.
        tcg = claims_run("t", loss=(80, 99), ratio=1.0, caveats=["QEMU TCG"])
        pvm = claims_run("p", loss=(80, 99), ratio=1.0, caveats=["RDTSC trapped", "hypervisor"])
        metal = claims_run("m", loss=(53, 0), ratio=2.0)
        titles = {t: q for t, q, _ in findings.Claims([tcg]).sections()}
        self.assertEqual(titles["seed 001: worker loss during page-out"],
                         "not a hardware answer here: QEMU TCG")
        self.assertEqual(titles["seed 001: interrupts per GiB paged out"], "exact counts")
        titles = {t: q for t, q, _ in findings.Claims([pvm]).sections()}
        self.assertEqual(titles["seed 000: flushloop INVLPGB / IPI throughput"],
                         "not a hardware answer here: RDTSC trapped, hypervisor")
        titles = {t: q for t, q, _ in findings.Claims([metal]).sections()}
        self.assertEqual(titles["seed 001: worker loss during page-out"], "a hardware answer")
        # No rows (no INVLPGB here): still headed by the run's caveats.
        bare = claims_run("b", loss=(80, 99), caveats=["QEMU TCG"])
        titles = {t: q for t, q, _ in findings.Claims([bare]).sections()}
        self.assertEqual(titles["seed 000: flushloop INVLPGB / IPI throughput"],
                         "not a hardware answer here: QEMU TCG")

    def test_a_run_without_findings_is_left_out_and_named(self):
        from runs import Run
        old = Run("old.log", "log")
        old.records = [{"type": "env"}]
        got = findings.Claims([claims_run("a", loss=(50, 1)), old]).sections()
        self.assertIn("left out: old.log (no findings record", "\n".join(got[1][2]))
        none = findings.Claims([old]).sections()
        self.assertEqual({q for _, q, _ in none}, {"no data"})
        # the qualifier says no data; the line says why, once
        self.assertTrue(none[0][2][0].startswith("no findings record"), none)


class Answer(unittest.TestCase):
    """answer over synthetic runs with a known crossover."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="results-answer-")
        cls.files = {}
        kinds = {"front": {"invlpgb": frontier_at(5)},
                 "linux": {"invlpgb": frontier_at(3)},
                 "tie": {"invlpgb": lambda p, t: synth.ipi_cost(p, t)},
                 "none": {"invlpgb": False},
                 "emul": {"invlpgb": frontier_at(5), "emulated": True,
                          "env": {"hypervisor": "TCGTCGTCGTCG"}, "caveats": ["QEMU TCG"]},
                 "pvm": {"invlpgb": frontier_at(5), "env": {"hypervisor": "KVMKVMKVM",
                                                            "rdtsc_trapped": True},
                         "caveats": ["RDTSC trapped", "hypervisor"]}}
        for kind, kw in kinds.items():
            for i, f in enumerate(LAUNCH_A):
                path = os.path.join(cls.tmp, f"{kind}{i + 1}.jsonl")
                synth.write_jsonl(path, synth.make_records(
                    seed=100 + 10 * i + len(kind), launch=f, cpus=8, targets=TARGETS8, **kw))
                cls.files[f"{kind}{i + 1}"] = path

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def answer(self, kind, n=3, *more):
        return answer.Answer(load_all([self.files[f"{kind}{i + 1}"] for i in range(n)]), *more)

    def test_known_frontier(self):
        ans = self.answer("front")
        self.assertEqual(ans.ipi, "ipi-range")
        self.assertTrue(ans.hardware)
        self.assertEqual([(p, t) for p, t, _ in ans.frontier()], [(1, 5), (8, 5), (64, 5)])
        for c in ans.cells:
            self.assertEqual(c.winner, "invlpgb" if c.targets >= 5 else "ipi", (c.pages,
                                                                                c.targets))
            self.assertLess(c.test.ci[0], c.test.change_pct)
        # Linux switches at 3 targets (4 active CPUs): at 3 it picks INVLPGB,
        # 1.5x slower there, at every page count.
        slower, lines = ans.linux_finding()
        self.assertEqual([(c.pages, c.targets) for c in slower], [(1, 3), (8, 3), (64, 3)])
        for c in slower:
            self.assertAlmostEqual(c.cost()[3], 50, delta=8)
        self.assertIn("picks the slower way in 3 of 15 cells", lines[0])
        status, out, _ = run_cli(["answer"] + [self.files[f"front{i}"] for i in (1, 2, 3)])
        self.assertEqual(status, 0, out)
        self.assertIn("pages=8: INVLPGB wins from 5 targets (6 active CPUs)", out)
        self.assertNotIn("not a hardware answer", out)

    def test_linux_rule_right_where_the_frontier_is_4_cpus(self):
        ans = self.answer("linux")
        self.assertEqual({t for _, t, _ in ans.frontier()}, {3})
        self.assertEqual(ans.linux_finding()[0], [])

    def test_tie_has_no_winner(self):
        # Equal costs: no cell is a win; with 3 runs some are shown as fast
        # (TOST inside 5%), the rest only "not shown different".
        ans = self.answer("tie")
        self.assertLessEqual({c.winner for c in ans.cells},
                             {answer.AS_FAST, answer.NOT_SHOWN})
        self.assertEqual({t for _, t, _ in ans.frontier()}, {None})
        self.assertRegex(ans.render(), r"INVLPGB wins at none of 1\.\.7 targets measured "
                         r"\((\d as fast within 5%)?(, )?(\d not shown different)?\)")
        self.assertEqual(ans.linux_finding()[0], [])

    def test_equivalence_needs_evidence(self):
        # A 3% difference over 5 runs: TOST puts it inside 10% (as fast);
        # at a 1% threshold it is a win or not shown different, never as
        # fast.
        runs = []
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(5):
                path = os.path.join(tmp, f"eq{i}.jsonl")
                synth.write_jsonl(path, synth.make_records(
                    seed=7 + i, launch=LAUNCH_A[i % 3], cpus=4, targets=(1, 3),
                    invlpgb=lambda p, t: synth.ipi_cost(p, t) * 1.03))
                runs.append(load(path))
        wide = answer.Answer(runs, threshold=10.0)
        self.assertEqual({c.winner for c in wide.cells}, {answer.AS_FAST})
        narrow = answer.Answer(runs, threshold=1.0)
        self.assertNotIn(answer.AS_FAST, {c.winner for c in narrow.cells})
        # The sign test assumes nothing: with 5 runs never below 2 / 2^5.
        self.assertGreaterEqual(min(c.sign_p for c in wide.cells), 0.0625)
        big = answer.Answer(load_all([self.files[f"front{i}"] for i in (1, 2, 3)]))
        self.assertEqual({c.sign_p for c in big.cells}, {0.25})
        self.assertLess(max(c.test.p for c in big.cells), 0.05)

    def test_missing_invlpgb_says_no_data(self):
        status, out, _ = run_cli(["answer", self.files["none1"], self.files["none2"]])
        self.assertEqual(status, 0, out)
        for finding in ("crossover map", "frontier", "Linux's rule"):
            self.assertRegex(out, rf"(?m)^{re.escape(finding)}.*: no data: no invlpgb records")
        status, out, _ = run_cli(["answer", "--json", self.files["none1"]])
        import json
        data = json.loads(out)
        self.assertIn("no invlpgb records", data["no_data"])
        self.assertFalse(data["hardware_answer"])

    def test_single_run_is_not_tested(self):
        ans = self.answer("front", 1)
        self.assertFalse(ans.tested)
        self.assertEqual({c.winner for c in ans.cells}, {answer.UNTESTED})
        self.assertTrue(all(c.test.p is None and c.test.ci is None for c in ans.cells))
        self.assertEqual({t for _, t, _ in ans.frontier()}, {None})
        out = ans.render()
        self.assertIn("not determined: one run, no significance (at the point estimates "
                      "INVLPGB is faster from 5 targets)", out)
        self.assertNotRegex(out, r"(?m)^ +picks the slower way")
        several = self.answer("front", 2)
        self.assertTrue(several.tested)
        self.assertEqual({c.test.df for c in several.cells}, {1})

    def test_not_a_hardware_answer(self):
        status, out, _ = run_cli(["answer"] + [self.files[f"emul{i}"] for i in (1, 2, 3)])
        self.assertEqual(status, 0)
        for finding in ("crossover map", "frontier", "Linux's rule"):
            block = out[out.index("\n" + finding):]
            self.assertRegex(block, r"^\n[^\n]*\n?[^\n]*not a hardware answer here: "
                             r"INVLPGB emulated, QEMU TCG", finding)
        self.assertIn("its cost is the model's", out)
        self.assertIn("pages=1: INVLPGB wins from 5 targets", out)   # the numbers stay
        ans = self.answer("pvm")
        self.assertEqual([t for t, _ in ans.why], ["RDTSC trapped", "hypervisor"])

    def test_markdown_and_json(self):
        files = [self.files[f"emul{i}"] for i in (1, 2, 3)]
        status, md, _ = run_cli(["answer", "--markdown"] + files)
        self.assertEqual(status, 0)
        self.assertIn("## Crossover map", md)
        self.assertIn("| pages | targets |", md)
        self.assertIn("**not a hardware answer here: INVLPGB emulated, QEMU TCG**", md)
        status, out, _ = run_cli(["answer", "--json"] + files)
        import json
        data = json.loads(out)
        self.assertFalse(data["hardware_answer"])
        self.assertEqual([w["tag"] for w in data["not_hardware"]], ["INVLPGB emulated",
                                                                    "QEMU TCG"])
        self.assertEqual(len(data["cells"]), 15)
        self.assertEqual([f["targets"] for f in data["frontier"]], [5, 5, 5])
        self.assertEqual([(c["pages"], c["targets"]) for c in data["linux_slower"]],
                         [(1, 3), (8, 3), (64, 3)])

    def test_heat_map(self):
        with tempfile.TemporaryDirectory() as tmp:
            png = os.path.join(tmp, "x.png")
            status, out, err = run_script(["answer", "--plot", png] +
                                          [self.files[f"front{i}"] for i in (1, 2, 3)])
            self.assertEqual(status, 0, out + err)
            self.assertEqual(png_size(png), (960, 600))
            self.assertTrue(os.path.exists(os.path.join(tmp, "x.svg")))


# --- this make check's own logs --------------------------------------------------

class FreshLogs(unittest.TestCase):
    """Every subcommand on consoles the QEMU cases of this run produced."""

    def need(self, *names):
        missing = [n for n in names if n not in FRESH]
        if missing:
            self.skipTest(f"case {', '.join(missing)} did not run in this invocation")
        return [FRESH[n] for n in names]

    def test_two_seeds_give_the_same_verdict_names(self):
        """docs/output.md "Verdict names": a default run with seed=1 and one
        with seed=2 (NAME_CASES) name the same checks, one for one; each
        log is also held to checklog's rule on numbers in names."""
        a, b = (load(p) for p in self.need(*NAME_CASES))
        names_a = sorted(v.name for v in a.verdicts)
        names_b = sorted(v.name for v in b.verdicts)
        self.assertGreater(len(names_a), 50)
        self.assertEqual(names_a, names_b)
        details = [v.why for v in a.verdicts if v.kind == "PASS" and v.why]
        self.assertTrue(any("kHz" in d for d in details), details)

    def test_compare_two_runs_of_one_configuration(self):
        a, b = self.need(*SAME_CASES)
        status, out, _ = run_cli(["compare", a, b])
        self.assertEqual(status, 0, out)
        self.assertIn("overall: cannot tell: one run a side", out)
        self.assertNotRegex(out, r"(?m)(slower|faster|no significant change)$")

    def test_compare_five_runs_a_side_of_one_configuration(self):
        """Structure only, as the slowdown's test: whether the gate calls
        two groups of identical boots alike depends on how the host shared
        its cores between them (a quiet fresh clone once got every A boot
        15% slower than every B boot, which the level's permutation test
        rightly called a shift: p 0.008, the least 5 against 5 can give).
        Its false positives are measured on synthetic runs
        (test_compare_gate.py, every split of ten identical runs). What
        holds anywhere: both sides read as 5 runs, a row for each of the
        12 configurations in all 10, and the exit status is the overall
        verdict's (1 for slower only)."""
        a = self.need(*SAME_A)
        b = self.need(*SAME_B)
        status, out, _ = run_cli(["compare"] + a + ["--"] + b)
        self.assertEqual(out.count("(5 runs)"), 2, out)
        self.assertRegex(out, r"(?m)^level: ")
        rows = re.findall(r"(?m)^shootdown +ipi-(?:page|range) .* 5/5 .*"
                          r"(slower|faster|no significant change)$", out)
        self.assertEqual(len(rows), 12, out)
        overall = re.search(r"(?m)^overall: (slower|faster|no significant change) \(12 "
                            r"configurations", out)
        self.assertIsNotNone(overall, out)
        self.assertEqual(status, 1 if overall.group(1) == "slower" else 0, out)

    def test_compare_detects_a_slowdown(self):
        a = self.need(*SAME_A)
        tmp = None
        if all(c in FRESH for c in DELAY_CASES):
            slow = [FRESH[c] for c in DELAY_CASES]
        else:
            # Synthetic where the delayed cases did not run (a -c selection).
            tmp = tempfile.mkdtemp(prefix="results-slow-")
            slow = []
            for i, log in enumerate(a):
                slow.append(os.path.join(tmp, f"slow{i}.jsonl"))
                synth.write_jsonl(slow[-1], synth.add_hists(
                    load(log).records, seed=2 + i, shift=3.0,
                    which=lambda r: r.get("strategy") == "ipi-range"))
        try:
            status, out, _ = run_cli(["compare"] + a + ["--"] + slow)
        finally:
            if tmp:
                shutil.rmtree(tmp)
        # Structure only: whether the gate calls it depends on which launch
        # modes TCG dealt (the statistics are tested on synthetic runs,
        # test_compare_gate.py). What holds anywhere: the delayed
        # strategy's rows moved up at the point estimate, each by a
        # factor 1.3 more than its undelayed rows did: a launch mode moves
        # both strategies of the same boots alike, and the delay (50000
        # cycles a responder, about the whole undelayed cost at 8 pages)
        # at least doubles an ipi-range shootdown.
        self.assertIn(status, (0, 1), out)
        self.assertRegex(out, r"(?m)^level: ")
        moved = {}
        for line in out.splitlines():
            m = re.match(r"shootdown +(ipi-range|ipi-page) .* ([+-][0-9.]+)% +[+-][0-9.]+% ", line)
            if m:
                moved.setdefault(m.group(1), []).append(float(m.group(2)))
        self.assertEqual(sorted(moved), ["ipi-page", "ipi-range"], out)
        self.assertGreater((1 + min(moved["ipi-range"]) / 100) /
                           (1 + max(moved["ipi-page"]) / 100), 1.3, out)

    def test_answer_without_invlpgb_says_no_data(self):
        logs = self.need(*SAME_A)
        status, out, _ = run_cli(["answer"] + logs)
        self.assertEqual(status, 0, out)
        self.assertRegex(out, r"(?m)^frontier: .*no data: no invlpgb records")

    def test_reclaim_figure_under_multithreaded_tcg(self):
        """The seed's figure of a multi-threaded TCG run: a line for every
        strategy, each with bins before, during and after its page-out
        (its structure, not its values)."""
        import plot_reclaim
        import timeline
        log, = self.need("reclaim-2cpu-mttcg")
        run = load(log)
        tls = timeline.timelines(run)
        names = {(r.get("strategy"), r.get("batch")) for r in run.results("reclaim")
                 if r.get("strategy") != "writeback-before-flush"}
        self.assertEqual({(t.strategy, t.batch) for t in tls}, names)
        for tl in tls:
            xs, _ = plot_reclaim.relative_points(tl)
            self.assertEqual(len(xs), sum(1 for us in tl.time_us if us))
            end = tl.pageout_us / 1000.0
            self.assertTrue(any(x < 0 for x in xs) and any(0 <= x <= end for x in xs) and
                            any(x > end for x in xs), tl.label)
        with tempfile.TemporaryDirectory() as tmp:
            manifest = check_plot(self, log, tmp)
        fig = {e["name"]: e for e in manifest["figures"]}["reclaim-timeline"]
        # a strip per strategy, each its run's line and the line at 1
        self.assertEqual([a["lines"] for a in fig["axes"][:-1]], [2] * len(tls))

    def test_answer_pools_the_cells_the_guest_named(self):
        """answer decides no run again: its cells are the (pages, targets)
        each run's findings named, at the p50s of the records it named."""
        self.need(*FINDINGS_CASES)
        checked = 0
        for name in FINDINGS_CASES:
            run = load(FRESH[name])
            cross = findings.guest_findings(run)["crossover"]
            by_seq = {r["seq"]: r for r in run.results("shootdown")}
            ans = answer.Answer([run])
            with self.subTest(case=name):
                self.assertEqual([(c.pages, c.targets) for c in ans.cells],
                                 sorted((p[0], p[1]) for p in cross["pairs"]))
                for c, p in zip(ans.cells, sorted(cross["pairs"], key=lambda p: p[:2])):
                    self.assertAlmostEqual(c.ipi50, by_seq[p[2]]["ns_p50"], delta=0.01)
                    self.assertAlmostEqual(c.inv50, by_seq[p[3]]["ns_p50"], delta=0.01)
                    self.assertEqual(c.linux, answer.INVLPGB if p[4] else answer.IPI)
                checked += 1
        self.assertEqual(checked, len(FINDINGS_CASES))

    def test_findings_mark_what_this_machine_cannot_answer(self):
        log, = self.need(FINDINGS_CASES[0])
        run = load(log)
        got = findings.guest_findings(run)
        # Single-threaded TCG: every finding that times something says so.
        self.assertIn("QEMU TCG", got["crossover"]["not_hardware"])
        self.assertIn("INVLPGB emulated", got["crossover"]["not_hardware"])
        self.assertIn("QEMU TCG", got["worker_loss"]["not_hardware"])
        self.assertIn("QEMU TCG", got["throughput"]["not_hardware"])
        # Counts are an answer anywhere.
        self.assertEqual(got["interrupts"]["per_page_per_gib"],
                         got["interrupts"]["seed_per_page_per_gib"])
        status, out, _ = run_cli(["answer", "--json", log])
        self.assertEqual(status, 0, out)
        ans = json.loads(out)
        self.assertEqual(len(ans["cells"]), got["crossover"]["cells"])
        cells = [r for r in run.results("shootdown")
                 if r.get("strategy") == got["crossover"]["invlpgb"]]
        self.assertTrue(cells and all(r.get("emulated") for r in cells))
        self.assertFalse(ans["hardware_answer"])

    def test_handler_delay_moves_the_crossover(self):
        """delay_handler=ipi-linux:D makes every ipi-linux flush wait at
        least D cycles for a responder (and at most D per target, were the
        responders served one after another), so ipi-linux's p50 grows by
        D to targets x D, and INVLPGB (whose cost under the model is far
        below D) must win from the fewest targets at every page count."""
        control, delayed = (load(p) for p in self.need(*FINDINGS_CASES))
        d = 2000000
        base = {(r["pages"], r["targets"]): r["p50"] for r in control.results("shootdown")
                if r["strategy"] == "ipi-linux"}
        inv = [r["p50"] for r in control.results("shootdown") if r["strategy"] == "invlpgb"]
        self.assertLess(max(inv), d // 4, "the model's INVLPGB is not far below the delay")
        for r in delayed.results("shootdown"):
            if r["strategy"] != "ipi-linux":
                continue
            key = (r["pages"], r["targets"])
            with self.subTest(cell=key):
                self.assertEqual(r.get("delay_cycles"), d)
                grew = r["p50"] - base[key]
                self.assertGreaterEqual(grew, d * 9 // 10)
                self.assertLessEqual(grew, d * r["targets"] + d // 2)
        fewest = min(t for _, t in base)
        front = findings.guest_findings(delayed)["crossover"]["frontier"]
        self.assertTrue(front)
        self.assertEqual({f["lean_from"] for f in front}, {fewest})
        ctl = findings.guest_findings(control)["crossover"]["frontier"]
        for a, b in zip(front, ctl):
            self.assertTrue(b["lean_from"] is None or a["lean_from"] <= b["lean_from"])

    def test_plot(self):
        name = "full-q35-4cpu" if "full-q35-4cpu" in FRESH else SAME_CASES[0]
        log, = self.need(name)
        with tempfile.TemporaryDirectory() as tmp:
            manifest = check_plot(self, log, tmp)
        drawn = {e["name"] for e in manifest["figures"] if "skipped" not in e}
        # The default run has no INVLPGB under TCG, so no crossover map
        # (the answer tests draw it from invlpgb=emulate runs); it must
        # then say why it skipped it.
        want = set(EXPECTED_LABELS) - {"shootdown-crossover"} \
            if name == "full-q35-4cpu" else {"shootdown-pages", "shootdown-targets"}
        self.assertLessEqual(want, drawn)
        if "shootdown-crossover" not in drawn:
            skipped = [e for e in manifest["figures"] if e["name"] == "shootdown-crossover"]
            self.assertTrue(skipped and skipped[0].get("skipped"), manifest["figures"])

    def test_tap_and_junit(self):
        logs = [FRESH[n] for n in (SAME_CASES[0], "selftest-fail") if n in FRESH]
        if not logs:
            self.need(SAME_CASES[0])
        for log in logs:
            with self.subTest(log=os.path.basename(log)):
                status, tap, _ = run_cli(["tap", log])
                self.assertEqual(status, 0)
                points = strict_tap(tap)
                p, f, s = verdict_counts(log)
                self.assertEqual(len(points), p + f + s + 1)
                self.assertIsNone(prove_problem(tap))
                status, xml, _ = run_cli(["junit", log])
                suite = ET.fromstring(xml.encode()).find("testsuite")
                self.assertEqual((int(suite.get("tests")), int(suite.get("failures")),
                                  int(suite.get("skipped"))), (p + f + s + 1, f, s))

    def test_ceiling_delay_lowers_it(self):
        control, delayed = self.need(test_ceiling.CONTROL, test_ceiling.DELAYED)
        test_ceiling.fresh_delay_lowers_the_ceiling(self, control, delayed)

    def test_table(self):
        log, = self.need(SAME_CASES[0])
        status, out, _ = run_cli(["table", log])
        self.assertEqual(status, 0)
        self.assertRegex(out, r"(?m)^ipi-range +unicast +8 +3 ")
        self.assertRegex(out, r"(?m)^ipi-page +broadcast +1 +3 ")


# What the runner runs before the cases (FreshLogs runs after them).
SELFTEST_CLASSES = (Claims, Answer, test_ceiling.Synthetic) + \
    test_results_stats.CLASSES + test_results_outputs.CLASSES + test_compare_gate.CLASSES + test_figures.CLASSES + \
    test_side_by_side.CLASSES


if __name__ == "__main__":
    unittest.main(verbosity=1)
