"""The answer: where INVLPGB beats IPIs, and what Linux's rule picks, over
several runs.

Each run decides its own crossover (bench/findings_calc.c, the one place
that does): its findings record names, for every (pages, targets) cell it
compared, the IPI record and the INVLPGB record it weighed (`pairs`: the
records' seq numbers) and whether Linux's rule picks INVLPGB there. The
guest compares Linux's own ways: `ipi-linux` (a range up to 33 pages, a
full flush beyond; the all-but-self shorthand where every other CPU is a
target) against `invlpgb-linux` (INVLPGB ranges up to the ceiling, one
full flush beyond), or the plain `invlpgb` in a build without it. This
module reads those cells and pools them; it chooses no records and
restates no rule.

The run is the unit: both strategies of a cell are measured in the same
boot, so each run gives one ratio of p50s (INVLPGB over IPI), and launch
variance common to both cancels in it. Per cell:

- Student's t on the logs of the runs' ratios (df = runs - 1), the model's
  p, Holm-adjusted over the cells; and beside it the sign test's p, which
  assumes nothing (with n runs it cannot go below 2 / 2^n);
- a winner only where the ratio's interval at the cell's Holm level
  (alpha / (m - rank)) lies wholly beyond the threshold (INVLPGB faster by
  more than --threshold percent, or slower by more);
- "as fast" only where an equivalence test says so (TOST: the interval at
  twice that level lies wholly inside the threshold); every other cell is
  "not shown different", which is not equivalence;
- what Linux's pick costs against the winner, per run, with its t interval.

With one run the ratio is shown and nothing is decided: launch variance
cannot be told from a difference. Every section is headed by the runs'
caveats (caveats.py), whether or not it has rows.
"""

import math

import caveats
import pool
import sections
import stats
from compare import run_env_warnings
from tables import format_table

LINUX_RULE = ("INVLPGB from 4 active CPUs (the initiator and 3 targets), at any page "
              "count: Linux 6.15+ mm_active_cpus_exceeds(mm, 3)")
INVLPGB, IPI = "invlpgb", "ipi"
AS_FAST, NOT_SHOWN, UNTESTED = "as fast", "not shown different", "cannot tell (1 run)"


def crossover_of(run):
    """The crossover part of a run's findings record, or None."""
    rec = caveats.findings_record(run)
    part = rec.get("crossover") if rec else None
    return part if isinstance(part, dict) else None


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def run_pairs(run, cross, problems):
    """{(pages, targets): (ipi_rec, invlpgb_rec, linux_picks_invlpgb)} of
    one run, from its findings record's pairs."""
    by_seq = {r.get("seq"): r for r in run.results("shootdown")}
    out = {}
    pairs = cross.get("pairs")
    for p in pairs if isinstance(pairs, list) else []:
        if not (isinstance(p, list) and len(p) == 5 and all(is_num(x) for x in p)):
            problems.append(f"{run.name}: a crossover pair that is not 5 numbers: {p!r}")
            continue
        pages, targets, ipi_seq, inv_seq, linux = p
        ipi, inv = by_seq.get(ipi_seq), by_seq.get(inv_seq)
        if ipi is None or inv is None:
            problems.append(f"{run.name}: the crossover names record "
                            f"{ipi_seq if ipi is None else inv_seq}, which the run lacks")
            continue
        if not all(is_num(r.get("p50")) and r["p50"] > 0 for r in (ipi, inv)):
            problems.append(f"{run.name}: pages={pages} targets={targets}: a p50 that is "
                            "not positive")
            continue
        out.setdefault((pages, targets), (ipi, inv, bool(linux)))
    return out


