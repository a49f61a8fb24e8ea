#!/usr/bin/env python3
"""Boot the harness under QEMU, stream its serial console to stdout, and exit
with what the run came to (docs/output.md, "Ending a run"; docs/qemu.md).

usage: ./run-qemu.sh [options] [-- KERNEL ARGS...]

  --boot kernel|bios|uefi|ipxe
                            how to boot (default kernel):
                              kernel  QEMU's own multiboot1 loader (-kernel)
                              bios    GRUB (multiboot2) from an ISO, SeaBIOS
                              uefi    GRUB (multiboot2) from an ISO, OVMF
                              ipxe    the NIC's iPXE ROM under SeaBIOS loads
                                      the ELF over TFTP (multiboot1), as a
                                      lab's network boot would: QEMU's
                                      user network serves DHCP and TFTP.
                                      Not under UEFI: iPXE's UEFI build
                                      cannot load the ELF (exit 2)
  --media cdrom|usb         with bios|uefi: how the ISO is attached
                            (default cdrom). usb: as a USB stick written
                            with dd (a USB mass-storage device, its boot
                            through the image's MBR under BIOS and its
                            EFI partition under UEFI), as on a server
  --usb-controller xhci|ehci
                            with --media usb: the host controller the
                            stick is behind (default xhci; ehci: USB 2)
  --stick-size SIZE         with --media usb: the stick is SIZE (e.g.
                            256M, larger than the image, as a real one
                            is): the image at its start, zeros after it,
                            as dd leaves a blank stick
  --smp N                   CPUs (default 4)
  --mem SIZE                memory, as QEMU's -m takes it (default 1G)
  --machine q35|pc          machine type (default q35)
  --accel auto|kvm|tcg      auto (default): hardware KVM where it can run
                            this kernel, else TCG (kvm-pvm is not taken:
                            it hides stale TLB entries); the line
                            'run-qemu: accel ...' says what was taken and why
  --cpu MODEL               CPU model (default: max under TCG; under KVM the
                            first of host, host,-arch-capabilities that
                            QEMU can start)
  --tcg-threads single|multi
                            single (default): all vCPUs on one host thread;
                            multi: MTTCG, slower when vCPUs outnumber host
                            cores
  --timeout SECONDS         stop QEMU after this long (default 300)
  --log FILE                write the whole console to FILE
  --json FILE               write the @json records to FILE, one a line
  --runs N                  boot N times, each run's --log and --json in
                            its own run-K directory beside the file named
                            (default build/runs/run-K/console.log), for
                            answer and compare (tools/repeat_runs.py); exit:
                            the worst run's
  --qemu PATH               QEMU binary (default qemu-system-x86_64); for an
                            unpacked tree (PREFIX/bin/...) its firmware and
                            libraries are used too
  --qemu10                  the QEMU 10 unpacked by tools/fetch-qemu10.sh
  --qemu-data DIR           one more firmware directory (QEMU's -L)
  --qemu-arg ARG            pass ARG to QEMU as it is (repeatable)
  --kernel PATH             boot this ELF (default build/shootdown.elf,
                            built with make first)
  --iso PATH                with bios|uefi: boot this ISO as it is (its own
                            menu; no kernel arguments), e.g. `make iso`'s
  --serial com1|com2|none   the serial port that is the console (stdout,
                            --log, --keys); default com1. com2: the machine
                            has COM1 too, but what is written there is
                            discarded, as on a server whose BMC shows
                            only COM2. none: no serial port at all; the
                            status comes through the exit device alone
                            (QEMU starts paused and the monitor starts the
                            guest, so that QEMU's own errors, which exit 1
                            as guest status 0 does, cannot pass for it)
  --acpi SCENARIO           boot on crafted ACPI tables instead of QEMU's
                            (tools/firmware_acpi.py --list): acpi=off, and
                            SeaBIOS runs a table loader of ours; needs
                            --machine q35 and --boot kernel or bios
  --mem-noreserve           back the RAM with memory QEMU does not reserve
                            up front (reserve=off): a guest may then have
                            more RAM than the host, as long as it touches
                            little of it (e.g. --mem 1030G, RAM above 1 TiB)
  --mem-holes N             with bios|uefi: GRUB cuts N holes of 4 KiB into
                            RAM (cutmem), one every MiB from 64 MiB up, so
                            the kernel gets a memory map of N more usable
                            ranges, each one a reserved gap away
  --keys KEYS               type KEYS on the console once GRUB's menu counts
                            down (its line 'will be executed automatically'),
                            as a person on the serial line would: with
                            --iso, an entry's hotkey boots it (--keys 6:
                            the quick self-check on COM2). If the menu never
                            comes, nothing is typed and the last line says so
  --no-build                do not run make first
  --keep-iso                keep the per-run ISO in build/run/
  --probe                   say which accelerator and CPU model would be
                            taken, and why, then stop (exit 0, or 2 if an
                            explicit --accel kvm cannot work)
  --stop-after SECONDS      testing: pause the guest through QEMU's monitor
                            this long after its env record (however slow
                            the boot before it), to check that a guest
                            which stops running is caught (exit 3)
  --dry-run                 print the QEMU command line and stop: nothing
                            is installed, built or started but the KVM
                            probe (a kernel, ISO or QEMU not there yet is
                            named as the run would use it)
  -v, --verbose             print the QEMU command line before running it
  --emulator qemu|bochs     bochs: boot under Bochs instead (PCID, global
                            pages, no hypervisor bit; its own options:
                            --emulator bochs --help, docs/bochs.md)
  --linux                   boot Debian's Linux with the seeds' workloads
                            instead (its own options: --linux --help,
                            docs/linux.md)
  -h, --help                this text

Exit status: 0 passed, 1 a check failed, 77 every check skipped, 2 usage or
environment error (missing tool, KVM asked for but unusable, build failed),
3 aborted (guest status 63; QEMU ended without the guest reaching the exit
device; or QEMU stopped running the guest: a KVM internal error, an
emulation failure, a panic, a pause), 124 timed out, 130 interrupted.

While the guest runs, QEMU's monitor (QMP) is asked every second whether it
is still running the guest: a guest that the hypervisor stopped is reported
within a few seconds, not at the timeout.

Examples:
  ./run-qemu.sh -- bench=none
  ./run-qemu.sh --boot uefi --smp 2 --log build/uefi.log -- selftest=fail
  ./run-qemu.sh --accel kvm --smp 2 -- bench=all samples=20
  ./run-qemu.sh --boot uefi --media usb --usb-controller ehci -- bench=none
"""

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True

