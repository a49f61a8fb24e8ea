#!/usr/bin/env python3
"""Check a console log of the harness against docs/output.md.

usage: tools/checklog.py LOG [--expect-status N] [--expect-boot NAME]
                             [--expect-text REGEX ...] [--expect-field K=V ...]
                             [--json OUT]

What is checked:
  - Everything before the first protocol line (firmware and GRUB output,
    ANSI escapes) is skipped; lines may end in \\r\\n or \\n.
  - Protocol lines (PASS/FAIL/SKIP/INFO, @json, SUMMARY, EXIT) are well
    formed, plain printable ASCII. In a schema 2 log every FAIL and SKIP
    ends its name at ' -- ', and no verdict name is over 99 characters or
    holds a number that is not a parameter of the run (docs/output.md,
    "Verdict names"; tools/verdictline.py).
  - Every @json line is one JSON object with "type" and "seq"; seq runs
    0, 1, 2, ... with no gap (a gap means a lost line).
  - The first record is "env" with its fields (tsc_khz is the estimate of
    tsc_source, rdtsc_trapped agrees with rdtsc_cycles, idle is what
    idle_requested can give; the fields of later builds are checked where
    present); "result", "tick", "timeline" and "fault" records have theirs
    (a result carries the env's idle wherever the env has one; a reclaim
    timeline's series decode, have one value a bin, its page-out bins
    span pageout_us and hold every page and read its result reports); at
    most one "findings" record, with its fields, after every result
    record; the last record is "summary", and its counts agree with the
    PASS/FAIL/SKIP lines and with the number of records before it.
  - Where the plan record names its runs: every planned run has its result
    record, and each shootdown and reclaim record's counts follow from its
    strategy and its own pages, batch and responders (tools/experiments.py;
    an experiment a FAIL line names is not held to its plan).
  - What the run claims (tools/checklog_claims.py): the findings record's
    ceiling and worker loss in their documented form and ranges, every K*
    within the K its way's curve measured, and the caveats against the
    env record (no hardware figure, and QEMU TCG tagged, under TCG).
  - Exactly one SUMMARY line, after the last verdict, agreeing with them.
  - EXIT: STATUS=<n> is the last protocol line, and n agrees with the
    verdicts: 0 nothing failed, 1 something failed, 38 everything skipped,
    63 aborted (then a fault or panic report must be there).

Options:
  --expect-status N     the guest's EXIT status must be N (0, 1, 38, 63)
  --expect-boot NAME    env "boot" must be NAME (multiboot1, multiboot2-bios,
                        multiboot2-efi)
  --expect-text REGEX   some line the kernel printed (from its first
                        protocol line on) must match REGEX (re.search)
  --expect-field K=V    env field K (dotted for nesting: features.pcid) must
                        equal the JSON value V (cpus_online=4, apic="xapic")
  --json OUT            write the @json records to OUT, one per line

Prints the problems found, one a line, and exits 1 if there were any, 0 if
the log is clean, 2 if it could not be read. Importable: check_log() and
check_file() return a Report.
"""

import argparse
import json
import re
import sys

# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True
import verdictline  # noqa: E402
from exitcodes import (GUEST_ABORT, GUEST_FAIL, GUEST_PASS, GUEST_SKIP,  # noqa: E402
                       exit_line_status)
import experiments  # noqa: E402  (the strategies, one list for the host tools)
import record_types  # noqa: E402  (the typed reader)
import checklog_claims  # noqa: E402  (what a run claims, against its env)
import timeline_codec  # noqa: E402  (the timeline records' encoding)
import checklog_linux  # noqa: E402  (the Linux side's records, docs/linux.md)

PREFIXES = ("PASS: ", "FAIL: ", "SKIP: ", "INFO: ", "@json ", "SUMMARY: ", "EXIT: ")
# A line that starts like a protocol line but is not one of the forms above
# (e.g. "PASS:x", "@json{...}", "EXIT:STATUS=0") is a kernel bug, not text.
NEAR_MISS_RE = re.compile(r"^(PASS|FAIL|SKIP|INFO|SUMMARY|EXIT)\s*:|^@json")
ANSI_RE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
SUMMARY_RE = re.compile(r"^SUMMARY: (\d+) tests, (\d+) unexpected failures, (\d+) skipped$")
# A report of an abort in a FAIL line: "FAIL: fault: cpu 0: vector 6 ...",
# a panic or a watchdog.
ABORT_FAIL_RE = re.compile(r"^FAIL: (fault|panic|watchdog)\b", re.IGNORECASE)

