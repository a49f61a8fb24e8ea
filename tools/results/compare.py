"""Two sets of runs, configuration by configuration: did B get slower?

Each side is one or more runs (logs or JSONL files) of the same setup.
Result records are joined on their configuration key (config.py). The run
is the unit: the samples of one boot are not independent of that boot, so
each run gives one number per configuration, its record's p50, and every
test is over runs.

The launch effect. A boot under TCG (and on hardware, with its frequency,
placement and firmware) comes out slower or faster as a whole: one run of
five identical ones was 13% slower in every row. That is shared by the
rows, so testing each row on its raw p50s tests the same launch luck over
and over (an A/A test of 5 identical runs, 30 splits, flagged rows in 18
and exited 1 in 9, though Holm promises 5%). So the model is

    log p50[run, config] = config + level[run] + change[config] (B only) + noise

and the two effects are tested apart:

  level   each run's level is the median over the configurations every
          run has (3 or more) of its log p50's deviation from that
          configuration's mean over all runs (stats.run_levels). B's level
          change, mean over B's runs less mean over A's, is tested by a
          permutation test over runs (exact for exchangeable runs, which
          identical runs are, whatever the launch distribution; with 5 a
          side its smallest p is 2/252) and shown with Student's t
          interval, on its own line: "level: B's level is X% [lo, hi]
          slower overall, p P".
  rows    each run's log p50s less its level: a row's change relative to
          its runs' levels ("d rel"), Student's t over runs (variance
          pooled over both sides, df = runs - 2), Holm-corrected over the
          rows. The median keeps a change confined to a few rows from
          moving the level, so it does not show up with the opposite sign
          in the others.

With fewer than 3 configurations in every run there is no level to take
out and the rows are tested on their raw log p50s. Alpha is split when the
level is testable at all (its smallest p at most alpha / 2: 4 + 4 runs and
more): alpha / 2 for the level, alpha / 2 for the rows (Holm), so the
whole gate keeps its false-positive rate at alpha; otherwise the rows have
all of it. A verdict:

  slower / faster        p < its alpha (rows: after Holm), and the change
                         tested (rows: d rel; level: the level change) is
                         at least --threshold percent that way
  no significant change  otherwise
  cannot tell            one run a side, or every run gave the same value
                         (zero spread): the change is shown, never called
                         significant

Overall: slower if the level or any row is slower, else faster if either
is faster, else no significant change; "cannot tell" when nothing could
be tested. Exit status: 0 no significant slowdown (cannot tell included),
1 the level or a row significantly slower by the threshold or more, 2 bad
input (cli.py: a file unreadable, or a run that did not finish).
"""

import json
import math

import stats
from config import config_key, describe, plain
from tables import format_table

SLOWER, FASTER, SAME = "slower", "faster", "no significant change"
CANNOT_TELL = "cannot tell (one run a side)"
CANNOT_TELL_ZERO = "cannot tell (zero spread)"
# Fewer configurations in every run than this: no level is taken out.
MIN_LEVEL_CONFIGS = 3
UNKNOWN = "cannot tell: " + stats.ONE_RUN
UNKNOWN_ZERO = "cannot tell: " + stats.ZERO_SPREAD
# Env fields whose difference makes a comparison suspect, with a label.
ENV_FIELDS = (("cpu.vendor", "CPU vendor"), ("cpu.brand", "CPU model"),
              ("cpu.family", "CPU family"), ("cpu.model", "CPU model number"),
              ("cpu.stepping", "CPU stepping"), ("microcode", "microcode"),
              ("hypervisor", "accelerator/hypervisor"), ("cpus_online", "cpus_online"),
              ("apic", "APIC mode"), ("idle", "idle loop"), ("cmdline", "command line"),
              ("version", "build"))
TSC_TOLERANCE = 0.01


