"""The answer: where INVLPGB beats IPIs, and what Linux's rule picks.

For every (pages, targets) cell that the runs measured with both an IPI
strategy (default `ipi-linux`: Linux's own IPI flush, a range up to 33
pages and a full flush beyond) and INVLPGB (default `invlpgb`), unicast:

- the ratio of p50s (INVLPGB over IPI; below 1: INVLPGB faster), with a
  confidence interval and a significance verdict;
- the winner: the faster way where the difference is significant and at
  least --threshold percent, else a tie;
- the frontier: for each page count, the fewest targets at which INVLPGB
  wins;
- what Linux's rule picks (INVLPGB from 4 active CPUs, the initiator
  included: Linux 6.15+ `mm_active_cpus_exceeds(mm, 3)` decides whether
  an mm gets a global ASID and is flushed by INVLPGB, at any page count),
  the cells where that picks the slower way, and what that costs.

The run is the unit (as in compare, stats.py): both strategies of a cell
are measured in the same boot, so each run gives one ratio of p50s, and
launch variance common to both cancels in it; the test is Student's t on
the logs of the runs' ratios (df = runs - 1), Holm-corrected over the
cells. With one run the ratio is shown, and nothing is called significant:
launch variance cannot be told from a difference.

Every finding says whether this machine can answer it: under the INVLPGB
software model (records marked `emulated`) INVLPGB's cost is the model's;
under QEMU TCG every time is the emulator's; where RDTSC traps (env
`rdtsc_trapped`, kvm-pvm) every timestamp costs a VM exit; under any other
hypervisor IPIs are virtualized; with delay_handler= the delayed
strategy's times are the test aid's. Such a finding is printed as "not a
hardware answer here: WHY", with its numbers. A run without INVLPGB
records has no data for any of it, and says so.
"""

import stats
from compare import run_env_warnings
from tables import format_table

LINUX_MIN_ACTIVE_CPUS = 4       # mm_active_cpus_exceeds(mm, 3), Linux 6.15+
LINUX_RULE = ("INVLPGB from 4 active CPUs (the initiator and 3 targets), at any page "
              "count: Linux 6.15+ mm_active_cpus_exceeds(mm, 3)")
IPI_DEFAULTS = ("ipi-linux", "ipi-range", "ipi-page", "ipi-full")
INVLPGB_DEFAULT = "invlpgb"
TCG_SIGNATURE = "TCGTCGTCGTCG"
NOT_HARDWARE = "not a hardware answer here: "
INVLPGB, TIE, UNTESTED = "invlpgb", "tie", "cannot tell (1 run)"


def cell_records(run, strategy):
    """{(pages, targets): record} of one strategy in one run: unicast (or no
    IPI mode), the first record of each cell (the main sweep's, not the
    distance sweep's repeats), with samples and a positive p50."""
    out = {}
    for rec in run.results("shootdown"):
        if rec.get("strategy") != strategy or rec.get("ipi_mode") not in (None, "unicast"):
            continue
        if not rec.get("samples") or not isinstance(rec.get("p50"), (int, float)) or \
                rec["p50"] <= 0:
            continue
        key = (rec.get("pages"), rec.get("targets"))
        if isinstance(key[0], int) and isinstance(key[1], int):
            out.setdefault(key, rec)
    return out


def pick_ipi(runs, wanted):
    """The IPI strategy to compare with: wanted, or the first of
    IPI_DEFAULTS the runs have."""
    if wanted:
        return wanted
    have = {r.get("strategy") for run in runs for r in run.results("shootdown")}
    for s in IPI_DEFAULTS:
        if s in have:
            return s
    return IPI_DEFAULTS[0]


