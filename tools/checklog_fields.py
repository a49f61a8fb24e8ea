"""checklog's value checks (each returns None when fine, else what is wrong)
and the fields each record type must carry (docs/records.md): the one
description of a record that checklog.py, checklog_records.py and
checklog_linux.py read.
"""

import json
import re

import experiments  # (the strategies, one list for the host tools)
import record_types  # noqa: F401  (the typed reader's kinds)

STATS = ("min", "p50", "p90", "p99", "max", "mean")
BOOT_PATHS = ("multiboot1", "multiboot2-bios", "multiboot2-efi")


# --- value checks: each returns None when fine, else what is wrong ---------

def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def want_int(minimum=None, nullable=False):
    """An integer (not a bool), at least `minimum`, or null if allowed."""
    def check(v):
        if v is None and nullable:
            return None
        if not _is_int(v):
            return "must be an integer" + (" or null" if nullable else "")
        if minimum is not None and v < minimum:
            return f"must be >= {minimum}"
        return None
    return check


def want_int_list(max_len):
    """A list of at most max_len integers, each >= 0."""
    def check(v):
        if not isinstance(v, list) or not all(_is_int(x) and x >= 0 for x in v):
            return "must be a list of integers >= 0"
        if len(v) > max_len:
            return f"must hold at most {max_len} values"
        return None
    return check


def want_str(nullable=False, nonempty=False):
    """A string (non-empty if asked), or null if allowed."""
    def check(v):
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            return "must be a string" + (" or null" if nullable else "")
        if nonempty and not v:
            return "must not be empty"
        return None
    return check


def want_bool(nullable=False):
    """true or false, or null if allowed."""
    def check(v):
        if v is None and nullable:
            return None
        if not isinstance(v, bool):
            return "must be true or false" + (" or null" if nullable else "")
        return None
    return check


def want_choice(*choices, nullable=False):
    """One of the given strings, or null if allowed."""
    def check(v):
        if v is None and nullable:
            return None
        if v not in choices:
            return "must be one of " + ", ".join(choices)
        return None
    return check


def want_object(fields):
    """An object with (at least) the given fields, each checked."""
    def check(v):
        if not isinstance(v, dict):
            return "must be an object"
        probs = check_fields(v, fields)
        return "; ".join(probs) if probs else None
    return check


def want_hex_or_int(v):
    """An address: an integer or a "0x..." string."""
    if _is_int(v) or (isinstance(v, str) and re.fullmatch(r"0x[0-9a-fA-F]+", v)):
        return None
    return 'must be an integer or a "0x..." string'


def check_fields(obj, fields):
    """Problems of obj against {name: check}: missing fields, bad values."""
    probs = []
    for name, check in fields.items():
        if name not in obj:
            probs.append(f"missing field '{name}'")
            continue
        why = check(obj[name])
        if why:
            probs.append(f"field '{name}' {why} (is {json.dumps(obj[name])})")
    return probs


# The sources of a TSC rate, as env tsc_source and the keys of
# tsc_estimates name them (docs/output.md, "The TSC rate").
TSC_SOURCES = ("hpet", "pmtimer", "pit", "cpuid-15h", "hypervisor", "cpuid-16h")
# rdtsc_trapped is rdtsc_cycles above this (kernel/tsc_estimate.h).
RDTSC_TRAPPED_CYCLES = 500
# The idle loops of the CPUs other than 0 (env and result "idle").
IDLE_MODES = ("poll", "hlt", "mwait")

# The fields each record type must have (docs/records.md). Where a
# value may be unknown on some machine, null is allowed.
ENV_FIELDS = {
    "schema": want_int(1),
    "version": want_str(nonempty=True),
    "cmdline": want_str(),
    "boot": want_choice(*BOOT_PATHS),
    "cpu": want_object({
        "vendor": want_str(),
        "family": want_int(0),
        "model": want_int(0),
        "stepping": want_int(0),
        "brand": want_str(),
    }),
    "hypervisor": want_str(nullable=True),
    "cpus_madt": want_int(0, nullable=True),
    "cpus_online": want_int(1),
    "apic": want_choice("xapic", "x2apic"),
    "tsc_khz": want_int(1, nullable=True),
    "tsc_source": want_choice(*TSC_SOURCES, "none", nullable=True),
    "tsc_invariant": want_bool(),
    "features": want_object({
        "invlpgb": want_bool(),
        "invlpgb_max_pages": want_int(0, nullable=True),
        "pcid": want_bool(),
        "invpcid": want_bool(),
        "x2apic": want_bool(),
    }),
    "mem_bytes": want_int(1),
}
def want_hex_str(nullable=False):
    """A "0x..." hex string, or null if allowed."""
    def check(v):
        if v is None and nullable:
            return None
        if not (isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]+", v)):
            return 'must be a "0x..." hex string' + (" or null" if nullable else "")
        return None
    return check


