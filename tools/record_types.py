"""The typed reader of records: the fields the host tools read, and the
type each must have (docs/output.md).

checklog (the contract's reader, under every subcommand) asks it of every
record: a record with a field of another type is a problem, and is kept
only as a stub of type UNREADABLE (its seq kept, so that the records
after it are not also called out of order), so that no check or
subcommand meets a list where it reads a name, or a string where it adds
numbers. The shape of each record type beyond these types is checklog's.
"""

import json

UNREADABLE = "unreadable"
_INT = (int,)
_NUM = (int, float)
_STR, _BOOL, _DICT, _LIST = (str,), (bool,), (dict,), (list,)
NUMBERS = "numbers"    # every field not named is a number (or null)
COMMON_TYPES = {"type": _STR, "seq": _INT, "bench": _STR, "strategy": _STR}
# Per record type: the fields of other types than numbers, and whether
# every other field must be a number.
TYPES = {
    "result": ({"ipi_mode": _STR, "distance": _STR, "idle": _STR, "unit": _STR,
                "not_hardware": _STR, "hist": _DICT, "raw": _LIST, "emulated": _BOOL,
                "overhead_subtracted": _BOOL, "cpus_concurrent": _BOOL}, NUMBERS),
    "tick": ({"ops": _LIST, "reads": _LIST}, NUMBERS),
    "timeline": ({"pages": _STR, "time": _STR, "reads": _LIST, "cpus_concurrent": _BOOL},
                 NUMBERS),
    "summary": ({}, NUMBERS),
    "env": ({k: _STR for k in ("apic", "boot", "cmdline", "cpus_concurrent_why", "idle",
                               "idle_requested", "loader", "microcode", "output", "run_id",
                               "tsc_source", "version", "hypervisor")} |
            {k: _BOOL for k in ("apic_fence", "bringup_init_wait", "cpus_concurrent",
                                "rdtsc_trapped", "tsc_invariant", "tsc_trusted")} |
            {k: _DICT for k in ("cpu", "features", "smbios", "topology", "tsc_estimates")} |
            {k: _INT for k in ("cpus_online", "cpus_madt", "tsc_khz", "mem_bytes",
                               "rdtsc_cycles")}, None),
}
# What every result has (bench/result.c prints them all).
RESULT_REQUIRED = ("bench", "strategy", "pages", "targets", "samples")


def type_name(want):
    return " or ".join(t.__name__ for t in want)


def field_problem(key, v, want):
    """Why field key's value v is not of type want, or None."""
    if not isinstance(v, want) or (isinstance(v, bool) and bool not in want):
        return f"field {key!r} is {json.dumps(v)[:40]}, not {type_name(want)}"
    # Counts and times are never negative; a loss (worker_*) may be.
    if want in (_INT, _NUM) and v < 0 and not key.startswith("worker_"):
        return f"field {key!r} is {v}, below 0"
    return None


def type_problem(rec):
    """Why rec cannot be read (a field of the wrong type, or a result
    without what every result has), or None."""
    kind = rec.get("type")
    if kind == "result":
        missing = [k for k in RESULT_REQUIRED if k not in rec]
        if missing:
            return f"a result record without {', '.join(missing)}"
    named, rest = TYPES.get(kind, ({}, None)) if isinstance(kind, str) else ({}, None)
    for key, v in rec.items():
        want = COMMON_TYPES.get(key) or named.get(key) or (_NUM if rest == NUMBERS else None)
        if want is None or (v is None and not (kind == "result" and key in RESULT_REQUIRED)):
            continue
        why = field_problem(key, v, want)
        if why:
            return why
    return None
