"""run-qemu's watch over a running QEMU (tools/run_qemu.py): its QMP
monitor (the guest's run state, read on a thread of its own), the console
tee to the terminal and the log, the supervision until the guest stops,
exits, hangs or we are interrupted, and the verdict on how it ended. The
Bochs and Linux launchers use its pieces too.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from exitcodes import (E_PASS, E_FAIL, E_USAGE, E_ABORT, E_SKIP, E_TIMEOUT, E_INTR,  # noqa: F401
                       GUEST_PASS, GUEST_FAIL, GUEST_SKIP, GUEST_ABORT, GUEST_STATUS,
                       GUEST_WORDS, exit_line_status)

PROG = "run-qemu"
STATUS_POLL_S = 1.0  # how often QEMU is asked whether the guest runs
DRAIN_S = 0.5  # after the guest stopped: let the last output arrive

class UsageError(Exception):
    """A bad option: exit 2 with the message and a hint."""


class EnvError(Exception):
    """Something this machine lacks: exit 2 with the message."""


def err(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


# QEMU's run states (qapi RunState) that mean the guest no longer runs,
# and what each one says to a person.
STOPPED = {
    "internal-error": "QEMU stopped the guest on an internal error (under KVM: "
                      "an instruction KVM could not run or emulate; QEMU's dump is above)",
    "guest-panicked": "the guest panicked (pvpanic)",
    "paused": "QEMU paused the guest",
    "io-error": "QEMU stopped the guest on an I/O error",
    "shutdown": "the guest shut down without reaching the exit device",
    "watchdog": "QEMU's watchdog stopped the guest",
    "debug": "QEMU stopped the guest for a debugger",
    "suspended": "the guest suspended itself",
}


# --- the monitor --------------------------------------------------------------------

class Monitor:
    """QEMU's QMP socket: events and run state, read on a thread of its own.
    `stopped` becomes the reason once the guest no longer runs."""

    def __init__(self, path):
        self.path = path
        self.sock = None
        self.stopped = None
        self.shutdown_reason = None
        self.started = False  # our `cont` was answered (--serial none)
        self.lock = threading.Lock()
        self.wake = threading.Event()

    def connect(self, proc, limit_s=10.0):
        """Connects once QEMU has made the socket; False if QEMU ended or
        never made it (the run then goes on without the monitor)."""
        end = time.monotonic() + limit_s
        while time.monotonic() < end and proc.poll() is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.path)
                self.sock = s
                threading.Thread(target=self._read, daemon=True).start()
                self.send("qmp_capabilities")
                return True
            except OSError:
                s.close()
                time.sleep(0.02)
        return False

    def send(self, command, msg_id=None, **arguments):
        msg = {"execute": command}
        if msg_id:
            msg["id"] = msg_id
        if arguments:
            msg["arguments"] = arguments
        try:
            self.sock.sendall(json.dumps(msg).encode() + b"\n")
        except OSError:
            pass  # QEMU went away: its exit says the rest

    def _read(self):
        buf = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    self._message(json.loads(line))
                except ValueError:
                    continue

    def _message(self, msg):
        event = msg.get("event")
        ret = msg.get("return")
        if msg.get("id") == "start" and ret is not None:
            self.started = True
            self.wake.set()
        if event == "SHUTDOWN":
            self.shutdown_reason = (msg.get("data") or {}).get("reason")
        elif event == "GUEST_PANICKED":
            self._stop("guest-panicked")
        elif event == "STOP":
            # The state says why; ask at once rather than at the next poll.
            self.send("query-status")
        elif isinstance(ret, dict) and "status" in ret:
            if not ret.get("running") and ret["status"] in STOPPED:
                self._stop(ret["status"])

    def _stop(self, status):
        with self.lock:
            if self.stopped is None:
                self.stopped = status
        self.wake.set()

    def close(self):
        if self.sock:
            self.sock.close()


# --- run ----------------------------------------------------------------------------

# What GRUB prints while its menu counts down: the menu is up and reading keys.
MENU_COUNTDOWN = b"will be executed automatically"
ENV_START = b'@json {"type":"env"'


class Console:
    """Copies QEMU's output to our stdout and the log as it comes; with
    keys, types them into QEMU's stdin (the console port) once GRUB's menu
    counts down."""

    def __init__(self, pipe, log_file, keys=None, keys_to=None):
        self.pipe = pipe
        self.log = log_file
        self.out = sys.stdout.buffer
        self.keys, self.keys_to = keys, keys_to
        self.keys_sent = False
        self.tail = b""  # the last bytes seen, for a match across reads
        self.env_tail = b""
        self.env_at = None  # when the guest's env record began (monotonic)
        self.thread = threading.Thread(target=self._copy, daemon=True)
        self.thread.start()

    def _type_keys(self, data):
        """Sends the keys the first time the menu's countdown shows."""
        if self.keys is None or self.keys_sent:
            return
        seen = self.tail + data
        self.tail = seen[-len(MENU_COUNTDOWN):]
        if MENU_COUNTDOWN in seen:
            try:
                self.keys_to.write(self.keys.encode("ascii"))
                self.keys_to.flush()
                self.keys_sent = True
            except (BrokenPipeError, ValueError, OSError):
                self.keys = None  # QEMU is gone: nothing to type into

    def _note_env(self, data):
        """Notes when the env record starts: the guest has really run."""
        if self.env_at is not None:
            return
        seen = self.env_tail + data
        self.env_tail = seen[-len(ENV_START):]
        if ENV_START in seen:
            self.env_at = time.monotonic()

    def _copy(self):
        fd = self.pipe.fileno()
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            self.log.write(data)
            self.log.flush()
            self._type_keys(data)
            self._note_env(data)
            try:
                self.out.write(data)
                self.out.flush()
            except (BrokenPipeError, ValueError):
                self.out = Sink()  # our reader went away (| head): keep logging
        self.log.close()

    def finish(self, limit_s=5.0):
        self.thread.join(limit_s)


