#!/usr/bin/env python3
"""Boot the harness under Bochs (./run-qemu.sh --emulator bochs), stream its
serial console to stdout, and exit with what the run came to, as
./run-qemu.sh does under QEMU (docs/bochs.md).

usage: ./run-qemu.sh --emulator bochs [options] [-- KERNEL ARGS...]

  --boot bios               the only boot Bochs has here: its BIOS boots
                            GRUB (multiboot2) from the hybrid ISO as a CD
                            (default; kernel, uefi and ipxe: exit 2)
  --smp N                   CPUs (default 2; Bochs is slow: every CPU is
                            emulated on one host thread)
  --mem SIZE                memory, e.g. 512M or 1G (default 512M)
  --cpu MODEL               Bochs CPU model (bochs --help cpu); default
                            corei7_haswell_4770 (PCID, INVPCID, x2APIC);
                            ryzen: xAPIC, no PCID. Not corei7_skylake_x or
                            later: their CPUID leaf 0x16 declares a clock
                            that the TSC (ticking at --ips) is not
  --ips N                   instructions per emulated second, which is
                            also the TSC's rate (default 200000000; a
                            signed 32-bit value in Bochs: at most
                            2147483647)
  --quantum N               instructions a CPU runs before the next one
                            (1..32, default 16)
  --timeout SECONDS         stop Bochs after this long (default 200 per
                            CPU, at least 300: the default suite at 2
                            CPUs took 229-331 s on a loaded 2-core host)
  --log FILE                write the whole console (COM1) to FILE
  --json FILE               write the @json records to FILE, one a line
  --bochs-log FILE          keep Bochs's own log (default: discarded, but
                            its last panic or error is quoted when Bochs
                            ends without the guest's EXIT line)
  --bochs PATH              the Bochs binary (default bochs)
  --kernel PATH             boot this ELF (default build/shootdown.elf,
                            built with make first) from a one-entry ISO
                            made for this run with the kernel arguments
  --iso PATH                boot this ISO as it is (its own menu, whose
                            default entry starts after 5 s; no kernel
                            arguments), e.g. `make iso`'s
  --no-build                do not run make first
  --keep-iso                keep the per-run ISO in build/run/
  --dry-run                 print the Bochs command line and its
                            configuration, and stop
  -v, --verbose             print the Bochs command line before running it
  -h, --help                this text

Bochs has no exit device: the guest's status is its last `EXIT: STATUS=n`
line on the console, and Bochs is stopped (TERM, then KILL) once it has
come. Exit status as ./run-qemu.sh's: 0 passed, 1 a check failed, 77 every
check skipped, 2 usage or environment error (Bochs or a package of it not
installed), 3 aborted (guest status 63, or Bochs ended before the guest
printed its EXIT line: a panic, a triple fault), 124 timed out, 130
interrupted.

Examples:
  ./run-qemu.sh --emulator bochs -- bench=none
  ./run-qemu.sh --emulator bochs --cpu ryzen --smp 2 -- bench=none
  ./run-qemu.sh --emulator bochs --smp 2 -- bench=shootdown samples=10 warmup=2 pages=1,8 targets=1,all budget_s=0
"""

import os
import pty
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True

import qemu_watch  # noqa: E402
import run_qemu  # noqa: E402
from run_qemu import UsageError, EnvError, err, positive  # noqa: E402
from exitcodes import (E_PASS, E_USAGE, E_ABORT, E_TIMEOUT, E_INTR,  # noqa: E402
                       GUEST_ABORT, GUEST_FAIL, GUEST_PASS, GUEST_SKIP, GUEST_STATUS,
                       GUEST_WORDS, exit_line_status)

BOCHS = "bochs"
BIOS = "/usr/share/bochs/BIOS-bochs-latest"  # bochsbios
VGABIOS = "/usr/share/vgabios/vgabios.bin"  # vgabios
PLUGIN_DIR = "/usr/lib/x86_64-linux-gnu/bochs/plugins"
TERM_PLUGIN = "libbx_term_gui.so"  # bochs-term
PACKAGES = "bochs bochsbios bochs-term vgabios"

DEFAULT_CPU = "corei7_haswell_4770"
# What the two models this project uses show (docs/bochs.md).
MODELS = {"corei7_haswell_4770": "PCID, INVPCID, x2APIC, no hypervisor bit",
          "ryzen": "xAPIC, no PCID, no hypervisor bit"}
