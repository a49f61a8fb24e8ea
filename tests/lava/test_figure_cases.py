#!/usr/bin/env python3
"""The figures' monitor (lava/jobs/monitors.yaml.in) and the gate on its
cases, with no lava-run: the job's three monitors run over a console as a
pty gives it (\\r\\r\\n) the way lava-dispatcher's monitor action runs
them (each from its start to its end, in order; of the end and the
pattern, the match that starts first, the end on a tie; a case without a
result group is a pass with its measurement as a float).

Run: python3 tests/lava/test_figure_cases.py (make lava-check runs it).
"""

import json
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))

import checklog  # noqa: E402
import checklog_figures  # noqa: E402
import lava  # noqa: E402
from test_lava import monitors, sample_console  # noqa: E402

FINDINGS = os.path.join(ROOT, "tests", "qemu", "samples", "good-findings.log")


def with_figures(console):
    """console with the FIGURE lines its records give, before SUMMARY, as
    the kernel prints them."""
    rep = checklog.check_log(console)
    lines = [checklog_figures.line(name, *said) + "\r\n" for name, said in
             checklog_figures.stated(rep.records).items()]
    head, tail = console.split("SUMMARY: ", 1)
    return head + "".join(lines) + "SUMMARY: " + tail


def one_case(name, match):
    """A match as the monitor action records it (lava_dispatcher's
    check_patterns), or None where it records nothing."""
    g = match.groupdict()
    case = {"definition": name, "case": None, "result": None}
    if "result" in g:
        case["result"] = g["result"]
    elif g.get("measurement") and g.get("test_case_id"):
        case.update(result="pass", measurement=float(g["measurement"]))
    else:
        return None
    case["case"] = re.sub(r"\W+", "_", g["test_case_id"].strip().lower())
    case["extra"] = {"test_case_id": g["test_case_id"].strip()}
    if "units" in g:
        case["units"] = g["units"]
    return case


def run_monitors(text, mons):
    """The cases the monitors record from text, in order; stops where a
    start or an end never comes (there LAVA's wait times out)."""
    pos, out = 0, []
    for mon in mons:
        start = re.compile(mon["start"], re.DOTALL).search(text, pos)
        if not start:
            break
        pos = start.end()
        end_re = re.compile(mon["end"], re.DOTALL)
        pat_re = re.compile(mon["pattern"], re.DOTALL)
        while True:
            found = [m for m in (end_re.search(text, pos), pat_re.search(text, pos)) if m]
            if not found:
                return out
            m = min(found, key=lambda x: x.start())
            pos = m.end()
            if m.re is end_re:
                break
            case = one_case(mon["name"], m)
            if case:
                fix = mon.get("fixupdict") or {}
                case["result"] = fix.get(case["result"], case["result"])
                out.append(case)
    return out


def log_of(cases, console):
    """A lava-run log: the console as LAVA's logger keeps it, the cases."""
    out = [{"dt": "t", "lvl": "target", "msg": line.replace('"', '\\"')}
           for line in console.replace("\r", "").split("\n") if line]
    out += [{"dt": "t", "lvl": "results", "msg": c} for c in cases]
    return lava.parse_entries("\n".join(json.dumps(o) for o in out))


def pty(console):
    return console.replace("\r\n", "\r\r\n")


