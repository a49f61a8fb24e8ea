"""checklog's checks of one record at a time against what it claims: the
reclaim timeline and its result, the env record's consistency (idle, the
APIC fence, the TSC), histograms and raw samples, the result records'
counts, the findings' pairs and the ceiling, and schema 2's verdict
names. checklog.py calls them as it reads a log.
"""

import json
import re

import checklog_claims  # noqa: E402
import experiments  # noqa: E402
import timeline_codec  # noqa: E402
import verdictline  # noqa: E402
from checklog_fields import *  # noqa: F401,F403  (the fields and value checks)
from checklog_fields import _is_int  # noqa: F401


def check_findings_pairs(rec, results):
    """The crossover's pairs against the records they name (results: seq
    -> result record seen before the findings): each names a shootdown
    record of its cell, the IPI one of the strategy compared and the
    INVLPGB one of the other; `cells` counts them."""
    cross = rec.get("crossover")
    if not isinstance(cross, dict) or "pairs" not in cross:
        return []
    pairs = cross["pairs"]
    if not isinstance(pairs, list):
        return ["crossover: field 'pairs' must be a list"]
    probs = []
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 5 and all(_is_int(x) and x >= 0 for x in p)
                and p[4] in (0, 1)):
            probs.append(f"crossover: a pair that is not [pages, targets, seq, seq, 0|1]: "
                         f"{json.dumps(p)[:80]}")
            continue
        for seq, want in ((p[2], cross.get("ipi")), (p[3], cross.get("invlpgb"))):
            got = results.get(seq)
            if got is None or got.get("bench") != "shootdown" or \
                    got.get("strategy") != want or \
                    (got.get("pages"), got.get("targets")) != (p[0], p[1]):
                probs.append(f"crossover: pair {json.dumps(p)} names record {seq}, which is "
                             f"not a shootdown {want} record of pages {p[0]} targets {p[1]}")
    dropped = cross.get("pairs_dropped", 0)
    if _is_int(cross.get("cells")) and _is_int(dropped) and \
            cross["cells"] != len(pairs) + dropped:
        probs.append(f"crossover: cells {cross['cells']} but {len(pairs)} pairs and "
                     f"{dropped} dropped")
    return probs


def check_ceiling(rec):
    """Problems of a ceiling record: its fields, each point's, the order of
    the intervals, and a reason wherever a figure is not the hardware's or
    missing."""
    probs = check_fields(rec, CEILING_FIELDS)
    if rec.get("hardware") is False and \
            not str(rec.get("not_hardware", "")).startswith("not a hardware answer here: "):
        probs.append("hardware is false but not_hardware does not say why")
    points = rec.get("points") if isinstance(rec.get("points"), list) else []
    if not points and not rec.get("why_not"):
        probs.append("no points and no why_not")
    for i, p in enumerate(points):
        if not isinstance(p, dict):
            probs.append(f"points[{i}] must be an object")
            continue
        probs += [f"points[{i}]: {q}" for q in check_fields(p, CEILING_POINT_FIELDS)]
        if all(_is_int(p.get(k)) for k in ("full_lo", "full_p50", "full_hi")) and \
                not p["full_lo"] <= p["full_p50"] <= p["full_hi"]:
            probs.append(f"points[{i}]: full_lo <= full_p50 <= full_hi does not hold")
        if all(_is_int(p.get(k)) for k in ("k_lo", "k", "k_hi")) and \
                not p["k_lo"] <= p["k"] <= p["k_hi"]:
            probs.append(f"points[{i}]: k_lo <= k <= k_hi does not hold")
    return probs


# Summary fields only some runs have (primitives and shootdown both ran).


def decode_timeline(rec):
    """{series: counts} of a timeline record (reads: a list), or a
    problem string."""
    try:
        out = {k: timeline_codec.decode(rec[k]) for k in ("time", "pages")}
        out["reads"] = [timeline_codec.decode(s) for s in rec["reads"]]
        if rec.get("reads_all") is not None:
            out["reads_all"] = timeline_codec.decode(rec["reads_all"])
    except timeline_codec.DecodeError as e:
        return f"a series does not decode: {e}"
    return out


