"""The FIGURE lines (docs/findings.md, "Figures") against the records they
restate: the findings record and the shootdown result records.

Each line is `FIGURE: <name> = <value> <unit>`. A line no record gives, a
value other than its record's, a name twice, more lines than the kernel
prints at most: each a problem. Where a log has FIGURE lines at all (builds
before them have none), a figure its records give but no line states is a
problem too. Without records (output=human) only the lines' form is checked.
"""

import re

FIGURE_RE = re.compile(r"FIGURE: (?P<name>\S[^=]*?) = (?P<value>-?[0-9]+(?:\.[0-9]+)?) "
                       r"(?P<unit>\S+)")
# bench/figures.c: FIGURES_MAX lines, FIGURES_P50_MAX of them timings.
FIGURES_MAX, FIGURES_P50_MAX = 40, 16
NAME_MAX = 99


def _x100(v):
    return f"{v:.2f}" if isinstance(v, (int, float)) else None


def findings_figures(f):
    """{name: (value, unit)} that a findings record gives."""
    out = {}
    cross = f.get("crossover") or {}
    if cross.get("cells"):
        out["crossover: cells where linux picks the slower way"] = \
            (str(cross.get("linux_slower")), "cells")
    irqs = f.get("interrupts")
    if isinstance(irqs, dict):
        out["interrupts per gib: per-page"] = (str(irqs.get("per_page_per_gib")), "interrupts")
        out["interrupts per gib: batch 512"] = (str(irqs.get("batch512_per_gib")), "interrupts")
        out["interrupts per gib: per-page / batch 512"] = (_x100(irqs.get("ratio")), "x")
    loss = f.get("worker_loss") or {}
    for key, name in (("per_page", "per-page"), ("batch512", "batch 512")):
        if isinstance(loss.get(key), dict):
            out[f"worker loss: {name}"] = (str(loss[key].get("pct")), "%")
    tput = f.get("throughput") or {}
    for row in tput.get("rows") or []:
        cpus = row.get("cpus")
        out[f"flushloop: invlpgb / {tput.get('ipi')}: {cpus} cpu{'' if cpus == 1 else 's'}"] = \
            (_x100(row.get("ratio")), "x")
    return out


def p50_figures(results):
    """{name: (value, unit)} of the shootdown timings, chosen as
    bench/figures.c chooses them: each strategy's first record at its most
    targets, at its fewest and its most pages."""
    shoot = [r for r in results if r.get("bench") == "shootdown"]
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
        out[name] = (str(r.get("p50")), "cycles")
    return out


def expected(records):
    """Every figure the records give, or None without a findings record."""
    fnd = [r for r in records if r.get("type") == "findings"]
    if not fnd:
        return None
    out = findings_figures(fnd[-1])
    results = [r for r in records if r.get("type") == "result" and
               isinstance(r.get("pages"), int) and isinstance(r.get("targets"), int)]
    for name, v in p50_figures(results).items():
        if len(out) < FIGURES_MAX:
            out[name] = v
    return out


def check(rep):
    """Adds the FIGURE lines' problems to rep (a checklog Report)."""
    lines = [line for line in rep.lines if line.startswith("FIGURE: ")]
    stated = {}
    for line in lines:
        m = FIGURE_RE.fullmatch(line)
        if not m:
            rep.problem(None, f"malformed FIGURE line (not 'FIGURE: <name> = <number> "
                        f"<unit>'): {line[:70]!r}")
            continue
        name = m.group("name")
        if len(name) > NAME_MAX:
            rep.problem(None, f"FIGURE name longer than {NAME_MAX} characters: {name[:40]!r}...")
        if name in stated:
            rep.problem(None, f"FIGURE {name!r} stated twice")
        stated[name] = (m.group("value"), m.group("unit"))
    if len(lines) > FIGURES_MAX:
        rep.problem(None, f"{len(lines)} FIGURE lines, more than the {FIGURES_MAX} the kernel prints")
    if not rep.records:
        return
    want = expected(rep.records)
    if want is None:
        for name in stated:
            rep.problem(None, f"FIGURE {name!r} without a findings record to restate")
        return
    for name, (value, unit) in stated.items():
        if name not in want:
            rep.problem(None, f"FIGURE {name!r}: no record gives it")
        elif want[name] != (value, unit):
            rep.problem(None, f"FIGURE {name!r} = {value} {unit}, but its record says "
                        f"{want[name][0]} {want[name][1]}")
    if stated:
        for name in want:
            if name not in stated:
                rep.problem(None, f"FIGURE {name!r}: its record gives it, but no line states it")