class FiguresMonitor(unittest.TestCase):
    def setUp(self):
        self.mons = monitors()
        # The sample has no banner, where the verdicts' monitor starts,
        # and is schema 1 (its SKIP names read longer, a count in a name): made 2.
        console = sample_console(FINDINGS).replace("invlpgb: not supported",
                                                   "invlpgb -- not supported")
        console = console.replace('"schema":1', '"schema":2').replace(
            "after 2000 flushes", "after the flushes")
        self.console = "TLB invalidation cost harness\r\n" + with_figures(console)

    def test_the_sample_with_figures_passes_check(self):
        self.assertIn("FIGURE: shootdown: ipi-range: 8 pages, 3 targets: p50 = 3100 cycles",
                      self.console)
        self.assertEqual(checklog.check_log(self.console).problems, [])

    def test_cases_on_a_pty_console(self):
        cases = run_monitors(pty(self.console), self.mons)
        suites = [c["definition"] for c in cases]
        self.assertEqual(suites[-1], "shootdown-exit")
        figures = [c for c in cases if c["definition"] == "shootdown-figures"]
        want = checklog_figures.expected(checklog.check_log(self.console).records)
        self.assertEqual(len(figures), len(want))
        for c, (name, (value, unit)) in zip(figures, want.items()):
            self.assertEqual((c["extra"]["test_case_id"], c["measurement"], c["units"],
                              c["result"]), (name, float(value), unit, "pass"))
        verdicts = [c for c in cases if c["definition"] == "shootdown"]
        self.assertEqual(len(verdicts), self.console.count("PASS: ") +
                         self.console.count("FAIL: ") + self.console.count("SKIP: "))
        self.assertEqual(lava.gate(log_of(cases, self.console))[0], [])

    def test_a_run_without_figures_still_ends_each_monitor(self):
        console = sample_console()
        self.assertNotIn("FIGURE: ", console)
        cases = run_monitors(pty(console), self.mons)
        self.assertEqual(cases[-1]["case"], "exit")
        self.assertFalse([c for c in cases if c["definition"] == "shootdown-figures"])

    def test_a_line_is_a_figure_only_once_whole(self):
        pat = re.compile(self.mons[1]["pattern"])
        line = "FIGURE: worker loss: per-page = -12 %"
        self.assertIsNone(pat.match(line))
        m = pat.match(line + "\r\r\n")
        self.assertEqual(m.group("test_case_id", "measurement", "units"),
                         ("worker loss: per-page", "-12", "%"))

    def test_the_gate_holds_the_cases_to_the_console(self):
        cases = run_monitors(pty(self.console), self.mons)
        fig = next(i for i, c in enumerate(cases) if c["definition"] == "shootdown-figures")
        wrong = [dict(c) for c in cases]
        wrong[fig]["measurement"] += 1
        problems = lava.gate(log_of(wrong, self.console))[0]
        self.assertTrue(any("the figures' monitor recorded" in p for p in problems), problems)
        problems = lava.gate(log_of(cases[:fig] + cases[fig + 1:], self.console))[0]
        self.assertTrue(any("the figures' monitor recorded" in p for p in problems), problems)

    def not_hardware(self):
        """The sample as a run under TCG: the findings record with the
        run's timing caveats and a worker loss under them, and the FIGURE
        lines they give."""
        head = self.console.split("FIGURE: ", 1)[0]
        tail = "SUMMARY: " + self.console.split("SUMMARY: ", 1)[1]
        at = head.index('@json {"type":"findings"')
        end = head.index("\r\n", at)
        rec = json.loads(head[at + len("@json "):end])
        rec["caveats"] = ["QEMU TCG"]
        rec["interrupts"] = {"targets": 3, "per_page_per_gib": 786432,
                             "batch512_per_gib": 1536, "ratio": 512.0,
                             "seed_per_page_per_gib": 786432, "seed_batch512_per_gib": 1536}
        rec["worker_loss"] = {"per_page": {"pct": 75}, "batch512": {"pct": -3},
                              "not_hardware": ["QEMU TCG"]}
        head = head[:at] + "@json " + json.dumps(rec, separators=(",", ":")) + head[end:]
        return with_figures(head + tail)

    def test_a_caveat_is_on_every_figure_it_touches(self):
        console = self.not_hardware()
        self.assertEqual(checklog.check_log(console).problems, [])
        self.assertIn("FIGURE: worker loss: per-page (not hardware) = ", console)
        self.assertRegex(console, r"FIGURE: shootdown: ipi-range: 8 pages, 3 targets: p50 "
                         r"\(not hardware\) = 3100 cycles -- not a hardware answer here: "
                         r"QEMU TCG\r\n")
        # counts are counts: no caveat
        self.assertRegex(console, r"FIGURE: interrupts per gib: per-page = \d+ interrupts\r\n")
        # LAVA: the name says it (no chart pools it with hardware's), the
        # unit stays the unit
        cases = run_monitors(pty(console), self.mons)
        loss = next(c for c in cases if c["extra"]["test_case_id"].startswith("worker loss: per"))
        self.assertEqual((loss["extra"]["test_case_id"], loss["units"]),
                         ("worker loss: per-page (not hardware)", "%"))
        self.assertEqual(lava.gate(log_of(cases, console))[0], [])

    def test_the_ceiling_is_a_figure_where_it_is_a_number(self):
        """K* at the answer's W is a figure with the ceiling's caveats; a
        bound (k_where below or above) is no number and has no line."""
        rec = {"type": "findings", "caveats": [], "ceiling": {
            "way": "unicast", "w": 512, "k": 197, "k_where": "at",
            "not_hardware": ["QEMU TCG"]}}
        self.assertEqual(checklog_figures.stated([rec]),
                         {"flush ceiling: unicast: k* at w 512 (not hardware)":
                          ("197", "pages", "not a hardware answer here: QEMU TCG")})
        for where in ("below", "above"):
            rec["ceiling"]["k_where"] = where
            self.assertEqual(checklog_figures.stated([rec]), {})

    def test_check_refuses_a_cut_or_made_up_caveat(self):
        console = self.not_hardware()
        bare = re.sub(r"(FIGURE: worker loss: per-page) \(not hardware\)( = -?\d+ %) -- [^\r]*",
                      r"\1\2", console)
        problems = checklog.check_log(bare).problems
        self.assertTrue(any("'worker loss: per-page': no record gives it" in p
                            for p in problems), problems)
        cut = re.sub(r"(FIGURE: worker loss: per-page \(not hardware\) = -?\d+ %) -- [^\r]*",
                     r"\1", console)
        problems = checklog.check_log(cut).problems
        self.assertTrue(any("a caveat goes with a name ending in '(not hardware)'" in p
                            for p in problems), problems)
        other = console.replace("batch 512 (not hardware) = ", "batch 512 (not hardware) = ", 1)
        other = re.sub(r"(FIGURE: worker loss: batch 512 \(not hardware\) = -?\d+ % -- "
                       r"not a hardware answer here: )QEMU TCG", r"\1hypervisor", other)
        problems = checklog.check_log(other).problems
        self.assertTrue(any("caveat 'not a hardware answer here: hypervisor', but its records "
                            "say 'not a hardware answer here: QEMU TCG'" in p
                            for p in problems), problems)

    def test_check_holds_a_figure_to_its_record(self):
        console = self.console.replace("p50 = 3100 cycles", "p50 = 3101 cycles")
        problems = checklog.check_log(console).problems
        self.assertTrue(any("but its record says 3100 cycles" in p for p in problems), problems)
        console = re.sub(r"FIGURE: shootdown: ipi-full[^\n]*\n", "", self.console)
        problems = checklog.check_log(console).problems
        self.assertTrue(any("no line states it" in p for p in problems), problems)
        console = self.console.replace("SUMMARY: ", "FIGURE: made up = 1 x\r\nSUMMARY: ")
        problems = checklog.check_log(console).problems
        self.assertTrue(any("'made up': no record gives it" in p for p in problems), problems)


if __name__ == "__main__":
    unittest.main()
