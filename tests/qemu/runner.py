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

The table and what a case needs are tests/qemu/cases.py; the checks of a
console beyond checklog's, tests/qemu/case_checks.py; the self-tests,
tests/qemu/selftests.py.

Before the cases it runs the checklog and results-CLI self-tests and builds
the kernel once (make), so that parallel runs do not race to build it.
After them, tools/shootdown.py (compare, plot, table, tap, junit) runs on
the consoles those cases just wrote (tests/qemu/test_results.py,
FreshLogs), one result per test; a test whose cases were not selected is
skipped.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import cases  # noqa: E402  (first: puts tools/ on the path)
import case_checks  # noqa: E402
import selftests  # noqa: E402
import checklog  # noqa: E402
import ceiling  # noqa: E402
import exitcodes  # noqa: E402
import experiments  # noqa: E402
import run_qemu  # noqa: E402

ROOT = cases.ROOT
HOST_TSC = os.path.join(ROOT, "build", "host", "host-tsc-khz")
# Cases that time out one after another before the rest are not started:
# a kernel that hangs everywhere fails in bounded time, a slow machine not.
MAX_TIMEOUTS_IN_A_ROW = 4


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

def make(target=None):
    """make -s [target]; returns (ok, why not, last lines of output, seconds)."""
    t0 = time.monotonic()
    cmd = ["make", "-C", ROOT, "-s"] + ([target] if target else [])
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    tail = proc.stdout.decode("utf-8", "replace").splitlines()[-15:]
    why = f"{' '.join(['make'] + cmd[4:])} exited {proc.returncode}" if proc.returncode else None
    return proc.returncode == 0, why, tail, time.monotonic() - t0


def build():
    """make -s: the kernel; returns what make() does."""
    ok, why, tail, secs = make()
    if ok and not os.path.isfile(os.path.join(ROOT, "build", "shootdown.elf")):
        ok, why = False, "no build/shootdown.elf after make"
    return ok, why, tail, secs


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
        self.log_dir = cases.LOG_DIR

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
        try:  # for cases.longest_first() next time
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
            problems += case_checks.check_stopped(log, last)
            return case_checks.judged(problems, log)
        if case.noconsole:
            if os.path.getsize(log):
                problems.append("the console is not empty: the case runs without one")
            return case_checks.judged(problems, log)
        rep = checklog.check_file(log, expect_status=cases.GUEST_STATUS[case.status],
                                  expect_boot=case.expect_boot, expect_text=case.expect_text,
                                  expect_fields=case.expect_fields)
        problems += rep.problems
        for regex in case.absent_text:
            rx = re.compile(regex)
            problems += [f"a line matches /{regex}/: {line}"
                         for line in rep.lines if rx.search(line)][:1]
        if case.pre_text:
            before = case_checks.console_before_kernel(log)
            problems += [f"nothing before the kernel's first line matches /{regex}/"
                         for regex in case.pre_text if not re.search(regex, before)]
        if case.tsc and rep.env is not None:
            problems += case_checks.check_tsc(rep.env, self.host_khz)
        if case.mem_bytes and rep.env is not None:
            problems += case_checks.check_mem(rep.env, case.mem_bytes)
        if case.sweep:
            problems += case_checks.check_sweep(rep.records, case.sweep, case.smp)
        for bench in ("reclaim", "flushloop"):
            if getattr(case, bench):
                problems += experiments.check_clean(rep.records, bench)
        if case.ceiling:
            problems += [f"ceiling: {p}" for p in ceiling.check_records(rep.records)]
        if case.timeline is not None:
            problems += case_checks.check_timeline(rep, case.timeline)
        return case_checks.judged(problems, log)

    def stop_all(self):
        """Ctrl-C: stop every run (run-qemu.sh stops its QEMU on TERM)."""
        self.stopping = True
        with self.lock:
            for proc in self.procs:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass




def main(argv=None):
    """Command line entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["soak"]:
        import soak  # noqa: E402  (tests/qemu, on the path above)
        return soak.main(argv[1:])
    if argv[:1] == ["--selftest"] and len(argv) == 2 and argv[1] in selftests.SELFTESTS:
        return selftests.selftest_main(argv[1])
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
    ap.add_argument("--cases", default=cases.CASES_FILE, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.jobs < 1:
        ap.error("--jobs must be at least 1")
    try:
        chosen = cases.select(cases.load_cases(opts.cases), opts)
    except (OSError, ValueError) as exc:
        print(f"runner: {exc}", file=sys.stderr)
        return 2
    if opts.list:
        cases.list_cases(chosen)
        return 0
    if not chosen:
        print("runner: no case matches --group/--case (try --list)", file=sys.stderr)
        return 2

    if opts.kernel:
        opts.kernel = os.path.abspath(opts.kernel)
    rep = Reporter()
    print("TAP version 13", flush=True)
    pool = ThreadPoolExecutor(max_workers=opts.jobs)
    pending = {pool.submit(selftests.selftest_job, kind): kind for kind in selftests.SELFTESTS}

    tools = cases.have_tools()
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
            any(c.iso == os.path.join(ROOT, "build", "shootdown.iso") for c in chosen):
        ok, why, tail, secs = make("iso")
        if ok:
            rep.ok("build (make iso)", secs)
        else:
            rep.fail("build (make iso)", why, tail)

    if built and not opts.no_build and not tools["linux"] and any(c.linux for c in chosen):
        ok, why, tail, secs = make("linux")  # the initramfs
        if ok:
            rep.ok("build (make linux)", secs)
        else:
            rep.fail("build (make linux)", why, tail)
            tools["linux"] = "make linux failed"

    runner = Runner(opts)
    if any(c.tsc for c in chosen):
        tools["host-tsc"] = build_host_tsc()
        if tools["host-tsc"] is None:
            runner.host_khz = host_tsc_khz()
            if runner.host_khz is None:
                tools["host-tsc"] = "build/host/host-tsc-khz did not give a rate"

    todo = []
    for case in chosen:
        if "kvm" in case.needs:
            qemu = run_qemu.QEMU10 if "--qemu10" in case.options else opts.qemu
            tools["kvm"] = cases.kvm_problem(case, qemu)
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
        name, why, _ = selftests.SELFTESTS[kind]
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
                   for c in cases.longest_first([c for c in todo if c not in alone])}
        for fut in as_completed(list(pending) + list(futures)):
            if fut in pending:
                record_selftest(pending[fut], fut.result())
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
    selftests.run_results_on_logs(rep, fresh)
    print(rep.total())
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
