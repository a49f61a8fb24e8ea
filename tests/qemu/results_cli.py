"""What the tests of tools/shootdown.py share (test_results.py and the
modules it gathers): running the CLI in this process or as a command, a
strict TAP 13 reader, and small readers of what the CLI wrote.
"""

import io
import os
import re
import shutil
import struct
import subprocess
import tempfile
import sys
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(HERE, "samples")
SHOOTDOWN = os.path.join(ROOT, "tools", "shootdown.py")
sys.dont_write_bytecode = True
for path in (HERE, os.path.join(ROOT, "tools"), os.path.join(ROOT, "tools", "results")):
    if path not in sys.path:
        sys.path.insert(0, path)

import checklog  # noqa: E402
import cli  # noqa: E402


def run_cli(argv):
    """cli.main(argv) in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(argv)
    return status, out.getvalue(), err.getvalue()


def run_script(argv):
    """tools/shootdown.py as a command (plot may re-run itself under
    Debian's python3, which only a real process can do)."""
    proc = subprocess.run([sys.executable, SHOOTDOWN] + argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, check=False, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


# --- a strict TAP 13 reader --------------------------------------------------

TAP_POINT = re.compile(r"^(not ok|ok) (\d+)(?: - ((?:[^#\\]|\\.)*?))?"
                       r"(?: # (SKIP|TODO)(?: (.*))?)?$")
YAML_LINE = re.compile(r'^  [a-z_]+: "(?:[^"\\]|\\.)*"$')


def strict_tap(text):
    """Parses TAP 13 strictly; returns [(ok, number, description, directive)]
    or raises AssertionError naming the first deviation: version line,
    plan first and matching the count, consecutive numbers, well-formed
    YAML blocks only after a point, nothing else."""
    lines = text.split("\n")
    assert lines[-1] == "", "output does not end in a newline"
    lines = lines[:-1]
    assert lines and lines[0] == "TAP version 13", f"first line {lines[:1]}"
    m = re.fullmatch(r"1\.\.(\d+)(?: # SKIP .*)?", lines[1] if len(lines) > 1 else "")
    assert m, f"no plan on line 2: {lines[1:2]}"
    plan, points, i = int(m.group(1)), [], 2
    while i < len(lines):
        line = lines[i]
        pm = TAP_POINT.match(line)
        assert pm, f"line {i + 1} is not a test point: {line!r}"
        num = int(pm.group(2))
        assert num == len(points) + 1, f"point {num} out of sequence"
        points.append((pm.group(1) == "ok", num, pm.group(3), pm.group(4)))
        i += 1
        if i < len(lines) and lines[i] == "  ---":
            i += 1
            while i < len(lines) and lines[i] != "  ...":
                assert YAML_LINE.match(lines[i]), f"line {i + 1} bad YAML: {lines[i]!r}"
                i += 1
            assert i < len(lines), "YAML block not closed"
            i += 1
    assert len(points) == plan, f"plan 1..{plan} but {len(points)} points"
    return points


def prove_problem(tap_text):
    """None when Debian's `prove` reads the TAP without parse errors and
    counts as many tests as the plan, else what it said; raises SkipTest
    without prove."""
    if not shutil.which("prove"):
        raise unittest.SkipTest("no prove (Debian package perl)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.tap")
        with open(path, "w", encoding="utf-8") as f:
            f.write(tap_text)
        proc = subprocess.run(["prove", "-e", "cat", path], cwd=tmp, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    out = proc.stdout
    if "Parse errors" in out:
        return out
    plan = int(re.search(r"^1\.\.(\d+)", tap_text, re.M).group(1))
    if plan and not re.search(rf"Tests(=| ){plan}\b|Tests: {plan}\b|All {plan} subtests", out):
        return out
    return None


def png_size(path):
    """(width, height) from a PNG's IHDR, checking the signature."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def verdict_counts(log):
    """PASS, FAIL, SKIP lines of a log, as checklog counts them."""
    rep = checklog.check_file(log)
    return rep.counts["PASS"], rep.counts["FAIL"], rep.counts["SKIP"]


# --- synthetic ---------------------------------------------------------------