def caveats(runs, records):
    """Why these runs are not a hardware answer: a list of (tag, reason)
    (empty: they are). records: the cells' records, for the emulated and
    delay markers."""
    why = []
    emulated = [r for r in records if r.get("emulated")]
    if emulated:
        why.append(("INVLPGB emulated", "INVLPGB is the software model's (invlpgb=emulate; "
                    "records marked emulated): its cost is the model's, not the "
                    "instruction's"))
    delayed = sorted({(r.get("strategy"), r.get("delay_cycles")) for r in records
                      if r.get("delay_cycles")})
    for strategy, cycles in delayed:
        why.append((f"{strategy} delayed", f"delay_handler= (a test aid) added {cycles} "
                    f"cycles to every {strategy} responder handler"))

    def which(pred):
        hit = [run.name for run in runs if pred(run.env or {})]
        if not hit:
            return None
        return "" if len(hit) == len(runs) else f" (in {', '.join(hit)})"

    tcg = which(lambda e: e.get("hypervisor") == TCG_SIGNATURE)
    if tcg is not None:
        why.append(("QEMU TCG", "under QEMU TCG" + tcg + " the CPUs are emulated, by one host "
                    "thread for all vCPUs by default (single-threaded TCG: a responder runs "
                    "only when the initiator yields), so every time is the emulator's"))
    trapped = which(lambda e: e.get("rdtsc_trapped") is True)
    if trapped is not None:
        why.append(("RDTSC trapped", "RDTSC traps to the hypervisor" + trapped + " (env "
                    "rdtsc_trapped, as under kvm-pvm): every timestamp costs a VM exit"))
    other = which(lambda e: e.get("hypervisor") not in (None, TCG_SIGNATURE))
    if other is not None:
        names = sorted({str((run.env or {}).get("hypervisor")) for run in runs
                        if (run.env or {}).get("hypervisor") not in (None, TCG_SIGNATURE)})
        why.append(("hypervisor", f"under a hypervisor ({', '.join(names)}){other}: IPIs "
                    "are virtualized (VM exits), not the hardware's"))
    turns = concurrency_caveat(runs)
    if turns:
        why.append(turns)
    noenv = [run.name for run in runs if run.env is None]
    if noenv:
        why.append(("no env", f"no env record in {', '.join(noenv)}: where it ran is "
                    "unknown"))
    return why


def concurrency_caveat(runs):
    """("CPUs take turns", reason) where the kernel's concurrency probe
    (env cpus_concurrent, docs/output.md "Concurrency") found the CPUs of
    some of runs not running at the same time, else None: anything that
    needs them side by side (reclaim's worker loss, throughput scaling) is
    then the host's time-sharing."""
    hit = [run for run in runs if (run.env or {}).get("cpus_concurrent") is False and
           ((run.env or {}).get("cpus_online") or 0) > 1]
    if not hit:
        return None
    where = "" if len(hit) == len(runs) else f" (in {', '.join(r.name for r in hit)})"
    said = (hit[0].env or {}).get("cpus_concurrent_why") or ""
    return ("CPUs take turns", "the CPUs do not run at the same time" + where +
            (f" ({said.split(' (a cpu')[0]})" if said else "") +
            ": the workers' loss is the host's time-sharing among vCPUs, not the TLB's cost")


class Cell:
    """One (pages, targets) cell measured with both strategies."""

    def __init__(self, pages, targets, pairs, unit):
        self.pages, self.targets = pages, targets
        self.pairs = pairs        # [(run, ipi_rec, invlpgb_rec)]
        self.unit = unit
        field = "ns_p50" if unit == "ns" else "p50"
        self.ipi50 = stats.geomean([i[field] for _, i, _ in pairs])
        self.inv50 = stats.geomean([b[field] for _, _, b in pairs])
        # The ratio within each run, in cycles (one TSC, one boot).
        self.test = stats.paired_test([b["p50"] / i["p50"] for _, i, b in pairs])
        self.p_adj = None
        self.winner = UNTESTED
        self.linux = None         # what Linux's rule picks: "ipi" or "invlpgb"

    @property
    def runs(self):
        return len(self.pairs)

    @property
    def active_cpus(self):
        """CPUs the mm is active on: the initiator and its targets."""
        return self.targets + 1

    def lean(self):
        """The faster way at the point estimate, significant or not."""
        return INVLPGB if self.test.ratio < 1 else "ipi"

    def cost(self):
        """(ns or cycles, percent) that Linux's pick loses against the
        significant winner, or None where it picks the winner, or there is
        none."""
        if self.winner in (TIE, UNTESTED) or self.winner == self.linux:
            return None
        picked, best = (self.inv50, self.ipi50) if self.linux == INVLPGB else \
            (self.ipi50, self.inv50)
        return picked - best, (picked / best - 1.0) * 100.0


