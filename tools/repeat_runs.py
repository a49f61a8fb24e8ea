"""./run-qemu.sh --runs N: boot the same run N times, each console in its
own directory, for `tools/shootdown.py answer` and `compare`, whose unit
is the run (one boot cannot tell a change from launch-to-launch luck).

    ./run-qemu.sh --runs 5 --log out/console.log -- bench=shootdown
    -> out/run-1/console.log ... out/run-5/console.log
    tools/shootdown.py answer out/run-*/console.log

--log FILE and --json FILE name the file each run writes in its run-K
directory beside FILE (default: build/runs/run-K/console.log). The files
of those names that an earlier --runs left in run-K directories there are
removed first, so that a glob over run-*/ reads these N runs only. The kernel is built once,
before the first boot. Every boot is run to its end unless one exits 2
(usage or environment: the next would too) or the boots are interrupted.

Exit status: the worst of the boots', in this order (worst first): 130
interrupted, 2 usage or environment, 3 aborted, 124 timed out, 1 a check
failed, 77 every check skipped, 0 passed.
"""

import os
import re
import shutil
import signal
import subprocess
import sys

from exitcodes import E_PASS, E_FAIL, E_USAGE, E_ABORT, E_SKIP, E_TIMEOUT, E_INTR, \
    LAUNCHER_WORDS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LAUNCHER = os.path.join(HERE, "run_qemu.py")
DEFAULT_LOG = os.path.join(ROOT, "build", "runs", "console.log")
MAX_RUNS = 1000
# Worst first: the status the whole repeat exits with.
SEVERITY = (E_INTR, E_USAGE, E_ABORT, E_TIMEOUT, E_FAIL, E_SKIP, E_PASS)
# Options of one boot that a repeat cannot mean.
ONE_SHOT = {"--dry-run": "prints one QEMU command and boots nothing",
            "--probe": "boots nothing",
            "--stop-after": "is a test of one boot"}


class UsageError(Exception):
    pass


def asked(argv):
    """Whether argv (before `--`) has --runs."""
    for a in argv:
        if a == "--":
            return False
        if a == "--runs" or a.startswith("--runs="):
            return True
    return False


def split(argv):
    """(N, the log path, the json path or None, the other arguments);
    raises UsageError."""
    runs, log, js, rest = None, None, None, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest += argv[i:]
            break
        name, eq, val = a.partition("=")
        if name in ("--runs", "--log", "--json"):
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{a} needs a value")
                i += 1
                val = argv[i]
            if name == "--runs":
                runs = val
            elif name == "--log":
                log = val
            else:
                js = val
        elif name in ONE_SHOT:
            raise UsageError(f"--runs with {name}: {name} {ONE_SHOT[name]}; "
                             f"give it without --runs")
        else:
            rest.append(a)
        i += 1
    if not (runs.isdigit() and 1 <= int(runs) <= MAX_RUNS):
        raise UsageError(f"--runs: '{runs}' is not a number of boots from 1 to {MAX_RUNS}")
    for opt, path in (("--log", log), ("--json", js)):
        if path is not None and (not os.path.basename(path) or os.path.isdir(path)):
            raise UsageError(f"--runs with {opt} {path}: give a file name; each run "
                             f"writes it in its own run-K directory beside it")
    return int(runs), log or DEFAULT_LOG, js, rest


def run_path(path, k):
    """DIR/run-K/NAME for the path DIR/NAME."""
    return os.path.join(os.path.dirname(os.path.abspath(path)), f"run-{k}",
                        os.path.basename(path))


def clear_earlier(path):
    """Removes the files an earlier repeat left as run-K/NAME beside path
    (nothing else in those directories; a directory left empty goes)."""
    parent, name = os.path.split(os.path.abspath(path))
    if not os.path.isdir(parent):
        return
    for sub in os.listdir(parent):
        old = os.path.join(parent, sub, name)
        if re.fullmatch(r"run-[0-9]+", sub) and os.path.isfile(old):
            os.unlink(old)
            if not os.listdir(os.path.join(parent, sub)):
                os.rmdir(os.path.join(parent, sub))


def shown(path):
    """path as a reader would type it: relative below here, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def check_boot_options(rest):
    """A usage error in the boot's own options, before anything is
    removed or booted (QEMU's; Bochs's launcher checks its own)."""
    import run_qemu  # here: run_qemu imports this module
    try:
        emulator, args = run_qemu.emulator_of(rest)
        if emulator == "qemu":
            run_qemu.parse_args(args)
    except run_qemu.UsageError as exc:
        raise UsageError(str(exc)) from exc


def with_no_build(rest):
    """rest with --no-build among the options (before any `--`)."""
    end = rest.index("--") if "--" in rest else len(rest)
    return rest[:end] + ["--no-build"] + rest[end:]


def worst(statuses):
    """The status the repeat exits with (SEVERITY); unknown ones as 2."""
    known = [s if s in SEVERITY else E_USAGE for s in statuses]
    return min(known, key=SEVERITY.index) if known else E_USAGE


class Child:
    """The boot running now: a signal to us is passed on to it."""

    def __init__(self):
        self.proc, self.interrupted = None, False

    def on_signal(self, signum, _frame):
        self.interrupted = True
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signum)


def err(msg):
    print(f"run-qemu: {msg}", file=sys.stderr, flush=True)


def main(argv):
    """The repeat's exit status (the worst boot's)."""
    try:
        runs, log, js, rest = split(argv)
        check_boot_options(rest)
    except UsageError as exc:
        err(str(exc))
        err("try: ./run-qemu.sh --help")
        return E_USAGE
    clear_earlier(log)
    if js:
        clear_earlier(js)
    child = Child()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, child.on_signal)
    statuses = []
    for k in range(1, runs + 1):
        err(f"run {k} of {runs}: {shown(run_path(log, k))}")
        cmd = [sys.executable, LAUNCHER, "--log", run_path(log, k)]
        if js:
            cmd += ["--json", run_path(js, k)]
        child.proc = subprocess.Popen(cmd + (rest if k == 1 else with_no_build(rest)))
        status = child.proc.wait()
        statuses.append(E_INTR if child.interrupted else status)
        if child.interrupted or status == E_USAGE:
            break
    status = worst(statuses)
    logs = [shown(run_path(log, k)) for k in range(1, len(statuses) + 1)]
    glob = os.path.join(os.path.dirname(os.path.dirname(logs[0])) or ".", "run-*",
                        os.path.basename(log))
    err(f"runs: {len(statuses)} of {runs} booted, exit "
        f"{' '.join(str(s) for s in statuses)}; logs {logs[0]}"
        + (f" ... {logs[-1]}" if len(logs) > 1 else ""))
    err(f"runs: all of them: tools/shootdown.py answer {glob}")
    err(f"runs: {LAUNCHER_WORDS.get(status, 'exit ' + str(status))}: exit {status}")
    return status


if __name__ == "__main__":
    # tools/ci-run.sh --check-args: run-qemu.sh's options checked, nothing run.
    if sys.argv[1:2] != ["--check"]:
        sys.exit("usage: repeat_runs.py --check [run-qemu.sh options] [-- kernel args] "
                 "(./run-qemu.sh --runs N runs it)")
    try:
        check_boot_options(sys.argv[2:])
    except UsageError as exc:
        err(str(exc))
        sys.exit(E_USAGE)
