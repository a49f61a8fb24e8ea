#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture the ACPI tables that QEMU's firmware builds, for the host tests.

usage: tools/capture-acpi.py [--out DIR] [--with-dsdt] PRESET...
       tools/capture-acpi.py --cpuid CPU-PRESET...
       tools/capture-acpi.py --list

Each PRESET boots one QEMU machine with no boot device, so the firmware
(SeaBIOS, or OVMF for the -uefi preset) builds the ACPI tables from QEMU's
fw_cfg and then fails to boot. Over QMP the guest is paused and its memory
read with `pmemsave`: the BIOS area 0xE0000-0xFFFFF (under OVMF: all of
RAM) is searched for the RSDP (signature "RSD PTR ", valid checksums), and
from there the RSDT, the XSDT and every table they point to are saved,
each at its own physical address, plus the BDA's EBDA segment word and the
first KiB of the EBDA (SeaBIOS), so the RSDP scan can be replayed. The FADT's FACS and DSDT are
only recorded (their addresses), not saved, unless --with-dsdt: nothing in
the parser reads them and the DSDT of a 300-CPU machine is large.

Written into DIR/PRESET/ (default tests/unit/data/acpi/PRESET):
  *.bin          the bytes of one structure (rsdp, ebda, tables)
  manifest.txt   "ADDRESS FILE" lines (hex), so a test reader can serve
                 each file at its original physical address; '#' lines
                 record the QEMU version and command line, and facts a
                 person may want (FACS/DSDT addresses)

The data are facts produced by QEMU and SeaBIOS; re-running this overwrites
them. QEMU 10 presets need build/qemu10 (tools/fetch-qemu10.sh).

--cpuid prints the CPUID leaves that smp/topology.c reads, as the boot CPU
of a QEMU machine returns them (tests/unit/test_topology.c records them):
QEMU starts paused at reset (-S) with its gdb stub; gdb (python) writes
"CPUID; JMP $" at 0x7c00, points CS:IP there in real mode, sets EAX/ECX,
single-steps, and reads EAX..EDX. Only the boot CPU can be stepped (the
others wait for INIT/SIPI), so only its APIC-ID-dependent values are seen.
"""

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QEMU10 = os.path.join(ROOT, "build/qemu10/usr/bin/qemu-system-x86_64")

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"

# name: (QEMU binary, machine arguments, UEFI?)
PRESETS = {
    "pc-4": ("qemu-system-x86_64",
             ["-machine", "pc", "-smp", "4", "-cpu", "max"], False),
    "q35-4": ("qemu-system-x86_64",
              ["-machine", "q35", "-smp", "4", "-cpu", "max"], False),
    # Two sockets of 3 cores x 2 threads: QEMU gives each level a power of
    # two of APIC ID bits, so IDs skip 6, 7 (sparse); one NUMA node per
    # socket makes QEMU add an SRAT.
    "q35-numa-epyc": ("qemu-system-x86_64",
                      ["-machine", "q35", "-cpu", "EPYC",
                       "-smp", "12,sockets=2,cores=3,threads=2",
                       "-object", "memory-backend-ram,id=m0,size=256M",
                       "-object", "memory-backend-ram,id=m1,size=256M",
                       "-numa", "node,nodeid=0,cpus=0-5,memdev=m0",
                       "-numa", "node,nodeid=1,cpus=6-11,memdev=m1"],
                      False),
    # OVMF publishes an ACPI 2.0 RSDP (revision 2) and an XSDT; the RSDP is
    # not in the BIOS area (a loader passes it in the multiboot2 tag).
    "q35-4-uefi": ("qemu-system-x86_64",
                   ["-machine", "q35", "-smp", "4", "-cpu", "max"], True),
    "q35-300-qemu10": (QEMU10,
                       ["-machine", "q35", "-smp", "300", "-cpu", "max"],
                       False),
}
MEM = 512 << 20

# name: (QEMU binary, machine arguments) for --cpuid
CPU_PRESETS = {
    "epyc-2s2c2t": ("qemu-system-x86_64",
                    ["-machine", "q35", "-cpu", "EPYC",
                     "-smp", "8,sockets=2,cores=2,threads=2"]),
    "epyc-2s2c2t-qemu10": (QEMU10,
                           ["-machine", "q35", "-cpu", "EPYC",
                            "-smp", "8,sockets=2,cores=2,threads=2"]),
}
# -cpu max with -smp N (QEMU's default topology: one socket of N cores)
# and with two sockets, under QEMU 7.2 and 10: how CPUID counts the
# package's logical CPUs (smp/topology.c, topo_package_cpus).
for _n, _smp in [("1", "1"), ("2", "2"), ("4", "4"), ("13", "13"),
                 ("64", "64"), ("4-2s", "4,sockets=2")]:
    CPU_PRESETS[f"max-smp{_n}"] = (
        "qemu-system-x86_64", ["-machine", "q35", "-cpu", "max",
                               "-smp", _smp])
    CPU_PRESETS[f"max-smp{_n}-qemu10"] = (
        QEMU10, ["-machine", "q35", "-cpu", "max", "-smp", _smp])
CPUID_LEAVES = [(0, [0]), (1, [0]), (4, range(5)), (0xB, range(3)),
                (0x1F, range(4)), (0x80000000, [0]), (0x80000001, [0]),
                (0x80000008, [0]), (0x8000001D, range(5)),
                (0x8000001E, [0]), (0x80000026, range(5))]
GDB_SCRIPT = """
import gdb
gdb.execute("target remote :%(port)d")
gdb.execute("set {unsigned char[4]}0x7c00 = {0x0f, 0xa2, 0xeb, 0xfe}")
out = []
for leaf, sub in %(queries)r:
    gdb.execute("set $cs = 0")
    gdb.execute("set $rip = 0x7c00")
    gdb.execute("set $rax = %%d" %% leaf)
    gdb.execute("set $rcx = %%d" %% sub)
    gdb.execute("stepi", to_string=True)
    r = [int(gdb.parse_and_eval("$" + n)) & 0xffffffff
         for n in ("rax", "rbx", "rcx", "rdx")]
    out.append("%%08X.%%d: %%08X-%%08X-%%08X-%%08X" %% (leaf, sub, *r))
