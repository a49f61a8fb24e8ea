"""Verdict lines: where a name ends, and the rules names keep.

docs/output.md, "Verdict names": schema 2 writes `KIND: <name> -- <detail>`
(the detail optional for PASS), so the name is everything before the first
` -- `. Schema 1 had no marker: `PASS: <name>` had no detail, and
`FAIL: <name>: <why>` / `SKIP: ...` were cut at the last `: ` (so a reason
holding `: ` left its head in the name). A line without ` -- ` is read the
old way; the kernel of schema 2 writes the marker on every FAIL and SKIP,
so both kinds of log read back exactly as they were written.

Names are keys (TAP, JUnit, LAVA, compare), so schema 2 promises that one
configuration always gives the same names: no measured number in a name.
The rule that can be checked ("Verdict names"): every number in a name is
a parameter of the run (the command line's numbers, the plan's runs, the
CPU counts of the env record) or one of NAME_CONSTANTS.
"""

import re

DETAIL = " -- "
# LAVA's server keeps test case names of at most 100 characters.
NAME_MAX = 99
# Numbers the harness spells in names of its own: 0 (page 0), 0.5 (the
# TSC sources' agreement), 2 (2M pages), 512 (pages a PMD maps), 10000
# (the IPIs of the smp check).
NAME_CONSTANTS = frozenset({"0", "0.5", "2", "512", "10000"})
# A number: digits (with a decimal point inside) that are not part of a
# word, so cr3, CR4.PGE and x2apic are words; 2M and 512x are numbers.
NUMBER_RE = re.compile(r"(?<![A-Za-z0-9.])[0-9]+(?:\.[0-9]+)?")
KINDS = ("PASS", "FAIL", "SKIP")


def split(line):
    """(kind, name, detail) of a PASS/FAIL/SKIP line, else None. detail is
    None for a PASS without one, "" for an old FAIL/SKIP without ': '."""
    for kind in KINDS:
        if not line.startswith(kind + ": "):
            continue
        rest = line[len(kind) + 2:]
        name, sep, detail = rest.partition(DETAIL)
        if sep:
            return kind, name, detail
        if kind == "PASS":
            return kind, rest, None
        name, sep, detail = rest.rpartition(": ")
        return (kind, name, detail) if sep else (kind, rest, "")
    return None


def _ints(value, out):
    """Every integer in a JSON value, as text."""
    if isinstance(value, bool):
        return out
    if isinstance(value, int):
        out.add(str(value))
    elif isinstance(value, dict):
        for v in value.values():
            _ints(v, out)
    elif isinstance(value, list):
        for v in value:
            _ints(v, out)
    return out


def parameters(env, records):
    """The numbers a run's configuration gives: the command line's, the
    plan's runs (not its measured costs) and the env's CPU counts."""
    env = env or {}
    allowed = set(NUMBER_RE.findall(str(env.get("cmdline") or "")))
    for key in ("cpus_online", "cpus_madt"):
        _ints(env.get(key), allowed)
    for rec in records:
        if rec.get("type") == "plan":
            _ints(rec.get("runs"), allowed)
    return allowed


def name_problems(name, allowed):
    """What is wrong with a schema 2 name, as sentences."""
    out = []
    if len(name) > NAME_MAX:
        out.append(f"name of {len(name)} characters (at most {NAME_MAX})")
    bad = [n for n in NUMBER_RE.findall(name)
           if n not in allowed and n not in NAME_CONSTANTS]
    if bad:
        out.append(f"name holds {', '.join(bad)}, which is neither a parameter "
                   "of the run nor a constant: a measured number belongs in the "
                   "detail")
    if name != name.strip() or not name:
        out.append("empty name, or one with spaces at an end")
    return out
