#!/usr/bin/env python3
"""QEMU with its EXIT line lost (tests/lava/run.py, the lost-end case).

    qemu-lose-exit ARGS...   (this file under that name, as LAVA wants
                             a command it finds in PATH)

Runs QEMU and passes its console through, all but the `EXIT: STATUS=`
line, as a serial line that dropped it would; then keeps the console
open, as a server that halted after its last line does, until LAVA ends
the job. A job on it must not pass the gate (tools/shootdown.py lava
--gate), and must end within its stated timeout.
"""

import os
import subprocess
import sys


def main(argv):
    proc = subprocess.Popen(["qemu-system-x86_64"] + argv[1:], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    out = sys.stdout.buffer
    for line in proc.stdout:
        if not line.lstrip(b"\r").startswith(b"EXIT: STATUS="):
            out.write(line)
            out.flush()
    proc.wait()
    # The console stays open: wait for LAVA to close it (or kill us).
    while os.read(sys.stdin.fileno(), 4096):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
