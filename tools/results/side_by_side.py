"""answer's Linux side by side: the harness's figures next to what Linux
itself did on the same machine (the Linux side, docs/linux.md).

The run is the unit: each figure is the median over the runs that have it,
with the order-statistic interval of pool.median_ranks (no model; at three
runs it is the range, and its coverage says how much less than the asked
confidence it has). Three comparisons, the issue's and the seeds':

- flushloop: the harness's unmap + flush + remap loop per second (ipi-range,
  and invlpgb where the machine has it) against Linux's tlb_flush2 loops per
  second at the same number of CPUs, with INVLPGB in use and not; the
  harness's loop is the floor of Linux's (the same flush with nothing else
  around it), so harness / Linux is how many of Linux's loops one harness
  loop's time would buy, and Linux / harness the share of Linux's loop that
  the flush itself is;
- the worker's loss while a reclaimer pages a cold map out: the harness per
  strategy, Linux's MADV_PAGEOUT, and seed 001's figures beside them;
- TLB-shootdown interrupts per GiB paged out, harness (ipis_sent) and Linux
  (/proc/interrupts' TLB line).
"""

import caveats
import pool
import sections

GIB = 1 << 30
PAGE = 4096
# Seed 000 (the INVLPGB series, will-it-scale tlb_flush2, EPYC Milan):
# loops per second before and with the series (docs/experiments.md).
SEED000_LOOPS = (527_000, 1_157_000)
# Seed 001 (the reclaim-batching patch on linux-mm): the reader's loss
# during the page-out before the patch and after it, in %.
SEED001_LOSS = (53, 0)
# The harness's reclaim strategies set beside Linux's page-out: Linux
# before the patch flushes per page, after it per PMD (batch 512).
LOSS_STRATEGIES = (("per-page", 1), ("batch", 512), ("invlpgb", 512))
FLUSHLOOP_STRATEGIES = ("ipi-range", "invlpgb")


def is_linux(run):
    """Whether a run is the Linux side's (its env record says so)."""
    return (run.env or {}).get("side") == "linux"


def linux_invlpgb(run):
    """Whether Linux used INVLPGB in this run (its env record)."""
    inv = (run.env or {}).get("invlpgb")
    return bool(inv.get("in_use")) if isinstance(inv, dict) else False


def summary(values, confidence):
    """(median, lo, hi, coverage, n) over runs, or None without a value."""
    xs = sorted(v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool))
    if not xs:
        return None
    n = len(xs)
    lo, hi, cover = pool.median_ranks(n, confidence)
    mid = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    return {"median": mid, "lo": xs[lo - 1], "hi": xs[hi - 1], "coverage": cover, "runs": n}


def fmt(s, unit=""):
    """'median [lo, hi] (n runs)' or 'no runs'."""
    if s is None:
        return "no runs"
    text = f"{s['median']:.0f}{unit} [{s['lo']:.0f}, {s['hi']:.0f}]"
    return text + f" ({s['runs']} run{'s' if s['runs'] != 1 else ''})"


