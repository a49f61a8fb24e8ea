"""checklog's checks of what a run claims: the findings record's ceiling
and worker loss against their documented form and ranges, the K* of the
flush ceiling against the curve they were read from, and the caveats
against the env record (docs/findings.md, "Findings";
docs/records.md, "ceiling").

Each function returns a list of (record, problem) pairs; checklog reports
them at the record's line. A record that claims what its own env record
contradicts (hardware figures under QEMU TCG) is as wrong as one with a
field missing: the host tools print what it claims.
"""

import json

TCG_SIGNATURE = "TCGTCGTCGTCG"
TCG_TAG = "QEMU TCG"
NOT_HARDWARE = "not a hardware answer here: "
WHERE = ("at", "below", "above")
WAYS = ("local", "unicast", "broadcast", "invlpgb")
# worker_loss_pct is 100 - 100 x rate(during) / rate(before): at most 100
# (every read lost). It is negative where the workers read faster during
# the page-out, and has no lower bound but the guest's int64: a worker
# whose vCPU the host left unscheduled in the window before reads almost
# nothing there, and its minimum comes out at -94433 (seen on a loaded
# 2-core host with 4 vCPUs). That is an honest figure of a bad baseline,
# which the interval reports, not a malformed record.
LOSS_PCT_MIN, LOSS_PCT_MAX = -(1 << 63), 100
# The reclaim result fields that are such a percentage.
LOSS_RESULT_FIELDS = ("worker_loss_pct", "worker_loss_min_pct", "worker_loss_median_pct",
                      "worker_loss_lo_pct", "worker_loss_hi_pct", "worker_after_loss_pct",
                      "worker_after_loss_lo_pct", "worker_after_loss_hi_pct")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _show(v):
    return json.dumps(v)[:40]


def loss_problem(v):
    """Why v is not a worker-loss percentage, or None."""
    if not _is_int(v):
        return f"must be an integer percentage (is {_show(v)})"
    if not LOSS_PCT_MIN <= v <= LOSS_PCT_MAX:
        return f"must be a percentage in [{LOSS_PCT_MIN}, {LOSS_PCT_MAX}] (is {v})"
    return None


def loss_side(name, v):
    """Problems of findings.worker_loss.per_page or .batch512: null, or
    {pct, and lo_pct with hi_pct around it}."""
    if v is None:
        return []
    if not isinstance(v, dict):
        return [f"worker_loss.{name} must be an object or null (is {_show(v)})"]
    probs = []
    keys = ("pct",) + tuple(k for k in ("lo_pct", "hi_pct") if k in v)
    for k in keys:
        why = loss_problem(v.get(k))
        if why:
            probs.append(f"worker_loss.{name}.{k} {why}")
    if ("lo_pct" in v) != ("hi_pct" in v):
        probs.append(f"worker_loss.{name}: lo_pct and hi_pct come together")
    elif not probs and "lo_pct" in v and not v["lo_pct"] <= v["pct"] <= v["hi_pct"]:
        probs.append(f"worker_loss.{name}: lo_pct <= pct <= hi_pct does not hold")
    return probs


def result_loss(rec):
    """Problems of a reclaim result's loss percentages (where present)."""
    return [f"field '{k}' {loss_problem(rec[k])}" for k in LOSS_RESULT_FIELDS
            if rec.get(k) is not None and loss_problem(rec[k])]


def _tags(v):
    return v if isinstance(v, list) and all(isinstance(t, str) and t for t in v) else None


