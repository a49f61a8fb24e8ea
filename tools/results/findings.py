"""The seeds' claims over several runs: read from each run's findings
record, pooled with the run as the unit.

At the end of every run the guest decides its findings from its own
records (bench/findings_calc.c, the one place that decides) and prints
them as `INFO: findings:` lines and one `findings` record. This module
reads that record's interrupts, worker_loss and throughput parts and
pools them; it decides nothing for a run. A run without a findings
record is left out and named.

A number over runs gets Student's t interval over the runs' values; one
run has only what the run itself measured (the loss's interval over the
timeline's blocks, where the run has one), which describes that boot
only, and says so.
"""

import caveats
import sections
import stats

SEED_LOSS = "seed 001: about 53% per-page, about 0 batched"
SEED_TPUT = ("seed 000: 1157k / 527k = 2.20 at 36 cores on Milan, with an LRU drain "
             "removed too (INVLPGB alone: 1.00)")
IRQ_KEYS = ("targets", "per_page_per_gib", "batch512_per_gib", "seed_per_page_per_gib",
            "seed_batch512_per_gib", "ratio")


# The findings record's fields that are not findings: the run's machine
# tags (`caveats`, read by caveats.py) and the second concurrency probe.
GUEST_ONLY = ("type", "seq", "records", "records_dropped", "caveats",
              "cpus_concurrent_after", "cpus_concurrent_after_why",
              "cpus_concurrent_after_permille")


def guest_findings(run):
    """The run's own findings record (without type, seq and the record
    counts), or None."""
    rec = caveats.findings_record(run)
    if rec is None:
        return None
    return {k: v for k, v in rec.items() if k not in GUEST_ONLY}


def section(found, key):
    """found[key] as a dict, or {} (a part missing or of the wrong type)."""
    part = found.get(key)
    return part if isinstance(part, dict) else {}


def loss_side(found, key):
    side = section(section(found, "worker_loss"), key)
    return side if isinstance(side.get("pct"), (int, float)) else None


TITLES = ("seed 001: interrupts per GiB paged out", "seed 001: worker loss during page-out",
          "seed 000: flushloop INVLPGB / IPI throughput")


def qualifier(why):
    return caveats.qualifier(why) or "a hardware answer"


def fmt_ci(mean, lo, hi, unit=""):
    if lo is None:
        return f"{mean:.0f}{unit}"
    return f"{mean:.0f}{unit} [{lo:.0f}, {hi:.0f}]"


class Claims:
    """The seeds' claims over several runs of one setup."""

    def __init__(self, runs, confidence=0.95):
        self.runs = runs
        self.confidence = confidence
        self.missing = caveats.missing(runs)
        self.read = [r for r in runs if caveats.findings_record(r) is not None]
        self.per_run = [guest_findings(r) for r in self.read]

    def tags(self, key):
        return caveats.union(self.read, key)

    def interrupt_lines(self):
        got = [f["interrupts"] for f in self.per_run if isinstance(f.get("interrupts"), dict)
               and all(isinstance(f["interrupts"].get(k), (int, float)) for k in IRQ_KEYS)]
        if not got:
            return ["no data: no per-page and batch 512 reclaim records"]
        lines = []
        for q in sorted({tuple(q[k] for k in IRQ_KEYS) for q in got}):
            q = dict(zip(IRQ_KEYS, q))
            lines.append(f"per-page {q['per_page_per_gib']:,}, batch 512 "
                         f"{q['batch512_per_gib']:,} per GiB paged out: {q['ratio']:.2f}x "
                         f"fewer (the seed's arithmetic for {q['targets']} targets: "
                         f"{q['seed_per_page_per_gib']:,} and {q['seed_batch512_per_gib']:,})")
        runs = "every run" if len(got) == len(self.runs) else f"{len(got)} runs"
        lines.append(f"exact counts, an answer on any machine ({runs})")
        return lines

    def loss_lines(self):
        sides = {k: [s for s in (loss_side(f, k) for f in self.per_run) if s]
                 for k in ("per_page", "batch512")}
        if not any(sides.values()):
            return ["no data: no per-page or batch 512 reclaim records"]
        lines = []
        for key, name in (("per_page", "per-page"), ("batch512", "batch 512")):
            got = sides[key]
            if not got:
                lines.append(f"{name}: not measured")
            elif len(got) == 1:
                s = got[0]
                within = (f"{s['pct']}% [{s['lo_pct']}, {s['hi_pct']}] within the one boot "
                          "(batch means over its timeline's blocks)" if "lo_pct" in s else
                          f"{s['pct']}% (one run, no interval)")
                lines.append(f"{name}: {within}")
            else:
                mean, lo, hi = stats.mean_ci([s["pct"] for s in got], self.confidence)
                # A worker cannot lose more than all its reads (as the guest's cap).
                lines.append(f"{name}: " + fmt_ci(mean, lo, min(hi, 100.0), "%") +
                             f" over {len(got)} runs")
        both = [loss_side(f, "per_page")["pct"] - loss_side(f, "batch512")["pct"]
                for f in self.per_run
                if loss_side(f, "per_page") and loss_side(f, "batch512")]
        if both:
            lines.append("per-page - batch 512: " + fmt_ci(
                *stats.mean_ci(both, self.confidence), " points") +
                (f" over {len(both)} runs" if len(both) > 1 else " (one run, no interval)"))
        lines.append(SEED_LOSS)
        return lines

    def throughput_lines(self):
        ratios = {}
        for f in self.per_run:
            rows = section(f, "throughput").get("rows")
            for row in rows if isinstance(rows, list) else []:
                ok = isinstance(row, dict) and all(
                    isinstance(row.get(k), (int, float)) and row[k] > 0
                    for k in ("cpus", "ipi_ops_per_s", "invlpgb_ops_per_s"))
                if ok:
                    ratios.setdefault(row["cpus"], []).append(
                        row["invlpgb_ops_per_s"] / row["ipi_ops_per_s"])
        if not ratios:
            why = next((section(f, "throughput").get("no_data") for f in self.per_run
                        if isinstance(section(f, "throughput").get("no_data"), str)),
                       "no flushloop records")
            return [f"no data: {why}"]
        ipi = next(section(f, "throughput").get("ipi") for f in self.per_run
                   if section(f, "throughput").get("rows"))
        lines = []
        for cpus in sorted(ratios):
            t = stats.paired_test(ratios[cpus], self.confidence)
            ci = "" if t.ci is None else \
                f" [{1 + t.ci[0] / 100:.2f}, {1 + t.ci[1] / 100:.2f}]"
            note = f" over {len(ratios[cpus])} runs" if t.ci else f" ({t.why})"
            lines.append(f"{cpus} cpus: invlpgb / {ipi} = {t.ratio:.2f}{ci}{note}")
        lines.append(SEED_TPUT)
        return lines

    def sections(self):
        """[(title, qualifier, lines)], as Answer.sections()."""
        if not self.read:
            gone = [caveats.NO_FINDINGS]
            return [(title, "no data", gone) for title in TITLES]
        left = [f"left out: {', '.join(self.missing)} ({caveats.NO_FINDINGS})"] \
            if self.missing else []
        return [(TITLES[0], "exact counts", self.interrupt_lines() + left),
                (TITLES[1], qualifier(self.tags("worker_loss")), self.loss_lines() + left),
                (TITLES[2], qualifier(self.tags("throughput")),
                 self.throughput_lines() + left)]

    def render(self):
        return sections.text(self.sections())

    def markdown(self):
        return sections.markdown(self.sections())

    def as_json(self):
        return {"per_run": self.per_run, "sections": sections.as_json(self.sections())}