class SideBySide:
    """The three comparisons over harness runs and Linux runs."""

    def __init__(self, harness, linux, confidence=0.95):
        self.harness, self.linux, self.confidence = harness, linux, confidence
        self.flushloop = self._flushloop()
        self.loss = self._loss()
        self.irqs = self._irqs()

    def _flushloop(self):
        """Rows (cpus, linux invlpgb in use, linux, {strategy: harness})."""
        rows = []
        counts = sorted({r.get("threads") for run in self.linux
                         for r in run.results("linux") if r.get("workload") == "tlb_flush2"
                         and isinstance(r.get("threads"), int)})
        for on in (False, True):
            runs = [run for run in self.linux if linux_invlpgb(run) == on]
            for n in counts:
                lx = summary([r.get("loops_per_s") for run in runs for r in run.results("linux")
                              if r.get("workload") == "tlb_flush2" and r.get("threads") == n],
                             self.confidence)
                if lx is None:
                    continue
                hs = {s: summary([r.get("ops_per_s") for run in self.harness
                                  for r in run.results("flushloop")
                                  if r.get("strategy") == s and r.get("cpus") == n],
                                 self.confidence) for s in FLUSHLOOP_STRATEGIES}
                rows.append({"cpus": n, "linux_invlpgb": on, "linux": lx, "harness": hs})
        return rows

    def _loss(self):
        """{label: summary of worker_loss_pct over runs}."""
        out = {}
        for strategy, batch in LOSS_STRATEGIES:
            s = summary([r.get("worker_loss_pct") for run in self.harness
                         for r in run.results("reclaim")
                         if r.get("strategy") == strategy and r.get("batch") == batch],
                        self.confidence)
            if s is not None:
                out[f"harness {strategy} {batch}"] = s
        out.update(self._linux_pageout(lambda r: r.get("worker_loss_pct")))
        return out

    def _linux_pageout(self, value):
        """{label: summary of value(record)} over the Linux runs' page-outs,
        with INVLPGB in use and not apart."""
        out = {}
        for on in (False, True):
            s = summary([value(r) for run in self.linux if linux_invlpgb(run) == on
                         for r in run.results("linux") if r.get("workload") == "pageout"],
                        self.confidence)
            if s is not None:
                out[f"Linux MADV_PAGEOUT (invlpgb {'in use' if on else 'not in use'})"] = s
        return out

    def _irqs(self):
        """{label: summary of TLB interrupts per GiB paged out}."""
        def per_gib(count, pages):
            ok = isinstance(count, int) and isinstance(pages, int) and pages > 0
            return count * GIB / (pages * PAGE) if ok else None
        out = {}
        for strategy, batch in LOSS_STRATEGIES:
            s = summary([per_gib(r.get("ipis_sent"), r.get("pages")) for run in self.harness
                         for r in run.results("reclaim")
                         if r.get("strategy") == strategy and r.get("batch") == batch],
                        self.confidence)
            if s is not None:
                out[f"harness {strategy} {batch}"] = s
        out.update(self._linux_pageout(lambda r: per_gib(r.get("tlb_shootdowns"), r.get("pages"))))
        return out

    def head(self):
        """What the figures below are over, and whether they can decide."""
        out = [f"Linux side by side: {len(self.harness)} harness run(s), {len(self.linux)} "
               f"Linux run(s); medians over runs [order-statistic interval, "
               f"{self.confidence:.0%} asked; at 3 runs it is the range]"]
        if len(self.harness) < 3 or len(self.linux) < 3:
            out.append("fewer than 3 runs a side: one boot never decides; these are figures, "
                       "not an answer")
        return out

    def why(self):
        """[(tag, reason)]: the harness runs' caveats (their findings
        records) and the Linux runs' (their env records), as each guest
        decided them; none is decided here."""
        why = caveats.union(self.harness)
        seen = {t for t, _ in why}
        for run in self.linux:
            for t in caveats.tags_of((run.env or {}).get("caveats")):
                if t not in seen:
                    seen.add(t)
                    why.append((t, caveats.EXPLAIN.get(t, t) + f" (the Linux side, {run.name})"))
        return why

    def sections(self):
        """[(title, qualifier, lines)]: the flush loops, the loss, the
        interrupts."""
        q = caveats.qualifier(self.why()) or "a hardware answer"
        loops = []
        for row in self.flushloop:
            lx = row["linux"]
            loops.append(f"{row['cpus']} cpus, Linux invlpgb "
                         f"{'in use' if row['linux_invlpgb'] else 'not in use'}: Linux {fmt(lx)}")
            for s, h in row["harness"].items():
                if h is None:
                    continue
                line = f"  harness {s} {fmt(h)}"
                if h["median"]:  # the flush's time over Linux's loop's
                    line += f"; the flush is {lx['median'] / h['median']:.0%} of Linux's loop"
                loops.append(line)
        if not self.flushloop:
            loops.append("no tlb_flush2 records in the Linux runs")
        loops.append(f"seed 000 (EPYC Milan, will-it-scale tlb_flush2): {SEED000_LOOPS[0]} -> "
                     f"{SEED000_LOOPS[1]} loops/s with the INVLPGB series")
        loss = [f"{label}: {fmt(s, '%')}" for label, s in self.loss.items()]
        loss.append(f"seed 001: about {SEED001_LOSS[0]}% before the patch (a flush per page), "
                    f"about {SEED001_LOSS[1]}% after (a flush per PMD)")
        irqs = [f"{label}: {fmt(s)}" for label, s in self.irqs.items()]
        return [("flushloop (loops/s) against Linux's tlb_flush2 (loops/s) at the same CPUs",
                 q, loops),
                ("worker loss during the page-out (%)", q, loss),
                ("TLB-shootdown interrupts per GiB paged out",
                 "counts, as each side counted them (the harness its IPIs, Linux its "
                 "/proc/interrupts TLB line)", irqs)]

    def render(self):
        return "\n".join(self.head()) + "\n" + sections.text(self.sections()) + "\n"

    def markdown(self):
        return ("\n## Linux side by side\n\n" + "\n".join(f"- {h}" for h in self.head()) +
                "\n" + sections.markdown(self.sections()))

    def as_json(self):
        return {"harness_runs": len(self.harness), "linux_runs": len(self.linux),
                "confidence": self.confidence, "flushloop": self.flushloop,
                "worker_loss_pct": self.loss, "irqs_per_gib": self.irqs,
                "seed000_loops_per_s": list(SEED000_LOOPS),
                "seed001_loss_pct": list(SEED001_LOSS),
                "caveats": [t for t, _ in self.why()],
                "sections": sections.as_json(self.sections())}
