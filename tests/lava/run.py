#!/usr/bin/env python3
"""make check's LAVA cases: lava-run for real on the jobs of lava/jobs.

    tests/lava/run.py [--case PATTERN]

Each case renders a job (tools/shootdown.py lava-job) and a device
dictionary of lava/devices as a LAVA server renders it (devices.py: with
the device types of Debian's lava-server package, unpacked under build/),
runs it with lava-run, and reads the job log back (tools/shootdown.py lava):

  lava-validate          every job template on every device it is meant
                         for passes lava-run --validate; the grub job on
                         LAVA's stock x86 type does not (no grub method:
                         why lava/device-types/x86-grub.jinja2 is there)

  lava-qemu-default      the qemu job on qemu-01, a default run: every console verdict
                         is a LAVA case, name for name and result for
                         result; the figures' cases carry the numbers and
                         units of the console's records; the exit case
                         passes; the gate exits 0; the console LAVA kept
                         passes checklog
  lava-qemu-selftest-fail  selftest=fail: its case fails, the exit case
                         fails (status 1), the gate exits 1
  lava-qemu-selftest-fault selftest=fault: status 63 is a failed exit case
  lava-grub-tftp-bios    x86-ser2net with QEMU standing in for the server (standin.py):
                         SeaBIOS PXE-boots GRUB from QEMU's user network,
                         LAVA types multiboot2 (tftp,{SERVER_IP})/{KERNEL}
  lava-grub-tftp-uefi    the same under OVMF (skipped without OVMF)
  lava-lost-exit         the EXIT line never comes (lose_exit.py): the job
                         ends within its stated wait, and the gate exits 1
  lava-qemu-linux        the qemu-linux job: the Linux side (docs/linux.md)
                         with small workloads, its verdicts LAVA cases as
                         the harness's are, the gate exits 0 (skipped
                         without build/linux: tools/fetch-linux.sh)

Prints TAP; exits 1 if a case failed. A case that cannot run here (not
root, lava-dispatcher not installed, lava-server's package not to be had,
no GRUB or iPXE files) SKIPs saying why. Between them they take about 2 minutes under TCG.
"""

import argparse
import fnmatch
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))

import checklog  # noqa: E402
import checklog_figures  # noqa: E402
import devices  # noqa: E402
import lava  # noqa: E402
import verdictline  # noqa: E402
import yaml  # noqa: E402

ELF = os.path.join(ROOT, "build", "shootdown.elf")
SHOOTDOWN = os.path.join(ROOT, "tools", "shootdown.py")
# The stand-in server's worker: QEMU's user network reaches the host as
# 10.0.2.2, where QEMU's own TFTP server serves LAVA's TFTP directory.
DISPATCHER = os.path.join(HERE, "dispatcher.yaml")
# Commands the example dictionaries name for consoles and power: stubs for
# lava-run --validate, which looks for them in PATH and runs none.
EXAMPLE_TOOLS = ("telnet", "ipmitool", "pduclient")
TFTPD_DEFAULTS = "/etc/default/tftpd-hpa"
IPXE_ROM = "/usr/lib/ipxe/qemu/efi-virtio.rom"
OVMF = ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd")
GRUB_CFG = """# The stand-in server's own GRUB menu (tests/lava/run.py). Under UEFI
# the firmware's console is on COM1 already, and the firmware reads the
# UART too, so GRUB's own serial driver would lose keys to it.
if [ "$grub_platform" = "efi" ]; then
	terminal_input console
	terminal_output console
else
	serial --unit=0 --speed=115200
	terminal_input serial
	terminal_output serial
fi
set timeout=30
menuentry "the server's own OS" {
	echo "nothing here"
}
"""
# lava-run checks that a TFTP daemon is installed; QEMU's user network
# is the TFTP server here, so a stub satisfies it.
TFTPD_STUB = "#!/bin/sh\n# lava-run looks for a TFTP daemon; QEMU serves TFTP here.\nexit 0\n"