def ceiling_finding(v):
    """Problems of findings.ceiling: {no_data: WHY}, or the answer's way,
    K* with its interval and where each lies, its points and tags."""
    if not isinstance(v, dict):
        return [f"ceiling must be an object (is {_show(v)})"]
    if "no_data" in v:
        return [] if isinstance(v["no_data"], str) and v["no_data"] else \
            ["ceiling.no_data must be a non-empty string"]
    probs = []
    if v.get("way") not in WAYS:
        probs.append(f"ceiling.way must be one of {', '.join(WAYS)} (is {_show(v.get('way'))})")
    if v.get("currency") != "initiator":
        probs.append("ceiling.currency must be \"initiator\"")
    if v.get("linux_pos") != "not determined: one run":
        probs.append("ceiling.linux_pos must be \"not determined: one run\"")
    if not (_is_int(v.get("w")) and v["w"] >= 1):
        probs.append(f"ceiling.w must be an integer >= 1 (is {_show(v.get('w'))})")
    if _tags(v.get("not_hardware")) is None:
        probs.append("ceiling.not_hardware must be a list of tags")
    probs += [f"ceiling: {p}" for p in k_triple(v)]
    if "k_3us" in v or "k_3us_where" in v:
        probs += [f"ceiling: {p}" for p in k_fields(v, ("k_3us",))]
    points = v.get("points")
    if not isinstance(points, list) or not points:
        probs.append("ceiling.points must be a non-empty list")
        return probs
    for i, p in enumerate(points):
        if not isinstance(p, dict) or not (_is_int(p.get("w")) and p["w"] >= 1):
            probs.append(f"ceiling.points[{i}] must be an object with w >= 1")
            continue
        probs += [f"ceiling.points[{i}]: {q}" for q in k_triple(p)]
    return probs


def k_fields(obj, names):
    """Each K named: an integer >= 0 with its _where."""
    probs = []
    for k in names:
        if not (_is_int(obj.get(k)) and obj[k] >= 0):
            probs.append(f"{k} must be an integer >= 0 (is {_show(obj.get(k))})")
        if obj.get(k + "_where") not in WHERE:
            probs.append(f"{k}_where must be one of {', '.join(WHERE)}")
    return probs


def k_triple(obj):
    """k_lo, k, k_hi: each a K with its _where, in order."""
    probs = k_fields(obj, ("k_lo", "k", "k_hi"))
    if not probs and not obj["k_lo"] <= obj["k"] <= obj["k_hi"]:
        probs.append("k_lo <= k <= k_hi does not hold")
    return probs


def curve_range(rec):
    """(fewest K, most K) of a ceiling record's curve, or a problem."""
    curve = rec.get("curve")
    if not isinstance(curve, list):
        return None
    ks = []
    for e in curve:
        if not (isinstance(e, list) and len(e) == 4 and all(_is_int(x) and x >= 0 for x in e)):
            return f"a curve entry that is not [k, p50, p50_lo, p50_hi]: {_show(e)}"
        ks.append(e[0])
    if not ks:
        return None
    if any(a >= b for a, b in zip(ks, ks[1:])) or ks[0] < 1:
        return "the curve's k are not 1 or more, in increasing order"
    return ks[0], ks[-1]


def k_in_range(obj, names, span, label):
    """Each K against the curve: within it, and at its ends when below or
    above (the guest reports the end it passed)."""
    lo, hi = span
    probs = []
    for k in names:
        v, where = obj.get(k), obj.get(k + "_where")
        if not _is_int(v):
            continue
        if not lo <= v <= hi:
            probs.append(f"{label}{k} {v} is outside the K measured ({lo} to {hi})")
        elif (where == "below" and v != lo) or (where == "above" and v != hi):
            probs.append(f"{label}{k} {v} is {where} the curve, so it must be "
                         f"{lo if where == 'below' else hi}")
    return probs


def ceiling_ks(rec):
    """A ceiling record's K* (points, k_3us) against its own curve."""
    span = curve_range(rec)
    if isinstance(span, str):
        return [span]
    points = rec.get("points") if isinstance(rec.get("points"), list) else []
    points = [p for p in points if isinstance(p, dict)]
    if span is None:
        return ["points without a curve to read their K from"] if points else []
    probs = k_in_range(rec, ("k_3us",), span, "")
    for i, p in enumerate(points):
        probs += k_in_range(p, ("k_lo", "k", "k_hi"), span, f"points[{i}]: ")
    return probs


def findings_ks(rec, ceilings):
    """findings.ceiling's K* against the curve of its way's record."""
    c = rec.get("ceiling")
    if not isinstance(c, dict) or "no_data" in c or c.get("way") not in WAYS:
        return []
    mine = [r for r in ceilings if r.get("way") == c["way"]]
    if not mine:
        return [f"ceiling: way {c['way']} has no ceiling record to read its K from"]
    span = curve_range(mine[-1])
    if not isinstance(span, tuple):
        return []
    probs = k_in_range(c, ("k_lo", "k", "k_hi", "k_3us"), span, "ceiling.")
    for i, p in enumerate(c.get("points") if isinstance(c.get("points"), list) else []):
        if isinstance(p, dict):
            probs += k_in_range(p, ("k_lo", "k", "k_hi"), span, f"ceiling.points[{i}].")
    return probs