class Cell:
    """One (pages, targets) cell over the runs that compared it."""

    def __init__(self, pages, targets, pairs, unit, confidence):
        self.pages, self.targets = pages, targets
        self.pairs = pairs        # [(run, ipi_rec, invlpgb_rec)]
        self.unit, self.confidence = unit, confidence
        field = "ns_p50" if unit == "ns" else "p50"
        self.ipi50 = stats.geomean([i[field] for _, i, _ in pairs])
        self.inv50 = stats.geomean([b[field] for _, _, b in pairs])
        self.broadcast = any(i.get("ipi_mode") == "broadcast" for _, i, _ in pairs)
        # The ratio within each run, in cycles (one TSC, one boot).
        self.ratios = [b["p50"] / i["p50"] for _, i, b in pairs]
        self.test = stats.paired_test(self.ratios, confidence)
        self.sign_p = pool.sign_p(sum(1 for r in self.ratios if r < 1),
                                  sum(1 for r in self.ratios if r > 1))
        self.p_adj = None
        self.level = None         # the Holm level alpha / (m - rank) the verdict used
        self.ci_level = None      # the ratio's interval at that level
        self.winner = UNTESTED
        self.linux = None         # what Linux's rule picks: IPI or INVLPGB

    @property
    def runs(self):
        return len(self.pairs)

    @property
    def active_cpus(self):
        """CPUs the mm is active on: the initiator and its targets."""
        return self.targets + 1

    def lean(self):
        """The faster way at the point estimate, decided or not."""
        return INVLPGB if self.test.ratio < 1 else IPI

    def ratio_interval(self, level):
        """The ratio's interval at confidence 1 - level, or None."""
        t = stats.paired_test(self.ratios, 1.0 - level)
        return None if t.ci is None else (1 + t.ci[0] / 100, 1 + t.ci[1] / 100)

    def cost(self):
        """(mean, lo, hi, percent): what Linux's pick loses against the
        winner, per run (picked p50 - winner's p50 in the cell's unit), with
        a t interval over the runs; None where Linux picks the winner or
        there is none."""
        if self.winner not in (IPI, INVLPGB) or self.winner == self.linux:
            return None
        field = "ns_p50" if self.unit == "ns" else "p50"
        pick_inv = self.linux == INVLPGB
        diffs = [(b[field] - i[field]) if pick_inv else (i[field] - b[field])
                 for _, i, b in self.pairs]
        mean, lo, hi = stats.mean_ci(diffs, self.confidence)
        picked, best = (self.inv50, self.ipi50) if pick_inv else (self.ipi50, self.inv50)
        return mean, lo, hi, (picked / best - 1.0) * 100.0


