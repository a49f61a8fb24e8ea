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

Here: reading the lines and the run's order, its ending and the
expectations. The fields of each record type and the value checks are
checklog_fields.py's; the checks of one record against itself
checklog_records.py's; what a run claims checklog_claims.py's; the Linux
side's records checklog_linux.py's.
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
import checklog_figures  # noqa: E402  (the FIGURE lines, docs/findings.md)
from checklog_fields import *  # noqa: E402,F401,F403  (fields, value checks)
from checklog_records import *  # noqa: E402,F401,F403  (each record's checks)
from checklog_fields import _is_int  # noqa: E402

PREFIXES = ("PASS: ", "FAIL: ", "SKIP: ", "INFO: ", "FIGURE: ", "@json ", "SUMMARY: ",
            "EXIT: ")
# A line that starts like a protocol line but is not one of the forms above
# (e.g. "PASS:x", "@json{...}", "EXIT:STATUS=0") is a kernel bug, not text.
NEAR_MISS_RE = re.compile(r"^(PASS|FAIL|SKIP|INFO|FIGURE|SUMMARY|EXIT)\s*:|^@json")
ANSI_RE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
SUMMARY_RE = re.compile(r"^SUMMARY: (\d+) tests, (\d+) unexpected failures, (\d+) skipped$")
# A report of an abort in a FAIL line: "FAIL: fault: cpu 0: vector 6 ...",
# a panic or a watchdog.
ABORT_FAIL_RE = re.compile(r"^FAIL: (fault|panic|watchdog)\b", re.IGNORECASE)

# The guest's EXIT statuses (tools/exitcodes.py, one table for every tool).
STATUS_PASS, STATUS_FAIL = GUEST_PASS, GUEST_FAIL
STATUS_SKIP, STATUS_ABORT = GUEST_SKIP, GUEST_ABORT


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
        elif line.startswith("FIGURE: ") and summaries:
            rep.problem(n, "FIGURE line after the SUMMARY line")
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
        elif NEAR_MISS_RE.match(line) and not line.startswith("FIGURE: "):
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
    check_roles(rep)
    check_vocabulary(rep)
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
    vocab = experiments.of_log(rep.records)
    waived |= {(b, s) for b in experiments.EXPERIMENTS for s in experiments.strategies(b, vocab)
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
    checklog_figures.check(rep)
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