class Side:
    """One side of a comparison: its runs and their records by key."""

    def __init__(self, label, runs):
        self.label = label
        self.runs = runs
        self.by_key = {}
        for run in runs:
            for rec in run.results():
                if rec.get("samples") and rec.get("p50") is not None:
                    self.by_key.setdefault(config_key(rec), []).append((run, rec))

    def names(self):
        """The files, for the heading."""
        return ", ".join(r.name for r in self.runs)


class Row:
    """One joined configuration and what was found about it."""

    def __init__(self, key, a_recs, b_recs):
        self.key = key
        self.a_recs, self.b_recs = a_recs, b_recs
        self.unit = "ns" if all(r.get("ns_p50") is not None and r.get("ns_p99") is not None
                                for _, r in a_recs + b_recs) else "cycles"
        self.a_runs, self.b_runs = per_run(a_recs, self), per_run(b_recs, self)
        self.a50, self.b50 = side_stat(self.a_runs, "p50"), side_stat(self.b_runs, "p50")
        self.a99, self.b99 = side_stat(self.a_runs, "p99"), side_stat(self.b_runs, "p99")
        self.d50, self.d99 = pct(self.a50, self.b50), pct(self.a99, self.b99)
        self.rel = None       # the change tested: relative to the runs' levels
        self.kind = None      # "t" when tested
        self.p = self.p_adj = None
        self.ci = None
        self.df = None
        self.verdict = CANNOT_TELL
        self.notes = []

    def field(self, stat):
        """The record field of a statistic in the row's unit."""
        return ("ns_" + stat) if self.unit == "ns" else stat

    def describe(self):
        """The configuration without the bench."""
        return describe(self.key)

    @property
    def bench(self):
        return plain(dict(self.key)["bench"])

    @property
    def runs(self):
        """'3/3': how many runs each side has of this configuration."""
        return f"{len(self.a_runs)}/{len(self.b_runs)}"


def per_run(recs, row):
    """One entry per run: {"run": Run, "p50": .., "p99": ..} (the median
    over the run's records of this key, should a run hold it twice)."""
    by_run, runs = {}, {}
    for run, rec in recs:
        by_run.setdefault(id(run), []).append(rec)
        runs[id(run)] = run
    out = []
    for rid, rs in by_run.items():
        ent = {"run": runs[rid]}
        for stat in ("p50", "p99"):
            vals = [r[row.field(stat)] for r in rs if isinstance(r.get(row.field(stat)),
                                                                 (int, float))]
            ent[stat] = stats.median(vals) if vals else None
        out.append(ent)
    return out


def side_stat(runs, stat):
    """The geometric mean over a side's runs of one statistic (what the
    run-level test compares), or None."""
    vals = [r[stat] for r in runs]
    if not vals or any(v is None or v <= 0 for v in vals):
        return None
    return stats.geomean(vals)


def pct(a, b):
    """(b / a - 1) in percent, or None when a is not positive."""
    if a is None or b is None or a <= 0:
        return None
    return (b / a - 1.0) * 100.0


def positive_p50s(runs):
    """The runs' p50s, or None when one is missing or not positive."""
    vals = [r["p50"] for r in runs]
    return None if any(v is None or v <= 0 for v in vals) else vals


def test_row(row, opts, levels):
    """The run-level test of one row on its log p50s less each run's level
    (levels: {id(run): level}, empty for none); leaves the verdict for
    judge()."""
    a, b = positive_p50s(row.a_runs), positive_p50s(row.b_runs)
    if a is None or b is None:
        row.notes.append("a p50 that is not positive: not tested")
        return
    own = lambda runs: [math.log(r["p50"]) - levels.get(id(r["run"]), 0.0)  # noqa: E731
                        for r in runs]
    res = stats.log_test(own(row.a_runs), own(row.b_runs), confidence=1.0 - opts.alpha)
    row.rel = res.change_pct
    if res.why == stats.ZERO_SPREAD:
        row.verdict = CANNOT_TELL_ZERO
    if res.df is None:
        return
    row.kind, row.p, row.ci, row.df = "t", res.p, res.ci, res.df