open(%(out)r, "w").write("\\n".join(out) + "\\n")
gdb.execute("kill")
"""

BIOS_LO, BIOS_HI = 0xE0000, 0x100000
TIMEOUT = 600  # seconds; SeaBIOS counts 300 CPUs slowly under TCG


class Qmp:
    """A minimal QMP client: one command at a time, events skipped."""

    def __init__(self, path, deadline):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.file = self.sock.makefile("rwb")
        self._reply()  # the greeting
        self.cmd("qmp_capabilities")

    def _reply(self):
        while True:
            line = self.file.readline()
            if not line:
                raise RuntimeError("QMP: QEMU closed the connection")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        self.file.write(json.dumps({"execute": name,
                                    "arguments": args}).encode() + b"\n")
        self.file.flush()
        msg = self._reply()
        if "error" in msg:
            raise RuntimeError(f"QMP {name}: {msg['error']}")
        return msg["return"]


class Guest:
    def __init__(self, qmp, tmp):
        self.qmp, self.tmp = qmp, tmp

    def read(self, addr, size):
        path = os.path.join(self.tmp, "mem.bin")
        self.qmp.cmd("pmemsave", val=addr, size=size, filename=path)
        with open(path, "rb") as f:
            data = f.read()
        if len(data) != size:
            raise RuntimeError(f"pmemsave {addr:#x}+{size}: short read")
        return data


def rsdp_ok(area, off):
    if area[off:off + 8] != b"RSD PTR " or sum(area[off:off + 20]) % 256:
        return False
    if area[off + 15] < 2:
        return True
    length = struct.unpack_from("<I", area, off + 20)[0]
    return length >= 36 and sum(area[off:off + length]) % 256 == 0


def find_rsdp(area, step=16):
    """Offset of the first valid RSDP in area (step-aligned), or None."""
    off = area.find(b"RSD PTR ")
    while off >= 0:
        if off % step == 0 and off + 36 <= len(area) and rsdp_ok(area, off):
            return off
        off = area.find(b"RSD PTR ", off + 1)
    return None


def find_rsdp_ram(guest):
    """UEFI: the first valid revision-2 RSDP anywhere in RAM, or None.

    Only 4-byte aligned: OVMF's AcpiTableDxe puts a revision 0 RSDP (20
    bytes) and the revision 2 one right after it in one allocation."""
    chunk = 32 << 20
    for base in range(0, MEM, chunk):
        area = guest.read(base, chunk)
        off = find_rsdp(area, 4)
        while off is not None:
            if area[off + 15] >= 2:
                return base + off
            nxt = find_rsdp(area[off + 4:], 4)
            off = None if nxt is None else off + 4 + nxt
    return None


def qemu_env(qemu):
    """Environment and -L options for a QEMU unpacked outside /usr."""
    env = dict(os.environ)
    opts = []
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(qemu)))
    if prefix in ("/usr", "/usr/local") or not os.path.isabs(qemu):
        return env, opts
    for d in ("share/qemu", "share/seabios"):
        if os.path.isdir(os.path.join(prefix, d)):
            opts += ["-L", os.path.join(prefix, d)]
    lib = os.path.join(prefix, "lib/x86_64-linux-gnu")
    if os.path.isdir(lib):
        env["LD_LIBRARY_PATH"] = lib + ":" + env.get("LD_LIBRARY_PATH", "")
        if os.path.isdir(os.path.join(lib, "qemu")):
            env["QEMU_MODULE_DIR"] = os.path.join(lib, "qemu")
    return env, opts


class Capture:
    def __init__(self, guest, outdir, with_dsdt):
        self.g, self.outdir, self.with_dsdt = guest, outdir, with_dsdt
        self.manifest, self.notes, self.names = [], [], {}

    def save(self, addr, name, data):
        with open(os.path.join(self.outdir, name), "wb") as f:
            f.write(data)
        self.manifest.append((addr, name))

    def table(self, addr):
        hdr = self.g.read(addr, 36)
        sig = hdr[:4].decode("ascii", "replace")
        length = struct.unpack_from("<I", hdr, 4)[0]
        if length < 36 or length > (1 << 24):
            raise RuntimeError(f"{sig} at {addr:#x}: length {length}")
        data = self.g.read(addr, length)
        n = self.names.get(sig, 0)
        self.names[sig] = n + 1
        name = sig.lower() + (f"-{n}" if n else "") + ".bin"
        self.save(addr, name, data)
        self.notes.append(f"{sig} at {addr:#x}, {length} bytes, "
                          f"revision {hdr[8]}, checksum "
                          f"{'ok' if sum(data) % 256 == 0 else 'BAD'}")
        return sig, data

    def fadt_refs(self, fadt):
        refs = {"FACS": struct.unpack_from("<I", fadt, 36)[0],
                "DSDT": struct.unpack_from("<I", fadt, 40)[0]}
        if len(fadt) >= 148:
            refs["X_FIRMWARE_CTRL"] = struct.unpack_from("<Q", fadt, 132)[0]
            refs["X_DSDT"] = struct.unpack_from("<Q", fadt, 140)[0]
        for k, v in refs.items():
            self.notes.append(f"FADT {k} = {v:#x}")
        dsdt = refs.get("X_DSDT") or refs["DSDT"]
        if self.with_dsdt and dsdt:
            self.table(dsdt)

    def run(self, uefi):
        if uefi:
            rsdp_pa = find_rsdp_ram(self.g)
            if rsdp_pa is None:
                raise RuntimeError("no revision 2 RSDP in RAM")
            area, off = self.g.read(rsdp_pa, 36), 0
        else:
            bda = self.g.read(0x40E, 2)
            self.save(0x40E, "ebda-segment.bin", bda)
            ebda = struct.unpack("<H", bda)[0] << 4
            if 0x400 <= ebda < BIOS_LO:
                self.save(ebda, "ebda.bin", self.g.read(ebda, 1024))
            area = self.g.read(BIOS_LO, BIOS_HI - BIOS_LO)
            off = find_rsdp(area)
            if off is None:
                raise RuntimeError("no RSDP in 0xE0000-0xFFFFF")
            rsdp_pa = BIOS_LO + off
        rev = area[off + 15]
        rlen = 36 if rev >= 2 else 20
        self.save(rsdp_pa, "rsdp.bin", area[off:off + rlen])
        self.notes.append(f"RSDP at {rsdp_pa:#x}, revision {rev}, "
                          f"OEM {area[off + 9:off + 15]!r}")
        roots = [(struct.unpack_from("<I", area, off + 16)[0], 4)]
        if rev >= 2:
            roots.append((struct.unpack_from("<Q", area, off + 24)[0], 8))
        seen = set()
        for addr, width in roots:
            if not addr:
                continue
            _, root = self.table(addr)
            for e in range(36, len(root) - width + 1, width):
                pa = int.from_bytes(root[e:e + width], "little")
                if pa in seen or not pa:
                    continue
                seen.add(pa)
                sig, data = self.table(pa)
                if sig == "FACP":
                    self.fadt_refs(data)

    def write_manifest(self, header):
        with open(os.path.join(self.outdir, "manifest.txt"), "w") as f:
            for line in header + self.notes:
                f.write(f"# {line}\n")
            for addr, name in sorted(self.manifest):
                f.write(f"{addr:#010x} {name}\n")


def wait_for_rsdp(guest, proc, deadline, uefi):
    """Polls until the firmware has published a valid RSDP."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"QEMU exited with {proc.returncode}")
        if uefi:
            if find_rsdp_ram(guest) is not None:
                # OVMF installs the tables well before it gives up
                # booting; let it finish whatever it still patches.
                time.sleep(5)
                return
        elif find_rsdp(guest.read(BIOS_LO, BIOS_HI - BIOS_LO)) is not None:
            return
        if time.time() > deadline:
            raise RuntimeError("timed out waiting for the RSDP")
        time.sleep(0.5)


