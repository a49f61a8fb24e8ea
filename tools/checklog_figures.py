"""The FIGURE lines (docs/findings.md, "Figures") against the records they
restate: the findings record and the shootdown result records.

Each line is `FIGURE: <name> = <value> <unit>`; a figure a caveat touches
is `FIGURE: <name> (not hardware) = <value> <unit> -- not a hardware answer
here: TAG, TAG`, its tags those of the finding it restates (a shootdown
timing: the run's timing caveats and its record's own). A line no record
gives, a value or caveat other than its record's, a name twice, more lines
than the kernel prints at most: each a problem. Where a log has FIGURE lines at all (builds
before them have none), a figure its records give but no line states is a
problem too. Without records (output=human) only the lines' form is checked.
"""

import re

FIGURE_RE = re.compile(r"FIGURE: (?P<name>\S[^=]*?) = (?P<value>-?[0-9]+(?:\.[0-9]+)?) "
                       r"(?P<unit>\S+)(?: -- (?P<caveat>\S.*))?")
# bench/figures.c FIGURE_NOT_HARDWARE; bench/caveats.c's text and tags.
NOT_HARDWARE = " (not hardware)"
CAVEAT_TEXT = "not a hardware answer here: "
EMULATED, DELAYED = "INVLPGB emulated", "delayed"  # a record's own caveats
# bench/figures.c: FIGURES_MAX lines, FIGURES_P50_MAX of them timings.
FIGURES_MAX, FIGURES_P50_MAX = 40, 16
NAME_MAX = 99


def _x100(v):
    return f"{v:.2f}" if isinstance(v, (int, float)) else None


def _obj(value):
    """value if a JSON object, else {}: a field of another type (checklog
    names it) gives no figure, not a crash."""
    return value if isinstance(value, dict) else {}


def _tags(value):
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def findings_figures(f):
    """{name: (value, unit, caveat tags)} that a findings record gives."""
    out = {}
    cross = _obj(f.get("crossover"))
    if cross.get("cells"):
        out["crossover: cells where linux picks the slower way"] = \
            (str(cross.get("linux_slower")), "cells", _tags(cross.get("not_hardware")))
    irqs = f.get("interrupts")
    if isinstance(irqs, dict):  # counts: exact anywhere, no caveat
        out["interrupts per gib: per-page"] = (str(irqs.get("per_page_per_gib")), "interrupts",
                                               [])
        out["interrupts per gib: batch 512"] = (str(irqs.get("batch512_per_gib")), "interrupts",
                                                [])
        out["interrupts per gib: per-page / batch 512"] = (_x100(irqs.get("ratio")), "x", [])
    loss = _obj(f.get("worker_loss"))
    for key, name in (("per_page", "per-page"), ("batch512", "batch 512")):
        if isinstance(loss.get(key), dict):
            out[f"worker loss: {name}"] = (str(loss[key].get("pct")), "%",
                                           _tags(loss.get("not_hardware")))
    tput = _obj(f.get("throughput"))
    rows = tput.get("rows") if isinstance(tput.get("rows"), list) else []
    for row in map(_obj, rows):
        cpus = row.get("cpus")
        out[f"flushloop: invlpgb / {tput.get('ipi')}: {cpus} cpu{'' if cpus == 1 else 's'}"] = \
            (_x100(row.get("ratio")), "x", _tags(tput.get("not_hardware")))
    ceil = _obj(f.get("ceiling"))
    if ceil.get("k_where") == "at":  # a bound is no number: no line
        out[f"flush ceiling: {ceil.get('way')}: k* at w {ceil.get('w')}"] = \
            (str(ceil.get("k")), "pages", _tags(ceil.get("not_hardware")))
    return out