def verdict(p, alpha, change, threshold):
    """slower / faster / no significant change for one tested change."""
    if p < alpha and change is not None and change >= threshold:
        return SLOWER
    if p < alpha and change is not None and change <= -threshold:
        return FASTER
    return SAME


def judge(rows, opts, alpha):
    """Holm-corrects the p-values and gives every tested row its verdict."""
    adjusted = stats.holm([r.p for r in rows]) if opts.correction == "holm" else \
        [r.p for r in rows]
    for row, p_adj in zip(rows, adjusted):
        row.p_adj = p_adj
        if p_adj is None:
            continue
        row.verdict = verdict(p_adj, alpha, row.rel, opts.threshold)
        # Against its run's level a row can move the other way from its
        # p50: where half the rows slowed down, the level rises with them
        # and the unchanged half looks faster. A verdict needs both.
        raw = verdict(0.0, 1.0, row.d50, opts.threshold)
        if row.verdict != SAME and raw != row.verdict:
            row.notes.append(f"{row.verdict} against its run's level ({row.rel:+.1f}%) but "
                             f"not in its own p50 ({fmt_pct(row.d50)}): the level moved "
                             "with other rows; not called")
            row.verdict = SAME


class Level:
    """The launch effect: each run's level, and B's level change tested
    over runs.

    by_run:   {id(run): level} (log scale), empty when not separated.
    configs:  how many configurations every run has (the level's basis).
    change:   B's level change in percent, or None; ci its t interval.
    p:        the permutation p (the gate's), p_t Student's t's, or None.
    splits:   how many splits the permutation test dealt.
    alpha:    the level's share of alpha (None: not testable at these
              run counts, the rows have all of it).
    why:      why there is no level or no test, else None.
    """

    def __init__(self, a, b, rows, opts):
        self.by_run, self.change, self.ci, self.p, self.p_t = {}, None, None, None, None
        self.splits, self.alpha, self.why, self.verdict = 0, None, None, CANNOT_TELL
        runs = [(r, "a") for r in a.runs] + [(r, "b") for r in b.runs]
        full = [row for row in rows if len(row.a_runs) == len(a.runs) and
                len(row.b_runs) == len(b.runs) and positive_p50s(row.a_runs) and
                positive_p50s(row.b_runs)]
        self.configs = len(full)
        if self.configs < MIN_LEVEL_CONFIGS:
            self.why = (f"{self.configs} configuration(s) in every run: fewer than "
                        f"{MIN_LEVEL_CONFIGS}, so no level is taken out")
            return
        table = [[math.log(p50_of(row, run)) for row in full] for run, _ in runs]
        levels = stats.run_levels(table)
        self.by_run = {id(run): lv for (run, _), lv in zip(runs, levels)}
        la = [lv for (_, side), lv in zip(runs, levels) if side == "a"]
        lb = [lv for (_, side), lv in zip(runs, levels) if side == "b"]
        self.test(la, lb, opts)

    def test(self, la, lb, opts):
        """The level change: t for the interval, permutation for p."""
        res = stats.log_test(la, lb, confidence=1.0 - opts.alpha)
        self.change = res.change_pct
        if res.df is None:
            self.why = res.why
            self.verdict = CANNOT_TELL_ZERO if res.why == stats.ZERO_SPREAD else CANNOT_TELL
            return
        self.ci, self.p_t = res.ci, res.p
        if stats.smallest_permutation_p(len(la), len(lb)) > opts.alpha / 2:
            self.why = (f"{len(la)} + {len(lb)} runs: too few for the permutation "
                        "test to reach alpha / 2, so the level is not tested (4 + 4 or "
                        "more)")
            return
        self.alpha = opts.alpha / 2
        self.p, self.splits = stats.permutation_p(la, lb)
        self.verdict = verdict(self.p, self.alpha, self.change, opts.threshold)

    def line(self):
        """The level line of the report."""
        if not self.by_run:
            return f"level: not separated: {self.why}"
        way = "slower" if self.change >= 0 else "faster"
        text = f"level: B's level is {abs(self.change):.1f}% "
        if self.ci:
            text += f"[{self.ci[0]:+.1f}, {self.ci[1]:+.1f}] "
        text += f"{way} overall ({self.configs} configurations in every run)"
        if self.p is not None:
            return (text + f", p {fmt_p(self.p)} (permutation over {self.splits} splits "
                    f"of the runs; Student's t: p {fmt_p(self.p_t)}), alpha "
                    f"{self.alpha:g}: {self.verdict}")
        return text + f": {self.verdict if self.why is None else 'not tested: ' + self.why}"

    def as_json(self):
        return {"separated": bool(self.by_run), "configurations": self.configs,
                "change_pct": self.change, "ci_pct": list(self.ci) if self.ci else None,
                "p": self.p, "p_t": self.p_t, "splits": self.splits, "alpha": self.alpha,
                "verdict": self.verdict if self.by_run else None, "why": self.why}