class Answer:
    """The crossover map of several runs and the findings on it."""

    def __init__(self, runs, ipi=None, invlpgb=INVLPGB_DEFAULT, alpha=0.05, threshold=5.0):
        self.runs = runs
        self.ipi = pick_ipi(runs, ipi)
        self.invlpgb = invlpgb
        self.alpha, self.threshold = alpha, threshold
        self.warnings = run_env_warnings([("run", r) for r in runs]) if len(runs) > 1 else []
        per_run = [(run, cell_records(run, self.ipi), cell_records(run, self.invlpgb))
                   for run in runs]
        self.has_ipi = any(i for _, i, _ in per_run)
        self.has_invlpgb = any(b for _, _, b in per_run)
        keys = sorted({k for _, i, b in per_run for k in i if k in b})
        pairs = {k: [(run, i[k], b[k]) for run, i, b in per_run if k in i and k in b]
                 for k in keys}
        recs = [r for ps in pairs.values() for _, i, b in ps for r in (i, b)]
        self.unit = "ns" if recs and all(r.get("ns_p50") for r in recs) else "cycles"
        self.cells = [Cell(p, t, pairs[(p, t)], self.unit) for p, t in keys]
        self.why = caveats(runs, recs)
        self.judge()

    def judge(self):
        """Holm over the tested cells; winners; Linux's picks."""
        adjusted = stats.holm([c.test.p for c in self.cells])
        for cell, p_adj in zip(self.cells, adjusted):
            cell.p_adj = p_adj
            cell.linux = INVLPGB if cell.active_cpus >= LINUX_MIN_ACTIVE_CPUS else "ipi"
            if p_adj is None:
                cell.winner = UNTESTED
            elif p_adj < self.alpha and abs(cell.test.change_pct) >= self.threshold:
                cell.winner = cell.lean()
            else:
                cell.winner = TIE

    @property
    def hardware(self):
        return not self.why

    @property
    def tested(self):
        """True when the cells could be tested (two runs or more)."""
        return any(c.test.p is not None for c in self.cells)

    def no_data(self):
        """Why there is no crossover map at all, or None."""
        if not self.has_invlpgb:
            return (f"no data: no {self.invlpgb} records in the run" +
                    ("s" if len(self.runs) > 1 else "") + f" ({self.why_no_invlpgb()}; "
                    "invlpgb=emulate gives the software model's, which is not a hardware "
                    "answer)")
        if not self.has_ipi:
            return f"no data: no {self.ipi} records (unicast) to compare INVLPGB with"
        if not self.cells:
            return (f"no data: no (pages, targets) cell measured with both {self.ipi} and "
                    f"{self.invlpgb}")
        return None

    def why_no_invlpgb(self):
        """Why the runs have no INVLPGB records, from their env records."""
        envs = [r.env or {} for r in self.runs]
        feats = [e.get("features") or {} for e in envs]
        if envs and all(f.get("invlpgb_cpuid") is False for f in feats):
            return "CPUID has no INVLPGB here"
        if envs and all(e.get("hypervisor") for e in envs) and \
                not any(f.get("invlpgb") for f in feats):
            return "under a hypervisor INVLPGB is not used"
        return "no INVLPGB in the runs' configuration (strategies=, invlpgb=off?)"

    def qualifier(self, full=False):
        """'' for a hardware answer, else 'not a hardware answer here: WHY, WHY'
        (the short tags; full: the whole reasons)."""
        if self.hardware:
            return ""
        if full:
            return NOT_HARDWARE + "; ".join(text for _, text in self.why)
        return NOT_HARDWARE + ", ".join(tag for tag, _ in self.why)

    def name(self, way):
        """A winner as a strategy name."""
        return {"ipi": self.ipi, INVLPGB: self.invlpgb}.get(way, way)

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
                losses = [c for c in row if c.winner == "ipi"]
                text = (f"INVLPGB wins at none of {measured} targets measured ("
                        f"{len(losses)} {self.ipi} wins, {len(row) - len(losses)} ties)")
                out.append((pages, None, text))
                continue
            first = wins[0]
            after = [c for c in row if c.targets > first.targets and c.winner != INVLPGB]
            text = f"INVLPGB wins from {first.targets} targets ({first.active_cpus} active CPUs)"
            if after:
                text += ("; but not at " + ", ".join(
                    f"{c.targets} ({c.winner if c.winner != 'ipi' else self.ipi + ' wins'})"
                    for c in after))
            out.append((pages, first.targets, text))
        return out

    def linux_finding(self):
        """(cells where Linux's rule picks the slower way, text lines)."""
        slower = [c for c in self.cells if c.cost() is not None]
        if not self.tested:
            lean = [c for c in self.cells if c.lean() != c.linux]
            return slower, [
                "not determined: one run, no significance; at the point estimates the rule "
                f"picks the slower way in {len(lean)} of {len(self.cells)} cells" +
                (": " + ", ".join(f"pages={c.pages} targets={c.targets}" for c in lean)
                 if lean else "")]
        ties = sum(1 for c in self.cells if c.winner == TIE)
        lines = [f"picks the slower way in {len(slower)} of {len(self.cells)} cells "
                 f"({ties} ties, where either is as fast)"]
        for c in slower:
            d, pct = c.cost()
            lines.append(f"pages={c.pages} targets={c.targets}: picks "
                         f"{self.name(c.linux)}, {self.name(c.winner)} is faster: costs "
                         f"{fmt_time(d, self.unit)} a flush (+{pct:.0f}%)")
        if slower:
            worst = max(slower, key=lambda c: c.cost()[1])
            lines.append(f"worst: pages={worst.pages} targets={worst.targets}, "
                         f"+{worst.cost()[1]:.0f}%")
        return slower, lines

    # --- output -------------------------------------------------------------

    def method(self):
        """How the cells were tested, one line."""
        if not self.tested:
            return (f"one run: the ratio is shown, not tested ({stats.ONE_RUN_PAIRED}); run it "
                    "3 or more times")
        dfs = sorted({c.test.df for c in self.cells if c.test.df})
        return (f"the run is the unit: one ratio of p50s per run, Student's t on their logs "
                f"(df {'/'.join(map(str, dfs))}), Holm over "
                f"{sum(1 for c in self.cells if c.test.p is not None)} cells; alpha "
                f"{self.alpha:g}, threshold {self.threshold:g}%; CI {100 * (1 - self.alpha):g}%")

    def table(self):
        """(headers, rows, right-aligned columns) of the map."""
        headers = ["pages", "targets", "cpus", "runs", f"{self.ipi} p50", f"{self.invlpgb} p50",
                   "ratio", "CI ratio", "p", "winner", "Linux picks", "cost"]
        rows = []
        for c in self.cells:
            ci = "-" if c.test.ci is None else \
                f"[{1 + c.test.ci[0] / 100:.2f}, {1 + c.test.ci[1] / 100:.2f}]"
            cost = c.cost()
            rows.append([c.pages, c.targets, c.active_cpus, c.runs, fmt_time(c.ipi50, self.unit),
                         fmt_time(c.inv50, self.unit), f"{c.test.ratio:.2f}", ci,
                         "-" if c.p_adj is None else fmt_p(c.p_adj), self.name(c.winner),
                         self.name(c.linux),
                         "-" if cost is None else f"+{fmt_time(cost[0], self.unit)}"])
        return headers, rows, (0, 1, 2, 3, 4, 5, 6, 8, 11)

    def sections(self):
        """[(title, qualifier, lines)] of the findings, after the map."""
        q = self.qualifier()
        out = [("frontier (per page count, the fewest targets at which INVLPGB wins)", q,
                [f"pages={p}: {t}" for p, _, t in self.frontier()])]
        _, lines = self.linux_finding()
        out.append((f"Linux's rule: {LINUX_RULE}", q, lines))
        return out

    def head(self):
        names = ", ".join(r.name for r in self.runs)
        return [f"answer: {len(self.runs)} run{'s' if len(self.runs) != 1 else ''} ({names}); "
                f"{self.ipi} (unicast) vs {self.invlpgb}, shootdown p50s"]

    def render(self):
        """The text report."""
        lines = self.head()
        lines += [f"warning: {w}" for w in self.warnings]
        gone = self.no_data()
        if gone:
            lines += ["", f"crossover map: {gone}", f"frontier: {gone}",
                      f"Linux's rule: {gone}"]
            return "\n".join(lines)
        lines.append(self.method())
        if self.why:
            lines.append(NOT_HARDWARE.rstrip(": ") + ", because:")
            lines += [f"  {tag}: {text}" for tag, text in self.why]
        lines.append("")
        lines.append("crossover map: " + (self.qualifier() or "a hardware answer (bare metal, "
                                           "real INVLPGB)"))
        lines.append(f"ratio = {self.invlpgb} p50 / {self.ipi} p50 (below 1: INVLPGB faster); "
                     f"cpus = active CPUs (the initiator and its targets); times in {self.unit}")
        headers, rows, right = self.table()
        lines.append(format_table(headers, rows, right))
        for title, q, body in self.sections():
            lines += ["", f"{title}:", "  " + (q or "a hardware answer") + ":"]
            lines += ["    " + b for b in body]
        return "\n".join(lines)

    def markdown(self):
        """The report as Markdown."""
        lines = ["# The answer: INVLPGB against IPIs", "", "- " + self.head()[0]]
        lines += [f"- warning: {w}" for w in self.warnings]
        gone = self.no_data()
        if gone:
            lines += ["", f"**{gone}**"]
            return "\n".join(lines) + "\n"
        lines += [f"- {self.method()}"]
        if self.why:
            lines += ["", f"{NOT_HARDWARE.rstrip(': ').capitalize()}, because:", ""]
            lines += [f"- **{tag}**: {text}" for tag, text in self.why]
        lines += ["",
                  "## Crossover map", "",
                  f"**{self.qualifier() or 'A hardware answer (bare metal, real INVLPGB).'}**",
                  "", f"ratio = {self.invlpgb} p50 / {self.ipi} p50 (below 1: INVLPGB faster); "
                  f"cpus = active CPUs; times in {self.unit}.", ""]
        headers, rows, _ = self.table()
        lines.append("| " + " | ".join(headers) + " |")
        lines.append("|" + "---|" * len(headers))
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        for title, q, body in self.sections():
            lines += ["", f"## {title[0].upper()}{title[1:]}", "",
                      f"**{q or 'A hardware answer.'}**", ""]
            lines += [f"- {b}" for b in body]
        return "\n".join(lines) + "\n"

    def as_json(self):
        """Everything as one JSON object."""
        gone = self.no_data()
        out = {"runs": [r.path for r in self.runs], "ipi_strategy": self.ipi,
               "invlpgb_strategy": self.invlpgb, "alpha": self.alpha,
               "threshold_pct": self.threshold, "unit": self.unit,
               "hardware_answer": self.hardware and not gone,
               "not_hardware": [{"tag": t, "why": w} for t, w in self.why],
               "no_data": gone, "warnings": self.warnings, "tested": self.tested,
               "linux_rule": {"text": LINUX_RULE, "min_active_cpus": LINUX_MIN_ACTIVE_CPUS},
               "cells": [], "frontier": [], "linux_slower": []}
        for c in self.cells:
            cost = c.cost()
            out["cells"].append({
                "pages": c.pages, "targets": c.targets, "active_cpus": c.active_cpus,
                "runs": c.runs, "ipi_p50": c.ipi50, "invlpgb_p50": c.inv50,
                "ratio": c.test.ratio,
                "ratio_ci": None if c.test.ci is None else
                [1 + c.test.ci[0] / 100, 1 + c.test.ci[1] / 100],
                "df": c.test.df, "p": c.test.p, "p_adjusted": c.p_adj,
                "winner": self.name(c.winner), "faster_at_point_estimate": self.name(c.lean()),
                "linux_picks": self.name(c.linux),
                "linux_cost": None if cost is None else cost[0],
                "linux_cost_pct": None if cost is None else cost[1]})
        if not gone:
            out["frontier"] = [{"pages": p, "targets": t, "text": text}
                               for p, t, text in self.frontier()]
            slower, lines = self.linux_finding()
            out["linux_slower"] = [{"pages": c.pages, "targets": c.targets,
                                    "cost": c.cost()[0], "cost_pct": c.cost()[1]}
                                   for c in slower]
            out["linux_text"] = lines
        return out


def fmt_time(v, unit):
    """A time with its unit."""
    return "-" if v is None else f"{v:,.0f} {'ns' if unit == 'ns' else 'cyc'}"


def fmt_p(p):
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"