class Skip(Exception):
    """The case cannot run here; the text says why."""


class Fail(Exception):
    """The case ran and failed; the text says what."""


def sh(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False, **kw)


def needs_lava():
    if os.geteuid() != 0:
        raise Skip("lava-run runs as root (its dispatcher writes /var/lib/lava)")
    if not shutil.which("lava-run"):
        raise Skip("lava-run not installed: apt-get install --no-install-recommends "
                   "lava-dispatcher (tools/install-deps.sh does, as root)")
    if not os.path.isfile(ELF):
        raise Skip("no build/shootdown.elf (run make)")


def device(name, change=None):
    """lava/devices/NAME.jinja2 as a server renders it; change(dict) may
    replace what a lab's worker differs in (its console and power)."""
    try:
        text = devices.render(name)
    except devices.Unavailable as exc:
        raise Skip(str(exc)) from exc
    if change is None:
        return text
    conf = yaml.safe_load(text)
    change(conf)
    return yaml.safe_dump(conf)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Env:
    """A scratch directory, a PATH for lava-run, and what to undo."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="shootdown-lava-")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.undo = []
        self.jobs = 0

    def path(self):
        return self.bin + os.pathsep + os.environ.get("PATH", "")

    def close(self, keep=False):
        """Undoes what the case did; keep: leave its logs for a person."""
        for fn in reversed(self.undo):
            fn()
        if keep:
            print(f"# logs kept in {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def lava_run(self, job_text, device_text, dispatcher=None, limit=600, validate=False):
        """Runs one job (validate: lava-run --validate, nothing booted);
        returns (entries, log text, seconds)."""
        self.jobs += 1
        n = self.jobs
        job = os.path.join(self.tmp, f"job{n}.yaml")
        dev = os.path.join(self.tmp, f"device{n}.yaml")
        for path, text in ((job, job_text), (dev, device_text)):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        args = ["lava-run", "--job-id", f"shootdown-{os.getpid()}-{n}", "--output-dir",
                os.path.join(self.tmp, f"out{n}"), "--device", dev]
        if dispatcher:
            args += ["--dispatcher", dispatcher]
        if validate:
            args.append("--validate")
        t0 = time.monotonic()
        try:
            proc = subprocess.run(args + [job], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, check=False, timeout=limit,
                                  env=dict(os.environ, PATH=self.path()), cwd=self.tmp)
            out = proc.stdout
        except subprocess.TimeoutExpired as exc:
            raise Fail(f"lava-run still running after {limit} s") from exc
        secs = time.monotonic() - t0
        log = os.path.join(self.tmp, f"job{n}.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(out)
        try:
            entries = lava.parse_entries(out)
        except lava.LavaError as exc:
            raise Fail(f"lava-run printed no log: {out[-300:]}") from exc
        return entries, log, secs


def job_result(entries):
    for e in entries:
        msg = e.get("msg")
        if e.get("lvl") == "results" and isinstance(msg, dict) and \
                msg.get("definition") == "lava" and msg.get("case") == "job":
            return msg.get("result"), msg.get("error_msg")
    return None, None


def render(kind, **values):
    if kind != "ipxe-sanboot":  # the ISO's URL instead
        values.setdefault("KERNEL_URL", "file://" + ELF)
    return lava.render_job(kind, {k: str(v) for k, v in values.items()})


def gate(log):
    proc = sh([sys.executable, SHOOTDOWN, "lava", log, "--gate"])
    return proc.returncode, proc.stdout.strip()


def console_of(env, log):
    path = log[:-4] + ".console"
    proc = sh([sys.executable, SHOOTDOWN, "lava", log, "-o", path])
    if proc.returncode:
        raise Fail(f"shootdown.py lava exited {proc.returncode}: {proc.stdout[-300:]}")
    return path


def same_names(entries, console_path):
    """The monitor's cases are the console's verdicts, one for one."""
    with open(console_path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    console = [v for v in map(verdictline.split, lines) if v]
    cases = [c for c in lava.cases(entries) if c["suite"] == lava.SUITE]
    if not console:
        raise Fail("the console LAVA kept has no verdict")
    got = [(c["name"], c["case"], c["result"]) for c in cases]
    want = [(v[1], lava.lava_case_name(v[1]), v[0].lower()) for v in console]
    if got != want:
        diff = next((f"#{i + 1}: LAVA {g}, console {w}"
                     for i, (g, w) in enumerate(zip(got, want)) if g != w),
                    f"LAVA {len(got)} cases, console {len(want)} verdicts")
        raise Fail(f"LAVA's cases are not the console's verdicts: {diff}")
    return cases


def same_figures(entries, console_path, some):
    """The figures' cases carry the numbers and units of the console's
    records (checklog_figures: what its FIGURE lines restate), one case a
    figure; some: the run must have figures."""
    with open(console_path, encoding="utf-8", errors="replace") as f:
        records = checklog.check_log(f.read()).records
    want = checklog_figures.expected(records) or {}
    got = [(c["name"], c["case"], c["measurement"], c["units"], c["result"])
           for c in lava.cases(entries) if c["suite"] == lava.FIGURES_SUITE]
    expect = [(name, lava.lava_case_name(name), float(value), unit, "pass")
              for name, (value, unit) in want.items()]
    if some and not expect:
        raise Fail("the console's records give no figure")
    if [(g[0], g[1], _number(g[2]), g[3], g[4]) for g in got] != expect:
        raise Fail(f"LAVA's figures are not the records': LAVA {got[:3]}..., "
                   f"records {expect[:3]}... ({len(got)} and {len(expect)})")
    return len(got)


def _number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def exit_case(entries):
    found = [c for c in lava.cases(entries) if c["suite"] == lava.EXIT_SUITE]
    return found[-1]["result"] if found else None


def counts(entries):
    cases = lava.cases(entries)
    return ", ".join(f"{sum(1 for c in cases if c['result'] == k)} {k}"
                     for k in ("pass", "fail", "skip"))


def check_console(path, *expect):
    proc = sh([sys.executable, SHOOTDOWN, "check", path] + list(expect))
    if proc.returncode:
        raise Fail(f"checklog on the console LAVA kept: {proc.stdout.strip()[-400:]}")


def qemu_device(command=None):
    """qemu-01 rendered; command: another QEMU binary."""
    def use(conf):
        conf["actions"]["boot"]["methods"]["qemu"]["parameters"]["command"] = command
    return device("qemu-01", use if command else None)


def case_qemu(env, args, status, expect_gate, fail_case=None, figures=False):
    needs_lava()
    entries, log, secs = env.lava_run(render("qemu", KERNEL_ARGS=args), qemu_device())
    result, why = job_result(entries)
    if result != "pass":
        raise Fail(f"LAVA job result {result}: {why}")
    console = console_of(env, log)
    same_names(entries, console)
    nfig = same_figures(entries, console, figures)
    check_console(console, "--expect-status", str(status))
    want_exit = lava.EXIT_RESULTS[status]
    if exit_case(entries) != want_exit:
        raise Fail(f"exit case {exit_case(entries)}, not {want_exit} for status {status}")
    if fail_case and not any(c["case"] == fail_case and c["result"] == "fail"
                             for c in lava.cases(entries)):
        raise Fail(f"no failed case {fail_case}")
    rc, out = gate(log)
    if rc != expect_gate:
        raise Fail(f"gate exited {rc}, not {expect_gate}: {out}")
    for fmt in ("tap", "junit"):
        proc = sh([sys.executable, SHOOTDOWN, fmt, console])
        if proc.returncode:
            raise Fail(f"shootdown.py {fmt} on the console exited {proc.returncode}")
    return (f"LAVA: {counts(entries)}; {nfig} figures; exit case {want_exit}; gate {rc} "
            f"[{secs:.0f}s]")


LINUX_DIR = os.path.join(ROOT, "build", "linux")


def case_qemu_linux(env):
    """The Linux side's job, as case_qemu judges the harness's."""
    needs_lava()
    kernel, initrd = (os.path.join(LINUX_DIR, f) for f in ("vmlinuz", "initramfs.cpio.gz"))
    if not os.path.isfile(kernel):
        raise Skip("no build/linux/vmlinuz (tools/fetch-linux.sh could not fetch it here)")
    if not os.path.isfile(initrd):
        raise Skip("no build/linux/initramfs.cpio.gz (make linux)")
    job = render("qemu-linux", KERNEL_URL="file://" + kernel, RAMDISK_URL="file://" + initrd,
                 WORKLOAD_ARGS="flush2_ms=100 reclaim_mb=8 duration_ms=200")
    entries, log, secs = env.lava_run(job, qemu_device())
    result, why = job_result(entries)
    if result != "pass":
        raise Fail(f"LAVA job result {result}: {why}")
    console = console_of(env, log)
    same_names(entries, console)
    check_console(console, "--expect-status", "0", "--expect-field", 'side="linux"')
    if exit_case(entries) != "pass":
        raise Fail(f"exit case {exit_case(entries)}, not pass")
    rc, out = gate(log)
    if rc != 0:
        raise Fail(f"gate exited {rc}, not 0: {out}")
    return f"LAVA: {counts(entries)}; exit case pass; gate 0 [{secs:.0f}s]"


def tftp_root(env):
    """LAVA's TFTP directory (TFTP_DIRECTORY of tftpd-hpa's defaults).
    Without that file, lava-run cannot deploy to TFTP: it is written for
    the run and removed after it (no daemon: QEMU serves TFTP here)."""
    if not os.path.exists(TFTPD_DEFAULTS):
        with open(TFTPD_DEFAULTS, "w", encoding="ascii") as f:
            f.write('# written by shootdown tests/lava/run.py for lava-run; removed after\n'
                    'TFTP_DIRECTORY="/srv/tftp"\n')
        env.undo.append(lambda: os.unlink(TFTPD_DEFAULTS))
    with open(TFTPD_DEFAULTS, encoding="ascii", errors="replace") as f:
        m = re.search(r'^TFTP_DIRECTORY="?([^"\n]+)"?', f.read(), re.M)
    root = os.path.realpath(m.group(1) if m else "/srv/tftp")
    if not os.path.isdir(root):
        os.makedirs(root)
        env.undo.append(lambda: shutil.rmtree(root, ignore_errors=True))
    return root


def needs_server(firmware):
    """What QEMU standing in for a server needs here."""
    needs_lava()
    if not os.path.isfile(IPXE_ROM):
        raise Skip(f"no {IPXE_ROM} for the NIC's PXE (ipxe-qemu)")
    if firmware == "uefi" and not all(os.path.isfile(p) for p in OVMF):
        raise Skip(f"no OVMF ({OVMF[0]}; ovmf)")


def stub(env, name, text=TFTPD_STUB):
    path = os.path.join(env.bin, name)
    with open(path, "w", encoding="ascii") as f:
        f.write(text)
    os.chmod(path, 0o755)


def standin(env, firmware, root, bootfile):
    """x86-ser2net as rendered, its console and power those of the
    stand-in server (standin.py), GRUB's keys typed 5 ms apart."""
    stub(env, "in.tftpd")
    state = os.path.join(env.tmp, "server-" + firmware)
    os.makedirs(state)
    vars_copy = os.path.join(state, "vars.fd")
    if firmware == "uefi":
        shutil.copyfile(OVMF[1], vars_copy)
    with open(os.path.join(state, "config.json"), "w", encoding="ascii") as f:
        json.dump({"firmware": firmware, "port": free_port(), "tftp": root,
                   "bootfile": bootfile, "qemu": "qemu-system-x86_64",
                   "smp": 2, "vars": vars_copy}, f)
    script = os.path.join(HERE, "standin.py")
    env.undo.append(lambda: sh([sys.executable, script, "power-off", state]))
    def worker(conf):
        run = f"{sys.executable} {script}"
        conf["commands"] = {"connect": f"{run} console {state}",
                            "hard_reset": f"{run} power-on {state}",
                            "power_on": f"{run} power-on {state}",
                            "power_off": f"{run} power-off {state}"}
        conf["character_delays"] = {"boot": 5}
    return device("x86-ser2net", worker)