import firmware_acpi  # noqa: E402
import repeat_runs  # noqa: E402
from qemu_machine import (HOLE, HOLE_EVERY, HOLES_FROM, IPXE_ROMS, IPXE_SCRIPT,  # noqa: E402,F401
                          IPXE_UEFI, KVM_CPU_MODELS, OVMF_CODE, OVMF_VARS,
                          PROBE_TIMEOUT_S, QEMU10, ROOT, TCG_CPU_MODEL, Choice, Qemu,
                          choose_accel, cmdline_of, cutmem_commands, find_qemu, ipxe_args,
                          ipxe_rom, kvm_device_problem, kvm_kind, mem_bytes, probe,
                          try_kvm, uefi_firmware_args, usb_stick_args, user_name)
from qemu_watch import (DRAIN_S, PROG, STATUS_POLL_S, STOPPED, Console,  # noqa: E402,F401
                        EnvError, Monitor, Outcome, Sink, UsageError, err, guest_printed_status,
                        own_session_dying_with_us, stop_process, supervise, verdict)

# Exit statuses (docs/output.md), ours and the guest's: one table for the
# launcher, the runner and checklog.
from exitcodes import (E_PASS, E_FAIL, E_USAGE, E_ABORT, E_SKIP, E_TIMEOUT, E_INTR,  # noqa: E402,F401
                       GUEST_PASS, GUEST_FAIL, GUEST_SKIP, GUEST_ABORT, GUEST_STATUS,
                       GUEST_WORDS, exit_line_status)


# --- options ----------------------------------------------------------------