BOOT_PATHS = ("multiboot1", "multiboot2-bios", "multiboot2-efi")
# The guest's EXIT statuses (tools/exitcodes.py, one table for every tool).
STATUS_PASS, STATUS_FAIL = GUEST_PASS, GUEST_FAIL
STATUS_SKIP, STATUS_ABORT = GUEST_SKIP, GUEST_ABORT
STATS = ("min", "p50", "p90", "p99", "max", "mean")


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

# The fields each record type must have (docs/output.md, "Records"). Where a
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
# its distribution (docs/output.md, "hist").
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
# tick (docs/output.md): a timeline point of reclaim or flushloop; each
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
# timeline (docs/output.md): one reclaim reader pass's bins, before, during
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


SUMMARY_FIELDS = {
    "passed": want_int(0),
    "failed": want_int(0),
    "skipped": want_int(0),
    "records": want_int(0),
}
# The flush ceiling (docs/output.md "ceiling"): one record per way, after
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
SUMMARY_LATER_FIELDS = {
    "protocol_overhead": lambda v: None if isinstance(v, (int, float)) and
    not isinstance(v, bool) and v > 0 else "must be a positive number",
}
# Result fields that come only when asked for (handler_timing=on): all or
# none of them, in order.
HANDLER_FIELDS = ("handler_p50", "handler_p99", "handler_max")


class Report:
    """What check_log found.

    problems: list of strings, empty when the log is clean.
    records:  the parsed @json objects, in order (raw: their text).
    counts:   {"PASS": n, "FAIL": n, "SKIP": n, "INFO": n}.
    status:   the EXIT status (int) or None.
    env:      the env record (dict) or None.
    lines:    the kernel's lines (from the first protocol line on).
    output:   the output= mode the INFO: output: line names, or None (a
              log of an older build, or one cut before that line).
    """

    def __init__(self):
        self.problems = []
        self.records = []
        self.raw = []
        self.counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "INFO": 0}
        self.status = None
        self.env = None
        self.lines = []
        self.output = None

    @property
    def ok(self):
        """True when no problem was found."""
        return not self.problems

    def problem(self, lineno, text):
        """Records one problem; lineno is 1-based in the whole log, or None."""
        self.problems.append(f"line {lineno}: {text}" if lineno else text)


def split_lines(data):
    """The log as text lines: bytes decoded 1:1 (latin-1, so that stray
    bytes can be reported), \\n endings and the \\r before them removed
    (\\r\\n, and the \\r\\r\\n of a console saved from a pty)."""
    if isinstance(data, bytes):
        data = data.decode("latin-1")
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.rstrip("\r") for ln in lines]


def find_start(lines):
    """Index of the first line the kernel printed, and that line cleaned.

    Firmware and GRUB draw with ANSI escapes and carriage returns, and the
    kernel's first line may follow them on the same line: the candidate is
    what is left after removing escapes, taking the text after the last
    \\r. Returns (None, None) when no protocol line is found."""
    for i, line in enumerate(lines):
        clean = ANSI_RE.sub("", line).split("\r")[-1]
        clean = "".join(c for c in clean if c >= " " or c == "\t")
        if clean.startswith(PREFIXES):
            return i, clean
    return None, None


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key '{key}'")
        obj[key] = value
    return obj


def parse_record(text):
    """Parses the JSON after '@json '; returns (object, None) or
    (None, reason)."""
    try:
        dec = json.JSONDecoder(object_pairs_hook=_no_duplicates,
                               parse_constant=_reject_constant)
        obj, end = dec.raw_decode(text)
    except ValueError as exc:
        return None, f"not valid JSON ({exc})"
    except RecursionError:
        return None, "JSON nested too deeply to read"
    if text[end:].strip():
        return None, f"text after the JSON object: {text[end:end + 20]!r}"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    return obj, None


def _unprintable(line):
    """The first byte outside printable ASCII (tab allowed), or None."""
    for c in line:
        if not (" " <= c <= "~" or c == "\t"):
            return c
    return None