def p50_figures(results, timing):
    """{name: (value, unit, caveat tags)} of the shootdown timings, chosen
    as bench/figures.c chooses them: each strategy's first record at its
    most targets, at its fewest and its most pages; timing: the run's
    timing caveats (the findings record's), after the record's own."""
    shoot = [r for r in results if r.get("bench") == "shootdown" and
             isinstance(r.get("strategy"), str)]
    span = {}
    for r in shoot:
        t, lo, hi = span.get(r["strategy"], (0, None, 0))
        span[r["strategy"]] = (max(t, r["targets"]),
                               r["pages"] if lo is None else min(lo, r["pages"]),
                               max(hi, r["pages"]))
    out, seen = {}, set()
    for r in shoot:
        t, lo, hi = span[r["strategy"]]
        cell = (r["strategy"], r["pages"])
        if r["targets"] != t or cell in seen or r["pages"] not in (lo, hi):
            continue
        seen.add(cell)
        if len(out) == FIGURES_P50_MAX:
            break
        name = (f"shootdown: {r['strategy']}: {r['pages']} page{'' if r['pages'] == 1 else 's'}"
                f", {t} targets: p50")
        own = [EMULATED] * (r.get("emulated") is True) + [DELAYED] * bool(r.get("delay_cycles"))
        out[name] = (str(r.get("p50")), "cycles", own + [t for t in timing if t not in own])
    return out


def stated(records):
    """{name as the line says it: (value, unit, caveat text or None)} of
    every figure the records give, in the kernel's order; None without a
    findings record."""
    fnd = [r for r in records if r.get("type") == "findings"]
    if not fnd:
        return None
    base = findings_figures(fnd[-1])
    results = [r for r in records if r.get("type") == "result" and
               isinstance(r.get("pages"), int) and isinstance(r.get("targets"), int)]
    for name, v in p50_figures(results, _tags(fnd[-1].get("caveats"))).items():
        if len(base) < FIGURES_MAX:
            base[name] = v
    return {name + NOT_HARDWARE * bool(tags): (value, unit, CAVEAT_TEXT + ", ".join(tags)
                                                if tags else None)
            for name, (value, unit, tags) in base.items()}


def expected(records):
    """{name: (value, unit)} of every figure the records give (the name as
    the line says it), or None without a findings record."""
    want = stated(records)
    return None if want is None else {k: (v, u) for k, (v, u, _) in want.items()}


def line(name, value, unit, caveat=None):
    """The FIGURE line the kernel prints (report_figure)."""
    return f"FIGURE: {name} = {value} {unit}" + (f" -- {caveat}" if caveat else "")


def check(rep):
    """Adds the FIGURE lines' problems to rep (a checklog Report)."""
    lines = [line for line in rep.lines if line.startswith("FIGURE: ")]
    said = {}
    for text in lines:
        m = FIGURE_RE.fullmatch(text)
        if not m:
            rep.problem(None, f"malformed FIGURE line (not 'FIGURE: <name> = <number> "
                        f"<unit>'): {text[:70]!r}")
            continue
        name = m.group("name")
        if name.endswith(NOT_HARDWARE) != bool(m.group("caveat")):
            rep.problem(None, f"FIGURE {name!r}: a caveat goes with a name ending in "
                        f"{NOT_HARDWARE.strip()!r}, and only there")
        if len(name) > NAME_MAX:
            rep.problem(None, f"FIGURE name longer than {NAME_MAX} characters: {name[:40]!r}...")
        if name in said:
            rep.problem(None, f"FIGURE {name!r} stated twice")
        said[name] = (m.group("value"), m.group("unit"), m.group("caveat"))
    if len(lines) > FIGURES_MAX:
        rep.problem(None, f"{len(lines)} FIGURE lines, more than the {FIGURES_MAX} the kernel prints")
    if not rep.records:
        return
    want = stated(rep.records)
    if want is None:
        for name in said:
            rep.problem(None, f"FIGURE {name!r} without a findings record to restate")
        return
    for name, got in said.items():
        if name not in want:
            rep.problem(None, f"FIGURE {name!r}: no record gives it")
        elif want[name][:2] != got[:2]:
            rep.problem(None, f"FIGURE {name!r} = {got[0]} {got[1]}, but its record says "
                        f"{want[name][0]} {want[name][1]}")
        elif want[name][2] != got[2]:
            rep.problem(None, f"FIGURE {name!r}: caveat {got[2]!r}, but its records say "
                        f"{want[name][2]!r}")
    if said:
        for name in want:
            if name not in said:
                rep.problem(None, f"FIGURE {name!r}: its record gives it, but no line states it")