def has_data(name, f):
    """True when the finding carries figures (and so its caveats)."""
    if not isinstance(f, dict) or "no_data" in f:
        return False
    if name == "worker_loss":
        return f.get("per_page") is not None or f.get("batch512") is not None
    if name == "throughput":
        return bool(f.get("rows"))
    if name == "crossover":
        return _is_int(f.get("cells")) and f["cells"] > 0
    return True


def ceiling_tags(rec):
    """The tags of a ceiling record's not_hardware string."""
    s = rec.get("not_hardware")
    if not isinstance(s, str) or not s.startswith(NOT_HARDWARE):
        return []
    return [t.strip() for t in s[len(NOT_HARDWARE):].split(",")]


def env_claims(env, records):
    """(record, problem) pairs: the caveats against the env's hypervisor.
    Under QEMU TCG every figure is the emulator's: no ceiling record may
    claim the hardware's, and the run's caveats and every finding with
    figures carry the tag; elsewhere no record may carry it."""
    if not isinstance(env, dict) or "hypervisor" not in env:
        return []
    tcg = env["hypervisor"] == TCG_SIGNATURE
    say = f"env hypervisor is {_show(env['hypervisor'])}"
    out = []
    for rec in records:
        kind = rec.get("type")
        if kind == "ceiling":
            tags = ceiling_tags(rec)
            if tcg and rec.get("hardware") is not False:
                out.append((rec, f"ceiling: hardware is {_show(rec.get('hardware'))} but {say}"))
            elif tcg and TCG_TAG not in tags:
                out.append((rec, f"ceiling: not_hardware lacks \"{TCG_TAG}\" but {say}"))
            elif not tcg and TCG_TAG in tags:
                out.append((rec, f"ceiling: not_hardware says \"{TCG_TAG}\" but {say}"))
        elif kind == "findings":
            out += [(rec, f"findings: {p}") for p in findings_tcg(rec, tcg, say)]
    return out


def findings_tcg(rec, tcg, say):
    """The findings record's caveats and each finding's not_hardware."""
    probs = []
    lists = [("caveats", rec.get("caveats"), "caveats" in rec)]
    lists += [(f"{k}.not_hardware", rec[k].get("not_hardware"), has_data(k, rec[k]))
              for k in ("crossover", "ceiling", "worker_loss", "throughput")
              if isinstance(rec.get(k), dict)]
    for name, tags, due in lists:
        tags = _tags(tags) or []
        if tcg and due and TCG_TAG not in tags:
            probs.append(f"{name} lacks \"{TCG_TAG}\" but {say}")
        elif not tcg and TCG_TAG in tags:
            probs.append(f"{name} says \"{TCG_TAG}\" but {say}")
    return probs


def findings_shape(rec):
    """The ceiling's and the worker loss's shape and ranges (checklog's
    field check asks only that they are there)."""
    probs = ceiling_finding(rec["ceiling"]) if isinstance(rec.get("ceiling"), dict) else []
    loss = rec.get("worker_loss")
    if isinstance(loss, dict):
        probs += [p for side in ("per_page", "batch512") for p in loss_side(side, loss.get(side))]
    return probs


def claims(env, records):
    """Every (record, problem) of this module over a log's records."""
    out = env_claims(env, records)
    ceilings = [r for r in records if r.get("type") == "ceiling"]
    for rec in records:
        kind = rec.get("type")
        if kind == "ceiling":
            out += [(rec, f"ceiling: {p}") for p in ceiling_ks(rec)]
        elif kind == "findings":
            out += [(rec, f"findings: {p}") for p in findings_shape(rec)]
            out += [(rec, f"findings: {p}") for p in findings_ks(rec, ceilings)]
        elif kind == "result" and rec.get("bench") == "reclaim":
            out += [(rec, f"result: {p}") for p in result_loss(rec)]
    return out