def want_version(v):
    """An SMBIOS version "M.m", or null."""
    if v is None or (isinstance(v, str) and re.fullmatch(r"\d+\.\d+", v)):
        return None
    return 'must be "MAJOR.MINOR" or null'


# The output= modes (docs/output.md); an env record exists only with these.
OUTPUT_MODES = ("both", "human", "json")
OUTPUT_INFO_RE = re.compile(r"^INFO: output: (\S+)")
# Env fields that logs of older builds do not have: checked where present.
ENV_LATER_FIELDS = {
    "tsc_estimates": want_object({k: want_int(1, nullable=True) for k in TSC_SOURCES}),
    "rdtsc_cycles": want_int(0),
    "rdtsc_trapped": want_bool(),
    "cpuid_cycles": want_int(0),
    "cpus_concurrent": want_bool(),
    "cpus_concurrent_why": want_str(nonempty=True),
    "cpus_concurrent_permille": want_int(0),
    "bringup_init_wait": want_bool(),
    "apic_fence": want_bool(),
    "idle": want_choice(*IDLE_MODES),
    "idle_requested": want_choice("auto", *IDLE_MODES),
    "run_id": want_hex_str(),
    "microcode": want_hex_str(nullable=True),
    "output": want_choice("both", "json"),
    "cpus_smbios": lambda v: None if v is None else want_object({
        k: (lambda x: None if x is None or (_is_int(x) and x >= 0) else
            "must be a count or null")
        for k in ("sockets", "sockets_disabled", "cores", "cores_enabled", "threads",
                  "threads_enabled", "cpus_min", "cpus_max")} | {"some_off": want_bool()})(v),
    "smbios": want_object({
        "version": want_version,
        "sys_vendor": want_str(nullable=True),
        "product": want_str(nullable=True),
        "bios_vendor": want_str(nullable=True),
        "bios_version": want_str(nullable=True),
    }),
}
# From the build that added run_id on, every result with samples carries
# its distribution (docs/records.md, "hist").
DIST_SINCE_FIELD = "run_id"
HIST_PER_OCTAVE = 4
HIST_MAX_BUCKETS = 64
# 2^(q/4) in 16.16 fixed point: the bucket edges (bench/hist.h).
HIST_Q16 = (65536, 77936, 92682, 110218)
RAW_FIELDS = {
    "result": want_int(0),
    "offset": want_int(0),
    "values": lambda v: None if isinstance(v, list) and v and
    all(_is_int(x) and x >= 0 for x in v) else "must be a non-empty list of integers >= 0",
}
# What idle_requested may come to (smp/idle.h): mwait without MONITOR
# falls back to hlt; auto polls or halts.
IDLE_OUTCOMES = {"poll": ("poll",), "hlt": ("hlt",), "mwait": ("mwait", "hlt"),
                 "auto": ("poll", "hlt")}
