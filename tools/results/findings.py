"""The findings beyond the crossover map: the seeds' claims, per run and
pooled over runs, and the guest's own findings record.

At the end of every run the guest decides its findings from its own
records (bench/findings_calc.c) and prints them as `INFO: findings:` lines
and one `findings` record. run_findings() makes the same decisions from the
run's printed records with the same integer arithmetic, so that the guest
and this tool agree on that one run (tests/qemu/test_results.py holds them
to it): change both together.

Claims pools several runs for `answer`, the run being the unit (as compare
and answer do): a number over runs gets Student's t interval over the runs'
values; one run has only what the run itself measured (the loss's interval
over the timeline's bins, where the run has one), and says so.
"""

import stats
from answer import Answer, NOT_HARDWARE, caveats

GIB_PAGES = 262144          # 4 KiB pages in a GiB
PMD_PAGES = 512
SEED_LOSS = "seed 001: about 53% per-page, about 0 batched"
SEED_TPUT = ("seed 000: 1157k / 527k = 2.20 at 36 cores on Milan, with an LRU drain "
             "removed too (INVLPGB alone: 1.00)")
# The guest's caveat tags, in its order (bench/findings_calc.c).
CAVEATS = ("INVLPGB emulated", "delayed", "QEMU TCG", "RDTSC trapped", "hypervisor",
           "CPUs take turns")
FLUSHLOOP_IPIS = ("ipi-range", "ipi-page")