def scan_lines(rep, lines, first):
    """Walks the kernel's lines: parses records and verdicts, checks their
    form and their order. Fills rep; returns (summary line numbers and
    matches, exit line numbers and statuses)."""
    summaries, exits = [], []
    summary_record_seen = False
    for i in range(first, len(lines)):
        n = i + 1
        line = lines[i]
        if exits:
            # After EXIT only free text (firmware, a reboot) may follow.
            if line.startswith(PREFIXES):
                rep.problem(n, f"protocol line after EXIT: {line[:60]!r}")
            continue
        rep.lines.append(line)
        bad = _unprintable(line)
        if bad is not None:
            rep.problem(n, f"byte 0x{ord(bad):02x} is not printable ASCII: {line[:60]!r}")
        if line.startswith("@json "):
            obj, why = parse_record(line[6:])
            if why:
                rep.problem(n, f"@json record {why}")
                continue
            seq_expected = len(rep.records)
            if "type" not in obj or not isinstance(obj["type"], str):
                rep.problem(n, "@json record without a string \"type\"")
            if not _is_int(obj.get("seq")):
                rep.problem(n, "@json record without an integer \"seq\"")
            elif obj["seq"] != seq_expected:
                rep.problem(n, f"seq {obj['seq']} where {seq_expected} was due "
                            "(a record lost, repeated or out of order)")
            if summary_record_seen:
                rep.problem(n, "record after the summary record")
            if obj.get("type") == "summary":
                summary_record_seen = True
            for key, why in record_types.type_problems(obj):
                rep.problem(n, f"@json {obj.get('type')!s:.20} record: {why}: not read")
                del obj[key]
            obj["_line"] = n
            rep.records.append(obj)
            rep.raw.append(line[6:])
        elif line.startswith(("PASS: ", "FAIL: ", "SKIP: ")):
            kind, rest = line[:4], line[6:]
            # '<name> -- <why>' (schema 2) or '<name>: <why>' (schema 1).
            if kind != "PASS" and not re.fullmatch(r"\S.*?( -- |: )\S.*", rest):
                rep.problem(n, f"{kind} line without '<name> -- <why>': {line[:60]!r}")
            elif not rest.strip():
                rep.problem(n, f"{kind} line without a name")
            if summaries:
                rep.problem(n, f"{kind} line after the SUMMARY line")
            rep.counts[kind] += 1
        elif line.startswith("INFO: "):
            rep.counts["INFO"] += 1
        elif line.startswith("SUMMARY: "):
            m = SUMMARY_RE.match(line)
            if not m:
                rep.problem(n, f"malformed SUMMARY line: {line[:70]!r}")
            summaries.append((n, m))
        elif line.startswith("EXIT: "):
            status = exit_line_status(line)
            if status is None:
                rep.problem(n, f"malformed EXIT line: {line[:60]!r}")
            exits.append((n, status))
        elif NEAR_MISS_RE.match(line):
            rep.problem(n, f"malformed protocol line: {line[:60]!r}")
    return summaries, exits


