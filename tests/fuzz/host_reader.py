#!/usr/bin/env python3
"""A mutation fuzzer for the host tools: every subcommand of
tools/shootdown.py on mutated console logs, which must each end with an
exit status of 0, 1 or 2 and never raise (cli.dispatch, without main's
last-line guard: reaching that guard is the bug this looks for).

usage: tests/fuzz/host_reader.py [--seconds S] [--seed N] [--save DIR] [LOG...]

The seeds are the logs given, else tests/qemu/samples/good-*.log and the
fresh logs of build/test-logs/ (results-findings*, when make check has
written them). A mutation edits one @json record the way a broken
console, a hand edit or a hostile file would (a value of another type, a
field gone, a list a thousand deep, a huge number, a cut line), or the
text (line ends, stray bytes, a line repeated or dropped). Every input
that made a subcommand raise is saved under --save (default
build/fuzz/host-crashes) and kept as a regression case in
tests/fuzz/host_corpus/, which is replayed first on every run.

Prints one line: executions, subcommand runs, findings; exit 1 if any.
"""

import argparse
import contextlib
import glob
import io
import json
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path[:0] = [os.path.join(ROOT, "tools", "results"), os.path.join(ROOT, "tools")]

import cli  # noqa: E402

CORPUS = os.path.join(HERE, "host_corpus")
COMMANDS = (["check"], ["table"], ["answer"], ["answer", "--json"], ["tap"], ["junit"],
            ["compare", "{f}", "{f}"], ["lava", "{f}", "--gate"])
ODD_VALUES = (None, True, -1, 2 ** 64, 1e308, "", "x", [], [1, 2], {}, {"a": 1},
              "[" * 10, 0.5)


def deep(n):
    return "[" * n + "]" * n


def mutate_record(rng, rec):
    """One edit of a record (a dict): a value of another type, a field
    gone, or a nested value replaced."""
    keys = list(rec)
    if not keys:
        return rec
    key = rng.choice(keys)
    choice = rng.randrange(4)
    if choice == 0:
        del rec[key]
    elif choice == 1:
        rec[key] = rng.choice(ODD_VALUES)
    elif choice == 2 and isinstance(rec[key], dict):
        mutate_record(rng, rec[key])
    elif choice == 2 and isinstance(rec[key], list) and rec[key]:
        i = rng.randrange(len(rec[key]))
        if isinstance(rec[key][i], dict):
            mutate_record(rng, rec[key][i])
        else:
            rec[key][i] = rng.choice(ODD_VALUES)
    else:
        rec["extra_" + key] = rng.choice(ODD_VALUES)
    return rec


def mutate(rng, lines):
    """A mutated copy of a log's lines."""
    lines = list(lines)
    recs = [i for i, ln in enumerate(lines) if ln.startswith("@json ")]
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(10)
        if recs and kind < 6:
            i = rng.choice(recs)
            try:
                rec = json.loads(lines[i][6:])
            except (ValueError, RecursionError):
                continue
            if kind == 5:
                text = json.dumps(rec)[:-1] + f',"deep":{deep(rng.choice((50, 2000)))}}}'
            else:
                text = json.dumps(mutate_record(rng, rec))
            lines[i] = "@json " + text
        elif kind == 6 and lines:
            i = rng.randrange(len(lines))
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        elif kind == 7 and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
        elif kind == 8 and lines:
            del lines[rng.randrange(len(lines))]
        elif lines:
            i = rng.randrange(len(lines))
            lines[i] += rng.choice(("\r", "\x00", "\xff", "\x1b[2J", " -- x"))
    return lines


def run_one(argv):
    """dispatch(argv) with its output swallowed: (status, exception)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.dispatch(argv)
    except SystemExit as exc:      # argparse
        return exc.code, None
    except Exception as exc:       # noqa: BLE001 -- the finding
        return None, exc
    return status, None


def try_input(data, path):
    """Every subcommand on data; the (argv, exception) of each that raised
    or exited with a status other than 0, 1, 2."""
    with open(path, "wb") as f:
        f.write(data)
    bad = []
    for cmd in COMMANDS:
        argv = [a.format(f=path) for a in cmd]
        if "{f}" not in " ".join(cmd):
            argv.append(path)
        status, exc = run_one(argv)
        if exc is not None or status not in (0, 1, 2):
            bad.append((argv[0], exc or f"exit status {status}"))
    return bad


def seeds(paths):
    got = paths or sorted(glob.glob(os.path.join(ROOT, "tests/qemu/samples/good-*.log")) +
                          glob.glob(os.path.join(ROOT, "build/test-logs/results-findings*.log")))
    out = []
    for p in got:
        with open(p, "rb") as f:
            out.append(f.read().decode("latin-1").split("\n"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="*")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--save", default=os.path.join(ROOT, "build", "fuzz", "host-crashes"))
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    found, execs, runs = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input.log")
        for case in sorted(glob.glob(os.path.join(CORPUS, "*"))):
            with open(case, "rb") as f:
                bad = try_input(f.read(), path)
            execs, runs = execs + 1, runs + len(COMMANDS)
            found += [(os.path.basename(case), c, e) for c, e in bad]
        pool = seeds(args.logs)
        stop = time.monotonic() + args.seconds
        while pool and time.monotonic() < stop:
            data = "\n".join(mutate(rng, rng.choice(pool))).encode("latin-1")
            bad = try_input(data, path)
            execs, runs = execs + 1, runs + len(COMMANDS)
            if bad:
                os.makedirs(args.save, exist_ok=True)
                name = os.path.join(args.save, f"crash-{seed}-{execs}.log")
                with open(name, "wb") as f:
                    f.write(data)
                found += [(name, c, e) for c, e in bad]
    for name, cmd, exc in found:
        print(f"host-reader: FINDING: {cmd} on {name}: {type(exc).__name__}: {exc}")
    print(f"host-reader: seed {seed}: {execs} inputs, {runs} subcommand runs, "
          f"{len(found)} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