IPS_MAX = (1 << 31) - 1  # Bochs reads ips as a signed 32-bit value
POLL_S = 0.1
DRAIN_S = 0.3  # after the EXIT line: let the last bytes reach the file
TERM_WAIT_S = 3.0  # TERM, then KILL: a Bochs without a tty ignored TERM
TIMEOUT_MIN_S, TIMEOUT_PER_CPU_S = 300, 200



class Options:
    """What the command line asked for."""

    def __init__(self):
        self.boot, self.smp, self.mem, self.cpu = "bios", 2, "512M", DEFAULT_CPU
        self.ips, self.quantum = 200000000, 16
        self.timeout, self.log, self.json, self.bochs_log = None, None, None, None
        self.bochs = None
        self.kernel, self.iso, self.build, self.keep_iso = None, None, True, False
        self.dry_run, self.verbose = False, False
        self.kargs = []


VALUED = {"--boot": "boot", "--smp": "smp", "--mem": "mem", "--cpu": "cpu",
          "--ips": "ips", "--quantum": "quantum", "--timeout": "timeout",
          "--log": "log", "--json": "json", "--bochs-log": "bochs_log",
          "--bochs": "bochs", "--kernel": "kernel", "--iso": "iso"}
FLAGS = {"--no-build": ("build", False), "--keep-iso": ("keep_iso", True),
         "--dry-run": ("dry_run", True), "-v": ("verbose", True),
         "--verbose": ("verbose", True)}
# run-qemu.sh's options that have no meaning under Bochs.
QEMU_ONLY = ("--machine", "--accel", "--tcg-threads", "--qemu", "--qemu10", "--qemu-data",
             "--qemu-arg", "--serial", "--keys", "--acpi", "--mem-holes", "--mem-noreserve",
             "--probe", "--stop-after")


def parse_args(argv):
    """Options and the kernel arguments after `--`; raises UsageError."""
    o = Options()
    run_qemu.scan_args(argv, o, __doc__, VALUED, FLAGS, unknown)
    check_options(o)
    return o


def unknown(a):
    if a in QEMU_ONLY:
        return f"{a} is a QEMU option: not with --emulator bochs"
    return f"unknown option '{a}' (--emulator bochs)"


def default_timeout(smp):
    """Seconds: one host thread interprets every CPU, so a run's wall time
    grows with them (the guest's budget is in its own, emulated, time)."""
    return max(TIMEOUT_MIN_S, TIMEOUT_PER_CPU_S * smp)


def check_options(o):
    """Values in range; raises UsageError."""
    if o.boot != "bios":
        raise UsageError(f"--boot {o.boot}: under Bochs only bios (its BIOS boots GRUB "
                         f"from the ISO; no -kernel loader, no UEFI firmware, no iPXE)")
    o.smp = positive("--smp", str(o.smp))
    o.timeout = (positive("--timeout", str(o.timeout)) if o.timeout is not None
                 else default_timeout(o.smp))
    o.ips = positive("--ips", str(o.ips))
    o.quantum = positive("--quantum", str(o.quantum))
    if o.ips > IPS_MAX:
        raise UsageError(f"--ips {o.ips}: Bochs reads it as a signed 32-bit value "
                         f"(at most {IPS_MAX}; larger ones wrap)")
    if o.quantum > 32:
        raise UsageError(f"--quantum {o.quantum}: Bochs takes 1..32")
    if o.smp > 254:
        raise UsageError(f"--smp {o.smp}: Bochs has at most 254 CPUs")
    mem = o.mem.rstrip("KMGT")
    if not (mem.isdigit() and int(mem) > 0 and len(o.mem) - len(mem) <= 1):
        raise UsageError(f"--mem: '{o.mem}' is not a size like 512M or 1G")
    if run_qemu.mem_bytes(o.mem) < 32 << 20:
        raise UsageError(f"--mem {o.mem}: at least 32M")
    if not o.cpu or not all(c.isalnum() or c == "_" for c in o.cpu):
        raise UsageError(f"--cpu: '{o.cpu}' is not a Bochs CPU model (bochs --help cpu)")
    if o.iso:
        if o.kargs:
            raise UsageError("--iso boots the ISO's own menu: kernel arguments cannot be passed")
        if not os.path.isfile(o.iso):
            raise UsageError(f"--iso: '{o.iso}' not found")