class Options:
    """What the command line asked for."""

    def __init__(self):
        self.boot, self.smp, self.mem, self.machine = "kernel", 4, "1G", "q35"
        self.cpu, self.accel, self.tcg_threads = None, "auto", "single"
        self.timeout, self.log, self.json = 300, None, None
        self.qemu, self.data_dirs, self.qemu_extra = None, [], []
        self.kernel, self.iso, self.build, self.keep_iso = None, None, True, False
        self.probe, self.stop_after, self.dry_run, self.verbose = False, None, False, False
        self.serial, self.keys = "com1", None
        self.acpi, self.mem_holes, self.mem_noreserve = None, None, False
        self.media, self.usb_controller, self.stick_size = "cdrom", "xhci", None
        self.kargs = []


VALUED = {"--boot": "boot", "--smp": "smp", "--mem": "mem", "--machine": "machine",
          "--cpu": "cpu", "--accel": "accel", "--tcg-threads": "tcg_threads",
          "--timeout": "timeout", "--log": "log", "--json": "json", "--qemu": "qemu",
          "--kernel": "kernel", "--iso": "iso", "--stop-after": "stop_after",
          "--serial": "serial", "--keys": "keys", "--acpi": "acpi",
          "--mem-holes": "mem_holes", "--media": "media",
          "--usb-controller": "usb_controller", "--stick-size": "stick_size",
          "--qemu-data": "data_dirs", "--qemu-arg": "qemu_extra"}
FLAGS = {"--no-build": ("build", False), "--keep-iso": ("keep_iso", True),
         "--mem-noreserve": ("mem_noreserve", True),
         "--dry-run": ("dry_run", True), "-v": ("verbose", True),
         "--verbose": ("verbose", True), "--probe": ("probe", True),
         "--qemu10": ("qemu", QEMU10)}


def parse_args(argv):
    """Options and the kernel arguments after `--`; raises UsageError."""
    o = Options()
    scan_args(argv, o, __doc__, VALUED, FLAGS, lambda a: f"unknown option '{a}'")
    check_options(o)
    return o


