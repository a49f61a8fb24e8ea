"""The runner's self-tests (checklog on its sample logs, the results CLI
on synthetic runs), each in a child process of its own, and the results
CLI's tests on the consoles this run's cases just wrote.
"""

import io
import os
import subprocess
import sys
import time
import unittest

import cases  # noqa: F401  (puts tools/ and tests/qemu on the path)

RUNNER = os.path.join(cases.HERE, "runner.py")


def run_selftest():
    """tools/checklog.py against its sample logs; returns (ok, details)."""
    import test_checklog  # noqa: E402  (tests/qemu, on the path above)
    return _run_suite(unittest.defaultTestLoader.loadTestsFromModule(test_checklog))


def run_results_selftest():
    """tools/shootdown.py on synthetic runs and the sample logs (every
    class of test_results but FreshLogs); returns (ok, details)."""
    import test_results  # noqa: E402  (tests/qemu, on the path above)
    loader = unittest.defaultTestLoader
    return _run_suite(unittest.TestSuite(
        loader.loadTestsFromTestCase(cls) for cls in test_results.SELFTEST_CLASSES))


def _run_suite(suite):
    """(ok, the last 20 lines unittest printed if it failed)."""
    out = io.StringIO()
    res = unittest.TextTestRunner(stream=out, verbosity=0).run(suite)
    if res.wasSuccessful():
        return True, []
    return False, [ln for ln in out.getvalue().splitlines() if ln.strip()][-20:]


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
        proc = subprocess.run([sys.executable, RUNNER, "--selftest", kind],
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


