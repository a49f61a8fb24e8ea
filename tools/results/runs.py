"""Reading one run: a console log or a JSONL file of its records.

Every subcommand starts here, so that a log saved from a BMC, a log saved
by run-qemu.sh --log and the records written by --json are all the same
thing to them: a Run with its env record, its records and (logs only) its
verdict lines. A log is parsed by checklog (the contract's own reader), so
the records are exactly what `check` sees; its problems are kept, not
raised, because a table or a plot of a truncated log is still useful.
"""

import json
import os

import checklog
import record_types
import verdictline


class InputError(Exception):
    """A file that is not a log or a JSONL file of records (exit status 2)."""


def keep_typed(run):
    """The records as the tools read them (record_types.py): a JSONL
    file's fields of the wrong type dropped (a log's already are, by
    checklog), and results without what every result has left out, each
    named in problems."""
    kept = []
    for rec in run.records:
        for key, why in record_types.type_problems(rec):
            run.problems.append(f"record {rec.get('seq', '?')}: {why}: not read")
            del rec[key]
        why = record_types.missing_required(rec)
        if why:
            run.problems.append(f"record {rec.get('seq', '?')} not read: {why}")
        else:
            kept.append(rec)
    run.records = kept
    if run.env is not None and all(run.env is not r for r in kept):
        run.env = None


class Verdict:
    """One PASS/FAIL/SKIP line: kind, name, why (None for PASS), line text."""

    def __init__(self, kind, name, why, text):
        self.kind, self.name, self.why, self.text = kind, name, why, text


class Run:
    """What one file holds.

    path, name: the file and a short label for it (its base name).
    kind:       "log" or "jsonl".
    env:        the env record (dict) or None.
    records:    every record, in order (dicts, without checklog's _line).
    verdicts:   Verdict objects, in order (logs only; JSONL has none).
    problems:   what checklog (or the JSONL reader) found wrong.
    status:     the log's EXIT status, or None.
    summary:    True when the log has its SUMMARY line (logs only).
    """

    def __init__(self, path, kind):
        self.path = path
        self.name = os.path.basename(path)
        self.kind = kind
        self.env = None
        self.records = []
        self.verdicts = []
        self.problems = []
        self.status = None
        self.summary = False

    def unfinished(self):
        """Why the run did not finish, or None when it did. A log finished
        when it has its SUMMARY line and an EXIT: STATUS= line (whatever
        the status: a run with failures still ran to its end). A JSONL
        file has neither: it finished when it holds the summary record,
        which the kernel prints last (docs/records.md)."""
        if self.kind == "jsonl":
            if not any(r.get("type") == "summary" for r in self.records):
                return "no summary record (the kernel writes it last): the run did not finish"
            return None
        if not self.summary:
            return "no SUMMARY line: the run did not finish"
        if self.status is None:
            return "no EXIT: STATUS= line: the run did not finish"
        return None

    def results(self, bench=None):
        """The result records (of one bench if given), in order."""
        return [r for r in self.records if r.get("type") == "result" and
                (bench is None or r.get("bench") == bench)]

    def ticks(self, bench=None):
        """The tick records (of one bench if given), in order."""
        return [r for r in self.records if r.get("type") == "tick" and
                (bench is None or r.get("bench") == bench)]

    def tsc_khz(self):
        """The TSC rate every ns figure rests on, or None."""
        khz = (self.env or {}).get("tsc_khz")
        return khz if isinstance(khz, int) and khz > 0 else None


def split_verdict(line):
    """A PASS/FAIL/SKIP line as a Verdict, or None for any other line.

    The name ends at the first ' -- ' (schema 2, docs/output.md); a line
    without it is read as schema 1 wrote it: a PASS is all name, a FAIL or
    SKIP is cut at the last ': ' (tools/verdictline.py). The whole line
    stays in `text`; `why` is the detail (None for a PASS without one)."""
    v = verdictline.split(line)
    return Verdict(v[0], v[1], v[2], line) if v else None


def looks_like_log(data):
    """True when some line starts like a protocol line: a console log
    (firmware output before it is allowed) rather than bare JSON lines."""
    for raw in data.splitlines():
        line = raw.decode("latin-1").rsplit("\r", 1)[-1].lstrip()
        if line.startswith(checklog.PREFIXES):
            return True
    return False


def load_log(path, data):
    """A console log through checklog."""
    rep = checklog.check_log(data)
    run = Run(path, "log")
    run.records, run.env, run.status = rep.records, rep.env, rep.status
    run.problems = list(rep.problems)
    run.verdicts = [v for v in map(split_verdict, rep.lines) if v]
    run.summary = any(line.startswith("SUMMARY: ") for line in rep.lines)
    return run