def scan_args(argv, o, doc, valued, flags, unknown):
    """Fills o from argv (this launcher's and the Bochs one's, which share
    the kernel arguments after `--`, -h and the --kernel/--iso rule):
    flags[a] is (field, value); valued[a] the field the next argument sets,
    or is appended to when the field is a list; unknown(a) the words
    for any other option. Raises UsageError."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            o.kargs = argv[i + 1:]
            break
        if a in ("-h", "--help"):
            print(doc[doc.index("usage:"):].rstrip())
            sys.exit(0)
        if a in flags:
            setattr(o, *flags[a])
        elif a in valued:
            if i + 1 >= len(argv):
                raise UsageError(f"{a} needs a value")
            i += 1
            field = getattr(o, valued[a])
            if isinstance(field, list):
                field.append(argv[i])
            else:
                setattr(o, valued[a], argv[i])
            if a in ("--kernel", "--iso"):
                o.build = False
        else:
            raise UsageError(unknown(a))
        i += 1


def positive(name, text):
    """An option value that must be a positive whole number."""
    if not (text.isdigit() and int(text) > 0):
        raise UsageError(f"{name}: '{text}' is not a positive number")
    return int(text)


def check_options(o):
    """Values in range, combinations that make sense; raises UsageError."""
    if ("ipxe" in o.boot and "efi" in o.boot) or \
            (o.boot == "ipxe" and uefi_firmware_args(o.qemu_extra)):
        raise UsageError(IPXE_UEFI)
    choices = (("--boot", o.boot, ("kernel", "bios", "uefi", "ipxe")),
               ("--machine", o.machine, ("q35", "pc")),
               ("--accel", o.accel, ("auto", "kvm", "tcg")),
               ("--tcg-threads", o.tcg_threads, ("single", "multi")),
               ("--serial", o.serial, ("com1", "com2", "none")),
               ("--media", o.media, ("cdrom", "usb")),
               ("--usb-controller", o.usb_controller, ("xhci", "ehci")))
    for name, val, allowed in choices:
        if val not in allowed:
            raise UsageError(f"{name}: '{val}' is not {', '.join(allowed[:-1])} or {allowed[-1]}")
    o.smp = positive("--smp", str(o.smp))
    o.timeout = positive("--timeout", str(o.timeout))
    if o.stop_after is not None:
        o.stop_after = positive("--stop-after", o.stop_after)
    mem = o.mem.rstrip("KMGT")
    if not (mem.isdigit() and int(mem) > 0 and len(o.mem) - len(mem) <= 1):
        raise UsageError(f"--mem: '{o.mem}' is not a size like 512M or 1G")
    if o.media == "usb" and o.boot not in ("bios", "uefi"):
        raise UsageError("--media usb: the stick holds the ISO: --boot bios or --boot uefi")
    if o.media != "usb" and (o.usb_controller != "xhci" or o.stick_size is not None):
        raise UsageError("--usb-controller and --stick-size go with --media usb")
    if o.stick_size is not None:
        size = o.stick_size.rstrip("KMGT")
        if not (size.isdigit() and int(size) > 0 and len(o.stick_size) - len(size) <= 1):
            raise UsageError(f"--stick-size: '{o.stick_size}' is not a size like 256M or 8G")
    if o.acpi is not None:
        if o.acpi not in firmware_acpi.SCENARIOS:
            raise UsageError(f"--acpi: '{o.acpi}' is not one of "
                             f"{', '.join(firmware_acpi.SCENARIOS)}")
        if o.machine != "q35" or o.boot == "uefi":
            raise UsageError("--acpi: the tables are for SeaBIOS on q35: --machine q35, "
                             "--boot kernel or bios (OVMF rebuilds what it is given)")
        if o.smp > 255:
            raise UsageError("--acpi: the crafted MADT lists xAPIC IDs: at most 255 CPUs")
    if o.mem_holes is not None:
        o.mem_holes = positive("--mem-holes", o.mem_holes)
        if o.boot in ("kernel", "ipxe") or o.iso:
            raise UsageError("--mem-holes: GRUB cuts the holes: --boot bios or uefi, no --iso")
        if HOLES_FROM + o.mem_holes * HOLE_EVERY > mem_bytes(o.mem):
            raise UsageError(f"--mem-holes {o.mem_holes}: more holes than --mem {o.mem} "
                             f"has MiB above 64 MiB")
    if o.serial == "none" and o.keys is not None:
        raise UsageError("--keys needs a console: not with --serial none")
    if o.keys is not None:
        if o.boot in ("kernel", "ipxe"):
            raise UsageError("--keys types into GRUB's menu: it needs --boot bios or --boot uefi")
        if not o.keys or not all(" " <= c <= "~" for c in o.keys):
            raise UsageError(f"--keys: {o.keys!r} is not printable ASCII")
    if o.boot == "ipxe":
        bad = [w for w in o.kargs if "$" in w or not all(" " < c <= "~" for c in w)]
        if bad:
            raise UsageError(f"--boot ipxe: kernel argument {bad[0]!r}: an iPXE script "
                             f"line takes printable words without '$' (its variables)")
    if o.iso:
        if o.boot in ("kernel", "ipxe"):
            raise UsageError("--iso needs --boot bios or --boot uefi")
        if o.kargs:
            raise UsageError("--iso boots the ISO's own menu: kernel arguments cannot be passed")
        if not os.path.isfile(o.iso):
            raise UsageError(f"--iso: '{o.iso}' not found")


# --- build ------------------------------------------------------------------------

def build(o):
    """The kernel ELF (and the per-run ISO) to boot; raises EnvError."""
    kernel = o.kernel
    if kernel is None:
        kernel = os.path.join(ROOT, "build", "shootdown.elf")
        if o.build and not o.dry_run:
            if subprocess.run(["make", "-C", ROOT, "-s"], stdout=sys.stderr,
                              check=False).returncode:
                raise EnvError("make failed")
    if not o.iso and not os.path.isfile(kernel):
        if not o.dry_run:
            raise EnvError(f"kernel '{kernel}' not found (run make)")
        err(f"dry run: {os.path.relpath(kernel)} is not built yet (a run makes it first)")
    # QEMU's multiboot loader puts the image path in front of the
    # arguments; the kernel skips a first word that starts with '/'.
    return os.path.realpath(kernel)


def make_iso(kernel, cmdline, dry_run, grub_cmds=None):
    """A one-entry ISO that boots at once with our arguments, private to
    this run so that runs in parallel do not share one; grub_cmds: a file
    of GRUB commands to run first."""
    if dry_run:
        return os.path.join(ROOT, "build", "run", "run.XXXXXXXX.iso")  # made by a real run
    os.makedirs(os.path.join(ROOT, "build", "run"), exist_ok=True)
    fd, iso = tempfile.mkstemp(suffix=".iso", prefix="run.", dir=os.path.join(ROOT, "build", "run"))
    os.close(fd)
    cmd = [os.path.join(ROOT, "tools", "mkiso.sh"), iso, "--elf", kernel,
           "--timeout", "0", "--entry-args", cmdline]
    if grub_cmds:
        cmd += ["--grub-cmds", grub_cmds]
    if subprocess.run(cmd, stdout=sys.stderr, check=False).returncode:
        os.unlink(iso)
        raise EnvError("could not build the boot ISO")
    return iso


def qemu_command(qemu, o, choice, kernel, iso, tmp, qmp_path):
    """The whole QEMU command line."""
    accel = "kvm" if choice.accel == "kvm" else f"tcg,thread={o.tcg_threads}"
    machine = o.machine + (",acpi=off" if o.acpi else "")
    ram = []
    if o.mem_noreserve:
        # Host memory is then taken as the guest touches it, never
        # refused up front for being more than the host has.
        machine += ",memory-backend=ram0"
        ram = ["-object", f"memory-backend-ram,id=ram0,size={o.mem},reserve=off"]
    if o.serial == "none":
        # No serial port at all; paused until the monitor starts the guest.
        console = ["-serial", "none", "-S"]
    else:
        # The console: COM1 (or COM2, COM1 then going nowhere) on a
        # pipe to us. signal=off: QEMU never treats a byte as Ctrl-C.
        console = ["-chardev", "stdio,id=con,signal=off",
                   *(["-serial", "null"] if o.serial == "com2" else []),
                   "-serial", "chardev:con"]
    args = ["-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
            "-machine", machine, "-cpu", choice.cpu, "-smp", str(o.smp), "-m", o.mem,
            "-accel", accel, *ram, *console,
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            # The monitor we ask whether the guest still runs.
            "-chardev", f"socket,id=qmp,path={qmp_path},server=on,wait=off",
            "-mon", "chardev=qmp,mode=control"]
    if o.acpi:
        # QEMU warns that these fw_cfg names lack "opt/": they are the
        # names SeaBIOS looks for (tools/firmware_acpi.py).
        args += firmware_acpi.write(o.acpi, o.smp, os.path.join(tmp, "acpi"))
    if o.boot == "kernel":
        args += ["-kernel", kernel, "-append", cmdline_of(o)]
    elif o.boot == "ipxe":
        args += ipxe_args(o, kernel, tmp)
    else:
        if o.boot == "uefi":
            vars_copy = os.path.join(tmp, "OVMF_VARS.fd")
            if not o.dry_run:
                shutil.copyfile(OVMF_VARS, vars_copy)
            args += ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                     "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
        if o.media == "usb":
            args += usb_stick_args(o, iso, tmp)
        else:
            args += ["-drive", f"file={iso},format=raw,media=cdrom,readonly=on"]
    return qemu.argv(*args, *o.qemu_extra)


def write_json(log_path, json_path):
    """The @json records of the console, one a line."""
    os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
    with open(log_path, "rb") as src, open(json_path, "wb") as dst:
        for line in src:
            line = line.rstrip(b"\r\n")
            if line.startswith(b"@json "):
                dst.write(line[6:] + b"\n")


def run(o):
    """Everything after the options; returns our exit status."""
    qemu = find_qemu(o)
    if o.boot == "uefi" and not (os.path.isfile(OVMF_CODE) and os.path.isfile(OVMF_VARS)) \
            and not o.dry_run:
        raise EnvError(f"UEFI firmware {OVMF_CODE} not found: apt-get install ovmf")
    choice = choose_accel(qemu, o)
    err(choice.line())
    if o.probe:
        return E_PASS
    kernel = build(o)
    with tempfile.TemporaryDirectory(prefix="run-qemu.") as tmp:
        iso = o.iso
        made_iso = None
        if o.boot not in ("kernel", "ipxe") and not iso:
            grub_cmds = None
            if o.mem_holes:
                grub_cmds = os.path.join(tmp, "grub-cmds.cfg")
                with open(grub_cmds, "w") as f:
                    f.write(cutmem_commands(o.mem_holes))
            iso = made_iso = make_iso(kernel, cmdline_of(o), o.dry_run, grub_cmds)
        try:
            return boot(qemu, o, choice, kernel, iso, tmp)
        finally:
            if made_iso and not o.keep_iso and os.path.exists(made_iso):
                os.unlink(made_iso)


def boot(qemu, o, choice, kernel, iso, tmp):
    """Runs QEMU once and judges the run."""
    cmd = qemu_command(qemu, o, choice, kernel, iso, tmp, os.path.join(tmp, "qmp.sock"))
    if o.dry_run or o.verbose:
        print(shlex.join(cmd), file=sys.stderr, flush=True)
        if o.dry_run:
            return E_PASS
    log = o.log or os.path.join(tmp, "console.log")
    os.makedirs(os.path.dirname(os.path.abspath(log)), exist_ok=True)
    t0 = time.monotonic()
    out = Outcome()

    def on_signal(signum, _frame):
        out.interrupted = signal.Signals(signum).name

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    log_file = open(log, "wb")  # before QEMU: a bad --log starts nothing
    # Own session: the terminal's Ctrl-C reaches only us, and we stop QEMU.
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if o.keys else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, env=qemu.env,
                            preexec_fn=own_session_dying_with_us())
    mon = Monitor(os.path.join(tmp, "qmp.sock"))
    console = None
    try:
        console = Console(proc.stdout, log_file, o.keys, proc.stdin)
        supervise(proc, mon, o, out, console)
    finally:
        stop_process(proc)
        if proc.stdin:
            try:
                proc.stdin.close()
            except OSError:
                pass
        mon.close()
        if console:
            console.finish()
        else:
            log_file.close()
    elapsed = time.monotonic() - t0
    if o.json:
        write_json(log, o.json)
    status, line = verdict(out, guest_printed_status(log), os.path.getsize(log) == 0, o)
    if o.keys and console and not console.keys_sent:
        line += f"; --keys {o.keys!r} never typed: GRUB's menu did not count down on {o.serial}"
    err(f"{line} [{elapsed:.1f}s]: exit {status}")
    return status


def emulator_of(argv):
    """(the emulator --emulator names, the other arguments); raises
    UsageError. Only options before `--` are looked at."""
    end = argv.index("--") if "--" in argv else len(argv)
    emulator, rest, i = "qemu", [], 0
    while i < len(argv):
        if i < end and argv[i] == "--emulator":
            if i + 1 >= end:
                raise UsageError("--emulator needs a value")
            emulator = argv[i + 1]
            i += 2
            continue
        rest.append(argv[i])
        i += 1
    if emulator not in EMULATORS:
        raise UsageError(f"--emulator: '{emulator}' is not {' or '.join(EMULATORS)}")
    return emulator, rest


EMULATORS = ("qemu", "bochs")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return guarded(lambda: launch(argv), "try: ./run-qemu.sh --help")


def launch(argv):
    end = argv.index("--") if "--" in argv else len(argv)
    if "--linux" in argv[:end]:
        # Debian's Linux with the workloads of linux/ (docs/linux.md).
        import run_linux  # noqa: E402
        return run_linux.main([a for i, a in enumerate(argv) if i >= end or a != "--linux"])
    if repeat_runs.asked(argv):
        return repeat_runs.main(argv)
    emulator, argv = emulator_of(argv)
    if emulator == "bochs":
        # The same command, exit statuses and last lines; Bochs's own
        # options and machine: tools/run_bochs.py.
        import run_bochs  # noqa: E402
        return run_bochs.main(argv)
    return run(parse_args(argv))


def guarded(step, hint):
    """step()'s exit status, or 2 naming a usage or environment error
    (with hint, the --help to read, after a usage one); the Bochs
    launcher's main too."""
    try:
        return step()
    except UsageError as exc:
        err(str(exc))
        err(hint)
        return E_USAGE
    except EnvError as exc:
        err(str(exc))
        return E_USAGE
    except OSError as exc:
        err(f"{exc.filename or ''}: {exc.strerror}" if exc.strerror else str(exc))
        return E_USAGE


if __name__ == "__main__":
    sys.exit(main())