def check_timeline(rec, fields=TIMELINE_FIELDS):
    """Problems of one timeline record: fields, every series as long as the
    bins, the page-out's bins spanning pageout_us and holding every page
    (fields: the Linux side's page-out has its own, checklog_linux)."""
    probs = check_fields(rec, fields)
    if probs:
        return probs, None
    s = decode_timeline(rec)
    if isinstance(s, str):
        return [s], None
    nb, nd = rec["before"], rec["during"]
    n = nb + nd + rec["after"]
    series = [("time", s["time"]), ("pages", s["pages"])] + \
        [(f"reads[{i}]", r) for i, r in enumerate(s["reads"])] + \
        ([("reads_all", s["reads_all"])] if "reads_all" in s else [])
    for name, v in series:
        if len(v) != n:
            probs.append(f"{name} has {len(v)} bins, not before + during + after = {n}")
    if probs:
        return probs, None
    if len(s["reads"]) != min(rec["workers"], TIMELINE_SHOWN):
        probs.append(f"{len(s['reads'])} reads series for {rec['workers']} workers")
    if sum(s["time"][nb:nb + nd]) != rec["pageout_us"]:
        probs.append(f"the page-out's bins span {sum(s['time'][nb:nb + nd])} us, not "
                     f"pageout_us {rec['pageout_us']}")
    if sum(s["pages"][:nb]) or sum(s["pages"][nb + nd:]):
        probs.append("pages paged out in the bins before or after the page-out")
    return probs, s


def check_timeline_result(tl, s, res):
    """Problems between a timeline and the reclaim result of its pass."""
    probs, nb, nd = [], tl["before"], tl["during"]
    label = " ".join(str(tl[k]) for k in ("strategy", "batch", "workload") if k in tl)
    if sum(s["pages"][nb:nb + nd]) != res.get("pages"):
        probs.append(f"{label}: the bins page out {sum(s['pages'][nb:nb + nd])} pages, "
                     f"the result {res.get('pages')}")
    total = s.get("reads_all") or [sum(c) for c in zip(*s["reads"])]
    during = sum(total[nb:nb + nd]) * tl["reads_unit"]
    if _is_int(res.get("worker_reads_during")) and during != res["worker_reads_during"]:
        probs.append(f"{label}: the workers' bins in the page-out sum to {during} reads, "
                     f"the result's worker_reads_during is {res['worker_reads_during']}")
    if _is_int(res.get("pageout_us")) and abs(res["pageout_us"] - tl["pageout_us"]) > 1:
        probs.append(f"{label}: the timeline's page-out is {tl['pageout_us']} us, the "
                     f"result's {res['pageout_us']}")
    lo, hi = res.get("worker_loss_lo_pct"), res.get("worker_loss_hi_pct")
    if (lo is None) != (hi is None) or \
            (lo is not None and not lo <= res.get("worker_loss_pct", lo) <= hi):
        probs.append(f"{label}: worker_loss_pct {res.get('worker_loss_pct')} is not "
                     f"within [worker_loss_lo_pct, worker_loss_hi_pct] = [{lo}, {hi}]")
    blocks, eff = tl.get("loss_blocks"), tl.get("loss_effective_bins")
    if (res.get("worker_loss_blocks"), res.get("worker_loss_effective_bins")) != (blocks, eff):
        probs.append(f"{label}: the result's worker_loss_blocks and worker_loss_effective_bins "
                     f"are not the timeline's {blocks} and {eff}")
    # an interval claims at least 5 independent pieces: none with fewer
    enough = _is_int(blocks) and _is_int(eff) and min(blocks, eff) >= TIMELINE_MIN_BLOCKS
    if (lo is not None) != enough or ("loss_no_interval" in tl) != (not enough):
        probs.append(f"{label}: {blocks} blocks and {eff} effective bins, but the loss "
                     f"{'has' if lo is not None else 'has no'} interval"
                     f"{' and no' if 'loss_no_interval' not in tl else ', and a'} reason")
    return probs


