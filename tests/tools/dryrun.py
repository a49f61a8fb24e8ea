"""What the launcher self-tests share: a dry run of run-qemu.sh's QEMU
launcher (tools/run_qemu.py) under TCG, nothing built or started."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAUNCHER = os.path.join(ROOT, "tools", "run_qemu.py")


def launch(*args):
    """(exit status, stderr) of a dry run with these arguments."""
    p = subprocess.run([sys.executable, LAUNCHER, "--dry-run", "--accel", "tcg",
                        "--no-build", *args], capture_output=True, text=True)
    return p.returncode, p.stderr
