#!/usr/bin/env python3
"""Boot the harness under QEMU in a matrix of configurations and check each
console log against the output contract (docs/output.md).

usage: python3 tests/qemu/runner.py [--jobs N] [--group G] [--case NAME]
                                    [--list] [--qemu PATH] [--no-build]
                                    [--kernel ELF] [--timeout-scale F]
                                    [--budget SECONDS]
       python3 tests/qemu/runner.py soak [--boots N] [--seed S] [--short] ...
                                    (tests/qemu/soak.py: many boots across
                                    the QEMU matrix, random kernel arguments)

Run from anywhere (paths are relative to the repository). The cases are in
tests/qemu/cases.tsv (its header says what each column means). For each one
it runs the launcher (tools/run_qemu.py, behind ./run-qemu.sh), keeps the
console in build/test-logs/NAME.log (and the records in NAME.jsonl), checks the exit status and the log (with
tools/checklog.py and the case's own checks), and prints TAP version 13,
one line per case:
    ok N - NAME (Xs)
    not ok N - NAME: reason
    ok N - NAME # SKIP reason
followed, for a failure, by '#' lines with every problem found; then the plan
(1..N) and the line "N passed, N failed, N skipped". The exit status is 1 if
anything failed.

Before the cases it runs the checklog and results-CLI self-tests and builds
the kernel once (make), so that parallel runs do not race to build it.
After them, tools/shootdown.py (compare, plot, table, tap, junit) runs on
the consoles those cases just wrote (tests/qemu/test_results.py,
FreshLogs), one result per test; a test whose cases were not selected is
skipped.
"""

import argparse
import fnmatch
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)

import checklog  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
import ceiling  # noqa: E402
import exitcodes  # noqa: E402
import experiments  # noqa: E402
import run_bochs  # noqa: E402
import run_qemu  # noqa: E402

CASES_FILE = os.path.join(HERE, "cases.tsv")
LOG_DIR = os.path.join(ROOT, "build", "test-logs")
HOST_TSC = os.path.join(ROOT, "build", "host", "host-tsc-khz")
QEMU10 = os.path.join(ROOT, "build", "qemu10", "usr", "bin", "qemu-system-x86_64")
LINUX_DIR = os.path.join(ROOT, "build", "linux")  # tools/fetch-linux.sh, make linux
OVMF = ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd")
COLUMNS = ("name", "group", "boot", "machine", "smp", "cpu", "status",
           "timeout", "args", "options", "checks")
# run-qemu.sh's exit status -> the guest's EXIT: STATUS that must be printed.
GUEST_STATUS = {ours: guest for guest, ours in exitcodes.GUEST_STATUS.items()}
TSC_TOLERANCE = 0.01  # guest TSC under TCG = host TSC: within 1%
# Cases that time out one after another before the rest are not started:
# a kernel that hangs everywhere fails in bounded time, a slow machine not.
MAX_TIMEOUTS_IN_A_ROW = 4
MEM_TOLERANCE = 0.05  # usable RAM found vs -m: firmware keeps a little


