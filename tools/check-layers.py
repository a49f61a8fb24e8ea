#!/usr/bin/env python3
"""Fails on any #include that runs from a lower floor of the kernel to a
higher one.

The kernel's folders are floors, lowest first (FLOORS below, the one place
the order is written). A file's floor is its folder. A file may include
its own floor and the floors below it, never one above: the portable
library (lib/) needs nothing else, the loader entry (boot/) nothing but
lib, and so on up to init/, the program's top, which may use them all.

Every `#include "..."` in the .c, .h and .S files of the floor folders is
checked. An include whose first path component is a floor folder
("smp/apic.h") is on that floor; a bare name ("report.h") is the file's
own folder, as the C preprocessor looks there first; anything else (a
generated "version.h", a system <header>) is no floor and is not checked.

Usage: tools/check-layers.py [ROOT]   (default: the repository holding it)
Prints each violation as FILE:LINE: FLOOR includes HIGHER/x.h and exits 1
if there is any, else prints one line saying how much was checked and
exits 0.
"""

import os
import re
import sys

FLOORS = ("lib", "boot", "kernel", "mm", "smp", "bench", "init")
RANK = {floor: rank for rank, floor in enumerate(FLOORS)}
SOURCE_ENDINGS = (".c", ".h", ".S")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def included_floor(including_floor, path):
    """The floor an include names, or None if it names no floor."""
    head, sep, _ = path.partition("/")
    if not sep:
        return including_floor
    return head if head in RANK else None


def sources(root):
    """Yields (path relative to root, floor) of every source of a floor."""
    for floor in FLOORS:
        folder = os.path.join(root, floor)
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith(SOURCE_ENDINGS):
                    yield f"{floor}/{name}", floor


def upward_includes(root, rel, floor):
    """Yields (line number, included path) of each include in root/rel
    that names a floor above `floor`."""
    with open(os.path.join(root, rel), encoding="utf-8",
              errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = included_floor(floor, m.group(1))
            if target is not None and RANK[target] > RANK[floor]:
                yield number, m.group(1)


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    found = files = 0
    for rel, floor in sources(root):
        files += 1
        for number, path in upward_includes(root, rel, floor):
            print(f"{rel}:{number}: {floor} includes {path}")
            found += 1
    if found:
        print(f"layers: {found} include(s) from a lower floor to a higher "
              f"one (floors, lowest first: {' < '.join(FLOORS)})",
              file=sys.stderr)
        return 1
    print(f"layers: ok ({files} files, floors lowest "
          f"first: {' < '.join(FLOORS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