RESULT_FIELDS = {
    "bench": want_choice(*experiments.EXPERIMENTS),
    "strategy": want_str(nonempty=True),
    "samples": want_int(0),
    "unit": want_choice("cycles"),
}
# tick (docs/records.md): a timeline point of reclaim or flushloop; each
# per-CPU array holds at most TICK_CPUS values (bench/bench.h).
TICK_CPUS = 8
TICK_FIELDS = {
    "bench": want_choice("reclaim", "flushloop"),
    "t_ms": want_int(0),
    "strategy": want_str(nonempty=True),
}
TICK_BENCH_FIELDS = {
    "reclaim": {"pages": want_int(0), "ipis": want_int(0),
                "reads": want_int_list(TICK_CPUS)},
    "flushloop": {"cpus": want_int(1), "ops": want_int_list(TICK_CPUS)},
}
# timeline (docs/records.md): one reclaim reader pass's bins, before, during
# and after its page-out, each series one encoded string.
TIMELINE_SHOWN = 8
TIMELINE_FIELDS = {
    "bench": want_choice("reclaim"),
    "strategy": want_str(nonempty=True),
    "batch": want_int(1),
    "workers": want_int(1),
    "reads_unit": want_int(1),
    "cpus_concurrent": want_bool(),
    "pageout_us": want_int(0),
    "before_us": want_int(1), "before": want_int(0),
    "during_us": want_int(1), "during": want_int(1),
    "after_us": want_int(1), "after": want_int(0),
    "time": want_str(), "pages": want_str(),
    "reads": lambda v: None if isinstance(v, list) and 0 < len(v) <= TIMELINE_SHOWN and
    all(isinstance(s, str) for s in v) else f"must be a list of 1 to {TIMELINE_SHOWN} strings",
    # the batch means behind the loss's interval (bench/rc_timeline.h)
    "loss_blocks": want_int(0), "loss_effective_bins": want_int(0),
}
# Under this many blocks or effective bins a window, no interval.
TIMELINE_MIN_BLOCKS = 5
FAULT_FIELDS = {
    "cpu": want_int(0),
    "vector": want_int(0),
    "rip": want_hex_or_int,
}
_CAVEATS = {"not_hardware": lambda v: None if isinstance(v, list) and
             all(isinstance(x, str) and x for x in v) else "must be a list of tags"}
FINDINGS_FIELDS = {
    "records": want_int(0),
    "records_dropped": want_int(0),
    "crossover": want_object(dict(_CAVEATS, ipi=want_str(nonempty=True),
                                  invlpgb=want_str(nonempty=True), cells=want_int(0),
                                  frontier=lambda v: None if isinstance(v, list) else
                                  "must be a list", linux_slower=want_int(0))),
    "ceiling": want_object({}),  # its shape: checklog_claims, one problem a line
    "interrupts": lambda v: None if v is None else want_object({
        k: want_int(0) for k in ("targets", "per_page_per_gib", "batch512_per_gib",
                                 "seed_per_page_per_gib", "seed_batch512_per_gib")})(v),
    "worker_loss": want_object(dict(_CAVEATS, per_page=lambda v: None,
                                    batch512=lambda v: None)),  # ranges: checklog_claims
    "throughput": want_object(dict(_CAVEATS, ipi=want_str(nonempty=True),
                                   rows=lambda v: None if isinstance(v, list) else
                                   "must be a list")),
}
# Findings fields that logs of older builds do not have: checked where present.
FINDINGS_LATER_FIELDS = {
    "caveats": _CAVEATS["not_hardware"],
    "cpus_concurrent_after": want_bool(nullable=True),
    "cpus_concurrent_after_why": want_str(nonempty=True),
    "cpus_concurrent_after_permille": want_int(0),
}


SUMMARY_FIELDS = {
    "passed": want_int(0),
    "failed": want_int(0),
    "skipped": want_int(0),
    "records": want_int(0),
}
# The flush ceiling (docs/records.md "ceiling"): one record per way, after
# the experiments, each point a working set's K* and its interval.
CEILING_WHERE = ("at", "below", "above")
CEILING_FIELDS = {
    "way": want_choice("local", "unicast", "broadcast", "invlpgb"),
    "targets": want_int(0),
    "linux": want_int(1),
    "l2_tlb": want_int(1),
    "l2_tlb_source": want_choice("cpuid", "assumed"),
    "hardware": want_bool(),
    "currency": want_choice("initiator"),
    "curve": lambda v: None if isinstance(v, list) else "must be a list",
    "points": lambda v: None if isinstance(v, list) else "must be a list",
}
CEILING_POINT_FIELDS = {
    "w": want_int(1), "full_p50": want_int(0), "full_lo": want_int(0),
    "full_hi": want_int(0), "k": want_int(0), "k_where": want_choice(*CEILING_WHERE),
    "k_lo": want_int(0), "k_lo_where": want_choice(*CEILING_WHERE), "k_hi": want_int(0),
    "k_hi_where": want_choice(*CEILING_WHERE),
    # One boot decides nothing about 33 (the host pools runs for that).
    "linux_pos": want_choice("not determined: one run"),
}


SUMMARY_LATER_FIELDS = {
    "protocol_overhead": lambda v: None if isinstance(v, (int, float)) and
    not isinstance(v, bool) and v > 0 else "must be a positive number",
}
# Result fields that come only when asked for (handler_timing=on): all or
# none of them, in order.
HANDLER_FIELDS = ("handler_p50", "handler_p99", "handler_max")
