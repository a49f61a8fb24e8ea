"""The exit statuses of a run, in one place (docs/output.md, "Ending a run").

The guest's statuses are what the kernel prints in its EXIT: STATUS=n line
and writes to QEMU's exit device (kernel/report.h and boot/boot.h define
them for the C side; tests/qemu/test_checklog.py checks that the two
agree). The launcher's are what ./run-qemu.sh (tools/run_qemu.py) exits
with. tools/checklog.py, tools/run_qemu.py and tests/qemu/runner.py import
this module rather than spelling the numbers out.
"""

# The guest's EXIT: STATUS=n.
GUEST_PASS, GUEST_FAIL, GUEST_SKIP, GUEST_ABORT = 0, 1, 38, 63
# The names kernel/report.h (and boot/boot.h) give them.
GUEST_C_NAMES = {"STATUS_PASS": GUEST_PASS, "STATUS_FAIL": GUEST_FAIL,
                 "STATUS_ALL_SKIPPED": GUEST_SKIP, "STATUS_ABORTED": GUEST_ABORT}

# The guest's last protocol line: "EXIT: STATUS=n".
EXIT_LINE = "EXIT: STATUS="


def exit_line_status(line):
    """n of a console line that is exactly EXIT: STATUS=n (str or bytes, its
    line end stripped), else None. The launchers and checklog all read
    the guest's status with this."""
    prefix = EXIT_LINE.encode() if isinstance(line, bytes) else EXIT_LINE
    if not line.startswith(prefix):
        return None
    tail = line[len(prefix):]
    return int(tail) if tail.isdigit() and tail.isascii() else None


# The launcher's exit status.
E_PASS, E_FAIL, E_USAGE, E_ABORT, E_SKIP, E_TIMEOUT, E_INTR = 0, 1, 2, 3, 77, 124, 130

# The guest's status -> the launcher's, and the words for it.
GUEST_STATUS = {GUEST_PASS: E_PASS, GUEST_FAIL: E_FAIL, GUEST_SKIP: E_SKIP,
                GUEST_ABORT: E_ABORT}
GUEST_WORDS = {GUEST_PASS: "passed", GUEST_FAIL: "failed", GUEST_SKIP: "skipped",
               GUEST_ABORT: "aborted"}

# The launcher's statuses, one line each (its --help, the runner's messages).
LAUNCHER_WORDS = {
    E_PASS: "passed",
    E_FAIL: "a check failed",
    E_USAGE: "usage or environment error",
    E_ABORT: "aborted",
    E_SKIP: "every check skipped",
    E_TIMEOUT: "timed out",
    E_INTR: "interrupted",
}


def gate_status(failed, guest_status):
    """What a gate over a saved run exits with (tap and junit --status,
    lava --gate): run-qemu.sh's convention, so that one CI rule reads
    them all. 1 when anything failed (a verdict, the log's check, the
    gate's own checks); else what run-qemu.sh maps the guest's EXIT status
    to: 0 passed, 77 every check skipped, 3 aborted. A log without an
    EXIT line that nothing failed in (its check left out) is 0."""
    if failed:
        return E_FAIL
    if guest_status is None:
        return E_PASS
    return GUEST_STATUS.get(guest_status, E_FAIL)
