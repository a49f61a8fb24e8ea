#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a crafted set of ACPI tables for SeaBIOS to publish in place of
QEMU's own, so that a test boots the harness on firmware that lies.

usage: tools/firmware_acpi.py [--cpus N] SCENARIO DIR
       tools/firmware_acpi.py --list

QEMU normally hands SeaBIOS its tables as three fw_cfg files: etc/acpi/rsdp,
etc/acpi/tables, and etc/table-loader, a script of 128-byte commands
(QEMU's hw/acpi/bios-linker-loader.c) that tells the firmware where to
place each blob, which pointers to patch with the address it chose, and
which checksums to compute. With `-machine ...,acpi=off` QEMU builds none of
them, and the same three names given with -fw_cfg are run by SeaBIOS just
as QEMU's would be (its legacy table builder, which acpi=off alone would
run, is skipped once a loader installed an RSDP). Whatever the tables say,
the firmware publishes: a pointer left out of the script stays a raw
address, a checksum left out stays wrong.

Written into DIR: rsdp.bin, tables.bin, loader.bin; run_qemu.py --acpi
passes them (and acpi=off). The machine is QEMU's q35 under SeaBIOS (the
FADT's PM timer is ICH9's, at the port SeaBIOS gives it).

Every scenario has an RSDP (revision 2), an XSDT and an RSDT listing the
same tables, a FADT, an HPET table and a MADT of N CPUs (APIC IDs 0..N-1),
one IOAPIC, the IRQ 0 override and the LINT1 NMI; each one then breaks
one thing (--list says what).
"""

import argparse
import os
import struct
import sys

OEM_ID = b"SHTDWN"
OEM_TABLE = b"FIRMWARE"
# An address no memory-map entry covers: q35's 32-bit PCI hole, below its
# MMCONFIG window, with 1 GiB of RAM (any -m up to 2 GiB).
OUTSIDE_MAP = 0x8000_0000
# Above QEMU's default 40-bit physical address width under TCG (-cpu max):
# a page-table entry for it would have reserved bits set.
BEYOND_WIDTH = 1 << 45
# Usable RAM (16 MiB) that a table calls device registers.
IN_RAM = 0x100_0000

SCENARIOS = {
    "good": "well-formed tables (the control: the others differ by one defect)",
    "madt-bad-checksum": "the MADT's bytes do not sum to 0",
    "madt-no-cpu": "the MADT lists every CPU as neither enabled nor online-capable",
    "madt-duplicate-apic-id": "the MADT lists the last APIC ID twice (two UIDs)",
    "xsdt-outside-ram": f"XSDT entries: the MADT at {OUTSIDE_MAP:#x} (no memory-map "
                        f"entry covers it: read, and no table is there), a table at "
                        f"{BEYOND_WIDTH:#x} (beyond the CPU's physical address width: "
                        f"not read); the RSDT is right",
    "rsdp-xsdt-outside-ram": f"the RSDP's XSDT address is {OUTSIDE_MAP:#x}, outside "
                             f"the memory map (read: no XSDT there); the RSDT is right",
    "madt-no-boot-cpu": "the MADT leaves out the boot CPU (APIC ID 0)",
    "madt-absent-cpus": "the MADT lists two enabled CPUs more than the machine has",
    "madt-fewer-cpus": "the MADT lists the boot CPU alone, of N (CPUID counts N)",
    "madt-socket0": "the MADT lists the first N/2 CPUs alone: socket 0 of -smp "
                    "N,sockets=2 (CPUID sees one package and agrees; SMBIOS "
                    "counts both sockets)",
    "devices-in-ram": f"the MADT's IOAPIC at {IN_RAM:#x} and the HPET at "
                      f"{IN_RAM + 0x10000:#x}: usable RAM, where a driver would write",
}

# Loader commands (bios-linker-loader.c) and allocation zones.
CMD_ALLOCATE, CMD_ADD_POINTER, CMD_ADD_CHECKSUM = 1, 2, 3
ZONE_HIGH, ZONE_FSEG = 1, 2
FILE_LEN = 56
RSDP_FILE, TABLES_FILE = "etc/acpi/rsdp", "etc/acpi/tables"
FW_CFG_NAMES = {"etc/table-loader": "loader.bin", RSDP_FILE: "rsdp.bin",
                TABLES_FILE: "tables.bin"}

ICH9_PM_TIMER = 0x608  # SeaBIOS puts ICH9's ACPI PM base at 0x600
HPET_BASE = 0xFED0_0000
IOAPIC_BASE = 0xFEC0_0000
LAPIC_BASE = 0xFEE0_0000


def header(sig, length, rev):
    """The 36-byte header (ACPI 5.2.6); the checksum byte (9) is 0."""
    return struct.pack("<4sIBB6s8sI4sI", sig, length, rev, 0, OEM_ID, OEM_TABLE, 1,
                       b"SHDN", 1)


def table(sig, body, rev=1):
    return bytearray(header(sig, 36 + len(body), rev) + body)


def checksum_byte(data):
    """The value of byte 9 that makes the table sum to 0."""
    return (-(sum(data) - data[9])) & 0xFF


def fadt():
    """ACPI 1.0 FADT (116 bytes): the PM timer is all the harness reads."""
    body = bytearray(116 - 36)
    struct.pack_into("<I", body, 76 - 36, ICH9_PM_TIMER)  # PM_TMR_BLK
    body[91 - 36] = 4  # PM_TMR_LEN
    struct.pack_into("<I", body, 112 - 36, 1 << 8)  # flags: TMR_VAL_EXT
    return table(b"FACP", bytes(body))


def hpet(base=HPET_BASE):
    """HPET description table (IA-PC HPET 1.0a, 3.2.4): 56 bytes."""
    gas = struct.pack("<BBBBQ", 0, 64, 0, 0, base)
    return table(b"HPET", struct.pack("<I", 0x8086A201) + gas + struct.pack("<BHB", 0, 0x80, 0))


def madt(apic_ids, cpu_flags=1, ioapic=IOAPIC_BASE):
    """MADT (ACPI 5.2.12): one Processor Local APIC entry per APIC ID
    (UIDs 0, 1, ...), the IOAPIC, IRQ 0 -> GSI 2, LINT1 NMI to all."""
    body = struct.pack("<II", LAPIC_BASE, 1)  # flags: PCAT_COMPAT
    for uid, apic_id in enumerate(apic_ids):
        body += struct.pack("<BBBBI", 0, 8, uid, apic_id, cpu_flags)
    body += struct.pack("<BBBBII", 1, 12, 0, 0, ioapic, 0)
    body += struct.pack("<BBBBIH", 2, 10, 0, 0, 2, 0)
    body += struct.pack("<BBBHB", 4, 6, 0xFF, 0, 1)
    return table(b"APIC", body, rev=3)


class Blob:
    """etc/acpi/tables: the tables one after another, 8-byte aligned."""

    def __init__(self):
        self.data = bytearray()
        self.offsets = {}

    def add(self, name, tbl):
        self.data += bytes(-len(self.data) % 8)
        self.offsets[name] = len(self.data)
        self.data += tbl
        return self.offsets[name]


def name_field(name):
    raw = name.encode()
    assert len(raw) < FILE_LEN
    return raw + bytes(FILE_LEN - len(raw))


class Loader:
    """etc/table-loader: 128-byte commands, run in order by the firmware."""

    def __init__(self):
        self.cmds = []

    def _add(self, cmd, payload):
        self.cmds.append(struct.pack("<I", cmd) + payload + bytes(124 - len(payload)))

    def allocate(self, name, align, zone):
        self._add(CMD_ALLOCATE, name_field(name) + struct.pack("<IB", align, zone))

    def pointer(self, dest, offset, size, src):
        """The `size`-byte value at dest+offset, an offset into src, becomes
        src's address plus that offset."""
        self._add(CMD_ADD_POINTER, name_field(dest) + name_field(src) +
                  struct.pack("<IB", offset, size))

    def checksum(self, name, offset, start, length):
        self._add(CMD_ADD_CHECKSUM, name_field(name) + struct.pack("<III", offset, start, length))

    def data(self):
        return b"".join(self.cmds)