class Sink:
    """Stands in for a stdout nobody reads any more (the launchers')."""

    def write(self, data):
        return len(data)

    def flush(self):
        pass


class Outcome:
    """How the QEMU process ended: its exit code, or why we stopped it."""

    def __init__(self):
        self.rc = None  # QEMU's exit code
        self.timed_out = False
        self.stopped = None  # QEMU run state once the guest stopped
        self.shutdown_reason = None
        self.started = True  # False: --serial none, and the guest never started
        self.interrupted = None  # the signal's name


def own_session_dying_with_us(death_signal=signal.SIGTERM):
    """The preexec_fn of an emulator's child: a session of its own (the
    terminal's Ctrl-C reaches only us, and we stop the emulator), and
    death_signal when we die however we die (prctl PR_SET_PDEATHSIG), so
    no emulator outlives us."""
    def child():
        os.setsid()
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, death_signal, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    return child


def stop_process(proc, term_wait_s=5.0):
    """TERM to its session, then KILL after term_wait_s."""
    if proc.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, term_wait_s), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait_s)
            return
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


def supervise(proc, mon, o, out, console=None):
    """Waits for QEMU to end, the guest to stop, the timeout or a signal;
    --stop-after counts from the guest's env record on the console."""
    t0 = time.monotonic()
    connected = mon.connect(proc)
    if not connected and proc.poll() is None:
        err("QEMU's monitor did not answer: a guest that stops running will "
            "only be caught by the timeout" + ("; --stop-after cannot act" if o.stop_after else ""))
    if o.serial == "none":
        # QEMU waits paused (-S) for this: only a guest we started can
        # have written the exit device.
        if connected:
            mon.send("cont", msg_id="start")
        else:
            out.started = False
            stop_process(proc)
    next_poll = time.monotonic()
    paused_by_us = False
    while proc.poll() is None:
        now = time.monotonic()
        if out.interrupted:
            break
        if now - t0 >= o.timeout:
            out.timed_out = True
            break
        if mon.stopped:
            out.stopped = mon.stopped
            time.sleep(DRAIN_S)
            break
        if connected and now >= next_poll:
            mon.send("query-status")
            next_poll = now + STATUS_POLL_S
        # No console to watch (--serial none): from QEMU's start.
        since = t0 if o.serial == "none" or console is None else console.env_at
        if connected and o.stop_after and not paused_by_us and since is not None and \
                now - since >= o.stop_after:
            mon.send("stop")
            paused_by_us = True
        mon.wake.wait(0.1)
    if proc.poll() is None:
        stop_process(proc)
    out.rc = proc.wait()
    out.shutdown_reason = mon.shutdown_reason
    if o.serial == "none":
        out.started = out.started and mon.started
    return out