def check_records(rep):
    """Checks each record's fields and the env/summary framing."""
    recs = rep.records
    if rep.output == "human":
        # output=human prints no record: nothing to check but their absence.
        for rec in recs[:1]:
            rep.problem(rec["_line"], "a record in an output=human log")
        return
    if not recs:
        rep.problem(None, "no @json records")
        return
    dist = DIST_SINCE_FIELD in recs[0] and recs[0].get("type") == "env"
    raws, timelines, results = {}, {}, {}
    findings = []
    if recs[0].get("type") != "env":
        rep.problem(recs[0]["_line"], f"first record is {recs[0].get('type')!r}, not 'env'")
    for rec in recs:
        kind, n = rec.get("type"), rec["_line"]
        if kind == "env":
            if rec is not recs[0]:
                rep.problem(n, "a second env record")
                continue
            rep.env = rec
            if checklog_linux.is_linux_env(rec):
                for p in checklog_linux.check_env(rec, sys.modules[__name__]):
                    rep.problem(n, f"env: {p}")
                continue
            for p in check_fields(rec, ENV_FIELDS):
                rep.problem(n, f"env: {p}")
            later = {k: v for k, v in ENV_LATER_FIELDS.items() if k in rec}
            for p in check_fields(rec, later):
                rep.problem(n, f"env: {p}")
            check_env_consistency(rep, rec, n)
            if "output" in rec and rep.output is not None and rec["output"] != rep.output:
                rep.problem(n, f"env: output is {json.dumps(rec['output'])} but the "
                            f"INFO: output: line says {rep.output}")
        elif kind == "result" and rec.get("bench") == "linux":
            for p in checklog_linux.check_result(rec, rep.env, sys.modules[__name__]):
                rep.problem(n, f"result: {p}")
            tl = timelines.pop(("linux", rec.get("workload")), None)
            if tl is not None:
                for p in check_timeline_result(tl[0], tl[1], rec):
                    rep.problem(n, f"result: {p}")
        elif kind == "result":
            for p in check_result(rec, dist) + check_result_idle(rec, rep.env):
                rep.problem(n, f"result: {p}")
            if findings:
                rep.problem(n, "a result record after the findings record (they are "
                            "decided from every result before them)")
            if _is_int(rec.get("seq")):
                results[rec["seq"]] = rec
            tl = timelines.pop((rec.get("strategy"), rec.get("batch")), None) \
                if rec.get("bench") == "reclaim" else None
            if tl is not None:
                for p in check_timeline_result(tl[0], tl[1], rec):
                    rep.problem(n, f"result: {p}")
        elif kind == "timeline":
            linux = rec.get("bench") == "linux"
            probs, series = check_timeline(
                rec, checklog_linux.timeline_fields(sys.modules[__name__]) if linux
                else TIMELINE_FIELDS)
            for p in probs:
                rep.problem(n, f"timeline: {p}")
            if series is not None:
                key = ("linux", rec.get("workload")) if linux else \
                    (rec.get("strategy"), rec.get("batch"))
                timelines[key] = (rec, series)
        elif kind == "raw":
            for p in check_fields(rec, RAW_FIELDS):
                rep.problem(n, f"raw: {p}")
            raws.setdefault(rec.get("result"), []).append(rec)
        elif kind == "tick":
            fields = dict(TICK_FIELDS, **TICK_BENCH_FIELDS.get(rec.get("bench"), {}))
            for p in check_fields(rec, fields):
                rep.problem(n, f"tick: {p}")
        elif kind == "ceiling":
            for p in check_ceiling(rec):
                rep.problem(n, f"ceiling: {p}")
        elif kind == "fault":
            for p in check_fields(rec, FAULT_FIELDS):
                rep.problem(n, f"fault: {p}")
        elif kind == "findings":
            later = {k: v for k, v in FINDINGS_LATER_FIELDS.items() if k in rec}
            for p in check_fields(rec, dict(FINDINGS_FIELDS, **later)):
                rep.problem(n, f"findings: {p}")
            for p in check_findings_pairs(rec, results):
                rep.problem(n, f"findings: {p}")
            if findings:
                rep.problem(n, "a second findings record")
            findings.append(rec)
        elif kind == "summary":
            later = {k: v for k, v in SUMMARY_LATER_FIELDS.items() if k in rec}
            for p in check_fields(rec, dict(SUMMARY_FIELDS, **later)):
                rep.problem(n, f"summary: {p}")
    check_raw(rep, raws)
    last = recs[-1]
    if last.get("type") != "summary":
        rep.problem(last["_line"], f"last record is {last.get('type')!r}, not 'summary'")
        return
    n = last["_line"]
    for key, kind in (("passed", "PASS"), ("failed", "FAIL"), ("skipped", "SKIP")):
        if _is_int(last.get(key)) and last[key] != rep.counts[kind]:
            rep.problem(n, f"summary record says {key} {last[key]}, "
                        f"but there are {rep.counts[kind]} {kind} lines")
    if _is_int(last.get("records")) and last["records"] != len(recs) - 1:
        rep.problem(n, f"summary record says records {last['records']}, "
                    f"but {len(recs) - 1} came before it")


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