class Case:
    """One row of cases.tsv."""

    def __init__(self, fields, where):
        row = dict(zip(COLUMNS, fields))
        self.where = where
        self.name = row["name"]
        self.group = row["group"]
        self.boot = row["boot"]
        self.machine = row["machine"]
        self.smp = int(row["smp"])
        self.cpu = row["cpu"]
        self.status = int(row["status"])
        self.timeout = int(row["timeout"])
        self.args = [decode_escapes(w) for w in words(row["args"])]
        self.options = words(row["options"])
        self.expect_text, self.expect_fields = [], {}
        self.absent_text, self.pre_text, self.last_line = [], [], []
        self.expect_boot, self.tsc, self.needs = None, False, []
        self.mem_bytes = 0
        self.stopped, self.within, self.noconsole = False, None, False
        self.sweep = None
        self.reclaim = self.flushloop = self.ceiling = False
        self.timeline = None  # None: not checked; else the budget in % (0: none)
        for item in words(row["checks"]):
            self.add_check(item)
        if self.boot in ("bios", "uefi"):
            self.needs.append("grub")
        if self.boot == "uefi":
            self.needs.append("ovmf")
        if "--qemu10" in self.options:
            self.needs.append("qemu10")
        # --emulator bochs: run-qemu.sh boots it under Bochs (its own
        # options: tools/run_bochs.py); the machine column is '-'.
        self.emulator = "qemu"
        for i, opt in enumerate(self.options[:-1]):
            if opt == "--emulator":
                self.emulator = self.options[i + 1]
        if self.emulator == "bochs":
            self.needs.append("bochs")
        # --linux: Debian's kernel with linux/'s workloads (docs/linux.md;
        # its own options: tools/run_linux.py), skipped where no kernel
        # could be unpacked.
        self.linux = "--linux" in self.options
        if self.linux:
            self.needs.append("linux")
        # --iso PATH: relative to the repository; `make iso` builds
        # build/shootdown.iso before the cases run.
        self.iso = None
        for i, opt in enumerate(self.options[:-1]):
            if opt == "--iso":
                self.iso = os.path.join(ROOT, self.options[i + 1])
                self.options[i + 1] = self.iso
        if self.accel() == "kvm":
            self.needs.append("kvm")
        if self.stopped and self.status != exitcodes.E_ABORT:
            raise ValueError("'stopped' goes with status 3")

    def accel(self):
        """The accelerator the case asks for: tcg unless its options say
        otherwise, so that what TCG shows (stale entries, the host's TSC)
        is what the checks see on any machine."""
        opts = self.options
        for i, opt in enumerate(opts[:-1]):
            if opt == "--accel":
                return opts[i + 1]
        return "tcg"

    def add_check(self, item):
        """One word of the checks column (see cases.tsv)."""
        key, _, val = item.partition("=")
        if key == "boot":
            self.expect_boot = val
        elif key in REGEX_CHECKS:
            re.compile(val)  # a bad regex fails the table, not the case
            getattr(self, REGEX_CHECKS[key]).append(val)
        elif key == "field":
            k, v = checklog.parse_field(val)
            self.expect_fields[k] = v
        elif key == "needs":
            self.needs.append(val)
        elif item == "tsc":
            self.tsc = True
        elif key == "mem":
            self.mem_bytes = parse_size(val)
        elif item in ("reclaim", "flushloop", "stopped", "noconsole", "ceiling"):
            setattr(self, item, True)
        elif key == "within":
            self.within = float(val)
        elif key == "timeline":
            self.timeline = float(val) if val else 0.0
        elif key == "sweep":
            pages, targets, strategies = val.split(";")
            self.sweep = ([int(p) for p in pages.split(",")],
                          [int(t) for t in targets.split(",")],
                          strategies.split(","))
        else:
            raise ValueError(f"unknown check '{item}'")


# The checks that are regular expressions, and the list each goes into.
REGEX_CHECKS = {"text": "expect_text", "notext": "absent_text",
                "pretext": "pre_text", "lastline": "last_line"}


def parse_size(text):
    """QEMU-style sizes: 128M, 8G, or bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if text[-1:].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def words(text):
    """A column as shell words; '-' is empty."""
    return [] if text == "-" else shlex.split(text)


def decode_escapes(word):
    """A kernel argument as bytes: \\xNN becomes that byte, so that the
    table can hold control and non-ASCII bytes in plain text."""
    raw = os.fsencode(word)
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)


def load_cases(path=CASES_FILE):
    """The cases in the table, in order; raises ValueError naming the line
    of a malformed row."""
    cases, names = [], set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            # Columns are separated by one or more tabs (to align them);
            # an empty column is written '-'.
            fields = [x for x in line.split("\t") if x != ""]
            where = f"{os.path.relpath(path, ROOT)}:{lineno}"
            if len(fields) != len(COLUMNS):
                raise ValueError(f"{where}: {len(fields)} columns, expected {len(COLUMNS)}")
            try:
                case = Case(fields, where)
            except (ValueError, re.error) as exc:
                raise ValueError(f"{where}: {exc}") from None
            if case.name in names:
                raise ValueError(f"{where}: case '{case.name}' twice")
            if case.status not in GUEST_STATUS:
                raise ValueError(f"{where}: status {case.status} is not "
                                 f"{', '.join(map(str, sorted(GUEST_STATUS)))}")
            names.add(case.name)
            cases.append(case)
    return cases


def have_tools():
    """What is available here: {need: None if present, else why not}."""
    grub = None
    for tool, pkg in (("grub-mkrescue", "grub-common"), ("xorriso", "xorriso"),
                      ("mformat", "mtools")):
        if not shutil.which(tool):
            grub = f"no {tool} (apt-get install {pkg})"
    for plat, pkg in (("i386-pc", "grub-pc-bin"), ("x86_64-efi", "grub-efi-amd64-bin")):
        if not os.path.isdir(f"/usr/lib/grub/{plat}"):
            grub = f"no GRUB for {plat} (apt-get install {pkg})"
    return {
        "grub": grub,
        "ovmf": None if all(os.path.isfile(f) for f in OVMF)
        else "no OVMF firmware (apt-get install ovmf)",
        "qemu10": None if os.access(QEMU10, os.X_OK)
        else "no QEMU 10 (run tools/fetch-qemu10.sh)",
        "bochs": run_bochs.missing(),
        "linux": None if all(os.path.isfile(os.path.join(LINUX_DIR, f))
                             for f in ("vmlinuz", "release.txt", os.path.join("modules", "order")))
        else "no Linux kernel unpacked under build/linux (tools/fetch-linux.sh could not "
             "fetch it here: see make check's dependency step)",
    }


def kvm_problem(case, qemu):
    """None if KVM can run this case's machine here, else why not."""
    try:
        q = run_qemu.Qemu(qemu or shutil.which("qemu-system-x86_64") or "qemu-system-x86_64")
    except OSError as exc:
        return str(exc)
    opts = run_qemu.Options()
    opts.machine, opts.smp, opts.cpu = case.machine, case.smp, None
    if case.cpu != "-":
        opts.cpu = case.cpu
    _, why = run_qemu.try_kvm(q, opts)
    return why