def server_job(env, job, device, firmware):
    """Runs a job on the stand-in; checks it as a lab would."""
    entries, log, secs = env.lava_run(job, device, DISPATCHER)
    result, why = job_result(entries)
    if result != "pass":
        raise Fail(f"LAVA job result {result}: {why}")
    console = console_of(env, log)
    same_names(entries, console)
    boot = "multiboot2-bios" if firmware == "bios" else "multiboot2-efi"
    check_console(console, "--expect-status", "0", "--expect-boot", boot)
    rc, out = gate(log)
    if rc:
        raise Fail(f"gate exited {rc}: {out}")
    return f"LAVA: {counts(entries)}; boot {boot}; gate 0 [{secs:.0f}s]"


def case_grub(env, firmware):
    needs_server(firmware)
    grub_dir = "/usr/lib/grub/" + ("i386-pc" if firmware == "bios" else "x86_64-efi")
    if not shutil.which("grub-mknetdir") or not os.path.isdir(grub_dir):
        raise Skip(f"no grub-mknetdir or {grub_dir} (grub-pc-bin, grub-efi-amd64-bin)")
    root = tftp_root(env)
    sub = f"shootdown-grub-{os.getpid()}-{firmware}"
    net = os.path.join(root, sub)
    env.undo.append(lambda: shutil.rmtree(net, ignore_errors=True))
    proc = sh(["grub-mknetdir", "--net-directory=" + root, "--subdir=" + sub, "-d", grub_dir])
    if proc.returncode:
        raise Fail(f"grub-mknetdir: {proc.stdout[-300:]}")
    with open(os.path.join(net, "grub.cfg"), "w", encoding="ascii") as f:
        f.write(GRUB_CFG)
    core = "i386-pc/core.0" if firmware == "bios" else "x86_64-efi/core.efi"
    device = standin(env, firmware, root, f"{sub}/{core}")
    job = render("grub-tftp", KERNEL_ARGS="bench=none", POWER_ON_TIMEOUT=180)
    return server_job(env, job, device, firmware)


