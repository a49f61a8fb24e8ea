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
import vocabulary

GIB = 1 << 30
PAGE = 4096
# Seed 000 (the INVLPGB series, will-it-scale tlb_flush2, EPYC Milan):
# loops per second before and with the series (docs/experiments.md).
SEED000_LOOPS = (527_000, 1_157_000)
# Seed 001 (the reclaim-batching patch on linux-mm): the reader's loss
# during the page-out before the patch and after it, in %.
SEED001_LOSS = (53, 0)
# The harness's reclaim results set beside Linux's page-out, by what their
# producer says they are (role, flush kind), not by name: Linux before the
# patch flushes per page (role page, batch 1), after it per PMD (role
# batch, at the vocabulary's pmd_pages), by IPIs or by INVLPGB.
LOSS_SIDES = (("page", "ipi", "one"), ("batch", "ipi", "pmd"), ("batch", "invlpgb", "pmd"))
# The flushloop's range flush by IPIs and by INVLPGB.
FLUSHLOOP_SIDES = (("range", "ipi"), ("range", "invlpgb"))


def is_linux(run):
    """Whether a run is the Linux side's (its env record says so)."""
    return (run.env or {}).get("side") == "linux"


def linux_invlpgb(run):
    """Whether Linux used INVLPGB in this run (its env record)."""
    inv = (run.env or {}).get("invlpgb")
    return bool(inv.get("in_use")) if isinstance(inv, dict) else False


def side_of(vocab, rec):
    """(role, flush) of a result record: its own fields, or for a log of a
    build before them, its strategy's entry in the log's vocabulary."""
    if "role" in rec and "flush" in rec:
        return rec.get("role"), rec.get("flush")
    e = vocab.what(rec.get("bench"), rec.get("strategy"), rec.get("batch")) or {}
    return e.get("role"), e.get("flush")


def loss_results(run):
    """{(role, flush): [records]}: run's reclaim results of LOSS_SIDES,
    the per-page side at batch 1, the batched ones at one PMD."""
    vocab = vocabulary.of_log(run.records)
    pmd = vocab.numbers.get("pmd_pages")
    want = {(role, flush): 1 if batch == "one" else pmd for role, flush, batch in LOSS_SIDES}
    out = {}
    for r in run.results("reclaim"):
        key = side_of(vocab, r)
        if key in want and r.get("batch") == want[key]:
            out.setdefault(key, []).append(r)
    return out


def by_side(runs, results, value, confidence):
    """{label: summary of value(record)} over runs, a label per side
    ("harness per-page 1": the records' own strategy and batch), in the
    sides' order; results(run) gives {side: [records]}."""
    values = {}
    for run in runs:
        for side, recs in results(run).items():
            for r in recs:
                label = f"harness {r.get('strategy')} {r.get('batch')}"
                values.setdefault((side, label), []).append(value(r))
    out = {}
    order = [(role, flush) for role, flush, _ in LOSS_SIDES]
    for (side, label), vals in sorted(values.items(), key=lambda kv: order.index(kv[0][0])):
        s = summary(vals, confidence)
        if s is not None:
            out[label] = s
    return out


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
                hs = self._flushloop_harness(n)
                rows.append({"cpus": n, "linux_invlpgb": on, "linux": lx, "harness": hs})
        return rows

    def _flushloop_harness(self, cpus):
        """{strategy: summary of ops_per_s at cpus} for FLUSHLOOP_SIDES,
        each named by its records, and by the runs' vocabularies where no
        run has it (None: none measured it)."""
        out = {}
        for side in FLUSHLOOP_SIDES:
            recs, named = [], []
            for run in self.harness:
                vocab = vocabulary.of_log(run.records)
                recs += [r for r in run.results("flushloop")
                         if side_of(vocab, r) == side and r.get("cpus") == cpus]
                named += [e.get("strategy") for e in vocab.entries
                          if e.get("bench") == "flushloop" and side_of(vocab, e) == side]
            for name in dict.fromkeys([r.get("strategy") for r in recs] + named):
                out[name] = summary([r.get("ops_per_s") for r in recs
                                     if r.get("strategy") == name], self.confidence)
        return out

    def _loss(self):
        """{label: summary of worker_loss_pct over runs}."""
        out = by_side(self.harness, loss_results, lambda r: r.get("worker_loss_pct"),
                      self.confidence)
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
        out = by_side(self.harness, loss_results,
                      lambda r: per_gib(r.get("ipis_sent"), r.get("pages")), self.confidence)
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
