"""LAVA jobs for the harness, and their logs back to the project's tools.

    tools/shootdown.py lava LOG [-o CONSOLE] [--gate] [--json]
    tools/shootdown.py lava-job KIND [VAR=VALUE ...] [-o JOB]

`lava LOG` reads a job log, as lava-run prints it (one JSON object a line)
or as a LAVA server gives it for download (the same objects as a YAML list,
`- {...}`), and writes the console it holds back as the raw console, so
that check, table, compare, answer, tap and junit read it like any saved
log. LAVA's logger changed the console on the way in: it dropped every \\r,
ESC and empty line, and put a backslash before every '"'. The backslashes
are taken out again (exactly: LAVA adds one before each quote and nothing
else), lines end in \\r\\n again; ESCs and blank lines stay lost, and no
reader of the console needs them.

`--gate` decides what LAVA's own job result does not (it stays "pass" with
a FAIL, with status 63 and with a monitor that timed out): exit 1 when a
test case of the shootdown monitors failed, when the exit case is missing
(the run's end never came), when the monitors' cases differ from the
console's verdicts (a pattern that missed lines) or the figures' cases
from its FIGURE lines (name, number and unit), when the console it
holds fails `check` (tools/checklog.py: the same contract, the same
problems), or when that console's EXIT status is not 0 or 38 (or the exit
case disagrees with it); else 77 when the console says 38 (every check
skipped: run-qemu.sh's status for it, tools/exitcodes.py) and 0; 2 when
the file is not a LAVA log. docs/lab.md says how a lab uses it.

`lava-job` renders a job template of lava/jobs (docs/lab.md, "Jobs").
"""

import argparse
import json
import os
import re
import sys

import checklog
import checklog_figures
import verdictline
from exitcodes import GUEST_ABORT, GUEST_FAIL, GUEST_PASS, GUEST_SKIP, GUEST_WORDS, gate_status

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOBS = os.path.join(ROOT, "lava", "jobs")
SUITE, FIGURES_SUITE, EXIT_SUITE = "shootdown", "shootdown-figures", "shootdown-exit"
EXIT_CASE = "exit"
# What EXIT: STATUS=N becomes in the exit monitor (lava/jobs/monitors.yaml.in).
EXIT_RESULTS = {GUEST_PASS: "pass", GUEST_FAIL: "fail", GUEST_SKIP: "skip",
                GUEST_ABORT: "fail"}
# The console's problems (checklog's) the gate prints before a count.
CHECK_SHOWN = 10


class LavaError(Exception):
    """Not a LAVA log, or a job that cannot be rendered (exit status 2)."""


def lava_case_name(name):
    """A verdict name as LAVA's monitor stores its test case: stripped,
    lowercased, every run of non-word characters made '_'."""
    return re.sub(r"\W+", "_", name.strip().lower())


def parse_entries(text):
    """The log's entries (dicts with lvl and msg), in order."""
    entries = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("- "):
            line = line[2:]
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = _yaml_entry(line, n)
        if isinstance(obj, dict) and "lvl" in obj:
            entries.append(obj)
    if not entries:
        raise LavaError("no LAVA log entries (lines of {\"dt\": ..., \"lvl\": ..., \"msg\": ...})")
    return entries


def _yaml_entry(line, n):
    """One YAML flow mapping, for a server log that is not JSON as well."""
    try:
        import yaml  # python3-yaml, which lava-dispatcher brings
    except ImportError:
        raise LavaError(f"line {n}: not JSON, and no python3-yaml to read it") from None
    try:
        return yaml.safe_load(line)
    except yaml.YAMLError:
        return None


def console_text(entries):
    """The console as the harness printed it (see the module's doc)."""
    lines = [str(e.get("msg", "")).replace('\\"', '"')
             for e in entries if e.get("lvl") == "target"]
    return "".join(line + "\r\n" for line in lines)


def cases(entries):
    """The monitors' test cases: dicts with suite, case, result, name (the
    verdict name the console printed)."""
    out = []
    for e in entries:
        msg = e.get("msg")
        if e.get("lvl") != "results" or not isinstance(msg, dict):
            continue
        if msg.get("definition") not in (SUITE, FIGURES_SUITE, EXIT_SUITE):
            continue
        extra = msg.get("extra") or {}
        case = {"suite": msg["definition"], "case": msg.get("case"),
                "result": msg.get("result"), "name": extra.get("test_case_id")}
        if msg["definition"] == FIGURES_SUITE:
            case["measurement"], case["units"] = msg.get("measurement"), msg.get("units")
        out.append(case)
    return out