class Reporter:
    """Prints one numbered line per result, thread-safe, and counts."""

    def __init__(self):
        self.lock = threading.Lock()
        self.n = 0
        self.passed = self.failed = self.skipped = 0

    def ok(self, name, secs):
        self._line("ok", f"- {name} ({secs:.1f}s)", "passed")

    def skip(self, name, why):
        self._line("ok", f"- {name} # SKIP {why}", "skipped")

    def fail(self, name, reason, details=()):
        self._line("not ok", f"- {name}: {reason}", "failed", details)

    def _line(self, word, rest, counter, details=()):
        # rest may quote the console (braces and all): never a format.
        with self.lock:
            self.n += 1
            setattr(self, counter, getattr(self, counter) + 1)
            print(f"{word} {self.n} {rest}", flush=True)
            for d in details:
                print(f"#   {d}", flush=True)

    def total(self):
        """The TAP plan (at the end: cases that never started count too),
        then the closing line that CI reads."""
        return (f"1..{self.n}\n"
                f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped")


def run_selftest():
    """tools/checklog.py against its sample logs; returns (ok, details)."""
    import test_checklog  # noqa: E402  (tests/qemu, on the path above)
    suite = unittest.defaultTestLoader.loadTestsFromModule(test_checklog)
    out = io.StringIO()
    res = unittest.TextTestRunner(stream=out, verbosity=0).run(suite)
    details = [ln for ln in out.getvalue().splitlines() if ln.strip()] if not res.wasSuccessful() else []
    return res.wasSuccessful(), details[-20:]


def run_results_selftest():
    """tools/shootdown.py on synthetic runs and the sample logs (every
    class of test_results but FreshLogs); returns (ok, details)."""
    import test_results  # noqa: E402  (tests/qemu, on the path above)
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite(
        loader.loadTestsFromTestCase(cls) for cls in test_results.SELFTEST_CLASSES)
    out = io.StringIO()
    res = unittest.TextTestRunner(stream=out, verbosity=0).run(suite)
    details = [ln for ln in out.getvalue().splitlines() if ln.strip()] \
        if not res.wasSuccessful() else []
    return res.wasSuccessful(), details[-20:]


# The self-tests, each in a child process of its own (they are
# single-threaded and import what they test, so they run beside the build
# and the first cases instead of before them): kind -> (its TAP name, what
# a failure means, the function).
SELFTESTS = {
    "checklog": ("checklog self-test", "tools/checklog.py fails its sample logs",
                 run_selftest),
    "results": ("results CLI self-test (synthetic runs, sample logs)",
                "tools/shootdown.py fails its own tests", run_results_selftest),
}
SELFTEST_TIMEOUT = 900  # seconds; either takes well under a minute


def selftest_main(kind):
    """runner.py --selftest KIND: runs one self-test, prints what failed."""
    ok, details = SELFTESTS[kind][2]()
    print("\n".join(details))
    return 0 if ok else 1


def selftest_job(kind):
    """Runs self-test kind in a child; returns (ok, details, seconds)."""
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--selftest", kind],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=SELFTEST_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return False, [f"no end after {SELFTEST_TIMEOUT} s"], time.monotonic() - t0
    lines = [ln for ln in proc.stdout.decode("utf-8", "replace").splitlines() if ln.strip()]
    if proc.returncode and not lines:
        lines = [f"exited {proc.returncode}"]
    return proc.returncode == 0, lines[-20:], time.monotonic() - t0


class _EachResult(unittest.TestResult):
    """Collects (test, outcome, text) for every test, in order."""

    def __init__(self):
        super().__init__()
        self.outcomes = []
        self.t0 = time.monotonic()

    def startTest(self, test):
        super().startTest(test)
        self.t0 = time.monotonic()

    def _add(self, test, outcome, text):
        self.outcomes.append((test, outcome, text, time.monotonic() - self.t0))

    def addSuccess(self, test):
        self._add(test, "ok", "")

    def addFailure(self, test, err):
        self._add(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        self._add(test, "fail", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        self._add(test, "skip", reason)


def run_results_on_logs(rep, fresh):
    """tools/shootdown.py on this invocation's consoles (test_results
    FreshLogs, given the logs of the cases that ran): one result per test."""
    import test_results  # noqa: E402
    import test_side_by_side  # noqa: E402  (answer on a harness and a Linux log)
    for mod in (test_results, test_side_by_side):
        mod.FRESH.clear()
        mod.FRESH.update(fresh)
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite([loader.loadTestsFromTestCase(test_results.FreshLogs),
                                loader.loadTestsFromTestCase(test_side_by_side.FreshLogs)])
    result = _EachResult()
    suite.run(result)
    for test, outcome, text, secs in result.outcomes:
        name = "results CLI on this run's logs: " + test.id().rsplit(".", 1)[-1]
        if outcome == "ok":
            rep.ok(name, secs)
        elif outcome == "skip":
            rep.skip(name, text)
        else:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            rep.fail(name, lines[-1] if lines else "failed", lines[-20:])


def build():
    """make -s; returns (ok, why, last lines of output, seconds)."""
    t0 = time.monotonic()
    proc = subprocess.run(["make", "-C", ROOT, "-s"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False)
    tail = proc.stdout.decode("utf-8", "replace").splitlines()[-15:]
    ok = proc.returncode == 0 and os.path.isfile(os.path.join(ROOT, "build", "shootdown.elf"))
    why = f"make exited {proc.returncode}" if proc.returncode else "no build/shootdown.elf after make"
    return ok, why, tail, time.monotonic() - t0


def build_iso():
    """make -s iso (build/shootdown.iso); returns (ok, why, last lines, seconds)."""
    t0 = time.monotonic()
    proc = subprocess.run(["make", "-C", ROOT, "-s", "iso"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False)
    tail = proc.stdout.decode("utf-8", "replace").splitlines()[-15:]
    return proc.returncode == 0, f"make iso exited {proc.returncode}", tail, time.monotonic() - t0


def build_linux():
    """make -s linux (the Linux side's initramfs); returns (ok, why, last
    lines, seconds)."""
    t0 = time.monotonic()
    proc = subprocess.run(["make", "-C", ROOT, "-s", "linux"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False)
    tail = proc.stdout.decode("utf-8", "replace").splitlines()[-15:]
    return proc.returncode == 0, f"make linux exited {proc.returncode}", tail, \
        time.monotonic() - t0


def build_host_tsc():
    """Compiles tools/host-tsc-khz.c; returns None or why it failed."""
    os.makedirs(os.path.dirname(HOST_TSC), exist_ok=True)
    cc = os.environ.get("HOSTCC") or shutil.which("cc") or "gcc"
    proc = subprocess.run([cc, "-O2", "-Wall", "-o", HOST_TSC,
                           os.path.join(ROOT, "tools", "host-tsc-khz.c")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        return f"host-tsc-khz did not build ({cc} exited {proc.returncode})"
    return None


def host_tsc_khz():
    """The host's TSC rate, or None if it cannot be measured."""
    try:
        out = subprocess.run([HOST_TSC], stdout=subprocess.PIPE, check=True, timeout=30).stdout
        return int(out.strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


class Runner:
    """Runs cases through run-qemu.sh and judges them."""

    def __init__(self, opts):
        self.opts = opts
        self.procs = set()
        self.lock = threading.Lock()
        self.host_khz = None
        self.stopping = False
        self.deadline = time.monotonic() + opts.budget if opts.budget else None
        # Timeouts in a row: a kernel that hangs everywhere. A slow machine
        # only makes each case slower, and a case fails by its own timeout.
        self.timeouts_in_a_row = 0
        self.log_dir = LOG_DIR

    def command(self, case, log, jsonl):
        """The launcher's command line for a case: ./run-qemu.sh's options.

        Each case runs the launcher (tools/run_qemu.py, the module this
        runner imports for the KVM probe) in a process of its own rather
        than calling run_qemu.main() here: a run owns its signal handlers,
        stdout and QEMU's session, which threads of one process cannot
        each have, and a run that hangs beyond its own timeout is killed
        with everything it started. It is run directly, not through
        run-qemu.sh, whose dependency check the runner needs only once."""
        cmd = [sys.executable, os.path.join(ROOT, "tools", "run_qemu.py"), "--no-build",
               "--boot", case.boot,
               "--machine", case.machine, "--smp", str(case.smp),
               "--timeout", str(self.timeout(case)), "--log", log, "--json", jsonl]
        if case.emulator == "bochs":
            # No machine, accelerator or QEMU binary under Bochs.
            cmd = [sys.executable, os.path.join(ROOT, "tools", "run_qemu.py"), "--no-build",
                   "--boot", case.boot, "--smp", str(case.smp),
                   "--timeout", str(self.timeout(case)), "--log", log, "--json", jsonl]
            if case.cpu != "-":
                cmd += ["--cpu", case.cpu]
            if self.opts.kernel:
                cmd += ["--kernel", self.opts.kernel]
            cmd += case.options
            return [os.fsencode(c) for c in cmd] + [b"--"] + case.args
        if case.linux:
            # No --boot: the kernel and its initramfs, QEMU's -kernel.
            cmd = [sys.executable, os.path.join(ROOT, "tools", "run_qemu.py"), "--linux",
                   "--no-build", "--machine", case.machine, "--smp", str(case.smp),
                   "--timeout", str(self.timeout(case)), "--log", log, "--json", jsonl]
            case_options = [o for o in case.options if o != "--linux"]
        else:
            case_options = case.options
        if case.cpu != "-":
            cmd += ["--cpu", case.cpu]
        if "--accel" not in case.options:
            cmd += ["--accel", case.accel()]
        if self.opts.qemu and "--qemu10" not in case.options and "--qemu" not in case.options:
            cmd += ["--qemu", self.opts.qemu]
        if self.opts.kernel and not case.linux:
            cmd += ["--kernel", self.opts.kernel]
        cmd += case_options
        return [os.fsencode(c) for c in cmd] + [b"--"] + case.args

    def timeout(self, case):
        """The case's timeout, scaled."""
        return max(1, int(case.timeout * self.opts.timeout_scale))

    def execute(self, case):
        """Boots one case; returns (exit status, stderr lines, seconds, log).
        A case whose turn comes after MAX_TIMEOUTS_IN_A_ROW cases timed out
        one after another (a kernel that hangs everywhere), after the time
        budget a user asked for (--budget), or after Ctrl-C, is not started
        (status None)."""
        if self.timeouts_in_a_row >= MAX_TIMEOUTS_IN_A_ROW:
            return None, [f"not started: {self.timeouts_in_a_row} cases in a row timed out "
                          "(a kernel that hangs everywhere?)"], 0.0, None
        if self.stopping or (self.deadline and time.monotonic() > self.deadline):
            return None, ["not started: the time budget (--budget) was spent"], 0.0, None
        os.makedirs(self.log_dir, exist_ok=True)
        log = os.path.join(self.log_dir, case.name + ".log")
        jsonl = os.path.join(self.log_dir, case.name + ".jsonl")
        t0 = time.monotonic()
        # Own session: a stuck run can be killed with everything it started.
        proc = subprocess.Popen(self.command(case, log, jsonl), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        with self.lock:
            self.procs.add(proc)
        try:
            _, err = proc.communicate(timeout=self.timeout(case) + 60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            err = b"run-qemu.sh did not end within its own timeout + 60 s: killed\n"
        finally:
            with self.lock:
                self.procs.discard(proc)
        lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
        with self.lock:
            timed_out = proc.returncode in (exitcodes.E_TIMEOUT, -signal.SIGKILL) and \
                case.status != exitcodes.E_TIMEOUT
            self.timeouts_in_a_row = self.timeouts_in_a_row + 1 if timed_out else 0
        secs = time.monotonic() - t0
        try:  # for longest_first() next time
            with open(os.path.join(self.log_dir, case.name + ".secs"), "w") as f:
                f.write(f"{secs:.1f}\n")
        except OSError:
            pass
        return proc.returncode, lines, secs, log

    def judge(self, case, status, errlines, secs, log):
        """(reason, details) of a failure, or (None, []) when the case passed."""
        last = errlines[-1] if errlines else "(run-qemu.sh printed nothing)"
        if status is None:
            return last, []
        problems = []
        if status != case.status:
            problems.append(f"run-qemu.sh exited {status}, expected {case.status}: {last}")
        if status in (2, 124) or not os.path.exists(log):
            # No complete console to check: the status says it all.
            return (problems[0] if problems else last), errlines[-10:]
        if case.within is not None and secs > case.within:
            problems.append(f"run-qemu.sh took {secs:.1f} s, more than {case.within:g} s")
        problems += [f"run-qemu.sh's last line does not match /{regex}/: {last}"
                     for regex in case.last_line if not re.search(regex, last)]
        if case.stopped:
            problems += check_stopped(log, last)
            return judged(problems, log)
        if case.noconsole:
            if os.path.getsize(log):
                problems.append("the console is not empty: the case runs without one")
            return judged(problems, log)
        rep = checklog.check_file(log, expect_status=GUEST_STATUS[case.status],
                                  expect_boot=case.expect_boot, expect_text=case.expect_text,
                                  expect_fields=case.expect_fields)
        problems += rep.problems
        for regex in case.absent_text:
            rx = re.compile(regex)
            problems += [f"a line matches /{regex}/: {line}"
                         for line in rep.lines if rx.search(line)][:1]
        if case.pre_text:
            before = console_before_kernel(log)
            problems += [f"nothing before the kernel's first line matches /{regex}/"
                         for regex in case.pre_text if not re.search(regex, before)]
        if case.tsc and rep.env is not None:
            problems += self.check_tsc(rep.env)
        if case.mem_bytes and rep.env is not None:
            problems += check_mem(rep.env, case.mem_bytes)
        if case.sweep:
            problems += check_sweep(rep.records, case.sweep, case.smp)
        for bench in ("reclaim", "flushloop"):
            if getattr(case, bench):
                problems += experiments.check_clean(rep.records, bench)
        if case.ceiling:
            problems += [f"ceiling: {p}" for p in ceiling.check_records(rep.records)]
        if case.timeline is not None:
            problems += check_timeline(rep, case.timeline)
        return judged(problems, log)

    def check_tsc(self, env):
        """The guest's TSC rate against the host's."""
        guest = env.get("tsc_khz")
        if self.host_khz is None:
            return ["could not measure the host's TSC rate (build/host/host-tsc-khz)"]
        if not isinstance(guest, int):
            return [f"guest tsc_khz is {json.dumps(guest)}, expected about {self.host_khz}"]
        off = abs(guest - self.host_khz) / self.host_khz
        if off > TSC_TOLERANCE:
            return [f"guest tsc_khz {guest} is {off:.2%} off the host's {self.host_khz} "
                    f"(tolerance {TSC_TOLERANCE:.0%})"]
        return []

    def stop_all(self):
        """Ctrl-C: stop every run (run-qemu.sh stops its QEMU on TERM)."""
        self.stopping = True
        with self.lock:
            for proc in self.procs:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass


def judged(problems, log):
    """(reason, details) from the problems found, or (None, [])."""
    if not problems:
        return None, []
    reason = problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    return reason, problems + [f"console: {os.path.relpath(log, ROOT)}"]


def console_before_kernel(log):
    """What came on the console before the kernel's first protocol line
    (the firmware, GRUB's menu) as one line of text: ANSI escapes removed,
    line breaks and control characters made spaces."""
    with open(log, "rb") as f:
        lines = checklog.split_lines(f.read())
    first, _ = checklog.find_start(lines)
    text = " ".join(lines if first is None else lines[:first])
    text = checklog.ANSI_RE.sub(" ", text)
    return "".join(c if " " <= c <= "~" else " " for c in text)


def check_stopped(log, last):
    """A guest that stopped running mid-run: it had started (the env record
    is there) and run-qemu.sh's last line names the cause. Its console ends
    where the guest stopped, so it is not checked for a summary."""
    problems = []
    with open(log, "rb") as f:
        if b'@json {"type":"env"' not in f.read():
            problems.append("the guest never printed its env record: it did not run")
    if "guest stopped running" not in last:
        problems.append(f"run-qemu.sh's last line does not name a stopped guest: {last}")
    return problems


TIMELINE_RECORD_BYTES = 8192  # bench/reclaim_timeline.h RC_TL_RECORD_BYTES


def check_timeline(rep, budget_pct):
    """Every reclaim reader pass (not the control) has its timeline record
    just before its result, with bins before, during and after; each
    record within its byte budget; with budget_pct, all of them within
    that share of the console. (checklog holds each record's bins to its
    result's pages, reads and page-out.)"""
    problems, last, total = [], {}, 0
    for rec, raw in zip(rep.records, rep.raw):
        if rec.get("type") == "timeline":
            last[(rec.get("strategy"), rec.get("batch"))] = rec
            size = len("@json ") + len(raw) + 2
            total += size
            if size > TIMELINE_RECORD_BYTES:
                problems.append(f"timeline {rec.get('strategy')} {rec.get('batch')}: {size} "
                                f"bytes, over its budget of {TIMELINE_RECORD_BYTES}")
        elif rec.get("type") == "result" and rec.get("bench") == "reclaim" and \
                rec.get("strategy") != "writeback-before-flush":
            tl = last.pop((rec.get("strategy"), rec.get("batch")), None)
            name = f"{rec.get('strategy')} {rec.get('batch')}"
            if tl is None:
                problems.append(f"reclaim {name}: no timeline record before its result")
                continue
            empty = [w for w in ("before", "during", "after") if not tl.get(w)]
            if empty:
                problems.append(f"reclaim {name}: its timeline has no bins {', '.join(empty)} "
                                "the page-out")
    console = sum(len(line) + 2 for line in rep.lines)
    if budget_pct and total > console * budget_pct / 100:
        problems.append(f"the timeline records take {total} of the console's {console} "
                        f"bytes, over {budget_pct:g}%")
    if not total:
        problems.append("no timeline record")
    return problems


def check_mem(env, given):
    """mem_bytes (usable RAM the guest found) within 5% of what QEMU had."""
    seen = env.get("mem_bytes")
    if not isinstance(seen, int) or abs(seen - given) > MEM_TOLERANCE * given:
        return [f"env mem_bytes {json.dumps(seen)} is not within "
                f"{MEM_TOLERANCE:.0%} of the {given} bytes QEMU was given"]
    return []


def check_sweep(records, sweep, smp):
    """The case's sweep (strategies x pages x targets, 0: all) is in the
    plan record's shootdown runs, each of which checklog held to a record
    with exact counts (tools/experiments.py); the records are as many as
    the strategies' definitions make of the plan's runs; no record has a
    stale read or lacks its fields; INVLPGB runs only as the software
    model (no QEMU accelerator exposes it)."""
    pages, targets, strategies = sweep
    targets = [smp - 1 if t == 0 else t for t in targets]  # 0: all
    plan = experiments.find_plan(records).get("shootdown")
    plan = plan if isinstance(plan, dict) else {}
    want = {"strategies": strategies, "pages": pages, "targets": targets}
    problems = [f"the plan's shootdown runs leave out {key} {x}"
                for key, xs in want.items() for x in xs if x not in plan.get(key, [])]
    problems += experiments.check_clean(records, "shootdown")
    env = next((r for r in records if r.get("type") == "env"), {})
    want_n = experiments.shootdown_records(
        plan.get("strategies", []), plan.get("pages", []), plan.get("targets", []),
        env.get("cpus_online", smp) - 1, experiments.shootdown_classes(env),
        experiments.of_log(records))
    got_n = sum(1 for r in records if r.get("type") == "result" and
                r.get("bench") == "shootdown")
    if want_n != got_n:
        problems.append(f"{got_n} shootdown records, {want_n} from the plan's "
                        "runs and the strategies' definitions (tools/experiments.py)")
    problems += [f"shootdown record {r.get('strategy')} pages={r.get('pages')} "
                 f"targets={r.get('targets')}: not marked emulated" for r in records
                 if r.get("type") == "result" and r.get("bench") == "shootdown" and
                 r.get("flush") == "invlpgb" and
                 r.get("emulated") is not True]
    return problems


def longest_first(cases):
    """The cases in the order the pool should start them: the longest first
    (by the time each took when it last ran here, build/test-logs/NAME.secs,
    else by its timeout), so that no long case starts last and runs alone
    while the other jobs are idle. Ties keep the file's order."""
    def cost(case):
        try:
            with open(os.path.join(LOG_DIR, case.name + ".secs")) as f:
                return float(f.read())
        except (OSError, ValueError):
            return float(case.timeout)
    return sorted(cases, key=cost, reverse=True)


def select(cases, opts):
    """The cases chosen by --group and --case (shell patterns)."""
    chosen = cases
    if opts.group:
        groups = {g for arg in opts.group for g in arg.split(",")}
        chosen = [c for c in chosen if c.group in groups]
    if opts.case:
        chosen = [c for c in chosen if any(fnmatch.fnmatchcase(c.name, p) for p in opts.case)]
    return chosen


def list_cases(cases):
    """--list: the table, readable."""
    print(f"{'name':28} {'group':9} {'boot':6} {'machine':7} {'smp':>3} {'cpu':9} "
          f"{'status':>6} {'timeout':>7}  args")
    for c in cases:
        args = " ".join(a.decode("latin-1").encode("unicode_escape").decode() for a in c.args)
        print(f"{c.name:28} {c.group:9} {c.boot:6} {c.machine:7} {c.smp:>3} {c.cpu:9} "
              f"{c.status:>6} {c.timeout:>7}  {args}")


def main(argv=None):
    """Command line entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["soak"]:
        import soak  # noqa: E402  (tests/qemu, on the path above)
        return soak.main(argv[1:])
    if argv[:1] == ["--selftest"] and len(argv) == 2 and argv[1] in SELFTESTS:
        return selftest_main(argv[1])
    ap = argparse.ArgumentParser(description="Boot the harness in a matrix of QEMU "
                                 "configurations and check every console log.")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--group", "-g", action="append", help="only these groups (repeat or a,b)")
    ap.add_argument("--case", "-c", action="append", help="only cases matching (shell pattern)")
    ap.add_argument("--list", action="store_true", help="list the cases and stop")
    ap.add_argument("--qemu", help="QEMU binary for every case (passed to run-qemu.sh)")
    ap.add_argument("--no-build", action="store_true", help="do not run make first")
    ap.add_argument("--kernel", help="boot this ELF instead of build/shootdown.elf (implies --no-build)")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiply every case's timeout (slow machines)")
    ap.add_argument("--budget", type=float, default=None,
                    help="start no case after this many seconds (default: no limit; "
                    f"a kernel that hangs everywhere stops the run after "
                    f"{MAX_TIMEOUTS_IN_A_ROW} timeouts in a row)")
    ap.add_argument("--cases", default=CASES_FILE, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.jobs < 1:
        ap.error("--jobs must be at least 1")
    try:
        cases = select(load_cases(opts.cases), opts)
    except (OSError, ValueError) as exc:
        print(f"runner: {exc}", file=sys.stderr)
        return 2
    if opts.list:
        list_cases(cases)
        return 0
    if not cases:
        print("runner: no case matches --group/--case (try --list)", file=sys.stderr)
        return 2

    if opts.kernel:
        opts.kernel = os.path.abspath(opts.kernel)
    rep = Reporter()
    print("TAP version 13", flush=True)
    pool = ThreadPoolExecutor(max_workers=opts.jobs)
    selftests = {pool.submit(selftest_job, kind): kind for kind in SELFTESTS}

    tools = have_tools()
    built = True
    if not opts.no_build and not opts.kernel:
        built, why, tail, secs = build()
        if built:
            rep.ok("build (make)", secs)
        else:
            rep.fail("build (make)", why, tail)

    # The ISO that --iso cases boot, built from this tree (not with --kernel:
    # the ISO would not hold that kernel).
    if built and not opts.no_build and not opts.kernel and not tools["grub"] and \
            any(c.iso == os.path.join(ROOT, "build", "shootdown.iso") for c in cases):
        ok, why, tail, secs = build_iso()
        if ok:
            rep.ok("build (make iso)", secs)
        else:
            rep.fail("build (make iso)", why, tail)

    if built and not opts.no_build and not tools["linux"] and any(c.linux for c in cases):
        ok, why, tail, secs = build_linux()
        if ok:
            rep.ok("build (make linux)", secs)
        else:
            rep.fail("build (make linux)", why, tail)
            tools["linux"] = "make linux failed"

    runner = Runner(opts)
    if any(c.tsc for c in cases):
        tools["host-tsc"] = build_host_tsc()
        if tools["host-tsc"] is None:
            runner.host_khz = host_tsc_khz()
            if runner.host_khz is None:
                tools["host-tsc"] = "build/host/host-tsc-khz did not give a rate"

    todo = []
    for case in cases:
        if "kvm" in case.needs:
            qemu = run_qemu.QEMU10 if "--qemu10" in case.options else opts.qemu
            tools["kvm"] = kvm_problem(case, qemu)
        missing = [tools.get(n, f"unknown need '{n}'") for n in case.needs
                   if tools.get(n, f"unknown need '{n}'")]
        if case.tsc and tools.get("host-tsc"):
            missing.append(tools["host-tsc"])
        if case.iso and not missing and not os.path.isfile(case.iso):
            missing.append(f"no {os.path.relpath(case.iso, ROOT)} (make iso)")
        if not built:
            rep.skip(case.name, "the build failed")
        elif missing:
            rep.skip(case.name, "; ".join(missing))
        else:
            todo.append(case)

    fresh = {}  # case name -> console log, for the cases run now

    def record(case, result):
        status, errlines, secs, log = result
        if status is not None and log and os.path.exists(log):
            fresh[case.name] = log
        reason, details = runner.judge(case, status, errlines, secs, log)
        if reason is None:
            rep.ok(case.name, secs)
        else:
            rep.fail(case.name, reason, details)

    def record_selftest(kind, result):
        ok, details, secs = result
        name, why, _ = SELFTESTS[kind]
        if ok:
            rep.ok(name, secs)
        else:
            rep.fail(name, why, details)

    # The results group's consoles are compared with each other (two runs
    # of one configuration must compare as no change), so they run after
    # the others, among themselves only: a run beside a multi-threaded TCG
    # case was uniformly 70% slower than its twin on a 2-core host. They
    # are all single-threaded TCG, so --jobs of them at once (in the file's
    # order, which interleaves the sides) each have a host thread alike.
    alone = [c for c in todo if c.group == "results"]
    try:
        futures = {pool.submit(runner.execute, c): c
                   for c in longest_first([c for c in todo if c not in alone])}
        for fut in as_completed(list(selftests) + list(futures)):
            if fut in selftests:
                record_selftest(selftests[fut], fut.result())
            else:
                record(futures[fut], fut.result())
        futures = {pool.submit(runner.execute, c): c for c in alone}
        for fut in as_completed(futures):
            record(futures[fut], fut.result())
    except KeyboardInterrupt:
        runner.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        print("runner: interrupted", file=sys.stderr)
        print(rep.total())
        return 130
    pool.shutdown()
    # After the cases: the host tools on the consoles they just wrote.
    run_results_on_logs(rep, fresh)
    print(rep.total())
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
