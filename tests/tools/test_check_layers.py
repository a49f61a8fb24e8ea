#!/usr/bin/env python3
"""Self-test of tools/check-layers.py over small trees written to a temporary
folder: a tree whose includes all run down (or sideways) passes, and every
include that runs up a floor is named, in the order and form make check
prints, with exit status 1.

Run: python3 tests/tools/test_check_layers.py  (make layers-check runs it).
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "tools", "check-layers.py")


def run_on(files):
    """Writes {relative path: text} under a fresh folder and runs the script
    on it; returns (exit status, stdout lines, stderr)."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        p = subprocess.run([sys.executable, SCRIPT, root],
                           capture_output=True, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr


class CheckLayers(unittest.TestCase):
    def test_downward_sideways_and_unknown_includes_pass(self):
        status, out, _ = run_on({
            "lib/printf.h": "#include <stdarg.h>\n",
            "kernel/report.c": '#include "lib/printf.h"\n'
                               '#include "report.h"\n'
                               '#include "version.h"\n',
            "mm/vm.c": '#include "kernel/report.h"\n',
            "smp/smp.c": '#include "mm/vm.h"\n#include "smp/smp.h"\n',
            "bench/run.c": '#include "smp/smp.h"\n',
            "init/main.c": '#include "bench/bench.h"\n'
                           '#include "tests/unit/unit.h"\n',
            "boot/entry.S": '#include "boot/boot.h"\n',
            "kernel/notes.txt": '#include "init/main.h"\n',
        })
        self.assertEqual(status, 0, out)
        self.assertEqual(len(out), 1)
        self.assertRegex(out[0], r"^layers: ok \(7 files")

    def test_every_upward_include_is_named(self):
        status, out, err = run_on({
            "kernel/env.c": '#include "kernel/cpu.h"\n'
                            '#include "bench/rng.h"\n',
            "mm/tlb.h": '/* x */\n  #  include "smp/smp.h" /* why */\n',
            "smp/xcall.S": '#include "bench/flush.h"\n',
            "lib/kstring.c": '#include "kernel/cpu.h"\n',
            "boot/boot.h": '#include "init/env.h"\n',
            "bench/run.c": '#include "init/env.h"\n',
        })
        self.assertEqual(status, 1)
        self.assertEqual(out, [
            "lib/kstring.c:1: lib includes kernel/cpu.h",
            "boot/boot.h:1: boot includes init/env.h",
            "kernel/env.c:2: kernel includes bench/rng.h",
            "mm/tlb.h:2: mm includes smp/smp.h",
            "smp/xcall.S:1: smp includes bench/flush.h",
            "bench/run.c:1: bench includes init/env.h",
        ])
        self.assertIn("6 include(s)", err)

    def test_usage(self):
        p = subprocess.run([sys.executable, SCRIPT, "--help"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("Usage:", p.stderr)


if __name__ == "__main__":
    unittest.main()