def figures_problems(text, found):
    """The figures' cases against the console's FIGURE lines: one case a
    line, name, number and unit alike (a case passes where its line is
    there, and a figure the run has no data for has neither)."""
    want = []
    for line in text.replace("\r\n", "\n").split("\n"):
        m = checklog_figures.FIGURE_RE.fullmatch(line)
        if m:
            want.append((lava_case_name(m.group("name")), float(m.group("value")),
                         m.group("unit")))
    have = []
    for c in found:
        if c["suite"] != FIGURES_SUITE:
            continue
        try:
            value = float(c["measurement"])
        except (TypeError, ValueError):
            value = None
        have.append((c["case"], value, c["units"]))
    if want == have:
        return []
    return [f"the figures' monitor recorded {len(have)} figures, the console printed "
            f"{len(want)}" + _first_difference(want, have)]


def console_problems(text, exits):
    """The console against the contract (checklog, as `check` reads it)
    and against the exit case: its problems, and its EXIT status (None
    where it has none). A monitor can say pass where the console says
    STATUS=1: the console is what the run printed."""
    rep = checklog.check_log(text)
    probs = [f"check: {p}" for p in rep.problems[:CHECK_SHOWN]]
    if len(rep.problems) > CHECK_SHOWN:
        probs.append(f"check: {len(rep.problems) - CHECK_SHOWN} more problems "
                     "(tools/shootdown.py check on the console: lava LOG -o CONSOLE)")
    if rep.status is not None and rep.status not in (GUEST_PASS, GUEST_SKIP):
        probs.append(f"the console says EXIT: STATUS={rep.status} "
                     f"({GUEST_WORDS.get(rep.status, 'not a status of the harness')})")
    if exits and rep.status in EXIT_RESULTS and exits[-1]["result"] != EXIT_RESULTS[rep.status]:
        probs.append(f"the exit case says {exits[-1]['result']}, but the console says "
                     f"STATUS={rep.status} ({EXIT_RESULTS[rep.status]})")
    return probs, rep.status


def gate(entries):
    """(problems, summary, status): what makes the job fail, a count line,
    and the gate's exit status (exitcodes.gate_status: 1 on any problem,
    77 for a clean run whose every check skipped)."""
    found = cases(entries)
    verdict_cases = [c for c in found if c["suite"] == SUITE]
    exits = [c for c in found if c["suite"] == EXIT_SUITE and c["case"] == EXIT_CASE]
    problems = [f"{c['suite']}/{c['case']}: {c['result']}" for c in found
                if c["result"] == "fail"]
    if not exits:
        problems.append("no exit case: the run's EXIT line never came (the monitor "
                        "timed out, or the console was lost)")
    text = console_text(entries)
    checked, status = console_problems(text, exits)
    problems += checked
    problems += figures_problems(text, found)
    console = [verdictline.split(line) for line in text.replace("\r\n", "\n").split("\n")]
    console = [v for v in console if v]
    want = [(lava_case_name(v[1]), v[0].lower()) for v in console]
    have = [(c["case"], c["result"]) for c in verdict_cases]
    if want != have:
        problems.append(f"the monitor recorded {len(have)} verdicts, the console "
                        f"printed {len(want)}" + _first_difference(want, have))
    counts = {k: sum(1 for c in verdict_cases if c["result"] == k)
              for k in ("pass", "fail", "skip")}
    figures = sum(1 for c in found if c["suite"] == FIGURES_SUITE)
    summary = (f"{len(verdict_cases)} cases: {counts['pass']} pass, {counts['fail']} "
               f"fail, {counts['skip']} skip; {figures} figures; exit: "
               f"{exits[-1]['result'] if exits else 'missing'}")
    return problems, summary, gate_status(bool(problems), status)


def _first_difference(want, have):
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            return f"; the first that differs, #{i + 1}: console {w}, LAVA {h}"
    return ""


def substitute(text, values):
    """{{NAME}} of the template filled in; an unknown one is an error."""
    def one(m):
        if m.group(1) not in values:
            raise LavaError(f"template variable {m.group(1)} has no value")
        return str(values[m.group(1)])
    return re.sub(r"\{\{([A-Z_]+)\}\}", one, text)


def budget_s(kernel_args):
    """budget_s= of a command line (README: default 12, 0 no limit)."""
    m = re.search(r"(?:^|\s)budget_s=([0-9]+)(?:\s|$)", kernel_args)
    return int(m.group(1)) if m else 12


def wait_timeout(kernel_args):
    """Seconds the monitor waits for each next verdict (docs/lab.md,
    "Timeouts"): four times budget_s plus 60 s, at least 120. The longest
    gap between two verdicts is one experiment, which is at most the whole
    run; a run takes more than its budget only where the smallest sizes
    the plan allows do not fit (planned_ms over budget_s: about 3x for a
    192-CPU server at the default 12 s), and the 60 s cover the bring-up
    and self-checks of hundreds of CPUs before the first experiment.
    budget_s=0 (no limit) has no bound: the caller must give one."""
    b = budget_s(kernel_args)
    if b == 0:
        raise LavaError("budget_s=0 puts no bound on the run: give BOOT_TIMEOUT=SECONDS")
    return max(120, 4 * b + 60)


