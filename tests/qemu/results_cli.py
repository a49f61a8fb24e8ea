"""What the tests of tools/shootdown.py share (test_results.py and the
modules it gathers): running the CLI in this process or as a command, a
strict TAP 13 reader, small readers of what the CLI wrote, and the check
of what plot draws.
"""

import io
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
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


# --- plot: what every figure must be --------------------------------------

EXPECTED_LABELS = {
    "shootdown-pages": ("pages per invalidation", "initiator latency"),
    "shootdown-targets": ("responders (targets)", "initiator latency p50"),
    "shootdown-distance": ("distance class", "p50"),
    "shootdown-crossover": ("responders (targets)", "pages per invalidation"),
    "flushloop-scaling": ("cpus in the loop", "operations per second"),
    # a strip per strategy (its page-out's length beside it), and the loss
    # with its interval: check_plot expands it
    "reclaim-timeline": "strips",
    "reclaim-irqs": ("strategy and batch", "interrupts per GiB"),
    "ceiling": ("pages flushed (K)", "cycles (p50)"),
}
# Drawn only from runs with the refill records (primitives), which the
# synthetic run of every experiment does not have.
NEEDS_REFILL = ("ceiling",)


def check_plot(test, path, outdir, expect_all=False):
    """Runs plot; checks every drawn figure's PNG (signature, size from
    the manifest, non-trivial), its SVG, its axes labels and scales, and the
    page; returns the manifest."""
    status, out, err = run_script(["plot", path, "-o", outdir])
    test.assertEqual(status, 0, out + err)
    with open(os.path.join(outdir, "manifest.json")) as f:
        manifest = json.load(f)
    drawn = [e for e in manifest["figures"] if "skipped" not in e]
    if expect_all:
        test.assertEqual([e["name"] for e in drawn],
                         [n for n in EXPECTED_LABELS if n not in NEEDS_REFILL])
    test.assertTrue(drawn, "no figure drawn")
    with open(os.path.join(outdir, "index.html"), encoding="utf-8") as f:
        page = f.read()
    for e in drawn:
        png = os.path.join(outdir, e["png"])
        test.assertEqual(png_size(png), (960, 600), e["name"])
        test.assertEqual((e["width"], e["height"]), (960, 600))
        test.assertGreater(os.path.getsize(png), 10000, e["name"])
        test.assertGreater(os.path.getsize(os.path.join(outdir, e["svg"])), 1000)
        want = EXPECTED_LABELS[e["name"]]
        if want == "strips":
            want = [("", "page-out")] * (len(e["axes"]) - 1) + \
                [("strategy and batch", "worker loss")]
            test.assertIn("(ms", e["axes"][-2]["xlabel"], e["name"])
        panels = want if isinstance(want, list) else [want] * len(e["axes"])
        test.assertEqual(len(panels), len(e["axes"]), e["name"])
        for ax, (xlabel, ylabel) in zip(e["axes"], panels):
            if ax.get("colorbar"):
                test.assertTrue(ax["ylabel"], e["name"])
                continue
            test.assertIn(xlabel, ax["xlabel"], e["name"])
            test.assertIn(ylabel, ax["ylabel"], e["name"])
            test.assertTrue(ax["lines"] + ax["patches"] + ax["collections"], e["name"])
        if e["name"] == "shootdown-pages":
            test.assertEqual({(a["xscale"], a["yscale"]) for a in e["axes"]}, {("log", "log")})
        test.assertIn(f'src="{e["png"]}"', page)
    return manifest
