#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the fuzz targets' seed corpora into tests/fuzz/corpus/TARGET/.

usage: tests/fuzz/mkseeds.py [--out DIR]

Every seed is derived from data the unit tests already hold, laid out in
the input format that tests/fuzz/fuzz_TARGET.c describes:
  acpi, acpi_table  the ACPI tables captured from QEMU machines
                    (tests/unit/data/acpi/*/, tools/capture-acpi.py)
  topology          the CPUID dumps of tests/unit/test_topology.c
  multiboot         multiboot 1 and 2 blocks like the ones QEMU and GRUB
                    pass, with the memory map of test_multiboot.c's pc_map
  cmdline           the command lines README.md shows
  invlpgb           requests like the experiments' (1..512 pages, 4 KiB and
                    2 MiB strides, PCIDs) and the registers they encode to

Re-running it rewrites the same files (names are hashes of the contents),
so a change of input format shows as a diff of the corpus.
"""

import argparse
import glob
import hashlib
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def write(out, target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# --- ACPI -----------------------------------------------------------------

# fuzz_acpi.c's flags.
F_CSUM, F_LEN, F_XSDT, F_SCAN, F_EBDA = 0x01, 0x02, 0x04, 0x08, 0x10
ROOTS = ("rsdp.bin", "rsdt.bin", "xsdt.bin", "ebda.bin", "ebda-segment.bin")
# fuzz_acpi_table.c's parsers, by selector byte.
TABLE_SEL = {"apic.bin": 0, "srat.bin": 1, "facp.bin": 2, "hpet.bin": 3}


def acpi_machines():
    for d in sorted(glob.glob(os.path.join(ROOT, "tests/unit/data/acpi/*"))):
        tables = {}
        for line in open(os.path.join(d, "manifest.txt")):
            if line.startswith("#") or not line.strip():
                continue
            _, name = line.split()
            tables[name] = open(os.path.join(d, name), "rb").read()
        yield os.path.basename(d), tables


def acpi_seeds(out):
    for machine, tables in acpi_machines():
        blobs = b"".join(
            u16(len(data)) + data
            for name, data in sorted(tables.items())
            if name not in ROOTS
        )
        xsdt = F_XSDT if "xsdt.bin" in tables else 0
        write(out, "acpi", bytes([F_CSUM | xsdt, 0]) + blobs)
        if machine == "q35-4":
            # The same found by the scans: at 0xe0000 + 16 * 5, in the EBDA.
            write(out, "acpi", bytes([F_CSUM | F_SCAN, 5]) + blobs)
            write(out, "acpi", bytes([F_CSUM | F_SCAN | F_EBDA, 1]) + blobs)
        for name, sel in TABLE_SEL.items():
            if name in tables:
                write(out, "acpi_table", bytes([sel]) + tables[name])


# --- topology -------------------------------------------------------------

# fuzz_topology.c's slots, in order: (leaf, subleaves).
LEAVES = [
    (0, 1), (0x80000000, 1), (1, 1), (0x80000001, 1), (0x80000008, 1),
    (0x8000001E, 1), (0xB, 8), (0x1F, 8), (0x80000026, 8), (4, 16),
    (0x8000001D, 16),
]


def topology_seeds(out):
    src = open(os.path.join(ROOT, "tests/unit/test_topology.c")).read()
    for body in re.findall(r"static const char \*const \w+\[\] = \{(.*?)\};", src, re.S):
        regs = {}
        for leaf, sub, vals in re.findall(
            r'"([0-9A-Fa-f]+)(?:\.([0-9A-Fa-f]+))?: ([0-9A-Fa-f-]+)"', body
        ):
            v = [int(x, 16) for x in vals.split("-")]
            if len(v) == 4:
                regs[(int(leaf, 16), int(sub, 16) if sub else None)] = v
        if not regs:
            continue
        data = b"".join(u32(a) for a in (0, 1, 2, 0x21))  # the APIC IDs
        for leaf, subs in LEAVES:
            for s in range(subs):
                v = regs.get((leaf, s if subs > 1 else None)) or regs.get(
                    (leaf, None)) or regs.get((leaf, s)) or [0, 0, 0, 0]
                data += b"".join(u32(x) for x in v)
        write(out, "topology", data.rstrip(b"\0"))


# --- multiboot ------------------------------------------------------------

IMAGE_PA = 0x10000  # fuzz_multiboot.c
PC_MAP = [
    (0x0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2),
    (0x100000, 0x7EE0000, 1), (0x7FE0000, 0x10000, 3),
    (0x7FF0000, 0x10000, 4), (0xFEFFC000, 0x4000, 2),
    (0xFFFC0000, 0x40000, 2), (0x100000000, 0x80000000, 1),
]


def mb1_image():
    """Info block at offset 0, then the map and the strings (QEMU -kernel)."""
    mmap = b"".join(u32(20) + u64(b) + u64(n) + u32(t) for b, n, t in PC_MAP)
    cmd = b"build/shootdown.elf bench=none cpus=2\0"
    loader = b"qemu\0"
    mmap_at, cmd_at = 0x100, 0x100 + len(mmap)
    loader_at = cmd_at + len(cmd)
    flags = 1 | 4 | 0x40 | 0x200  # mem, cmdline, mmap, loader name
    info = bytearray(88)
    info[0:4] = u32(flags)
    info[4:12] = u32(639) + u32(130048)
    info[16:20] = u32(IMAGE_PA + cmd_at)
    info[44:52] = u32(len(mmap)) + u32(IMAGE_PA + mmap_at)
    info[64:68] = u32(IMAGE_PA + loader_at)
    img = bytes(info).ljust(0x100, b"\0") + mmap + cmd + loader
    return bytes([0]) + u16(0) + img


def mb2_tag(t, payload):
    tag = u32(t) + u32(8 + len(payload)) + payload
    return tag + b"\0" * (-len(tag) % 8)


def mb2_image(efi):
    rsdp = b"RSD PTR " + b"\x42BOCHS \x02" + u32(0x7FE14D2) + u32(36) + \
        u64(0x7FE1574) + b"\x99\0\0\0"
    tags = mb2_tag(1, b"/boot/shootdown.elf bench=none\0")
    tags += mb2_tag(2, b"GRUB 2.06-13+deb12u1\0")
    tags += mb2_tag(4, u32(639) + u32(130048))
    tags += mb2_tag(6, u32(24) + u32(0) + b"".join(
        u64(b) + u64(n) + u32(t) + u32(0) for b, n, t in PC_MAP))
    tags += mb2_tag(3, u32(0x200000) + u32(0x201000) + b"mod\0")
    tags += mb2_tag(15, rsdp)
    tags += mb2_tag(14, rsdp[:20])
    if efi:
        tags += mb2_tag(12, u64(0x7F9EE018))
        tags += mb2_tag(18, b"")
    tags += mb2_tag(0, b"")
    block = u32(8 + len(tags)) + u32(0) + tags
    return bytes([1]) + u16(0x40) + b"\xee" * 0x40 + block


def multiboot_seeds(out):
    write(out, "multiboot", mb1_image())
    write(out, "multiboot", mb2_image(False))
    write(out, "multiboot", mb2_image(True))


# --- command line ---------------------------------------------------------

LINES = [
    "build/shootdown.elf",
    "/boot/shootdown.elf console=0x2f8,57600 exit=reboot bench=none",
    "bench=primitives,shootdown pages=1,2,8,32,33,64,512 targets=auto",
    "strategies=ipi-page,invlpgb invlpgb=emulate,bug=count samples=50",
    "cpus=7 hot_mb=2048 reclaim_mb=20480 bench=reclaim writers=off",
    "selftest=tsc-skew init_wait=on seed=0x1234 warmup=0 help",
    "targets=all,3,1 duration_ms=10 budget_s=0 handler_timing=on",
    "invlpgb=force,bug=stride console=com2 selftest=invlpgb-local",
]


def cmdline_seeds(out):
    for i, line in enumerate(LINES):
        # responders, list_format's buffer size, then the line.
        write(out, "cmdline", bytes([(3 + 40 * i) % 256, 7 * i]) + line.encode())


# --- INVLPGB --------------------------------------------------------------

def invlpgb_seeds(out):
    for pages in (1, 2, 8, 32, 33, 64, 512):
        for shape, va in ((0x10, 0x7F0000000000), (0x15, 0x40000000)):
            # fuzz_invlpgb.c: flags (PCID-valid, global, PCIDE), shape, CPUID
            # present, Fn8000_0008 EDX[15:0] (7: 8 pages), va, pages,
            # PCID, ASID, output slots.
            write(out, "invlpgb",
                  bytes([0x4A, shape, 1]) + u16(7) + u64(va) + u16(pages) +
                  u16(1) + u32(0) + u16(80))
    write(out, "invlpgb", bytes([0x05, 0, 1]) + u16(0xFFFF) + b"\0" * 18)
    # Raw registers for invlpgb_decode: 8 pages, 2 MiB stride, PCID 1.
    write(out, "invlpgb", bytes([0x40, 0x80, 1]) + u16(7) +
          u64(0x40000000 | 3) + u32(0x80000007) + u32(1 << 16))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/fuzz/corpus"))
    args = ap.parse_args()
    acpi_seeds(args.out)
    topology_seeds(args.out)
    multiboot_seeds(args.out)
    cmdline_seeds(args.out)
    invlpgb_seeds(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