# Each kind: its template, and the defaults of its variables.
KINDS = {
    "qemu": ("qemu.yaml.in", {"ACCEL": "tcg,thread=single", "CPU": "max", "CPUS": 4, "KERNEL_ARGS": ""}),
    "grub-tftp": ("grub-tftp.yaml.in", {"KERNEL_ARGS": "", "POWER_ON_TIMEOUT": 600,
                                        "DEVICE_TYPE": "x86-grub"}),
    "ipxe-sanboot": ("ipxe-sanboot.yaml.in", {"POWER_ON_TIMEOUT": 600, "DEVICE_TYPE": "x86-grub",
                                              "KERNEL_ARGS": "budget_s=12"}),
    # The Linux side (docs/linux.md): its own command line, no budget_s.
    "qemu-linux": ("qemu-linux.yaml.in", {"ACCEL": "tcg,thread=single", "CPU": "max", "CPUS": 2,
                                          "LINUX_ARGS": "panic=-1",
                                          "WORKLOAD_ARGS": "workloads=all",
                                          "BOOT_TIMEOUT": 300}),
}


def render_job(kind, values):
    """The job text of one kind, with values given as NAME=VALUE."""
    if kind not in KINDS:
        raise LavaError(f"no job kind {kind!r} (one of {', '.join(KINDS)})")
    template, defaults = KINDS[kind]
    with open(os.path.join(JOBS, template), encoding="utf-8") as f:
        text = f.read()
    # A variable the template does not use would be dropped without a
    # word (KERNEL_ARG= for KERNEL_ARGS=): refused, naming the ones it has.
    known = (set(re.findall(r"\{\{([A-Z_]+)\}\}", text)) | set(defaults)) - {"MONITORS"}
    unknown = sorted(set(values) - known)
    if unknown:
        raise LavaError(f"{', '.join(unknown)}: not a variable of the {kind} job "
                        f"(its variables: {', '.join(sorted(known))})")
    v = dict(defaults)
    v.update(values)
    if not str(v.get("KERNEL_ARGS", "x")).strip():
        # The default budget, said out loud: LAVA drops an empty argument,
        # and QEMU's -append then has none.
        v["KERNEL_ARGS"] = "budget_s=12"
    if "BOOT_TIMEOUT" not in v:
        v["BOOT_TIMEOUT"] = wait_timeout(str(v.get("KERNEL_ARGS", "")))
    if "JOB_TIMEOUT" not in v:
        # Power-on, firmware and the whole run, once more as a margin.
        v["JOB_TIMEOUT"] = 2 * (int(v.get("POWER_ON_TIMEOUT", 120)) + int(v["BOOT_TIMEOUT"]))
    with open(os.path.join(JOBS, "monitors.yaml.in"), encoding="utf-8") as f:
        v["MONITORS"] = f.read().rstrip("\n")
    return substitute(text, v)


def main(argv):
    """lava / lava-job; returns the exit status."""
    if argv[0] == "lava-job":
        ap = argparse.ArgumentParser(prog="shootdown.py lava-job",
                                     description="render a LAVA job of lava/jobs")
        ap.add_argument("kind", choices=sorted(KINDS))
        ap.add_argument("values", nargs="*", metavar="VAR=VALUE")
        ap.add_argument("-o", "--out", metavar="FILE")
        args = ap.parse_args(argv[1:])
        try:
            values = dict(kv.split("=", 1) for kv in args.values)
        except ValueError:
            ap.error("give variables as VAR=VALUE")
        try:
            text = render_job(args.kind, values)
        except LavaError as exc:
            print(f"shootdown.py lava-job: {exc}", file=sys.stderr)
            return 2
        _write(args.out, text)
        return 0
    ap = argparse.ArgumentParser(prog="shootdown.py lava",
                                 description="a LAVA job log back to the raw console")
    ap.add_argument("log", metavar="LOG")
    ap.add_argument("-o", "--out", metavar="FILE", help="write the console here "
                    "(default stdout; with --gate, only here)")
    ap.add_argument("--gate", action="store_true", help="exit 1 when a case failed, the "
                    "exit case is missing, the cases or figures differ from the console, or the console "
                    "fails check or says a status other than 0 or 38; 77 when every check "
                    "skipped")
    ap.add_argument("--json", action="store_true", help="print the test cases as JSON")
    args = ap.parse_args(argv[1:])
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            entries = parse_entries(f.read())
    except (OSError, LavaError) as exc:
        print(f"shootdown.py lava: {args.log}: {exc}", file=sys.stderr)
        return 2
    if args.out or not (args.gate or args.json):
        _write(args.out, console_text(entries))
    if args.json:
        print(json.dumps(cases(entries), indent=1))
    if not args.gate:
        return 0
    problems, summary, status = gate(entries)
    print(f"lava gate: {summary}")
    for p in problems:
        print(f"lava gate: FAIL: {p}")
    return status


def _write(path, text):
    if path:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