def missing(bochs=None):
    """None if Bochs can run the harness here, else why not (naming the
    package): the runner's reason to skip the bochs cases."""
    path = bochs or shutil.which(BOCHS)
    if not path or not os.access(path, os.X_OK):
        return f"no {bochs or BOCHS} (apt-get install {PACKAGES})"
    for f, pkg in ((BIOS, "bochsbios"), (VGABIOS, "vgabios"),
                   (os.path.join(PLUGIN_DIR, TERM_PLUGIN), "bochs-term")):
        if not os.path.isfile(f):
            return f"no {f} (apt-get install {pkg})"
    return None


def bochsrc(o, iso, console, bochs_log):
    """Bochs's configuration for this run."""
    mib = max(1, run_qemu.mem_bytes(o.mem) >> 20)
    return "\n".join([
        f"memory: guest={mib}, host={mib}",
        # fastboot: no 'Press F12 for boot menu' wait.
        f"romimage: file={BIOS}, options=fastboot",
        f"vgaromimage: file={VGABIOS}",
        # ips is the TSC's rate too: the kernel calibrates against the PIT
        # and HPET, which tick in the same emulated time (sync=none).
        f"cpu: model={o.cpu}, count={o.smp}, ips={o.ips}, quantum={o.quantum}, "
        "reset_on_triple_fault=0",
        "pci: enabled=1, chipset=i440fx",
        "clock: sync=none, time0=946684800",
        "ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14",
        f"ata0-master: type=cdrom, path={iso}, status=inserted",
        "boot: cdrom",
        f"com1: enabled=1, mode=file, dev={console}",
        # There is no nogui display here: term (bochs-term), on a pty of ours.
        "display_library: term",
        "mouse: enabled=0",
        f"log: {bochs_log}",
        "panic: action=fatal",
        "error: action=report",
        "info: action=ignore",
        "debug: action=ignore",
        "",
    ])


def bochs_command(o, rcfile, debugrc):
    """Bochs's command line: quick start (no configuration menu), and the
    debugger (compiled into Debian's Bochs) told to continue at once."""
    return [o.bochs or BOCHS, "-q", "-f", rcfile, "-rc", debugrc]


def stop_bochs(proc):
    """TERM to its session, then KILL after a few seconds."""
    qemu_watch.stop_process(proc, TERM_WAIT_S)


class Tail:
    """Copies the console file to our stdout as Bochs writes it, and
    notices the guest's EXIT: STATUS=n line."""

    def __init__(self, path):
        self.path = path
        self.f = None
        self.partial = b""
        self.exit_status = None  # the last EXIT line's status
        self.out = sys.stdout.buffer

    def poll(self):
        if self.f is None:
            try:
                self.f = open(self.path, "rb")
            except OSError:
                return
        data = self.f.read()
        if not data:
            return
        try:
            self.out.write(data)
            self.out.flush()
        except (BrokenPipeError, ValueError):
            self.out = run_qemu.Sink()
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            n = exit_line_status(line.rstrip(b"\r"))
            self.exit_status = self.exit_status if n is None else n

    def close(self):
        if self.f:
            self.f.close()


class Outcome:
    def __init__(self):
        self.rc = None
        self.timed_out = False
        self.interrupted = None
        self.stopped_by_us = False


def drain(fd):
    """Reads the term display off the pty until Bochs closes it (what it
    draws is the VGA text screen, which the console does not need)."""
    while True:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def supervise(proc, tail, o, out):
    """Until the guest's EXIT line, Bochs's end, the timeout or a signal."""
    t0 = time.monotonic()
    while proc.poll() is None:
        tail.poll()
        if out.interrupted:
            break
        if tail.exit_status is not None:
            time.sleep(DRAIN_S)
            break
        if time.monotonic() - t0 >= o.timeout:
            out.timed_out = True
            break
        time.sleep(POLL_S)
    if proc.poll() is None:
        out.stopped_by_us = True
        stop_bochs(proc)
    out.rc = proc.wait()
    tail.poll()


def bochs_last_words(path):
    """The last panic or error line of Bochs's log, or its last line."""
    try:
        with open(path, "rb") as f:
            lines = [ln.decode("utf-8", "replace").strip() for ln in f if ln.strip()]
    except OSError:
        return None
    for kind in ("p[", "e["):
        hits = [ln for ln in lines if kind in ln[:16]]
        if hits:
            return hits[-1]
    return lines[-1] if lines else None