def build(scenario, cpus):
    """(rsdp, tables, loader) bytes for one scenario."""
    ids = list(range(cpus))
    blob, loader = Blob(), Loader()
    loader.allocate(RSDP_FILE, 16, ZONE_FSEG)
    loader.allocate(TABLES_FILE, 64, ZONE_HIGH)
    if scenario == "madt-no-cpu":
        apic = madt(ids, cpu_flags=0)
    elif scenario == "madt-duplicate-apic-id":
        apic = madt(ids + ids[-1:])
    elif scenario == "devices-in-ram":
        apic = madt(ids, ioapic=IN_RAM)
    elif scenario == "madt-no-boot-cpu":
        apic = madt(ids[1:])
    elif scenario == "madt-absent-cpus":
        apic = madt(list(range(cpus + 2)))
    elif scenario == "madt-fewer-cpus":
        apic = madt(ids[:1])
    elif scenario == "madt-socket0":
        apic = madt(ids[:max(1, cpus // 2)])
    else:
        apic = madt(ids)
    good_sums = {"FACP", "HPET", "APIC"}
    if scenario == "madt-bad-checksum":
        good_sums.discard("APIC")
        apic[9] = (checksum_byte(apic) + 0x5A) & 0xFF  # sums to 0x5a, not 0
    hpet_base = IN_RAM + 0x10000 if scenario == "devices-in-ram" else HPET_BASE
    entries = [("FACP", blob.add("FACP", fadt())),
               ("HPET", blob.add("HPET", hpet(hpet_base))),
               ("APIC", blob.add("APIC", apic))]
    # XSDT entries that stay raw addresses (no pointer command patches them).
    raw_xsdt = {}
    if scenario == "xsdt-outside-ram":
        raw_xsdt = {"APIC": OUTSIDE_MAP, "BEYOND": BEYOND_WIDTH}
        entries.append(("BEYOND", None))
    xsdt = table(b"XSDT", bytes(8 * len(entries)))
    rsdt = table(b"RSDT", bytes(4 * sum(off is not None for _, off in entries)))
    xsdt_off = blob.add("XSDT", xsdt)
    rsdt_off = blob.add("RSDT", rsdt)
    n = 0
    for i, (name, off) in enumerate(entries):
        at = xsdt_off + 36 + 8 * i
        if name in raw_xsdt:
            struct.pack_into("<Q", blob.data, at, raw_xsdt[name])
        else:
            struct.pack_into("<Q", blob.data, at, off)
            loader.pointer(TABLES_FILE, at, 8, TABLES_FILE)
        if off is not None:
            at = rsdt_off + 36 + 4 * n
            struct.pack_into("<I", blob.data, at, off)
            loader.pointer(TABLES_FILE, at, 4, TABLES_FILE)
            n += 1
    for name, off in [*entries, ("XSDT", xsdt_off), ("RSDT", rsdt_off)]:
        if name in good_sums or name in ("XSDT", "RSDT"):
            length = struct.unpack_from("<I", blob.data, off + 4)[0]
            loader.checksum(TABLES_FILE, off + 9, off, length)
    # RSDP (ACPI 5.2.5.3), revision 2: RSDT at 16, length 36, XSDT at 24.
    rsdp = bytearray(struct.pack("<8sB6sBIIQB3s", b"RSD PTR ", 0, OEM_ID, 2, rsdt_off, 36,
                                 xsdt_off, 0, b"\0\0\0"))
    loader.pointer(RSDP_FILE, 16, 4, TABLES_FILE)
    if scenario == "rsdp-xsdt-outside-ram":
        struct.pack_into("<Q", rsdp, 24, OUTSIDE_MAP)
    else:
        loader.pointer(RSDP_FILE, 24, 8, TABLES_FILE)
    loader.checksum(RSDP_FILE, 8, 0, 20)
    loader.checksum(RSDP_FILE, 32, 0, 36)
    return bytes(rsdp), bytes(blob.data), loader.data()


def write(scenario, cpus, outdir):
    """Writes the three files; returns QEMU's arguments for them."""
    os.makedirs(outdir, exist_ok=True)
    rsdp, tables, loader = build(scenario, cpus)
    files = {"rsdp.bin": rsdp, "tables.bin": tables, "loader.bin": loader}
    for fname, data in files.items():
        with open(os.path.join(outdir, fname), "wb") as f:
            f.write(data)
    args = []
    for name, fname in FW_CFG_NAMES.items():
        args += ["-fw_cfg", f"name={name},file={os.path.join(outdir, fname)}"]
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?")
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    opts = ap.parse_args()
    if opts.list or not opts.scenario:
        for name, what in SCENARIOS.items():
            print(f"{name:24} {what}")
        return 0
    if opts.scenario not in SCENARIOS:
        sys.exit(f"firmware_acpi: unknown scenario {opts.scenario!r} (try --list)")
    if not opts.dir or not 1 <= opts.cpus <= 255:
        sys.exit("firmware_acpi: give SCENARIO DIR, and --cpus 1..255")
    print(" ".join(write(opts.scenario, opts.cpus, opts.dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