def check_env_consistency(rep, env, n):
    """Cross-field sanity of the env record."""
    madt, online = env.get("cpus_madt"), env.get("cpus_online")
    # The boot CPU runs whether the MADT lists it or not: one more at most.
    if _is_int(madt) and _is_int(online) and madt > 0 and online > madt + 1:
        rep.problem(n, f"env: cpus_online {online} > cpus_madt {madt}")
    feats = env.get("features")
    if env.get("apic") == "x2apic" and isinstance(feats, dict) and feats.get("x2apic") is False:
        rep.problem(n, "env: apic is x2apic but features.x2apic is false")
    check_env_fence(rep, env, n)
    check_env_tsc(rep, env, n)
    check_env_idle(rep, env, n)


def check_env_idle(rep, env, n):
    """idle where present: what idle_requested can come to."""
    idle, req = env.get("idle"), env.get("idle_requested")
    if "idle" in env and "idle_requested" not in env:
        rep.problem(n, "env: idle without idle_requested")
    if req in IDLE_OUTCOMES and idle in IDLE_MODES and idle not in IDLE_OUTCOMES[req]:
        rep.problem(n, f"env: idle is {json.dumps(idle)} but idle_requested "
                    f"{json.dumps(req)} can only give "
                    f"{' or '.join(IDLE_OUTCOMES[req])}")


def check_result_idle(rec, env):
    """A result's idle: required, and the env's, once the env has one (a
    build that records it records it everywhere)."""
    if "idle" not in rec:
        return ["missing field 'idle' (the env record has one)"] \
            if env is not None and "idle" in env else []
    if rec["idle"] not in IDLE_MODES:
        return [f"field 'idle' must be one of {', '.join(IDLE_MODES)} "
                f"(is {json.dumps(rec['idle'])})"]
    if env is not None and env.get("idle") in IDLE_MODES and rec["idle"] != env["idle"]:
        return [f"idle is {json.dumps(rec['idle'])} but the env record "
                f"says {json.dumps(env['idle'])}"]
    return []


def check_env_fence(rep, env, n):
    """apic_fence where present: MFENCE;LFENCE before x2APIC ICR writes on
    exactly the x2APIC machines whose CPU is neither AMD nor Hygon."""
    fence = env.get("apic_fence")
    cpu = env.get("cpu")
    if not isinstance(fence, bool) or not isinstance(cpu, dict):
        return
    vendor = cpu.get("vendor")
    want = env.get("apic") == "x2apic" and vendor not in ("AuthenticAMD", "HygonGenuine")
    if fence != want:
        rep.problem(n, f"env: apic_fence is {json.dumps(fence)} with apic "
                    f"{env.get('apic')} on {vendor}: it must be "
                    f"{json.dumps(want)} (x2APIC on a CPU that is neither AMD nor Hygon)")


def check_env_tsc(rep, env, n):
    """The TSC rate against its source's estimate, and the RDTSC verdict
    against its cost."""
    khz, source = env.get("tsc_khz"), env.get("tsc_source")
    if source == "none" and khz is not None:
        rep.problem(n, f"env: tsc_source is \"none\" but tsc_khz is {json.dumps(khz)}")
    if source in TSC_SOURCES and khz is None:
        rep.problem(n, f"env: tsc_khz is null but tsc_source is {json.dumps(source)}")
    est = env.get("tsc_estimates")
    if isinstance(est, dict) and source in TSC_SOURCES and _is_int(khz) \
            and est.get(source) != khz:
        rep.problem(n, f"env: tsc_khz {khz} is not tsc_estimates.{source} "
                    f"({json.dumps(est.get(source))})")
    cycles, trapped = env.get("rdtsc_cycles"), env.get("rdtsc_trapped")
    if _is_int(cycles) and isinstance(trapped, bool) and \
            trapped != (cycles > RDTSC_TRAPPED_CYCLES):
        rep.problem(n, f"env: rdtsc_trapped is {json.dumps(trapped)} but rdtsc_cycles "
                    f"is {cycles} (trapped means above {RDTSC_TRAPPED_CYCLES})")


