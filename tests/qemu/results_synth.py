"""Synthetic runs for the tests of tools/shootdown.py.

Two uses. (1) Runs made from nothing (make_run), so that compare, table,
plot, tap and junit can be tested with known inputs in a second. (2)
Histograms added to a real run's records (add_hists), following the
kernel's contract exactly ("hist": {"lo", "per_octave": 4, "counts"} and
"stddev"), for as long as the kernel does not print them itself; with a
`shift`, the same records made slower or faster, which is how a known
slowdown is produced until the kernel's test-aid delay key exists.
"""

import json
import math
import random

import timeline

PER_OCTAVE = 4


def hist_of(samples):
    """The kernel's histogram of integer cycle samples: lo a power of two,
    4 buckets an octave, trailing zeros trimmed, at most 64 buckets (the
    slowest samples are put in the last bucket if they would need more)."""
    idx = [math.floor(PER_OCTAVE * math.log2(max(1, v))) for v in samples]
    first = min(idx) // PER_OCTAVE * PER_OCTAVE
    counts = [0] * (min(max(idx), first + 63) - first + 1)
    for g in idx:
        counts[min(g, first + 63) - first] += 1
    return {"lo": 2 ** (first // PER_OCTAVE), "per_octave": PER_OCTAVE, "counts": counts}


def nearest_rank(sorted_values, q):
    """The kernel's percentile."""
    n = len(sorted_values)
    return sorted_values[min(n - 1, max(0, math.ceil(q * n) - 1))]


def draw(rng, n, median, spread):
    """n integer cycle samples, log-normal around median."""
    return sorted(max(1, round(rng.lognormvariate(math.log(median), spread))) for _ in range(n))


def set_stats(rec, samples, ns_per_cycle):
    """rec's statistics, hist and stddev from samples (cycles)."""
    mean = sum(samples) / len(samples)
    stats = {"min": samples[0], "p50": nearest_rank(samples, 0.5),
             "p90": nearest_rank(samples, 0.9), "p99": nearest_rank(samples, 0.99),
             "max": samples[-1], "mean": round(mean)}
    rec.update(stats)
    if ns_per_cycle:
        rec.update({"ns_" + k: round(v * ns_per_cycle) for k, v in stats.items()})
    rec["samples"] = len(samples)
    rec["stddev"] = round(math.sqrt(sum((v - mean) ** 2 for v in samples) / len(samples)))
    rec["hist"] = hist_of(samples)


def add_hists(records, seed=1, shift=1.0, which=lambda rec: True, max_samples=2000):
    """Real records with synthetic samples drawn around their own p50 (times
    `shift` for those `which` selects), so hist, stddev and the percentiles
    agree. Returns new records; the input is left alone."""
    rng = random.Random(seed)
    out = []
    for rec in records:
        rec = dict(rec)
        if rec.get("type") == "result" and rec.get("samples") and rec.get("p50"):
            p50, p90 = max(1, rec["p50"]), max(1, rec.get("p90") or rec["p50"])
            spread = min(1.0, max(0.03, math.log(max(p90, p50) / p50) / 1.2816))
            factor = shift if which(rec) else 1.0
            ns = rec["ns_p50"] / p50 if rec.get("ns_p50") else None
            n = min(rec["samples"], max_samples)
            set_stats(rec, draw(rng, n, p50 * factor, spread), ns)
        out.append(rec)
    return out


ENV = {"type": "env", "seq": 0, "schema": 1, "version": "synthetic", "cmdline": "bench=all",
       "boot": "multiboot1", "cpu": {"vendor": "AuthenticAMD", "family": 25, "model": 17,
                                     "stepping": 1, "brand": "Synthetic EPYC"},
       "hypervisor": None, "cpus_madt": 4, "cpus_online": 4, "apic": "xapic",
       "tsc_khz": 2000000, "tsc_source": "hpet", "tsc_invariant": True,
       "features": {"invlpgb": True, "invlpgb_max_pages": 8, "pcid": True,
                    "invpcid": True, "x2apic": False}, "mem_bytes": 1 << 30}


def timeline_record(rng, strategy, batch, workers, pages, dip, before=10, during=40,
                    after=10, width=1000):
    """A timeline record (docs/records.md) of workers reading 100 +/- 5
    units a bin, dip times that during the page-out; its "_during_reads"
    is what the result's worker_reads_during must be."""
    import timeline_codec
    n = before + during + after
    time = [width] * n
    page = [0] * before + [pages // during] * during + [0] * after
    page[before + during - 1] += pages - sum(page)
    reads = [[round(rng.randint(95, 105) * (dip if before <= i < before + during else 1))
              for i in range(n)] for _ in range(workers)]
    during_reads = 64 * sum(sum(r[before:before + during]) for r in reads)
    return {"type": "timeline", "bench": "reclaim", "strategy": strategy, "batch": batch,
            "workers": workers, "reads_unit": 64, "cpus_concurrent": True,
            "pageout_us": during * width, "before_us": width, "before": before,
            "during_us": width, "during": during, "after_us": width, "after": after,
            "time": timeline_codec.encode(time), "pages": timeline_codec.encode(page),
            "reads": [timeline_codec.encode(r) for r in reads[:8]],
            "_during_reads": during_reads}


def make_records(seed=1, shift=1.0, which=lambda rec: True, hists=True, cpus=4, launch=1.0,
                 invlpgb=None, emulated=False, env=None, targets=None, caveats=()):
    """A whole run's records: shootdown (2 strategies x 3 page counts x 2
    target counts, plus broadcast), primitives, reclaim with ticks,
    flushloop, summary. 2 GHz TSC: 2 cycles a nanosecond.

    launch: this boot's factor on every time (launch-to-launch variance:
    the samples of one boot share it). invlpgb: None for the default
    invlpgb rows, False for none, or a function (pages, targets) -> median
    cycles. emulated: the invlpgb records' marker. env: fields to set in
    the env record. targets: the shootdown target counts (default 1 and
    cpus - 1). caveats: the machine's tags the findings record carries (the
    guest decides them; here the test says what they are)."""
    rng = random.Random(seed)
    recs = [dict(ENV, cpus_online=cpus, **(env or {}))]

    def result(bench, strategy, median, n=200, spread=0.1, **fields):
        rec = {"type": "result", "seq": len(recs), "bench": bench, "strategy": strategy}
        rec.update(fields)
        rec.update({"samples": n, "unit": "cycles"})
        factor = (shift if which(rec) else 1.0) * launch
        set_stats(rec, draw(rng, n, median * factor, spread), 0.5)
        if not hists:
            del rec["hist"], rec["stddev"]
        recs.append(rec)
        return rec

    result("primitives", "invlpg", 300, pages=1, targets=0, cpu=0)
    result("primitives", "ipi-roundtrip", 3000, pages=0, targets=1, distance="same-ccx", cpu=1)
    for pages in (1, 8, 64):
        for tgt in targets or (1, cpus - 1):
            for strategy, per_page in (("ipi-page", 2000), ("ipi-range", 300)):
                extra = {"distance": "same-ccx"} if tgt == 1 else {}
                result("shootdown", strategy, ipi_cost(pages, tgt, per_page),
                       ipi_mode="unicast", pages=pages, targets=tgt, ipis_sent=1,
                       irqs_received=1, stale_reads=0, **extra)
            if invlpgb is not False:
                cost = invlpgb(pages, tgt) if invlpgb else 4000 + 50 * pages
                result("shootdown", "invlpgb", cost, pages=pages, targets=tgt,
                       ipis_sent=0, irqs_received=0, stale_reads=0, emulated=emulated)
        result("shootdown", "ipi-range", 5500 + 300 * pages, ipi_mode="broadcast",
               pages=pages, targets=cpus - 1, ipis_sent=3, irqs_received=3, stale_reads=0)
    t = 0
    for strategy, batch, irqs, dip in (("per-page", 1, 6144, 0.5), ("batch", 512, 12, 1.0)):
        for _ in range(3):
            t += 1000
            recs.append({"type": "tick", "seq": len(recs), "bench": "reclaim", "t_ms": t,
                         "strategy": strategy, "pages": 100, "ipis": 300,
                         "reads": [rng.randint(500000, 600000) for _ in range(cpus - 1)]})
        tl = timeline_record(rng, strategy, batch, cpus - 1, 2048, dip)
        tl["seq"] = len(recs)
        recs.append(tl)
        bins = timeline.Timeline(tl)
        pct, half = round(100 * (1 - dip)), bins.loss()[1]
        blocks, eff = timeline.batch_means(bins._pair(bins.total, "before"),
                                           bins._pair(bins.total, "during"))
        tl.update(loss_blocks=blocks, loss_effective_bins=eff)
        # the interval only where the bins give one (5 blocks a window)
        ci = {"worker_loss_blocks": blocks, "worker_loss_effective_bins": eff}
        if half is None:
            tl["loss_no_interval"] = "fewer than 5 blocks"
        else:
            ci.update(worker_loss_lo_pct=math.floor(pct - half),
                      worker_loss_hi_pct=math.ceil(pct + half))
        result("reclaim", strategy, 100000 * batch ** 0.5, n=50, pages=2048, targets=cpus - 1,
               batch=batch, ipis_sent=irqs, irqs_received=irqs, flushes=irqs // 3,
               lost_writes=0, worker_loss_pct=pct, worker_after_loss_pct=0,
               worker_reads_during=tl["_during_reads"], pageout_us=tl["pageout_us"],
               reclaim_pages_per_s=20000 * batch ** 0.5, **ci)
        del tl["_during_reads"]
    c = 1
    while True:
        result("flushloop", "ipi-range", 7000 * c, n=500, pages=1, targets=c - 1, cpus=c,
               ops_per_s=300000 // c * c // c, ops_per_s_cpu_min=1000, ops_per_s_cpu_max=2000,
               nonzero_reads=0)
        if c == cpus:
            break
        c = min(cpus, c * 2)
    recs.append(findings_record(recs, caveats))
    recs.append({"type": "summary", "seq": len(recs), "passed": 3, "failed": 0,
                 "skipped": 0, "records": len(recs)})
    return recs


def findings_record(recs, caveats=(), ipi="ipi-range", invlpgb="invlpgb"):
    """The findings record a guest would print after recs, as far as the
    host reads it: the crossover's cells (the first unicast record of each
    (pages, targets) of both strategies; Linux's pick from 4 active CPUs),
    the run's caveat tags, and the findings' own (INVLPGB emulated)."""
    first = {}
    for r in recs:
        if r.get("bench") == "shootdown" and r.get("ipi_mode") in (None, "unicast"):
            first.setdefault((r["strategy"], r["pages"], r["targets"]), r)
    pairs = [[p, t, rec["seq"], first[(invlpgb, p, t)]["seq"], int(t + 1 >= 4)]
             for (s, p, t), rec in first.items() if s == ipi and (invlpgb, p, t) in first]
    emul = any(first[(invlpgb, p, t)].get("emulated") for p, t, *_ in pairs)
    tags = list(caveats)
    cross = {"ipi": ipi, "invlpgb": invlpgb, "cells": len(pairs), "frontier": [],
             "linux_slower": 0, "pairs": pairs,
             "not_hardware": (["INVLPGB emulated"] if emul else []) + tags if pairs else []}
    if not pairs:
        cross["no_data"] = "no invlpgb records: CPUID has no INVLPGB here"
    return {"type": "findings", "seq": len(recs), "records": len(recs), "records_dropped": 0,
            "caveats": tags, "crossover": cross, "ceiling": {"no_data": "synthetic"},
            "interrupts": None, "worker_loss": {"per_page": None, "batch512": None,
                                                "not_hardware": []},
            "throughput": {"ipi": "ipi-range", "rows": [], "no_data": "synthetic",
                           "not_hardware": []}}


def ipi_cost(pages, targets, per_page=300):
    """The median cycles make_records gives an IPI strategy (ipi-range's
    per_page by default)."""
    return 5000 + per_page * pages * targets ** 0.5


def write_jsonl(path, records):
    """records as one JSON object a line."""
    with open(path, "w", encoding="ascii") as f:
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def read_jsonl(path):
    """The records of a JSONL file."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