def p50_of(row, run):
    """The p50 one run gave this row."""
    for ent in row.a_runs + row.b_runs:
        if ent["run"] is run:
            return ent["p50"]
    raise KeyError(run.name)


def get_path(obj, path):
    """obj['a']['b'] for 'a.b', or None."""
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def normal_cmdline(cmdline):
    """The kernel arguments without the image path QEMU and GRUB put first
    (it names the build directory, not the configuration)."""
    if not isinstance(cmdline, str):
        return cmdline
    words = cmdline.split()
    if words and "=" not in words[0] and "/" in words[0]:
        words = words[1:]
    return " ".join(words)


def env_warnings(a, b):
    """Warnings about env fields that differ between or within the sides."""
    return run_env_warnings([(a.label, r) for r in a.runs] + [(b.label, r) for r in b.runs])


def run_env_warnings(runs):
    """Warnings about env fields that differ between runs: [(label, Run)]."""
    warns = []
    for run_label, run in runs:
        if run.env is None:
            warns.append(f"{run_label} {run.name}: no env record: cannot check the machine")
    envs = [(lab, r.name, r.env) for lab, r in runs if r.env is not None]
    for path, label in ENV_FIELDS:
        seen = {}
        for lab, name, env in envs:
            value = get_path(env, path)
            if path == "cmdline":
                value = normal_cmdline(value)
            seen.setdefault(json.dumps(value), []).append(f"{lab}:{name}")
        if len(seen) > 1:
            parts = "; ".join(f"{v} in {', '.join(w)}" for v, w in seen.items())
            warns.append(f"{label} differs: {parts}")
    rates = [(f"{lab}:{name}", env.get("tsc_khz")) for lab, name, env in envs
             if isinstance(env.get("tsc_khz"), int)]
    if rates:
        lo, hi = min(r for _, r in rates), max(r for _, r in rates)
        if hi > lo * (1 + TSC_TOLERANCE):
            warns.append(f"TSC rate differs by more than {TSC_TOLERANCE:.0%}: " +
                         ", ".join(f"{n} {r} kHz" for n, r in rates))
    return warns


def join(a, b, benches=None):
    """The rows both sides have (sorted by key), and the keys only one has."""
    keys_a, keys_b = set(a.by_key), set(b.by_key)
    if benches:
        keep = lambda k: plain(dict(k)["bench"]) in benches  # noqa: E731
        keys_a, keys_b = {k for k in keys_a if keep(k)}, {k for k in keys_b if keep(k)}
    rows = [Row(k, a.by_key[k], b.by_key[k]) for k in sorted(keys_a & keys_b)]
    return rows, sorted(keys_a - keys_b), sorted(keys_b - keys_a)