def capture(preset, outdir, with_dsdt):
    qemu, args, uefi = PRESETS[preset]
    if os.path.isabs(qemu) and not os.access(qemu, os.X_OK):
        sys.exit(f"capture-acpi: {qemu} missing: run tools/fetch-qemu10.sh")
    env, lopts = qemu_env(qemu)
    tmp = tempfile.mkdtemp(prefix="capture-acpi.")
    sock = os.path.join(tmp, "qmp.sock")
    cmd = [qemu, "-nodefaults", "-no-user-config", "-display", "none",
           "-accel", "tcg", "-m", f"{MEM >> 20}M", *lopts, *args,
           "-qmp", f"unix:{sock},server=on,wait=off"]
    if uefi:
        shutil.copy(OVMF_VARS, os.path.join(tmp, "vars.fd"))
        cmd += ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,"
                f"file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,"
                f"file={os.path.join(tmp, 'vars.fd')}"]
    version = subprocess.run([qemu, "--version"], env=env, check=True,
                             capture_output=True, text=True).stdout
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)
    try:
        deadline = time.time() + TIMEOUT
        qmp = Qmp(sock, deadline)
        guest = Guest(qmp, tmp)
        wait_for_rsdp(guest, proc, deadline, uefi)
        # SeaBIOS writes the RSDP last; give it a moment, then freeze.
        time.sleep(1)
        qmp.cmd("stop")
        shutil.rmtree(outdir, ignore_errors=True)
        os.makedirs(outdir)
        cap = Capture(guest, outdir, with_dsdt)
        cap.run(uefi)
        shown = [os.path.basename(c) if c == qemu else c for c in cmd
                 if not c.startswith("unix:") and c != "-qmp"]
        shown = [c.replace(tmp + "/", "") for c in shown]
        cap.write_manifest([
            f"captured by tools/capture-acpi.py {preset}",
            version.splitlines()[0],
            "command: " + " ".join(shown)])
        print(f"capture-acpi: {preset}: {len(cap.manifest)} files in {outdir}")
        for n in cap.notes:
            print(f"  {n}")
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def capture_cpuid(preset):
    qemu, args = CPU_PRESETS[preset]
    env, lopts = qemu_env(qemu)
    tmp = tempfile.mkdtemp(prefix="capture-cpuid.")
    with socket.socket() as s:  # a free TCP port for the gdb stub
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    queries = [(leaf, sub) for leaf, subs in CPUID_LEAVES for sub in subs]
    script = os.path.join(tmp, "cpuid.py")
    out = os.path.join(tmp, "cpuid.txt")
    with open(script, "w") as f:
        f.write(GDB_SCRIPT % {"port": port, "queries": queries, "out": out})
    cmd = [qemu, "-nodefaults", "-no-user-config", "-display", "none",
           "-accel", "tcg", *lopts, *args, "-S",
           "-gdb", f"tcp:127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        subprocess.run(["gdb", "-batch", "-nx", "-x", script], check=True,
                       capture_output=True, timeout=120)
        version = subprocess.run([qemu, "--version"], env=env, check=True,
                                 capture_output=True, text=True).stdout
        print(f"# {version.splitlines()[0]}")
        print("# " + " ".join([os.path.basename(qemu), *args]))
        with open(out) as f:
            sys.stdout.write(f.read())
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("presets", nargs="*", metavar="PRESET")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/unit/data/acpi"))
    ap.add_argument("--with-dsdt", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cpuid", action="store_true")
    opts = ap.parse_args()
    if opts.list or not opts.presets:
        for name, (qemu, args, _) in PRESETS.items():
            print(f"{name:16} {os.path.basename(qemu)} {' '.join(args)}")
        for name, (qemu, args) in CPU_PRESETS.items():
            print(f"--cpuid {name:20} {os.path.basename(qemu)} "
                  f"{' '.join(args)}")
        return
    if opts.cpuid:
        for p in opts.presets:
            if p not in CPU_PRESETS:
                sys.exit(f"capture-acpi: unknown --cpuid preset {p!r}")
            capture_cpuid(p)
        return
    for p in opts.presets:
        if p not in PRESETS:
            sys.exit(f"capture-acpi: unknown preset {p!r} (try --list)")
    for p in opts.presets:
        capture(p, os.path.join(opts.out, p), opts.with_dsdt)


if __name__ == "__main__":
    main()