def hist_lo(v):
    """The largest power of two <= v, 1 for 0."""
    return 1 << (v.bit_length() - 1) if v else 1


def hist_bucket(v, lo):
    """The bucket of v in a histogram from lo (bench/hist.h's rule)."""
    if v < lo:
        return 0
    octave = (v // lo).bit_length() - 1
    base = lo << octave
    q = 0
    while q + 1 < HIST_PER_OCTAVE and v * HIST_Q16[0] >= base * HIST_Q16[q + 1]:
        q += 1
    return min(octave * HIST_PER_OCTAVE + q, HIST_MAX_BUCKETS - 1)


def hist_counts(values, lo):
    """The counts bench/hist.c makes of values, trailing zeros trimmed."""
    counts = [0] * HIST_MAX_BUCKETS
    for v in values:
        counts[hist_bucket(v, lo)] += 1
    while counts and not counts[-1]:
        counts.pop()
    return counts


def check_hist(rec):
    """Problems of a result's hist against its contract and its stats."""
    h = rec["hist"]
    if not isinstance(h, dict):
        return ["field 'hist' must be an object"]
    probs = check_fields(h, {"lo": want_int(1), "per_octave": want_int(1),
                             "counts": want_int_list(HIST_MAX_BUCKETS)})
    if probs:
        return [f"hist: {p}" for p in probs]
    lo, counts, n, mn = h["lo"], h["counts"], rec.get("samples"), rec.get("min")
    if h["per_octave"] != HIST_PER_OCTAVE:
        probs.append(f"hist: per_octave {h['per_octave']}, not {HIST_PER_OCTAVE}")
    if lo & (lo - 1):
        probs.append(f"hist: lo {lo} is not a power of two")
    elif _is_int(mn) and hist_lo(mn) != lo:
        probs.append(f"hist: lo {lo} is not the largest power of two <= min {mn}")
    if not counts or not counts[-1]:
        probs.append("hist: counts must end in a non-zero bucket")
    if _is_int(n) and sum(counts) != n:
        probs.append(f"hist: counts sum to {sum(counts)}, not samples {n}")
    mx = rec.get("max")
    if not probs and _is_int(mx) and hist_bucket(mx, lo) != len(counts) - 1:
        probs.append(f"hist: max {mx} falls in bucket {hist_bucket(mx, lo)}, "
                     f"but the last bucket is {len(counts) - 1}")
    if not probs and _is_int(mn) and counts[hist_bucket(mn, lo)] == 0:
        probs.append(f"hist: min {mn}'s bucket {hist_bucket(mn, lo)} is empty")
    return probs


def check_distribution(rec, required):
    """stddev and hist: both or neither (both required with samples from
    the build that added them on)."""
    have = [k for k in ("stddev", "hist") if k in rec]
    n = rec.get("samples")
    if not have:
        return ["missing fields 'stddev' and 'hist'"] if required and _is_int(n) and n > 0 else []
    if len(have) == 1:
        return [f"field '{have[0]}' without the other of stddev and hist"]
    probs = []
    sd, mn, mx = rec["stddev"], rec.get("min"), rec.get("max")
    if not _is_int(sd) or sd < 0:
        probs.append(f"field 'stddev' must be an integer >= 0 (is {json.dumps(sd)})")
    elif _is_int(mn) and _is_int(mx) and sd > mx - mn:
        probs.append(f"stddev {sd} > max - min {mx - mn}")
    return probs + check_hist(rec)


def check_raw(rep, raws):
    """raw records: each names an earlier result, their values follow one
    another (offsets) and, together, are that result's samples: as many,
    the same min and max, the same histogram."""
    results = {r.get("seq"): r for r in rep.records if r.get("type") == "result"}
    for seq, chunks in raws.items():
        line = chunks[0]["_line"]
        res = results.get(seq)
        if res is None or not res["_line"] < line:
            rep.problem(line, f"raw: result {json.dumps(seq)} is no earlier result record")
            continue
        values = []
        for c in chunks:
            if not isinstance(c.get("values"), list) or c.get("offset") != len(values):
                rep.problem(c["_line"], f"raw: offset {json.dumps(c.get('offset'))} "
                            f"where {len(values)} was due")
                break
            values += c["values"]
        else:
            if len(values) != res.get("samples"):
                rep.problem(line, f"raw: {len(values)} values for result {seq} "
                            f"of {res.get('samples')} samples")
            elif min(values) != res.get("min") or max(values) != res.get("max"):
                rep.problem(line, f"raw: values of result {seq} run {min(values)}.."
                            f"{max(values)}, not min {res.get('min')} .. max {res.get('max')}")
            elif isinstance(res.get("hist"), dict) and \
                    hist_counts(values, hist_lo(min(values))) != res["hist"].get("counts"):
                rep.problem(line, f"raw: values of result {seq} do not make its hist")


# What a result record is, set by its producer (bench/role.h): the roles
# and flush kinds each experiment's records may have. Logs of older builds
# have neither field; a log whose results have one has both on every one.
ROLES = {
    "primitives": ("none", "range", "full", "refill-after-full", "refill-after-range",
                   "roundtrip"),
    "shootdown": ("page", "range", "full", "linux", "variant"),
    "reclaim": ("page", "batch", "variant", "control"),
    "flushloop": ("page", "range", "control"),
}
FLUSH_KINDS = {
    "primitives": ("none", "local", "ipi", "invlpgb"),
    "shootdown": ("ipi", "invlpgb"),
    "reclaim": ("ipi", "invlpgb"),
    "flushloop": ("ipi", "invlpgb", "local"),
}


def check_role(rec):
    """Problems of a result's role and flush kind: known for its bench, and
    a shootdown record's ipi_mode where, and only where, it flushes by IPI."""
    bench, probs = rec.get("bench"), []
    for key, known in (("role", ROLES), ("flush", FLUSH_KINDS)):
        if bench in known and rec.get(key) not in known[bench]:
            probs.append(f"field '{key}' is {json.dumps(rec.get(key))}, not one of "
                         f"{bench}'s: {', '.join(known[bench])}")
    if bench == "shootdown" and rec.get("flush") in ("ipi", "invlpgb") and \
            ("ipi_mode" in rec) != (rec["flush"] == "ipi"):
        probs.append(f"flush {rec['flush']} "
                     f"{'without' if rec['flush'] == 'ipi' else 'with'} an ipi_mode")
    return probs


def check_roles(rep):
    """Each result's role and flush kind (check_role), every result with them
    once one has, and one role and kind to a strategy (and batch) a log."""
    results = [r for r in rep.records if r.get("type") == "result"
               and r.get("bench") in ROLES]
    if not any("role" in r or "flush" in r for r in results):
        return
    seen = {}
    for rec in results:
        if "role" not in rec or "flush" not in rec:
            rep.problem(rec["_line"], "result: no 'role' or 'flush', where the log's "
                        "other results have them")
            continue
        for p in check_role(rec):
            rep.problem(rec["_line"], f"result: {p}")
        key = (rec["bench"], rec.get("strategy"), rec.get("batch"))
        what = seen.setdefault(key, (rec["role"], rec["flush"]))
        if what != (rec["role"], rec["flush"]):
            rep.problem(rec["_line"], f"result: {key[0]} {key[1]} is {rec['role']} "
                        f"{rec['flush']} here, {what[0]} {what[1]} earlier in the log")


def check_vocabulary(rep):
    """The vocabulary record (docs/records.md): at most one, before any
    result; each entry a strategy of shootdown, reclaim or flushloop with
    a role and flush kind known for it, a variant naming an entry of its
    experiment; and each result of those experiments in it, with the role
    and flush kind it gives."""
    vocs = [r for r in rep.records if r.get("type") == "vocabulary"]
    if not vocs:
        return
    voc = vocs[0]
    for extra in vocs[1:]:
        rep.problem(extra["_line"], "a second vocabulary record")
    for key in ("linux_ceiling", "pmd_pages"):
        if not (_is_int(voc.get(key)) and voc[key] > 0):
            rep.problem(voc["_line"], f"vocabulary: field '{key}' must be an integer > 0")
    pages, entries = voc.get("pages"), voc.get("strategies")
    if not (isinstance(pages, list) and pages and all(_is_int(p) and p > 0 for p in pages)):
        rep.problem(voc["_line"], "vocabulary: field 'pages' must be a list of page counts")
    if not isinstance(entries, list) or not entries:
        rep.problem(voc["_line"], "vocabulary: field 'strategies' must be a non-empty list")
        return
    names = {(e.get("bench"), e.get("strategy")) for e in entries if isinstance(e, dict)}
    for e in entries:
        bench = e.get("bench") if isinstance(e, dict) else None
        if bench not in ("shootdown", "reclaim", "flushloop") or \
                not isinstance(e.get("strategy"), str) or not e["strategy"]:
            rep.problem(voc["_line"], f"vocabulary: entry {json.dumps(e)} names no "
                        "strategy of shootdown, reclaim or flushloop")
            continue
        for p in check_role(dict(e, ipi_mode="-") if e.get("flush") == "ipi" else e):
            rep.problem(voc["_line"], f"vocabulary: {e['strategy']}: {p}")
        for key in ("global", "variant_of"):
            if key in e and (bench, e[key]) not in names:
                rep.problem(voc["_line"], f"vocabulary: {e['strategy']}: {key} "
                            f"{json.dumps(e[key])} is no {bench} strategy of it")
    for rec in rep.records:
        if rec.get("type") != "result" or rec.get("bench") not in ("shootdown", "reclaim",
                                                                   "flushloop"):
            continue
        if rec["_line"] < voc["_line"]:
            rep.problem(rec["_line"], "result: before the vocabulary record")
        e = next((e for e in entries if isinstance(e, dict) and e.get("bench") == rec["bench"]
                  and e.get("strategy") == rec.get("strategy")
                  and e.get("batch", rec.get("batch")) == rec.get("batch")), None)
        if e is None:
            continue  # tools/experiments.py names it (check_records)
        if "role" in rec and (rec["role"], rec.get("flush")) != (e.get("role"), e.get("flush")):
            rep.problem(rec["_line"], f"result: {rec['bench']} {rec.get('strategy')} is "
                        f"{rec['role']} {rec.get('flush')}, the vocabulary says "
                        f"{e.get('role')} {e.get('flush')}")


def check_result(rec, dist_required=False):
    """Problems of one result record: fields, and the statistics in order."""
    probs = check_fields(rec, RESULT_FIELDS)
    empty = rec.get("samples") == 0
    stats = {}
    for key in STATS:
        if key not in rec:
            probs.append(f"missing field '{key}'")
        elif rec[key] is None and empty:
            continue
        elif not _is_int(rec[key]):
            probs.append(f"field '{key}' must be an integer (is {json.dumps(rec[key])})")
        else:
            stats[key] = rec[key]
    order = [k for k in ("min", "p50", "p90", "p99", "max") if k in stats]
    for a, b in zip(order, order[1:]):
        if stats[a] > stats[b]:
            probs.append(f"{a} {stats[a]} > {b} {stats[b]}")
    if all(k in stats for k in ("min", "mean", "max")) and \
            not stats["min"] <= stats["mean"] <= stats["max"]:
        probs.append(f"mean {stats['mean']} outside [min, max]")
    for key, val in rec.items():
        if key.startswith("ns_") and val is not None and \
                (not isinstance(val, (int, float)) or isinstance(val, bool)):
            probs.append(f"field '{key}' must be a number or null")
    if "emulated" in rec and not isinstance(rec["emulated"], bool):
        probs.append("field 'emulated' must be true or false")
    probs += check_entry_counts(rec)
    probs += check_flushloop_counts(rec)
    probs += check_distribution(rec, dist_required)
    if "delay_cycles" in rec and not (_is_int(rec["delay_cycles"]) and rec["delay_cycles"] > 0
                                      and rec.get("bench") == "shootdown"):
        probs.append("field 'delay_cycles' must be an integer > 0, in shootdown records only")
    return probs + check_handler_fields(rec)


# primitives' local invalidations (docs/experiments.md): samples timed with
# every entry of the range cached, and after which every one was dropped.
# Logs of older builds do not have them: checked where present.
ENTRY_COUNTS = ("cached", "dropped")


def check_entry_counts(rec):
    """Problems of a primitives record's cached/dropped counts."""
    probs = []
    if rec.get("bench") != "primitives":
        return probs
    for key in ENTRY_COUNTS:
        val = rec.get(key)
        if val is None:
            continue
        if not _is_int(val) or val < 0:
            probs.append(f"field '{key}' must be a count (is {json.dumps(val)})")
        elif _is_int(rec.get("samples")) and val > rec["samples"]:
            probs.append(f"field '{key}' {val} > samples {rec['samples']}")
    return probs


# flushloop's counters (docs/experiments.md); remote_reads and
# stale_remote_reads (the cross-CPU check) are not in logs of older builds:
# checked where present.
FLUSHLOOP_COUNTS = ("nonzero_reads", "failed_ops", "remote_reads",
                    "stale_remote_reads")


def check_flushloop_counts(rec):
    """Problems of a flushloop record's counters: counts, and no more stale
    reads of other CPUs' pages than reads of them."""
    probs = []
    if rec.get("bench") != "flushloop":
        return probs
    for key in FLUSHLOOP_COUNTS:
        val = rec.get(key)
        if val is not None and (not _is_int(val) or val < 0):
            probs.append(f"field '{key}' must be a count (is {json.dumps(val)})")
    reads, stale = rec.get("remote_reads"), rec.get("stale_remote_reads")
    if (reads is None) != (stale is None):
        probs.append("remote_reads and stale_remote_reads come together")
    elif _is_int(reads) and _is_int(stale) and 0 <= reads < stale:
        probs.append(f"field 'stale_remote_reads' {stale} > remote_reads {reads}")
    return probs


def check_handler_fields(rec):
    """handler_timing=on's fields: all three integers in order, or none."""
    have = [k for k in HANDLER_FIELDS if k in rec]
    if not have:
        return []
    if len(have) != len(HANDLER_FIELDS):
        return [f"handler fields {', '.join(have)} without the others"]
    vals = [rec[k] for k in HANDLER_FIELDS]
    if not all(_is_int(v) and v >= 0 for v in vals):
        return [f"handler fields must be integers >= 0 (are {vals})"]
    if not vals[0] <= vals[1] <= vals[2]:
        return [f"handler_p50 {vals[0]} <= handler_p99 {vals[1]} <= "
                f"handler_max {vals[2]} does not hold"]
    return []


def check_names(rep, first):
    """Schema 2 verdict names (docs/output.md, "Verdict names"): the name
    ends at ' -- ', which every FAIL and SKIP line has; no name is over
    verdictline.NAME_MAX characters or holds a measured number. Logs of
    schema 1 had no such promise and are read as they are."""
    schema = (rep.env or {}).get("schema")
    if not isinstance(schema, int):
        return
    if schema < 2:
        check_schema1_names(rep, first, schema)
        return
    allowed = verdictline.parameters(rep.env, rep.records)
    for n, line in enumerate(rep.lines, first + 1):
        v = verdictline.split(line)
        if not v:
            continue
        if v[0] != "PASS" and verdictline.DETAIL not in line:
            rep.problem(n, f"{v[0]} line without ' -- ' after its name: {line[:60]!r}")
            continue
        for why in verdictline.name_problems(v[1], allowed):
            rep.problem(n, f"{v[0]} {v[1][:60]!r}: {why}")


def check_schema1_names(rep, first, schema):
    """A log that says schema 1 but ends its names at ' -- ' is a schema 2
    log relabelled (or a build that misreports its schema): either way the
    names' promise would go unchecked, so it is a contradiction."""
    for n, line in enumerate(rep.lines, first + 1):
        if verdictline.split(line) and verdictline.DETAIL in line:
            rep.problem(n, f"env says schema {schema}, but this verdict line has "
                        f"schema 2's ' -- ': {line[:60]!r}")
            return