def emulation_notes(row):
    """A note when one side ran under the INVLPGB model and the other not."""
    flags = {bool(r.get("emulated")) for _, r in row.a_recs + row.b_recs}
    return ["emulated on one side only"] if len(flags) > 1 else []


class Comparison:
    """Everything compare found; render() prints it, status() gates on it."""

    def __init__(self, a, b, opts):
        self.a, self.b, self.opts = a, b, opts
        self.warnings = env_warnings(a, b)
        self.rows, self.only_a, self.only_b = join(a, b, opts.bench)
        self.level = Level(a, b, self.rows, opts)
        for row in self.rows:
            row.notes += emulation_notes(row)
            test_row(row, opts, self.level.by_run)
        # The level's share of alpha, when it has one, is the rows' loss.
        self.row_alpha = opts.alpha - (self.level.alpha or 0.0)
        judge(self.rows, opts, self.row_alpha)

    def count(self, verdict):
        return sum(1 for r in self.rows if r.verdict == verdict)

    def overall(self):
        """The verdict over every row."""
        if self.rows and all(r.p is None for r in self.rows) and self.level.p is None:
            return UNKNOWN if self.count(CANNOT_TELL) else UNKNOWN_ZERO
        if self.count(SLOWER) or self.level.verdict == SLOWER:
            return SLOWER
        if self.count(FASTER) or self.level.verdict == FASTER:
            return FASTER
        return SAME

    def status(self):
        """0: no significant slowdown; 1: the level or a row is
        significantly slower by at least the threshold."""
        return 1 if self.overall() == SLOWER else 0

    def summary(self):
        """The overall line."""
        tested = [r for r in self.rows if r.p is not None]
        others = ""
        if self.only_a or self.only_b:
            others = f"; {len(self.only_a)} only in A, {len(self.only_b)} only in B"
        if self.overall() in (UNKNOWN, UNKNOWN_ZERO):
            moved = sorted(r.d50 for r in self.rows if r.d50 is not None)
            spread = (f"; p50 changes {moved[0]:+.1f}% to {moved[-1]:+.1f}%, median "
                      f"{stats.median(moved):+.1f}%" if moved else "")
            if moved and self.overall() == UNKNOWN:
                spread += ": run each side several times (5 or more)"
            return f"overall: {self.overall()} ({len(self.rows)} configurations{spread}){others}"
        text = (f"overall: {self.overall()} ({len(self.rows)} configurations: "
                f"{self.count(SLOWER)} slower, {self.count(FASTER)} faster, "
                f"{self.count(SAME)} no significant change")
        one, zero = self.count(CANNOT_TELL), self.count(CANNOT_TELL_ZERO)
        if one:
            text += f", {one} cannot tell: in one run a side only"
        if zero:
            text += f", {zero} cannot tell: zero spread"
        if self.level.verdict in (SLOWER, FASTER):
            text += f"; level {self.level.verdict}"
        return text + ")" + others

    def table_rows(self):
        """The rows as table cells."""
        out = []
        for r in self.rows:
            ci = "-" if r.ci is None else f"[{r.ci[0]:+.1f}, {r.ci[1]:+.1f}]"
            p = "-" if r.p_adj is None else fmt_p(r.p_adj)
            out.append([r.bench, r.describe(), r.runs, fmt_val(r.a50), fmt_val(r.b50),
                        fmt_pct(r.d50), fmt_pct(r.rel), ci, fmt_val(r.a99), fmt_val(r.b99),
                        fmt_pct(r.d99), p, r.verdict])
        return out

    def render(self):
        """The whole report as text."""
        o = self.opts
        lines = [f"compare: A = {self.a.names()} ({len(self.a.runs)} run"
                 f"{'s' if len(self.a.runs) != 1 else ''})",
                 f"         B = {self.b.names()} ({len(self.b.runs)} run"
                 f"{'s' if len(self.b.runs) != 1 else ''})"]
        lines += [f"warning: {w}" for w in self.warnings]
        units = sorted({r.unit for r in self.rows}) or ["ns"]
        tested = sum(1 for r in self.rows if r.p is not None)
        own = "less each run's level" if self.level.by_run else "(no level taken out)"
        split = f", rows {self.row_alpha:g}" if self.level.alpha else ""
        lines.append(
            f"threshold {o.threshold:g}%, alpha {o.alpha:g}{split}"
            + (f" (Holm over {tested} tested rows)" if o.correction == "holm" and tested else "")
            + f"; times in {'/'.join(units)}; the run is the unit: "
            + (f"rows' p and CI: Student's t over the runs' log p50s {own} (variance "
               "pooled over both sides, df = runs - 2; CI "
               f"{100 * (1 - o.alpha):g}% of d rel, the change relative to the level)"
               if tested else "nothing is tested (one run a side, or zero spread)"))
        lines.append(self.level.line())
        lines.append("")
        headers = ["bench", "configuration", "runs", "p50 A", "p50 B", "d p50", "d rel",
                   "CI rel %", "p99 A", "p99 B", "d p99", "p", "verdict"]
        lines.append(format_table(headers, self.table_rows(),
                                  right=(2, 3, 4, 5, 6, 8, 9, 10, 11)))
        untested = [r for r in self.rows if r.verdict == CANNOT_TELL]
        if untested:
            lines.append("")
            lines.append(f"note: {len(untested)} of {len(self.rows)} configurations have one "
                         "run a side: the samples of one boot are not independent of that "
                         "boot, and launch-to-launch variance (up to about +-90% under TCG) "
                         "cannot be told from a change there; they are not called "
                         "significant")
        notes = [(r, n) for r in self.rows for n in r.notes]
        if notes:
            lines.append("")
            lines += [f"note: {r.bench} {r.describe()}: {n}" for r, n in notes[:20]]
            if len(notes) > 20:
                lines.append(f"note: ... and {len(notes) - 20} more")
        for label, keys in (("A", self.only_a), ("B", self.only_b)):
            for k in keys[:10]:
                lines.append(f"only in {label}: {describe(k, skip=())}")
            if len(keys) > 10:
                lines.append(f"only in {label}: ... and {len(keys) - 10} more")
        lines.append("")
        lines.append(self.summary())
        return "\n".join(lines)

    def as_json(self):
        """The rows and the verdict as one JSON object (for --json)."""
        return {
            "threshold_pct": self.opts.threshold, "alpha": self.opts.alpha,
            "alpha_rows": self.row_alpha, "level": self.level.as_json(),
            "warnings": self.warnings, "overall": self.overall(), "status": self.status(),
            "rows": [{"key": {f: plain(v) for f, v in r.key}, "unit": r.unit,
                      "p50_a": r.a50, "p50_b": r.b50, "p99_a": r.a99, "p99_b": r.b99,
                      "delta_p50_pct": r.d50, "delta_p99_pct": r.d99,
                      "delta_rel_pct": r.rel, "ci_rel_pct": list(r.ci) if r.ci else None,
                      "p": r.p,
                      "p_adjusted": r.p_adj, "test": r.kind, "df": r.df,
                      "runs_a": len(r.a_runs), "runs_b": len(r.b_runs), "verdict": r.verdict,
                      "notes": r.notes} for r in self.rows],
            "only_a": [{f: plain(v) for f, v in k} for k in self.only_a],
            "only_b": [{f: plain(v) for f, v in k} for k in self.only_b],
        }


def fmt_val(v):
    """A side's statistic: an integer where it is one."""
    if v is None:
        return "-"
    return f"{v:.0f}" if isinstance(v, float) and v >= 100 else (
        f"{v:g}" if isinstance(v, float) else str(v))


def fmt_pct(v):
    """A change in percent with its sign."""
    return "-" if v is None else f"{v:+.1f}%"


def fmt_p(p):
    """A p-value: three significant digits, small ones in e-notation."""
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"