def ratio_x100(num, den):
    """bench/stats.c stats_ratio_x100: num / den in hundredths, rounded."""
    return (num * 100 + den // 2) // den


def caveat_tags(run, recs):
    """The guest's caveat tags of a finding that rests on recs: answer's
    caveats() (the one rule on the host), its per-strategy `delayed` tags
    as the guest's one, in the guest's order."""
    return ordered({"delayed" if tag.endswith(" delayed") else tag
                    for tag, _ in caveats([run], recs)})


def ordered(tags):
    return [t for t in CAVEATS if t in tags]


def first(run, bench, pred):
    return next((r for r in run.results(bench) if pred(r)), None)


def reclaim_rec(run, strategy, batch):
    return first(run, "reclaim", lambda r: r.get("strategy") == strategy and
                 (r.get("batch") or 0) == batch and r.get("pages"))


def flushloop_rec(run, strategy, cpus):
    return first(run, "flushloop", lambda r: r.get("strategy") == strategy and
                 (r.get("cpus") or 0) == cpus and r.get("ops_per_s"))


def has(run, bench, strategy):
    return any(r.get("strategy") == strategy for r in run.results(bench))


def invlpgb_cpuid(run):
    return bool(((run.env or {}).get("features") or {}).get("invlpgb_cpuid"))


def crossover(run):
    """The guest's crossover finding of one run."""
    ans = Answer([run])
    out = {"ipi": ans.ipi, "invlpgb": ans.invlpgb, "cells": len(ans.cells)}
    if not has(run, "shootdown", ans.invlpgb):
        out["no_data"] = ("no invlpgb records (strategies= or invlpgb=off?)"
                          if invlpgb_cpuid(run) else
                          "no invlpgb records: CPUID has no INVLPGB here")
    elif not has(run, "shootdown", ans.ipi):
        out["no_data"] = "no IPI records (unicast) to compare INVLPGB with"
    elif not ans.cells:
        out["no_data"] = "no (pages, targets) cell measured both ways"
    front = {}
    for c in ans.cells:
        lean = front.setdefault(c.pages, None)
        if c.lean() == "invlpgb" and (lean is None or c.targets < lean):
            front[c.pages] = c.targets
    out["frontier"] = [{"pages": p, "lean_from": t} for p, t in front.items()]
    out["linux_slower"] = sum(1 for c in ans.cells if c.lean() != c.linux)
    out["not_hardware"] = caveat_tags(
        run, [r for c in ans.cells for _, i, b in c.pairs for r in (i, b)]) if ans.cells else []
    return out


def flush_ceiling(run):
    """The guest's ceiling finding: the answer point of its own ceiling
    records (the guest decides the ceiling; the host only reads it)."""
    recs = [r for r in run.records if r.get("type") == "ceiling"]
    if not recs:
        return {"no_data": "no refill records: primitives did not run"}
    found = next(((r, p) for r in recs for p in r.get("points", []) if p.get("answer")), None)
    if found is None:
        return {"no_data": "no way had both its flushes and the refill measured "
                "(bench=primitives,shootdown)"}
    rec, p = found
    keys = ("k", "k_where", "k_lo", "k_lo_where", "k_hi", "k_hi_where")
    got = {"way": rec["way"], "currency": rec.get("currency"), "w": p["w"],
           "linux_pos": p.get("linux_pos"),
           "points": [{"w": q["w"], **{k: q[k] for k in keys}} for q in rec["points"]]}
    got.update({k: p[k] for k in keys})
    if "k_3us" in rec:
        got["k_3us"], got["k_3us_where"] = rec["k_3us"], rec.get("k_3us_where")
    # The answer way is never INVLPGB: of the records it rests on, only
    # their delay markers count (bench/ceiling_run.c caveats_of(false)).
    delays = [{"strategy": r["strategy"], "delay_cycles": r["delay_cycles"]}
              for r in run.results("shootdown") if r.get("delay_cycles") and
              r.get("strategy") in ("ipi-range", "ipi-full", "invlpgb")]
    got["not_hardware"] = caveat_tags(run, delays)
    return got


def interrupts(run):
    pp, b512 = reclaim_rec(run, "per-page", 1), reclaim_rec(run, "batch", PMD_PAGES)
    if not pp or not b512:
        return None
    per_page = pp.get("irqs_received", 0) * GIB_PAGES // pp["pages"]
    batch = b512.get("irqs_received", 0) * GIB_PAGES // b512["pages"]
    return {"targets": pp["targets"], "per_page_per_gib": per_page,
            "batch512_per_gib": batch, "seed_per_page_per_gib": GIB_PAGES * pp["targets"],
            "seed_batch512_per_gib": GIB_PAGES // PMD_PAGES * b512["targets"],
            "ratio": ratio_x100(per_page, batch) / 100 if batch else 0}


def loss_side(rec):
    if not rec or "worker_loss_pct" not in rec:
        return None
    out = {"pct": rec["worker_loss_pct"]}
    if "worker_loss_lo_pct" in rec and "worker_loss_hi_pct" in rec:
        out["lo_pct"], out["hi_pct"] = rec["worker_loss_lo_pct"], rec["worker_loss_hi_pct"]
    return out


def worker_loss(run):
    recs = [reclaim_rec(run, "per-page", 1), reclaim_rec(run, "batch", PMD_PAGES)]
    sides = [loss_side(r) for r in recs]
    tags = caveat_tags(run, [r for r, s in zip(recs, sides) if s]) if any(sides) else []
    return {"per_page": sides[0], "batch512": sides[1], "not_hardware": tags}


def throughput(run):
    ipi = FLUSHLOOP_IPIS[0] if has(run, "flushloop", FLUSHLOOP_IPIS[0]) else FLUSHLOOP_IPIS[1]
    rows, recs, seen = [], [], set()
    for r in run.results("flushloop"):
        cpus = r.get("cpus") or 0
        if r.get("strategy") != "invlpgb" or cpus in seen or \
                flushloop_rec(run, "invlpgb", cpus) is not r:
            continue
        other = flushloop_rec(run, ipi, cpus)
        if not other:
            continue
        seen.add(cpus)
        recs += [r, other]
        rows.append({"cpus": cpus, "ipi_ops_per_s": other["ops_per_s"],
                     "invlpgb_ops_per_s": r["ops_per_s"],
                     "ratio": ratio_x100(r["ops_per_s"], other["ops_per_s"]) / 100})
    out = {"ipi": ipi}
    if not has(run, "flushloop", "invlpgb"):
        out["no_data"] = ("no invlpgb records" if invlpgb_cpuid(run) else
                          "no invlpgb records: CPUID has no INVLPGB here")
    elif not rows:
        out["no_data"] = "no CPU count measured both ways"
    out["rows"] = rows
    out["not_hardware"] = caveat_tags(run, recs) if rows else []
    return out


def run_findings(run):
    """The findings the guest prints for this run, as its record's fields
    (without type, seq and the record counts)."""
    return {"crossover": crossover(run), "ceiling": flush_ceiling(run),
            "interrupts": interrupts(run),
            "worker_loss": worker_loss(run), "throughput": throughput(run)}


def guest_findings(run):
    """The run's own findings record (without type, seq and the record
    counts), or None."""
    rec = next((r for r in run.records if r.get("type") == "findings"), None)
    if rec is None:
        return None
    return {k: v for k, v in rec.items() if k not in ("type", "seq", "records",
                                                       "records_dropped")}


def qualifier(tags):
    return NOT_HARDWARE + ", ".join(tags) if tags else "a hardware answer"


def fmt_ci(mean, lo, hi, unit=""):
    if lo is None:
        return f"{mean:.0f}{unit}"
    return f"{mean:.0f}{unit} [{lo:.0f}, {hi:.0f}]"


class Claims:
    """The seeds' claims over several runs of one setup."""

    def __init__(self, runs, confidence=0.95):
        self.runs = runs
        self.confidence = confidence
        self.per_run = [run_findings(r) for r in runs]

    def tags(self, key):
        return ordered({t for f in self.per_run for t in (f[key] or {}).get("not_hardware", [])})

    def interrupt_lines(self):
        got = [f["interrupts"] for f in self.per_run if f["interrupts"]]
        if not got:
            return ["no data: no per-page and batch 512 reclaim records"]
        lines = []
        for q in sorted({tuple(sorted(q.items())) for q in got}):
            q = dict(q)
            lines.append(f"per-page {q['per_page_per_gib']:,}, batch 512 "
                         f"{q['batch512_per_gib']:,} per GiB paged out: {q['ratio']:.2f}x "
                         f"fewer (the seed's arithmetic for {q['targets']} targets: "
                         f"{q['seed_per_page_per_gib']:,} and {q['seed_batch512_per_gib']:,})")
        runs = "every run" if len(got) == len(self.runs) else f"{len(got)} runs"
        lines.append(f"exact counts, an answer on any machine ({runs})")
        return lines

    def loss_lines(self):
        sides = {k: [f["worker_loss"][k] for f in self.per_run if f["worker_loss"][k]]
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
                          "(over its timeline's bins)" if "lo_pct" in s else
                          f"{s['pct']}% (one run, no interval)")
                lines.append(f"{name}: {within}")
            else:
                mean, lo, hi = stats.mean_ci([s["pct"] for s in got], self.confidence)
                # A worker cannot lose more than all its reads (as the guest's cap).
                lines.append(f"{name}: " + fmt_ci(mean, lo, min(hi, 100.0), "%") +
                             f" over {len(got)} runs")
        both = [(f["worker_loss"]["per_page"]["pct"] - f["worker_loss"]["batch512"]["pct"])
                for f in self.per_run
                if f["worker_loss"]["per_page"] and f["worker_loss"]["batch512"]]
        if both:
            lines.append("per-page - batch 512: " + fmt_ci(
                *stats.mean_ci(both, self.confidence), " points") +
                (f" over {len(both)} runs" if len(both) > 1 else " (one run, no interval)"))
        lines.append(SEED_LOSS)
        return lines

    def throughput_lines(self):
        ratios = {}
        for f in self.per_run:
            for row in f["throughput"]["rows"]:
                ratios.setdefault(row["cpus"], []).append(
                    row["invlpgb_ops_per_s"] / row["ipi_ops_per_s"])
        if not ratios:
            why = next((f["throughput"].get("no_data") for f in self.per_run
                        if f["throughput"].get("no_data")), "no flushloop records")
            return [f"no data: {why}"]
        ipi = self.per_run[0]["throughput"]["ipi"]
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
        return [("seed 001: interrupts per GiB paged out", "exact counts",
                 self.interrupt_lines()),
                ("seed 001: worker loss during page-out",
                 qualifier(self.tags("worker_loss")), self.loss_lines()),
                ("seed 000: flushloop INVLPGB / IPI throughput",
                 qualifier(self.tags("throughput")), self.throughput_lines())]

    def render(self):
        lines = []
        for title, q, body in self.sections():
            lines += ["", f"{title}:", f"  {q}:"] + ["    " + b for b in body]
        return "\n".join(lines)

    def markdown(self):
        lines = []
        for title, q, body in self.sections():
            lines += ["", f"## {title[0].upper()}{title[1:]}", "", f"**{q}**", ""]
            lines += [f"- {b}" for b in body]
        return "\n".join(lines) + "\n"

    def as_json(self):
        return {"per_run": self.per_run,
                "sections": [{"title": t, "qualifier": q, "lines": b}
                             for t, q, b in self.sections()]}
