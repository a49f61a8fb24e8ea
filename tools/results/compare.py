"""Two sets of runs, configuration by configuration: did B get slower?

Each side is one or more runs (logs or JSONL files) of the same setup.
Result records are joined on their configuration key (config.py). The run
is the unit: the samples of one boot are not independent of that boot
(launch-to-launch variance, up to about +-90% under TCG, dwarfs the
spread within a run), so each run gives one number per configuration, its
record's p50, and the test is over runs (stats.run_test: Student's t on
the logs of the runs' p50s, variance pooled over both sides, df = runs -
2). A row shows each side's p50 and p99 (geometric means over the side's
runs), the change, a confidence interval of the p50 change from the same
t, and the p-value, Holm-corrected over the rows tested. A row is:

  slower / faster        p < alpha after correction, and p50 moved by at
                         least --threshold percent that way
  no significant change  otherwise
  cannot tell            one run a side: the change is shown, but launch
                         variance cannot be told from it, so it is never
                         called significant

Overall: slower if any row is slower, else faster if any is faster, else
no significant change; "cannot tell" when no row could be tested. Exit
status: 0 no significant slowdown (cannot tell included), 1 at least one
row significantly slower by the threshold or more, 2 bad input.
"""

import json

import stats
from config import config_key, describe, plain
from tables import format_table

SLOWER, FASTER, SAME = "slower", "faster", "no significant change"
CANNOT_TELL = "cannot tell (one run a side)"
UNKNOWN = "cannot tell: " + stats.ONE_RUN
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
    """One entry per run: {"p50": .., "p99": ..} (the median over the run's
    records of this key, should a run hold it twice)."""
    by_run = {}
    for run, rec in recs:
        by_run.setdefault(id(run), []).append(rec)
    out = []
    for rs in by_run.values():
        ent = {}
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


def test_row(row, opts):
    """The run-level test of one row; leaves the verdict for judge()."""
    a = [r["p50"] for r in row.a_runs]
    b = [r["p50"] for r in row.b_runs]
    if any(v is None or v <= 0 for v in a + b):
        row.notes.append("a p50 that is not positive: not tested")
        return
    res = stats.run_test(a, b, confidence=1.0 - opts.alpha)
    if res.df is None:
        return
    row.kind, row.p, row.ci, row.df = "t", res.p, res.ci, res.df


def judge(rows, opts):
    """Holm-corrects the p-values and gives every tested row its verdict."""
    adjusted = stats.holm([r.p for r in rows]) if opts.correction == "holm" else \
        [r.p for r in rows]
    for row, p_adj in zip(rows, adjusted):
        row.p_adj = p_adj
        if p_adj is None:
            row.verdict = CANNOT_TELL
        elif p_adj < opts.alpha and row.d50 is not None and row.d50 >= opts.threshold:
            row.verdict = SLOWER
        elif p_adj < opts.alpha and row.d50 is not None and row.d50 <= -opts.threshold:
            row.verdict = FASTER
        else:
            row.verdict = SAME


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
        for row in self.rows:
            row.notes += emulation_notes(row)
            test_row(row, opts)
        judge(self.rows, opts)

    def count(self, verdict):
        return sum(1 for r in self.rows if r.verdict == verdict)

    def overall(self):
        """The verdict over every row."""
        if self.rows and all(r.p is None for r in self.rows):
            return UNKNOWN
        if self.count(SLOWER):
            return SLOWER
        if self.count(FASTER):
            return FASTER
        return SAME

    def status(self):
        """0: no significant slowdown; 1: a row is significantly slower by
        at least the threshold."""
        return 1 if self.count(SLOWER) else 0

    def summary(self):
        """The overall line."""
        tested = [r for r in self.rows if r.p is not None]
        others = ""
        if self.only_a or self.only_b:
            others = f"; {len(self.only_a)} only in A, {len(self.only_b)} only in B"
        if self.overall() == UNKNOWN:
            moved = sorted(r.d50 for r in self.rows if r.d50 is not None)
            spread = (f"; p50 changes {moved[0]:+.1f}% to {moved[-1]:+.1f}%, median "
                      f"{stats.median(moved):+.1f}%: run each side several times (3 or more)"
                      if moved else "")
            return f"overall: {UNKNOWN} ({len(self.rows)} configurations{spread}){others}"
        text = (f"overall: {self.overall()} ({len(self.rows)} configurations: "
                f"{self.count(SLOWER)} slower, {self.count(FASTER)} faster, "
                f"{self.count(SAME)} no significant change")
        if len(tested) < len(self.rows):
            text += f", {len(self.rows) - len(tested)} cannot tell: in one run a side only"
        return text + ")" + others

    def table_rows(self):
        """The rows as table cells."""
        out = []
        for r in self.rows:
            ci = "-" if r.ci is None else f"[{r.ci[0]:+.1f}, {r.ci[1]:+.1f}]"
            p = "-" if r.p_adj is None else fmt_p(r.p_adj)
            out.append([r.bench, r.describe(), r.runs, fmt_val(r.a50), fmt_val(r.b50),
                        fmt_pct(r.d50), ci, fmt_val(r.a99), fmt_val(r.b99),
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
        lines.append(
            f"threshold {o.threshold:g}%, alpha {o.alpha:g}"
            + (f" (Holm over {tested} tested rows)" if o.correction == "holm" and tested else "")
            + f"; times in {'/'.join(units)}; the run is the unit: "
            + ("p and CI: Student's t over the runs' log p50s (variance pooled over "
               f"both sides, df = runs - 2; CI {100 * (1 - o.alpha):g}% of the p50 change)"
               if tested else "one run a side, so nothing is tested"))
        lines.append("")
        headers = ["bench", "configuration", "runs", "p50 A", "p50 B", "d p50", "CI p50 %",
                   "p99 A", "p99 B", "d p99", "p", "verdict"]
        lines.append(format_table(headers, self.table_rows(),
                                  right=(2, 3, 4, 5, 7, 8, 9, 10)))
        untested = [r for r in self.rows if r.p is None]
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
            "warnings": self.warnings, "overall": self.overall(), "status": self.status(),
            "rows": [{"key": {f: plain(v) for f, v in r.key}, "unit": r.unit,
                      "p50_a": r.a50, "p50_b": r.b50, "p99_a": r.a99, "p99_b": r.b99,
                      "delta_p50_pct": r.d50, "delta_p99_pct": r.d99,
                      "ci_p50_pct": list(r.ci) if r.ci else None, "p": r.p,
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