def case_lost_exit(env):
    needs_lava()
    wait = 30
    os.symlink(os.path.join(HERE, "lose_exit.py"), os.path.join(env.bin, "qemu-lose-exit"))
    device = qemu_device("qemu-lose-exit")
    job = render("qemu", KERNEL_ARGS="bench=none", BOOT_TIMEOUT=wait)
    entries, log, secs = env.lava_run(job, device, limit=300)
    # The boot is a few seconds; then the monitor waits `wait` for EXIT.
    if secs > wait + 60:
        raise Fail(f"lava-run took {secs:.0f} s, past the stated {wait} s wait + 60 s")
    result, _ = job_result(entries)
    if exit_case(entries) is not None:
        raise Fail("an exit case was recorded for a console without an EXIT line")
    rc, out = gate(log)
    if rc != 1 or "no exit case" not in out:
        raise Fail(f"gate exited {rc}, not 1 naming the missing exit case: {out}")
    return f"LAVA job result {result} (it does not gate); {counts(entries)}; " \
           f"exit case missing; gate 1 [{secs:.0f}s]"


def validated(env, job, dev):
    """lava-run --validate's verdict: None if it passed, else its why."""
    entries, _, _ = env.lava_run(job, dev, DISPATCHER, limit=120, validate=True)
    result, why = job_result(entries)
    valid = [e["msg"].get("result") for e in entries if e.get("lvl") == "results"
             and isinstance(e.get("msg"), dict) and e["msg"].get("case") == "validate"]
    if valid == ["pass"] and result in (None, "pass"):
        return None
    return why or f"validate {valid}"


