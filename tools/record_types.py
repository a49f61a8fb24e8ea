"""The typed reader of records: the fields the host tools read, and the
type each must have (docs/records.md).

checklog (the contract's reader, under every subcommand) asks it of every
record: a field of another type is a problem, and the field is not read
(the record is kept without it, so that its seq, and the checks of its
other fields, still count), so that no check or subcommand meets a list
where it reads a name, or a string where it adds numbers. A result
without what every result has is not read by the tools at all
(runs.keep_typed). Ranges and the shape of each record beyond these
types are checklog's.
"""

import json

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
                "overhead_subtracted": _BOOL, "cpus_concurrent": _BOOL,
                "workload": _STR, "role": _STR, "flush": _STR}, NUMBERS),
    "tick": ({"ops": _LIST, "reads": _LIST}, NUMBERS),
    "timeline": ({"pages": _STR, "time": _STR, "reads": _LIST, "reads_all": _STR,
                  "cpus_concurrent": _BOOL, "loss_no_interval": _STR,
                  "loss_block_bins": _LIST, "loss_rho_x1000": _LIST, "workload": _STR} |
                 {k: _NUM for k in ("batch", "workers", "reads_unit", "pageout_us",
                                    "before_us", "before", "during_us", "during",
                                    "after_us", "after", "loss_blocks",
                                    "loss_effective_bins")}, None),
    "summary": ({}, NUMBERS),
    "vocabulary": ({"pages": _LIST, "strategies": _LIST}, NUMBERS),
    "raw": ({"values": _LIST}, NUMBERS),
    "env": ({k: _STR for k in ("apic", "boot", "cmdline", "cpus_concurrent_why", "idle",
                               "idle_requested", "loader", "output", "run_id",
                               "tsc_source", "version", "hypervisor", "side", "kernel",
                               "thp")} |
            {k: _BOOL for k in ("apic_fence", "bringup_init_wait", "cpus_concurrent",
                                "rdtsc_trapped", "tsc_invariant", "tsc_trusted")} |
            {k: _DICT for k in ("cpu", "features", "smbios", "topology", "tsc_estimates",
                                "invlpgb", "swap", "workloads")} |
            {k: _INT for k in ("cpus_online", "cpus_madt", "tsc_khz", "mem_bytes",
                               "rdtsc_cycles")}, None),
}
def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _point(p):
    """A ceiling point: an object whose K fields are counts, wheres names."""
    return isinstance(p, dict) and all(
        _int(p[k]) for k in ("w", "k", "k_lo", "k_hi", "full_p50", "full_lo", "full_hi",
                             "range33") if k in p) and all(
        isinstance(p[k], str) for k in ("k_where", "k_lo_where", "k_hi_where", "linux_pos")
        if k in p)


# Lists whose items the tools read: each item must pass, else the field is
# not read.
ITEMS = {
    ("ceiling", "points"): _point,
    ("ceiling", "curve"): lambda r: isinstance(r, list) and len(r) == 4 and all(map(_int, r)),
    ("raw", "values"): _int,
    ("tick", "reads"): _int,
    ("tick", "ops"): _int,
    ("timeline", "reads"): lambda v: isinstance(v, str),
}
TYPES["ceiling"] = ({"way": _STR, "points": _LIST, "curve": _LIST, "not_hardware": _STR,
                     "hardware": _BOOL, "l2_tlb_source": _STR, "currency": _STR,
                     "why_not": _STR, "k_3us_where": _STR} |
                    {k: _NUM for k in ("targets", "linux", "l2_tlb", "cap_ns", "cap_cycles",
                                       "k_3us")}, None)
# What every result has (bench/result.c prints them all); the Linux
# side's (linux/, docs/linux.md) name their workload instead.
RESULT_REQUIRED = ("bench", "strategy", "pages", "targets", "samples")
LINUX_RESULT_REQUIRED = ("bench", "workload")


def type_name(want):
    return " or ".join(t.__name__ for t in want)


def field_problem(key, v, want):
    """Why field key's value v is not of type want, or None."""
    if not isinstance(v, want) or (isinstance(v, bool) and bool not in want):
        return f"field {key!r} is {json.dumps(v)[:40]}, not {type_name(want)}"
    # The kernel prints 64-bit integers and percentages: nothing larger.
    if isinstance(v, (int, float)) and not isinstance(v, bool) and not abs(v) <= 2 ** 64:
        return f"field {key!r} is {json.dumps(v)[:40]}, beyond 64 bits"
    return None


def type_problems(rec):
    """[(field, why)]: the fields of rec of another type than theirs."""
    kind = rec.get("type") if isinstance(rec.get("type"), str) else None
    named, rest = TYPES.get(kind, ({}, None)) if isinstance(kind, str) else ({}, None)
    out = []
    for key, v in rec.items():
        want = COMMON_TYPES.get(key) or named.get(key) or (_NUM if rest == NUMBERS else None)
        if want is None or v is None:
            continue
        why = field_problem(key, v, want)
        item = ITEMS.get((kind, key))
        if not why and item and not all(item(x) for x in v):
            why = f"field {key!r} holds an item of another shape"
        if why:
            out.append((key, why))
    return out


def missing_required(rec):
    """What a result record lacks of what every result has, or None."""
    if rec.get("type") != "result":
        return None
    need = LINUX_RESULT_REQUIRED if rec.get("bench") == "linux" else RESULT_REQUIRED
    missing = [k for k in need if rec.get(k) is None]
    return f"a result record without {', '.join(missing)}" if missing else None
