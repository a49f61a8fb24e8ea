#!/usr/bin/env python3
"""Build the Linux side's initramfs (docs/linux.md): a cpio archive in the
kernel's "newc" format holding /init (linux/init.c, static), the modules
zram swap needs with the order to load them in, and the directories and
the console node /init needs before devtmpfs is mounted.

usage: linux/mkinitramfs.py --init FILE --modules DIR -o OUT [--gzip]

DIR is build/linux/modules (tools/fetch-linux.sh): its `order` file names
the modules, dependencies first. Every entry has mtime 0 and owner root,
so the same inputs give the same bytes.
"""

import argparse
import gzip
import os
import stat
import sys

sys.dont_write_bytecode = True

TRAILER = "TRAILER!!!"


class Cpio:
    """Entries of a newc archive, written in order."""

    def __init__(self):
        self.out = bytearray()
        self.ino = 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(name) + 1, 0]
        self.ino += 1
        self.out += b"070701" + b"".join(b"%08x" % f for f in fields)
        self.out += name.encode() + b"\0"
        self._pad()
        self.out += data
        self._pad()

    def _pad(self):
        self.out += b"\0" * (-len(self.out) % 4)

    def directory(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def char_device(self, name, major, minor):
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def finish(self):
        self._entry(TRAILER, 0)
        return bytes(self.out)


def build(init, modules):
    """The archive's bytes."""
    c = Cpio()
    for d in ("dev", "proc", "sys", "modules"):
        c.directory(d)
    # The kernel opens /dev/console for init before anything is mounted.
    c.char_device("dev/console", 5, 1)
    with open(init, "rb") as f:
        c.file("init", f.read(), 0o755)
    order_path = os.path.join(modules, "order")
    with open(order_path) as f:
        order = [ln.strip() for ln in f if ln.strip()]
    if not order:
        raise SystemExit(f"mkinitramfs: {order_path} names no module")
    for name in order:
        if "/" in name:
            raise SystemExit(f"mkinitramfs: {order_path}: '{name}' is not a file name")
        with open(os.path.join(modules, name), "rb") as f:
            c.file(f"modules/{name}", f.read())
    c.file("modules/order", ("\n".join(order) + "\n").encode())
    return c.finish()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", required=True, help="the static /init binary")
    ap.add_argument("--modules", required=True, help="the modules and their order file")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--gzip", action="store_true", help="gzip it (CONFIG_RD_GZIP)")
    args = ap.parse_args(argv)
    try:
        data = build(args.init, args.modules)
    except OSError as exc:
        print(f"mkinitramfs: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1
    if args.gzip:
        data = gzip.compress(data, mtime=0)
    tmp = args.output + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