def case_validate(env):
    needs_lava()
    missing = sorted(set(devices.names()) - {d for ds in devices.MEANT.values() for d in ds})
    if missing:
        raise Fail(f"no job is meant for {', '.join(missing)} (devices.MEANT)")
    tftp_root(env)
    stub(env, "in.tftpd")
    for tool in EXAMPLE_TOOLS:
        stub(env, tool, "#!/bin/sh\nexit 0\n")
    done = []
    for kind, names in devices.MEANT.items():
        url = {"ISO_URL": devices.SANBOOT_ISO_URL} if kind == "ipxe-sanboot" else {}
        job = render(kind, **url)
        for name in names:
            why = validated(env, job, device(name))
            if why:
                raise Fail(f"lava-run --validate of the {kind} job on {name}: {why}")
            done.append(f"{kind} on {name}")
    # LAVA's own x86 type: the grub job is refused, as a lab would find.
    try:
        stock = devices.render_text(devices.source("x86-ser2net").replace(
            "{% extends 'x86-grub.jinja2' %}", "{% extends 'x86.jinja2' %}"))
    except devices.Unavailable as exc:
        raise Skip(str(exc)) from exc
    why = validated(env, render("grub-tftp"), stock) or ""
    grub = next((ln for ln in why.splitlines() if ln.startswith("Grub: ")), None)
    if grub is None:
        raise Fail(f"the grub job on LAVA's stock x86 type: not refused for its boot method: {why}")
    return f"valid: {'; '.join(done)}; on stock x86 refused: {grub} " \
           f"(lava-server {devices.server_version()})"