class Answer:
    """The crossover map of several runs and the findings on it."""

    def __init__(self, runs, alpha=0.05, threshold=5.0):
        self.runs = runs
        self.alpha, self.threshold = alpha, threshold
        self.warnings = run_env_warnings([("run", r) for r in runs]) if len(runs) > 1 else []
        self.missing = caveats.missing(runs)
        self.warnings += [f"{name}: {caveats.NO_FINDINGS}: left out" for name in self.missing]
        crosses = [(run, crossover_of(run)) for run in runs]
        crosses = [(run, c) for run, c in crosses if c is not None]
        self.ipi = crosses[0][1].get("ipi", "?") if crosses else "ipi-linux"
        self.invlpgb = crosses[0][1].get("invlpgb", "?") if crosses else "invlpgb-linux"
        same = [(run, c) for run, c in crosses
                if (c.get("ipi"), c.get("invlpgb")) == (self.ipi, self.invlpgb)]
        self.warnings += [f"{run.name}: compared {c.get('ipi')} with {c.get('invlpgb')}, "
                          f"not {self.ipi} with {self.invlpgb}: left out of the map"
                          for run, c in crosses if (run, c) not in same]
        self.guest_no_data = next((c["no_data"] for _, c in same
                                   if isinstance(c.get("no_data"), str)), None)
        self.pooled_runs = [run for run, _ in same]
        problems = []
        per_run = [(run, run_pairs(run, c, problems)) for run, c in same]
        self.warnings += problems
        keys = sorted({k for _, ps in per_run for k in ps})
        self.linux_pick = {}
        pairs = {}
        for k in keys:
            pairs[k] = [(run, ps[k][0], ps[k][1]) for run, ps in per_run if k in ps]
            picks = {ps[k][2] for _, ps in per_run if k in ps}
            self.linux_pick[k] = INVLPGB if True in picks else IPI
            if len(picks) > 1:
                self.warnings.append(f"pages={k[0]} targets={k[1]}: the runs disagree on "
                                     "Linux's pick")
        recs = [r for ps in pairs.values() for _, i, b in ps for r in (i, b)]
        self.unit = "ns" if recs and all(r.get("ns_p50") for r in recs) else "cycles"
        self.cells = [Cell(p, t, pairs[(p, t)], self.unit, 1.0 - alpha) for p, t in keys]
        self.why = caveats.union(self.pooled_runs or runs, "crossover")
        self.judge()

    def judge(self):
        """Holm over the tested cells; winners, equivalence; Linux's picks."""
        adjusted = stats.holm([c.test.p for c in self.cells])
        tested = sorted((c for c in self.cells if c.test.p is not None),
                        key=lambda c: c.test.p)
        for rank, cell in enumerate(tested):
            cell.level = self.alpha / (len(tested) - rank)
        margin = 1.0 + self.threshold / 100.0
        for cell, p_adj in zip(self.cells, adjusted):
            cell.p_adj = p_adj
            cell.linux = self.linux_pick[(cell.pages, cell.targets)]
            if p_adj is None:
                cell.winner = UNTESTED
                continue
            cell.ci_level = cell.ratio_interval(cell.level)
            lo, hi = cell.ci_level
            equiv = cell.ratio_interval(min(1.0, 2 * cell.level))
            if p_adj < self.alpha and hi < 1 / margin:
                cell.winner = INVLPGB
            elif p_adj < self.alpha and lo > margin:
                cell.winner = IPI
            elif 1 / margin < equiv[0] and equiv[1] < margin:
                cell.winner = AS_FAST
            else:
                cell.winner = NOT_SHOWN

    @property
    def hardware(self):
        return not self.why and not self.no_data()

    @property
    def tested(self):
        """True when the cells could be tested (two runs or more)."""
        return any(c.test.p is not None for c in self.cells)

    def no_data(self):
        """Why there is no crossover map at all, or None."""
        if not self.pooled_runs:
            return f"no data: {caveats.NO_FINDINGS}"
        if not self.cells:
            return "no data: " + (self.guest_no_data or
                                  "no (pages, targets) cell compared in the runs")
        return None

    def qualifier(self):
        """'' for a hardware answer, else 'not a hardware answer here: TAGS'."""
        return caveats.qualifier(self.why)

    def name(self, way):
        """A way as a strategy name."""
        return {IPI: self.ipi, INVLPGB: self.invlpgb}.get(way, way)

    # --- findings ----------------------------------------------------------

    def frontier(self):
        """Per page count: (pages, fewest targets at which INVLPGB wins or
        None, text)."""
        out = []
        for pages in sorted({c.pages for c in self.cells}):
            row = sorted((c for c in self.cells if c.pages == pages), key=lambda c: c.targets)
            measured = f"{row[0].targets}..{row[-1].targets}" if len(row) > 1 else \
                str(row[0].targets)
            wins = [c for c in row if c.winner == INVLPGB]
            if not self.tested:
                lean = [c for c in row if c.lean() == INVLPGB]
                text = ("not determined: one run, no significance (at the point estimates "
                        + (f"INVLPGB is faster from {lean[0].targets} targets)" if lean else
                           f"INVLPGB is faster at none of {measured} targets)"))
                out.append((pages, None, text))
                continue
            if not wins:
                out.append((pages, None, f"INVLPGB wins at none of {measured} targets "
                            f"measured ({self.tally(row)})"))
                continue
            first = wins[0]
            after = [c for c in row if c.targets > first.targets and c.winner != INVLPGB]
            text = f"INVLPGB wins from {first.targets} targets ({first.active_cpus} active CPUs)"
            if after:
                text += ("; but not at " + ", ".join(
                    f"{c.targets} ({self.name(c.winner) + ' wins' if c.winner == IPI else c.winner})"
                    for c in after))
            out.append((pages, first.targets, text))
        return out

    def tally(self, cells):
        """'N ipi-linux wins, N as fast, N not shown different'."""
        parts = [(sum(1 for c in cells if c.winner == w), label) for w, label in
                 ((IPI, f"{self.ipi} wins"), (INVLPGB, f"{self.invlpgb} wins"),
                  (AS_FAST, f"as fast within {self.threshold:g}%"),
                  (NOT_SHOWN, NOT_SHOWN))]
        return ", ".join(f"{n} {label}" for n, label in parts if n) or "none tested"

    def linux_finding(self):
        """(cells where Linux's rule picks the slower way, text lines)."""
        slower = [c for c in self.cells if c.cost() is not None]
        if not self.tested:
            lean = [c for c in self.cells if c.lean() != c.linux]
            return slower, [
                "not determined: one run; at the point estimates the rule "
                f"picks the slower way in {len(lean)} of {len(self.cells)} cells" +
                (": " + ", ".join(f"pages={c.pages} targets={c.targets}" for c in lean)
                 if lean else "")]
        lines = [f"picks the slower way in {len(slower)} of {len(self.cells)} cells "
                 f"({self.tally(self.cells)})"]
        for c in slower:
            mean, lo, hi, pct = c.cost()
            lines.append(f"pages={c.pages} targets={c.targets}: picks "
                         f"{self.name(c.linux)}, {self.name(c.winner)} is faster: costs "
                         f"{fmt_cost(mean, lo, hi, self.unit)} a flush (+{pct:.0f}%)")
        if slower:
            worst = max(slower, key=lambda c: c.cost()[3])
            lines.append(f"worst: pages={worst.pages} targets={worst.targets}, "
                         f"+{worst.cost()[3]:.0f}%")
        return slower, lines

    # --- output -------------------------------------------------------------

    def method(self):
        """How the cells were tested, one line."""
        if not self.tested:
            return (f"one run: the ratio is shown, not tested ({stats.ONE_RUN_PAIRED}); run it "
                    "3 or more times")
        dfs = sorted({c.test.df for c in self.cells if c.test.df})
        n = sum(1 for c in self.cells if c.test.p is not None)
        return (f"the run is the unit: one ratio of p50s per run; p: Student's t on their logs "
                f"(df {'/'.join(map(str, dfs))}), Holm over {n} cells; sign p: the sign test "
                f"(no model; at least {2 / 2 ** min(c.runs for c in self.cells):.2g} with these "
                f"runs); a winner where the ratio's interval at its Holm level clears "
                f"{self.threshold:g}%, 'as fast' where TOST puts it inside; alpha {self.alpha:g}")

    def table(self):
        """(headers, rows, right-aligned columns) of the map."""
        headers = ["pages", "targets", "cpus", "runs", f"{self.ipi} p50", f"{self.invlpgb} p50",
                   "ratio", "CI ratio", "p", "sign p", "winner", "Linux picks", "cost"]
        rows = []
        for c in self.cells:
            ci = "-" if c.test.ci is None else \
                f"[{1 + c.test.ci[0] / 100:.2f}, {1 + c.test.ci[1] / 100:.2f}]"
            cost = c.cost()
            rows.append([c.pages, c.targets, c.active_cpus, c.runs,
                         fmt_time(c.ipi50, self.unit) + ("*" if c.broadcast else ""),
                         fmt_time(c.inv50, self.unit), f"{c.test.ratio:.2f}", ci,
                         "-" if c.p_adj is None else fmt_p(c.p_adj),
                         "-" if c.sign_p is None or c.runs < 2 else fmt_p(c.sign_p),
                         self.name(c.winner), self.name(c.linux),
                         "-" if cost is None else fmt_cost(*cost[:3], self.unit)])
        return headers, rows, (0, 1, 2, 3, 4, 5, 6, 8, 9, 12)

    def legend(self):
        return (f"ratio = {self.invlpgb} p50 / {self.ipi} p50 (below 1: INVLPGB faster); "
                f"cpus = active CPUs (the initiator and its targets); times in {self.unit}"
                + ("; * the all-but-self IPI, as Linux sends it to every other CPU"
                   if any(c.broadcast for c in self.cells) else ""))

    def heading(self):
        """The map's heading: the runs' caveats, whether or not it has rows."""
        return self.qualifier() or ("" if self.no_data() else
                                    "a hardware answer (bare metal, real INVLPGB)")

    def sections(self):
        """[(title, qualifier, lines)] of the findings, after the map."""
        gone = self.no_data()
        q = self.qualifier() or ("no data" if gone else "a hardware answer")
        front = [gone] if gone else [f"pages={p}: {t}" for p, _, t in self.frontier()]
        linux = [gone] if gone else self.linux_finding()[1]
        return [("frontier (per page count, the fewest targets at which INVLPGB wins)", q,
                 front), (f"Linux's rule: {LINUX_RULE}", q, linux)]

    def head(self):
        names = ", ".join(r.name for r in self.runs)
        return [f"answer: {len(self.runs)} run{'s' if len(self.runs) != 1 else ''} ({names}); "
                f"{self.ipi} vs {self.invlpgb}, shootdown p50s, as each run compared them"]

    def render(self):
        """The text report."""
        lines = self.head()
        lines += [f"warning: {w}" for w in self.warnings]
        gone = self.no_data()
        if not gone:
            lines.append(self.method())
        if self.why:
            lines.append(caveats.NOT_HARDWARE.rstrip(": ") + ", because:")
            lines += [f"  {tag}: {text}" for tag, text in self.why]
        if gone:
            lines += ["", "crossover map: " + ": ".join(filter(None, (self.heading(), gone)))]
        else:
            lines += ["", "crossover map: " + self.heading()]
            lines.append(self.legend())
            headers, rows, right = self.table()
            lines.append(format_table(headers, rows, right))
        if not gone:
            return "\n".join(lines) + sections.text(self.sections())
        for title, _, _ in self.sections():  # one line: its head, why nothing
            lines += ["", f"{title.split(' (')[0]}: " +
                      ": ".join(filter(None, (self.heading(), gone)))]
        return "\n".join(lines)

    def markdown(self):
        """The report as Markdown."""
        lines = ["# The answer: INVLPGB against IPIs", "", "- " + self.head()[0]]
        lines += [f"- warning: {w}" for w in self.warnings]
        gone = self.no_data()
        if not gone:
            lines += [f"- {self.method()}"]
        if self.why:
            lines += ["", f"{caveats.NOT_HARDWARE.rstrip(': ').capitalize()}, because:", ""]
            lines += [f"- **{tag}**: {text}" for tag, text in self.why]
        lines += ["", "## Crossover map", "", f"**{self.heading() or gone}**", ""]
        if gone and self.heading():
            lines.append(gone)
        else:
            lines += [self.legend() + ".", ""]
            headers, rows, _ = self.table()
            lines.append("| " + " | ".join(headers) + " |")
            lines.append("|" + "---|" * len(headers))
            lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        return "\n".join(lines) + sections.markdown(self.sections())

    def as_json(self):
        """Everything as one JSON object."""
        gone = self.no_data()
        out = {"runs": [r.path for r in self.runs], "ipi_strategy": self.ipi,
               "invlpgb_strategy": self.invlpgb, "alpha": self.alpha,
               "threshold_pct": self.threshold, "unit": self.unit,
               "hardware_answer": self.hardware,
               "not_hardware": [{"tag": t, "why": w} for t, w in self.why],
               "no_data": gone, "warnings": self.warnings, "tested": self.tested,
               "linux_rule": LINUX_RULE, "cells": [], "frontier": [], "linux_slower": []}
        for c in self.cells:
            cost = c.cost()
            out["cells"].append({
                "pages": c.pages, "targets": c.targets, "active_cpus": c.active_cpus,
                "runs": c.runs, "ipi_p50": c.ipi50, "invlpgb_p50": c.inv50,
                "ipi_broadcast": c.broadcast, "ratio": c.test.ratio,
                "ratio_ci": None if c.test.ci is None else
                [1 + c.test.ci[0] / 100, 1 + c.test.ci[1] / 100],
                "ratio_ci_holm": None if c.ci_level is None else list(c.ci_level),
                "holm_level": c.level, "df": c.test.df, "p": c.test.p,
                "p_adjusted": c.p_adj, "sign_p": c.sign_p if c.runs > 1 else None,
                "winner": self.name(c.winner), "faster_at_point_estimate": self.name(c.lean()),
                "linux_picks": self.name(c.linux),
                "linux_cost": None if cost is None else cost[0],
                "linux_cost_ci": None if cost is None or cost[1] is None else
                [cost[1], cost[2]],
                "linux_cost_pct": None if cost is None else cost[3]})
        if not gone:
            out["frontier"] = [{"pages": p, "targets": t, "text": text}
                               for p, t, text in self.frontier()]
            slower, lines = self.linux_finding()
            out["linux_slower"] = [{"pages": c.pages, "targets": c.targets,
                                    "cost": c.cost()[0], "cost_pct": c.cost()[3]}
                                   for c in slower]
            out["linux_text"] = lines
        return out


def fmt_time(v, unit):
    """A time with its unit."""
    return "-" if v is None else f"{v:,.0f} {'ns' if unit == 'ns' else 'cyc'}"


def fmt_cost(mean, lo, hi, unit):
    """A cost with its interval over runs, where there is one."""
    text = "+" + fmt_time(mean, unit)
    if lo is not None and math.isfinite(lo) and math.isfinite(hi):
        text += f" [{lo:+,.0f}, {hi:+,.0f}]"
    return text


def fmt_p(p):
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"