def check_output_mode(rep):
    """The INFO: output: line: a known mode; with output=json, no text for
    people after the env record but the help text and a fault report."""
    modes = [m.group(1) for m in map(OUTPUT_INFO_RE.match, rep.lines) if m]
    if not modes:
        return
    rep.output = modes[0]
    if rep.output not in OUTPUT_MODES or len(modes) > 1:
        rep.problem(None, f"INFO: output: says {', '.join(modes)}: must say one of "
                    f"{', '.join(OUTPUT_MODES)}, once")
        rep.output = None
        return
    if rep.output != "json":
        return
    in_help, after_env = False, False
    for line in rep.lines:
        if line.startswith("@json "):
            after_env = True
        if not after_env or not line.strip():
            continue
        if line.startswith(PREFIXES):
            if ABORT_FAIL_RE.match(line):
                return  # a fault report follows: registers, backtrace
            in_help = False
            continue
        if line.startswith("Kernel command line keys"):
            in_help = True
            continue
        if in_help and line.startswith("  "):
            continue
        rep.problem(None, f"output=json, but a line for people: {line[:60]!r}")
        return


def check_runs(rep, fault_report):
    """The results against the strategies' definitions and the plan
    (tools/experiments.py): each record's counts from its own parameters,
    and a record for every run the plan names, but for an experiment that
    a FAIL line names (its runs may be discarded, or it stopped), in a
    run where a CPU failed (a FAIL: smp: line: one taken out of the run
    leaves the later experiments fewer CPUs than planned), and in a run
    that aborted or did not finish. Logs of builds whose plan record
    does not name its runs (their records counted differently) are not
    checked."""
    plan = next((r for r in rep.records if r.get("type") == "plan"), None)
    if plan is None or not isinstance(plan.get("runs"), dict):
        return
    for rec, why in experiments.check_records(rep.records, rep.env):
        rep.problem(rec["_line"], f"result: {why}")
    if fault_report or rep.status is None:
        return
    cpu_failed = any(line.startswith("FAIL: smp: ") for line in rep.lines)
    waived = {b for b in experiments.EXPERIMENTS
              if cpu_failed or any(line.startswith(f"FAIL: {b}: ") for line in rep.lines)}
    # A planned strategy that SKIPped saying it is not run (shootdown's
    # invlpgb with bug=pcid on a CPU without PCID) is not held to it.
    waived |= {(b, s) for b in experiments.EXPERIMENTS for s in experiments.strategies(b)
               for line in rep.lines
               if line.startswith((f"SKIP: {b}: {s}: ", f"SKIP: {b}: {s} -- "))
               and line.endswith(" is not run")}
    for why in experiments.check_planned(rep.records, rep.env, waived):
        rep.problem(plan["_line"], f"plan: {why}")


def check_ending(rep, summaries, exits, fault_report):
    """SUMMARY and EXIT: present once, agreeing with the verdicts."""
    p, f, s = rep.counts["PASS"], rep.counts["FAIL"], rep.counts["SKIP"]
    if not summaries:
        rep.problem(None, "no SUMMARY line")
    elif len(summaries) > 1:
        rep.problem(summaries[1][0], f"{len(summaries)} SUMMARY lines (must be one)")
    for n, m in summaries[:1]:
        if m:
            tests, fails, skips = (int(x) for x in m.groups())
            if (tests, fails, skips) != (p + f + s, f, s):
                rep.problem(n, f"SUMMARY says {tests} tests, {fails} failures, {skips} skipped; "
                            f"the lines say {p + f + s}, {f}, {s}")
    if not exits:
        rep.problem(None, "no EXIT: STATUS line (the run did not finish)")
        return
    n, status = exits[0]
    rep.status = status
    if status is None:
        return
    if status == STATUS_ABORT:
        if not fault_report:
            rep.problem(n, f"STATUS={STATUS_ABORT} (aborted) without a fault or panic report")
        return
    if fault_report:
        rep.problem(n, f"a fault/panic was reported but STATUS={status}, "
                    f"not {STATUS_ABORT}")
    if f > 0:
        due = (STATUS_FAIL,)
    elif s > 0 and p == 0:
        due = (STATUS_SKIP,)
    elif p + f + s == 0:
        due = (STATUS_PASS, STATUS_SKIP)
    else:
        due = (STATUS_PASS,)
    if status not in due:
        rep.problem(n, f"STATUS={status} but the verdicts ({p} passed, {f} failed, "
                    f"{s} skipped) call for {' or '.join(map(str, due))}")