CASES = (
    ("lava-validate", case_validate),
    ("lava-qemu-default", lambda e: case_qemu(e, "", 0, 0, figures=True)),
    ("lava-qemu-selftest-fail", lambda e: case_qemu(e, "selftest=fail bench=none", 1, 1,
                                                   "selftest_injected_failure")),
    ("lava-qemu-selftest-fault", lambda e: case_qemu(e, "selftest=fault bench=none", 63, 1)),
    ("lava-grub-tftp-bios", lambda e: case_grub(e, "bios")),
    ("lava-grub-tftp-uefi", lambda e: case_grub(e, "uefi")),
    ("lava-lost-exit", case_lost_exit),
    ("lava-qemu-linux", case_qemu_linux),
)


def main(argv=None):
    ap = argparse.ArgumentParser(description="make check's LAVA cases (lava-run)")
    ap.add_argument("--case", "-c", action="append", default=[], metavar="PATTERN")
    args = ap.parse_args(argv)
    chosen = [(n, fn) for n, fn in CASES
              if not args.case or any(fnmatch.fnmatch(n, p) for p in args.case)]
    print("TAP version 13")
    failed = skipped = 0
    t0 = time.monotonic()
    for i, (name, fn) in enumerate(chosen, 1):
        env, keep = Env(), False
        try:
            what = fn(env)
            print(f"ok {i} - {name}: {what}")
        except Skip as exc:
            skipped += 1
            print(f"ok {i} - {name} # SKIP {exc}")
        except Fail as exc:
            failed += 1
            keep = True
            print(f"not ok {i} - {name}: {exc}")
        finally:
            env.close(keep)
        sys.stdout.flush()
    print(f"1..{len(chosen)}")
    print(f"# lava: {len(chosen) - failed - skipped} passed, {failed} failed, "
          f"{skipped} skipped [{time.monotonic() - t0:.0f}s]")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