def guest_printed_status(log_path):
    """The status in the last EXIT: STATUS=n line of the console, or None."""
    status = None
    with open(log_path, "rb") as f:
        for line in f:
            n = exit_line_status(line.rstrip(b"\r\n"))
            status = status if n is None else n
    return status


SHUTDOWN_WHY = {
    "guest-reset": "the guest reset (a triple fault, or exit=reboot)",
    "guest-shutdown": "the guest powered itself off",
    "guest-panic": "the guest panicked",
}


def verdict(out, printed, log_empty, o):
    """(our exit status, the one line that says how the run ended)."""
    if out.interrupted:
        return E_INTR, f"interrupted by {out.interrupted}; QEMU stopped"
    if out.timed_out:
        seen = f" (the guest had printed EXIT: STATUS={printed})" if printed is not None else ""
        return E_TIMEOUT, f"timed out after {o.timeout}s, QEMU stopped{seen}"
    if out.stopped:
        why = STOPPED.get(out.stopped, f"QEMU's run state became '{out.stopped}'")
        if out.stopped == "paused" and o.stop_after:
            why += f" (--stop-after {o.stop_after})"
        return E_ABORT, f"aborted: guest stopped running: {why}"
    rc = out.rc
    if not out.started:
        return E_USAGE, ("QEMU ended before the monitor started the guest (--serial none: "
                         "its message is above)")
    if o.serial == "none" and rc > 0 and rc % 2 and (rc >> 1) in GUEST_STATUS:
        # No console: the exit device is the whole report.
        status = rc >> 1
        return GUEST_STATUS[status], (f"{GUEST_WORDS[status]}: guest status {status} through "
                                      f"the exit device (--serial none: no console)")
    if rc == 0 and out.shutdown_reason == "guest-reset" and printed in GUEST_STATUS:
        # The guest did not write the exit device (it does only where
        # CPUID says it runs under a hypervisor, e.g. not under
        # -cpu max,-hypervisor) and reset the machine after its last line,
        # as on hardware with exit=reboot: its EXIT line is the verdict.
        return GUEST_STATUS[printed], (f"{GUEST_WORDS[printed]}: guest status {printed}, then the guest "
                                       f"reset the machine (exit=reboot)")
    if rc == 0:
        why = SHUTDOWN_WHY.get(out.shutdown_reason, "a reset, triple fault or exit=reboot?")
        return E_ABORT, f"aborted: QEMU exited 0, the guest never reached the exit device: {why}"
    if rc < 0 or rc % 2 == 0 or rc > 127:
        return E_ABORT, f"aborted: QEMU exited {rc} (killed, or an error of its own)"
    status = rc >> 1
    # QEMU's own errors exit 1, the same as guest status 0: only a guest
    # that printed EXIT: STATUS=0 has passed.
    if status == 0 and printed != 0:
        if log_empty and o.serial != "com1":
            return E_ABORT, (f"aborted: the guest ended (QEMU exited 1) but nothing came on "
                             f"{o.serial}: did it print on another port?")
        if log_empty:
            return E_USAGE, "QEMU failed before the guest printed anything (its message is above)"
        return E_ABORT, "aborted: QEMU exited 1 but the console has no EXIT: STATUS=0 (a QEMU error?)"
    note = "" if printed == status else f" (but the console says {printed}: lines lost?)"
    words = {GUEST_PASS: f"passed: guest status {GUEST_PASS}",
             GUEST_FAIL: f"failed: guest status {GUEST_FAIL}, a check failed",
             GUEST_SKIP: f"skipped: guest status {GUEST_SKIP}, every check skipped",
             GUEST_ABORT: f"aborted: guest status {GUEST_ABORT} (fault, panic or watchdog)"}
    if status in words:
        return GUEST_STATUS[status], words[status] + note
    return E_ABORT, f"aborted: guest status {status} is not one the harness defines{note}"