def verdict(out, printed, log_empty, o, last_words):
    """(our exit status, the one line that says how the run ended)."""
    if out.interrupted:
        return E_INTR, f"interrupted by {out.interrupted}; Bochs stopped"
    if printed is not None:
        if printed not in GUEST_STATUS:
            return E_ABORT, f"aborted: guest status {printed} is not one the harness defines"
        detail = {GUEST_PASS: "", GUEST_FAIL: ", a check failed",
                  GUEST_SKIP: ", every check skipped",
                  GUEST_ABORT: " (fault, panic or watchdog)"}.get(printed, "")
        return GUEST_STATUS[printed], (f"{GUEST_WORDS[printed]}: guest status {printed}{detail} "
                                       f"(its EXIT line; Bochs has no exit device and was stopped)")
    if out.timed_out:
        return E_TIMEOUT, f"timed out after {o.timeout}s, Bochs stopped"
    words = f" ({last_words})" if last_words else ""
    if log_empty:
        return E_USAGE, f"Bochs exited {out.rc} before the guest printed anything{words}"
    return E_ABORT, (f"aborted: Bochs exited {out.rc} before the guest printed its EXIT line"
                     f"{words}")


def run(o):
    """Everything after the options; returns our exit status."""
    why = missing(o.bochs)
    if why and not o.dry_run:
        raise EnvError(why)
    err(f"emulator bochs, cpu {o.cpu}" +
        (f" ({MODELS[o.cpu]})" if o.cpu in MODELS else "") +
        f", {o.smp} cpus, ips {o.ips}: the TSC counts emulated instructions")
    kernel = run_qemu.build(o)
    with tempfile.TemporaryDirectory(prefix="run-bochs.") as tmp:
        iso = o.iso
        made_iso = None
        if not iso:
            iso = made_iso = run_qemu.make_iso(kernel, run_qemu.cmdline_of(o), o.dry_run)
        try:
            return boot(o, iso, tmp)
        finally:
            if made_iso and not o.keep_iso and os.path.exists(made_iso):
                os.unlink(made_iso)


def boot(o, iso, tmp):
    """Runs Bochs once and judges the run."""
    log = o.log or os.path.join(tmp, "console.log")
    bochs_log = o.bochs_log or os.path.join(tmp, "bochs.log")
    for path in (log, bochs_log):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    rcfile, debugrc = os.path.join(tmp, "bochsrc"), os.path.join(tmp, "debug.rc")
    with open(rcfile, "w") as f:
        f.write(bochsrc(o, os.path.abspath(iso), os.path.abspath(log),
                        os.path.abspath(bochs_log)))
    with open(debugrc, "w") as f:
        f.write("c\n")
    cmd = bochs_command(o, rcfile, debugrc)
    if o.dry_run or o.verbose:
        print(shlex.join(cmd), file=sys.stderr, flush=True)
        if o.dry_run:
            with open(rcfile) as f:
                sys.stderr.write(f.read())
            return E_PASS
    open(log, "wb").close()  # before Bochs: a bad --log starts nothing
    out = Outcome()

    def on_signal(signum, _frame):
        out.interrupted = signal.Signals(signum).name

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    # The term display wants a terminal: a pty of ours, read and dropped.
    master, slave = pty.openpty()
    env = dict(os.environ, TERM=os.environ.get("TERM") or "xterm")
    if env["TERM"] == "dumb":
        env["TERM"] = "xterm"
    t0 = time.monotonic()
    # KILL when we die: Bochs does not always heed TERM.
    child = qemu_watch.own_session_dying_with_us(signal.SIGKILL)
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                            cwd=tmp, preexec_fn=child)
    os.close(slave)
    reader = threading.Thread(target=drain, args=(master,), daemon=True)
    reader.start()
    tail = Tail(log)
    try:
        supervise(proc, tail, o, out)
    finally:
        stop_bochs(proc)
        tail.close()
        reader.join(1.0)
        os.close(master)
    elapsed = time.monotonic() - t0
    if o.json:
        run_qemu.write_json(log, o.json)
    printed = run_qemu.guest_printed_status(log)
    last = None if printed is not None else bochs_last_words(bochs_log)
    status, line = verdict(out, printed, os.path.getsize(log) == 0, o, last)
    err(f"{line} [{elapsed:.1f}s]: exit {status}")
    return status


def main(argv):
    return run_qemu.guarded(lambda: run(parse_args(argv)),
                            "try: ./run-qemu.sh --emulator bochs --help")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