def get_path(obj, path):
    """obj["a"]["b"] for path "a.b"; raises KeyError if absent."""
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            raise KeyError(path)
        obj = obj[part]
    return obj


def check_expectations(rep, expect_status, expect_boot, expect_text, expect_fields):
    """The caller's expectations of this particular run."""
    if expect_status is not None and rep.status is not None and rep.status != expect_status:
        rep.problem(None, f"EXIT status {rep.status}, expected {expect_status}")
    if expect_boot is not None and rep.env is None:
        rep.problem(None, f"no env record to check boot {expect_boot!r} against")
    elif expect_boot is not None and rep.env.get("boot") != expect_boot:
        rep.problem(None, f"env boot is {rep.env.get('boot')!r}, expected {expect_boot!r}")
    for regex in expect_text or ():
        rx = re.compile(regex)
        if not any(rx.search(line) for line in rep.lines):
            rep.problem(None, f"no line matches /{regex}/")
    for path, want in (expect_fields or {}).items():
        if rep.env is None:
            rep.problem(None, f"no env record to check {path} against"
                        + (" (output=human prints none)" if rep.output == "human" else ""))
            continue
        try:
            have = get_path(rep.env, path)
        except KeyError:
            rep.problem(None, f"env has no field {path}, expected {json.dumps(want)}")
            continue
        if have != want or isinstance(have, bool) != isinstance(want, bool):
            rep.problem(None, f"env {path} is {json.dumps(have)}, expected {json.dumps(want)}")


def check_log(data, expect_status=None, expect_boot=None, expect_text=(),
              expect_fields=None):
    """Checks a whole console log (str or bytes); returns a Report."""
    rep = Report()
    lines = split_lines(data)
    first, clean = find_start(lines)
    if first is None:
        rep.problem(None, "no protocol line at all (did the kernel start? "
                    "is the console on COM1?)")
        return rep
    lines = list(lines)
    lines[first] = clean
    summaries, exits = scan_lines(rep, lines, first)
    check_output_mode(rep)
    check_records(rep)
    check_names(rep, first)
    fault_report = any(r.get("type") in ("fault", "panic") for r in rep.records) or \
        any(ABORT_FAIL_RE.match(line) for line in rep.lines)
    for rec, why in checklog_claims.claims(rep.env, rep.records):
        rep.problem(rec["_line"], why)
    check_ending(rep, summaries, exits, fault_report)
    check_runs(rep, fault_report)
    check_expectations(rep, expect_status, expect_boot, expect_text, expect_fields)
    for rec in rep.records:
        rec.pop("_line", None)
    return rep


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


def check_file(path, **expect):
    """check_log() on a file's bytes."""
    with open(path, "rb") as f:
        return check_log(f.read(), **expect)


def parse_field(text):
    """K=V with V as JSON (a bare word that is not JSON is taken as a
    string): returns (K, value)."""
    key, sep, val = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"'{text}' is not KEY=VALUE")
    try:
        return key, json.loads(val)
    except ValueError:
        return key, val


def main(argv=None):
    """Command line entry point; returns the exit status."""
    ap = argparse.ArgumentParser(
        description="Check a console log of the harness against docs/output.md.")
    ap.add_argument("log")
    ap.add_argument("--expect-status", type=int)
    ap.add_argument("--expect-boot", choices=BOOT_PATHS)
    ap.add_argument("--expect-text", action="append", default=[], metavar="REGEX")
    ap.add_argument("--expect-field", action="append", default=[], type=parse_field,
                    metavar="KEY=VALUE")
    ap.add_argument("--json", metavar="OUT", help="write the records here, one per line")
    args = ap.parse_args(argv)
    for regex in args.expect_text:
        try:
            re.compile(regex)
        except re.error as exc:
            ap.error(f"--expect-text {regex!r}: {exc}")
    try:
        rep = check_file(args.log, expect_status=args.expect_status,
                         expect_boot=args.expect_boot, expect_text=args.expect_text,
                         expect_fields=dict(args.expect_field))
    except OSError as exc:
        print(f"checklog: {exc}", file=sys.stderr)
        return 2
    if args.json:
        with open(args.json, "w", encoding="ascii", errors="backslashreplace") as f:
            for raw in rep.raw:
                f.write(raw + "\n")
    for p in rep.problems:
        print(f"{args.log}: {p}")
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