def load_jsonl(path, data):
    """A file of records, one JSON object a line (blank lines and lines
    starting with '#' skipped). A line that is not an object is an error:
    unlike a serial log, a JSONL file was written by a program."""
    run = Run(path, "jsonl")
    for n, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if not run.records and not text.startswith("{"):
            # A console cut before the harness spoke (a Linux boot's
            # "[    0.000000]" lines, firmware text) is neither.
            raise InputError(f"{path}:{n}: no protocol line, so not a console log of the "
                             f"harness, and not JSON lines: the line starts {text[:24]!r}")
        obj, why = checklog.parse_record(text)
        if why:
            raise InputError(f"{path}:{n}: {why}")
        run.records.append(obj)
    if not run.records:
        raise InputError(f"{path}: no records")
    envs = [r for r in run.records if r.get("type") == "env"]
    run.env = envs[0] if envs else None
    if run.env is None:
        run.problems.append("no env record")
    return run


def attach_raw(records):
    """raw=on prints a result's samples as `raw` records after it
    (docs/records.md: `result` is the result's seq, `offset` the first
    sample's index): each result gets them back as one `raw` list, in
    the order measured, when they are all there; else none."""
    by_seq = {r.get("seq"): r for r in records if r.get("type") == "result"}
    parts = {}
    for r in records:
        if r.get("type") == "raw" and r.get("result") in by_seq and \
                isinstance(r.get("offset"), int):
            parts.setdefault(r["result"], []).append(r)
    for seq, chunks in parts.items():
        chunks.sort(key=lambda c: c["offset"])
        values, want = [], 0
        for c in chunks:
            if c.get("offset") != want or not isinstance(c.get("values"), list):
                values = None
                break
            values += c["values"]
            want += len(c["values"])
        rec = by_seq[seq]
        if values is not None and len(values) == rec.get("samples"):
            rec["raw"] = values
    return records


def env_records(data):
    """Every env record of a log, after its EXIT line too (checklog reads
    none there: a second console appended after the first run's end)."""
    envs = []
    for line in checklog.split_lines(data):
        at = line.find("@json ")
        if at >= 0 and '"env"' in line:
            obj, _ = checklog.parse_record(line[at + 6:])
            if obj is not None and obj.get("type") == "env":
                envs.append(obj)
    return envs


def refuse_two_runs(path, envs):
    """A file holding two runs (two env records: two consoles saved into
    one, interleaved or one after the other, a reboot on the same console)
    is refused: its records would be read as one run's, and a pooled
    answer would count one boot twice or mix two machines. Each env names
    its run (run_id)."""
    if len(envs) > 1:
        ids = ", ".join(str(e.get("run_id", "no run_id")) for e in envs)
        raise InputError(f"{path}: holds {len(envs)} runs (env records with run_id {ids}): "
                         "give each run in a file of its own")


def load(path):
    """The Run in path (a log or a JSONL file); raises InputError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if not data.strip():
        raise InputError(f"{path}: empty file")
    if looks_like_log(data):
        run = load_log(path, data)
        if not run.records and not run.verdicts:
            raise InputError(f"{path}: no records and no verdicts in the log")
    else:
        run = load_jsonl(path, data)
    refuse_two_runs(path, env_records(data) if run.kind == "log" else
                    [r for r in run.records if r.get("type") == "env"])
    keep_typed(run)
    attach_raw(run.records)
    return run


def load_all(paths):
    """Runs of several files, in order; raises InputError for the first bad one."""
    return [load(p) for p in paths]


def env_summary(env):
    """The env fields that say where a run ran, as (label, text) pairs:
    what a reader needs to judge its numbers (docs/results.md)."""
    if not env:
        return [("env", "no env record")]
    cpu = env.get("cpu") or {}
    rows = [
        ("version", env.get("version")),
        ("cpu", f"{cpu.get('brand', '?')} ({cpu.get('vendor', '?')} family "
                f"{cpu.get('family', '?')} model {cpu.get('model', '?')} stepping "
                f"{cpu.get('stepping', '?')})"),
        ("microcode", env.get("microcode", "not recorded")),
        ("hypervisor", env.get("hypervisor") or "none (bare metal)"),
        ("cpus online", env.get("cpus_online")),
        ("apic", env.get("apic")),
        ("tsc", f"{env.get('tsc_khz')} kHz from {env.get('tsc_source')}"),
        ("memory", f"{(env.get('mem_bytes') or 0) >> 20} MiB"),
        ("boot", env.get("boot")),
        ("cmdline", env.get("cmdline")),
    ]
    return [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in rows]
