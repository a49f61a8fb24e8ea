#!/usr/bin/env python3
"""Soak: boot the harness many times across the QEMU matrix, with random
valid kernel arguments, and report what went wrong, by configuration.

usage: python3 tests/qemu/runner.py soak [--boots N] [--seed S] [--jobs N]
                                         [--short] [--no-build] [--json FILE]
                                         [--timeout-scale F]

The matrix: boot path (kernel, bios, uefi) x machine (q35, pc) x CPUs (1,
2, 3, 4, 8, 13, 64) x QEMU (Debian's 7.2, and 10 from tools/fetch-qemu10.sh)
x TCG threads (single, multi), plus a few KVM cells where the runner's
KVM check says KVM can start the machine. Each boot draws its cell and its
kernel arguments from a random generator seeded with --seed (printed
first), so a seed gives the same boots on every machine; a cell this
machine cannot run (no QEMU 10, no KVM, no GRUB or OVMF) is skipped with
the reason. --short is the smoke run of make check: a few cheap cells.

Every boot runs the launcher (as the runner does for its cases) and is
judged: a hang (the launcher's timeout, exit 124), a protocol violation
(tools/checklog.py), an unexpected status (anything but 0, or 77 when every
check skipped; 1 only with a FAIL line to explain it) and any FAIL line
count against its configuration. Each boot prints one line and the exact
./run-qemu.sh command that reproduces it; then a table by configuration,
one by each dimension, and a JSON summary (build/soak-logs/soak-SEED.json
unless --json). Consoles are kept in build/soak-logs/. The exit status is
1 if anything went wrong, 2 on a usage error.
"""

import argparse
import json
import os
import random
import shlex
import sys
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)

import cases  # noqa: E402  (tests/qemu; puts tools/ on the path too)
import runner  # noqa: E402
import checklog  # noqa: E402
import exitcodes  # noqa: E402
import experiments  # noqa: E402
import vocabulary  # noqa: E402  (the kernel's, read from one boot)
from soak_faults import (draw_fault_args, fault_of, fault_table, judge_fault,  # noqa: E402
                         stop_sites)

ROOT = cases.ROOT
LOG_DIR = os.path.join(ROOT, "build", "soak-logs")

BOOTS = ("kernel", "bios", "uefi")
MACHINES = ("q35", "pc")
CPUS = (1, 2, 3, 4, 8, 13, 64)
QEMUS = ("7.2", "10")
THREADS = ("single", "multi")
# KVM cells: the kernel boot path, few CPUs, the system QEMU. Under a
# nested kvm-pvm a boot takes a minute or more (docs/qemu.md), and UEFI
# stops inside OVMF there, so the soak gives KVM a few boots, not a share.
KVM_CPUS = (1, 2)
KVM_EVERY = 40  # one boot in this many is a KVM one

# The outcome of a boot; every one but "ok" and "skipped" counts against
# its configuration.
BAD = ("hang", "protocol", "status", "fail")

# Fault boots (selftest=hang-ap or slow-ap at a drawn fault_at=): one TCG
# boot in FAULT_EVERY, or every boot with --faults; not in --short (each
# costs a 5-10 s wait for the CPU that stopped).
FAULT_EVERY = 4


class Cell:
    """One configuration of the matrix."""

    def __init__(self, boot, machine, cpus, qemu, accel):
        self.boot, self.machine, self.cpus, self.qemu = boot, machine, cpus, qemu
        self.accel = accel  # "tcg-single", "tcg-multi" or "kvm"

    def key(self):
        return f"{self.boot} {self.machine} {self.cpus}cpu qemu{self.qemu} {self.accel}"

    def fields(self):
        return {"boot": self.boot, "machine": self.machine, "cpus": self.cpus,
                "qemu": self.qemu, "accel": self.accel}

    def options(self):
        """The launcher options that make this cell (after --boot, --machine, --smp)."""
        opts = ["--qemu10"] if self.qemu == "10" else []
        if self.accel == "kvm":
            return opts + ["--accel", "kvm"]
        opts += ["--accel", "tcg"]
        if self.accel == "tcg-multi":
            opts += ["--tcg-threads", "multi"]
        return opts

    def crowded(self):
        """Multi-threaded TCG with more vCPUs than a small host has cores:
        measured on 2 cores, an IPI round trip to CPUs that are busy
        reading memory takes 44 ms at 8 vCPUs and 170 ms at 13 (76 us when
        they idle), so the experiments' smallest sizes (reclaim pages out
        at least 2 MiB, one IPI round per page) take minutes; these cells
        boot with bench=none (the self-checks only)."""
        return self.accel == "tcg-multi" and self.cpus >= 8

    def timeout(self):
        """Seconds before a boot of this cell counts as a hang."""
        t = 120
        if self.boot != "kernel":
            t += 60  # SeaBIOS or OVMF, and GRUB, under TCG
        if self.cpus >= 13:
            t += 60
        if self.accel == "tcg-multi":
            t += 60
        if self.accel == "tcg-multi" and self.cpus >= 13:
            # The self-check "smp: 10000 IPIs to every cpu" is 10,000
            # rounds that each wait for every vCPU thread to be scheduled:
            # 64 vCPUs took 8.5-16 s on 2 otherwise idle host cores, and
            # once more than 300 s while other QEMU runs shared them (no
            # round near its 5 s limit: no IPI was lost).
            t = 600
        if self.accel == "kvm":
            t = 300  # kvm-pvm: a 2-CPU bench=none boot takes 1 min
        return t


def fault_cells():
    """Cells for fault boots: at least 2 CPUs (one to stop, one to go on),
    and not the crowded multi-threaded ones."""
    return [Cell(b, m, c, q, a) for b in ("kernel", "bios") for m in MACHINES
            for c in (2, 3, 4, 8) for q in QEMUS for a in ("tcg-single", "tcg-multi")
            if not (a == "tcg-multi" and c >= 8)]


def short_cells():
    """--short: cheap cells (a few seconds a boot) that still cover each
    boot loader but UEFI, both machines, both QEMUs and both TCG modes."""
    return [Cell(b, m, c, q, a) for b in ("kernel", "bios") for m in MACHINES
            for c in (1, 2, 3, 4) for q in QEMUS for a in ("tcg-single", "tcg-multi")]


def tcg_cells():
    return [Cell(b, m, c, q, a) for b in BOOTS for m in MACHINES for c in CPUS
            for q in QEMUS for a in ("tcg-single", "tcg-multi")]


def kvm_cells():
    return [Cell("kernel", m, c, "7.2", "kvm") for m in MACHINES for c in KVM_CPUS]


def plan(seed, boots, short, faults=False, words=None):
    """The boots of a soak: [(Cell, kernel arguments)], from the seed alone.
    The TCG cells are taken in a shuffled order, round after round, so
    that every cell comes up before any comes twice; every KVM_EVERY-th
    boot is a KVM one (not in --short); every FAULT_EVERY-th TCG boot is
    a fault boot (all of them with faults)."""
    rng = random.Random(seed)
    pool = short_cells() if short else tcg_cells()
    kvm = [] if short or faults else kvm_cells()
    fpool = [] if short else fault_cells()
    sites = stop_sites()
    order, korder, forder, out = [], [], [], []
    for i in range(boots):
        if fpool and (faults or i % FAULT_EVERY == FAULT_EVERY - 2):
            if not forder:
                forder = rng.sample(fpool, len(fpool))
            cell = forder.pop()
            out.append((cell, draw_fault_args(rng, cell, sites)))
            continue
        if kvm and i % KVM_EVERY == KVM_EVERY - 1:
            if not korder:
                korder = rng.sample(kvm, len(kvm))
            cell = korder.pop()
        else:
            if not order:
                order = rng.sample(pool, len(pool))
            cell = order.pop()
        out.append((cell, draw_args(rng, cell, short,
                                    words or words_of(vocabulary.BEFORE_THE_RECORD))))
    return out


def pick(rng, items, least=1):
    """A random non-empty subset of items, in their order."""
    n = rng.randint(least, len(items))
    chosen = set(rng.sample(range(len(items)), n))
    return [x for i, x in enumerate(items) if i in chosen]


# bench= (tools/experiments.py); strategies= and pages= are the kernel's
# own words, from its vocabulary record (vocabulary_of_one_boot).
EXPERIMENTS = experiments.EXPERIMENTS


def words_of(vocab):
    """What strategies= and pages= take, as drawn from: {key: words}."""
    return {"strategies": vocab.strategies("shootdown"),
            "pages": tuple(vocab.numbers.get("pages", ()))}


def vocabulary_of_one_boot(run):
    """The kernel's vocabulary (tools/vocabulary.py), from one bench=none
    boot of this build: soak draws strategies= before any boot has a log
    to read it from, and a boot of the very build it fuzzes cannot be out
    of date, as a table generated beside the sources could. None (and a
    line saying why) if that boot gave none."""
    boot = Boot(0, "vocabulary", Cell("kernel", "q35", 2, "7.2", "tcg-single"), ["bench=none"])
    status, errlines, _, log = run.execute(boot)
    try:
        with open(log, encoding="ascii", errors="replace") as f:
            recs = checklog.check_log(f.read()).records
    except (OSError, TypeError):
        recs = []
    if any(r.get("type") == "vocabulary" for r in recs):
        return vocabulary.of_log(recs)
    print(f"soak: the vocabulary boot (bench=none) printed no vocabulary record (status "
          f"{status}): strategies= drawn from {vocabulary.BEFORE_THE_RECORD.source}",
          *errlines[:3], sep="\n# ", file=sys.stderr)
    return None


def draw_args(rng, cell, short, words):
    """Random valid kernel arguments for a boot of cell (README's table),
    sized so that a boot takes seconds: a time budget of 1-4 s, and the
    sizes it does not cut (those set on the command line) kept small.
    Left out: selftest= and invlpgb=force|bug (they must FAIL),
    delay_handler= (a test aid), exit=reboot and console= other than COM1
    (they leave the console the runner reads)."""
    args = [f"seed={rng.randrange(1 << 32)}", f"budget_s={1 if short else rng.randint(1, 4)}"]
    many = cell.cpus >= 13
    if cell.crowded():
        benches = ["none"]
    elif short:
        benches = rng.choice([["none"], ["primitives"], ["shootdown"], ["flushloop"]])
    else:
        benches = rng.choice([["all"], ["none"], pick(rng, EXPERIMENTS)])
    args.append("bench=" + ",".join(benches))
    runs = set(EXPERIMENTS) if benches == ["all"] else set(benches)
    maybe = lambda p=0.3: rng.random() < p  # noqa: E731

    if "shootdown" in runs or "primitives" in runs:
        if maybe():
            args.append("strategies=" + ",".join(pick(rng, words["strategies"])))
        if maybe() and not many:
            args.append("pages=" + ",".join(map(str, pick(rng, words["pages"]))))
        if maybe() and not many:
            args.append(f"samples={rng.randint(5, 30)}")
        if maybe():
            args.append(f"warmup={rng.randint(0, 3)}")
        if maybe() and cell.cpus > 1:
            others = list(range(1, cell.cpus))
            words = ["auto", "all"] + ([",".join(map(str, pick(rng, others[:8])))]
                                       if not many else [])
            args.append("targets=" + rng.choice(words))
        if maybe(0.2):
            args.append("handler_timing=on")
        if maybe(0.15) and not many:
            args.append("raw=on")
    if "reclaim" in runs:
        # Under multi-threaded TCG with more vCPUs than a 2-core host has,
        # reclaim at its smallest took 28 s at 4 vCPUs, and 97 s with
        # reclaim_mb=6 (a size the budget does not cut): the budget sizes it.
        if maybe() and not (cell.accel == "tcg-multi" and cell.cpus > 2):
            args.append(f"reclaim_mb={rng.randint(2, 8)}")
        if maybe():
            args.append(f"hot_mb={rng.randint(1, 2)}")
        if maybe(0.2):
            args.append("writers=off")
    if ("reclaim" in runs or "flushloop" in runs) and maybe() and cell.cpus <= 8:
        args.append(f"duration_ms={rng.randint(10, 60)}")
    if runs and maybe():
        # Not under KVM: there the opcode stops the guest (kvm-pvm).
        args.append("invlpgb=" + rng.choice(["off"] if cell.accel == "kvm"
                                            else ["off", "emulate"]))
    # idle=poll keeps every idle vCPU busy: under multi-threaded TCG, or
    # with many vCPUs on one thread, a run then does not finish
    # (docs/qemu.md, "Single-threaded TCG"); not under KVM either, where a
    # polling vCPU holds a host CPU. TCG runs MWAIT as a no-op when there
    # are several vCPUs, so idle=mwait polls too.
    idles = ["auto", "hlt"]
    if cell.accel == "tcg-single" and cell.cpus <= 8:
        idles += ["poll", "mwait"]
    if maybe():
        args.append("idle=" + rng.choice(idles))
    if maybe(0.2):
        args.append(f"cpus={rng.randint(0, cell.cpus + 1)}")
    if maybe(0.2):
        args.append("init_wait=" + rng.choice(["auto", "on", "off"]))
    if maybe(0.2):
        args.append("output=" + rng.choice(["both", "human", "json"]))
    if maybe(0.05):
        args.append("help")
    if maybe(0.05):
        args.append("console=" + rng.choice(["com1", "0x3f8", "com1,115200"]))
    rng.shuffle(args)
    return args


def reproduce(cell, args):
    """The ./run-qemu.sh command line that repeats a boot."""
    cmd = ["./run-qemu.sh", "--boot", cell.boot, "--machine", cell.machine,
           "--smp", str(cell.cpus), *cell.options(), "--timeout", str(cell.timeout()), "--"]
    return shlex.join(cmd + args)


class Boot:
    """One boot of the soak, in the shape runner.Runner.execute() takes."""

    def __init__(self, n, seed, cell, args):
        self.n, self.cell, self.kargs = n, cell, args
        self.name = f"soak-{seed}-{n:04d}"
        self.boot, self.machine, self.smp = cell.boot, cell.machine, cell.cpus
        self.cpu = "-"
        self.emulator = "qemu"  # what runner.Runner.command() asks (Bochs: its cases)
        self.linux = False  # the harness, never the Linux side (its own cases)
        self.options = cell.options()
        self.args = [os.fsencode(a) for a in args]
        self.timeout = cell.timeout()  # the Runner applies --timeout-scale

    def accel(self):
        return "kvm" if self.cell.accel == "kvm" else "tcg"


def judge(status, errlines, log):
    """(outcome, details) of a finished boot: "ok" or one of BAD. A
    protocol violation includes records that disagree with their
    strategies or leave out a run the plan record names (checklog)."""
    last = errlines[-1] if errlines else "(the launcher printed nothing)"
    if status is None:
        return "skipped", [last]
    if status == exitcodes.E_TIMEOUT or status < 0:
        return "hang", [last]
    if status not in (exitcodes.E_PASS, exitcodes.E_FAIL, exitcodes.E_SKIP) or \
            not log or not os.path.exists(log):
        return "status", [f"exit {status} ({exitcodes.LAUNCHER_WORDS.get(status, '?')}): {last}"]
    rep = checklog.check_file(log)
    fails = [ln for ln in rep.lines if ln.startswith("FAIL: ")]
    if rep.problems:
        return "protocol", rep.problems[:10]
    if fails:
        return "fail", fails[:10]
    if status != exitcodes.E_PASS and status != exitcodes.E_SKIP:
        return "status", [f"exit {status} without a FAIL line: {last}"]
    return "ok", []


class Tally:
    """Counts per configuration and per dimension."""

    def __init__(self):
        self.rows = {}
        self.lock = threading.Lock()

    def add(self, cell, outcome, log, secs):
        with self.lock:
            row = self.rows.setdefault(cell.key(), dict(cell.fields(), boots=0, passed=0,
                                                         skipped=0, secs=0.0, logs=[],
                                                         **{k: 0 for k in BAD}))
            row["boots"] += 1
            row["secs"] += secs
            if outcome == "ok":
                row["passed"] += 1
            elif outcome == "skipped":
                row["skipped"] += 1
            else:
                row[outcome] += 1
                row["logs"].append(os.path.relpath(log, ROOT) if log else "-")

    def bad(self):
        return sum(r[k] for r in self.rows.values() for k in BAD)


def table(rows, title, width=44):
    """The rows' counts, one line each, with the first bad logs."""
    out = [f"{title:{width}} {'boots':>5} {'pass':>5} {'skip':>5} {'hang':>5} "
           f"{'proto':>5} {'status':>6} {'FAIL':>5} {'s/boot':>6}  worst logs"]
    for key in sorted(rows):
        r = rows[key]
        ran = r["boots"] - r["skipped"]
        per = f"{r['secs'] / ran:.1f}" if ran else "-"
        out.append(f"{key:{width}} {r['boots']:>5} {r['passed']:>5} {r['skipped']:>5} "
                   f"{r['hang']:>5} {r['protocol']:>5} {r['status']:>6} {r['fail']:>5} "
                   f"{per:>6}  {' '.join(r['logs'][:2])}")
    return out


def by_dimension(rows):
    """The per-configuration rows summed over every value of each dimension."""
    dims = {}
    for r in rows.values():
        for dim in ("boot", "machine", "cpus", "qemu", "accel"):
            key = f"{dim}={r[dim]}"
            d = dims.setdefault(key, {"boots": 0, "passed": 0, "skipped": 0, "secs": 0.0,
                                      "logs": [], **{k: 0 for k in BAD}})
            for k in ("boots", "passed", "skipped", "secs", *BAD):
                d[k] += r[k]
            d["logs"] += r["logs"]
    return dims


def availability(cell, tools, kvm_cache, qemu):
    """None if this machine can run the cell, else why not."""
    if cell.qemu == "10" and tools["qemu10"]:
        return tools["qemu10"]
    if cell.boot in ("bios", "uefi") and tools["grub"]:
        return tools["grub"]
    if cell.boot == "uefi" and tools["ovmf"]:
        return tools["ovmf"]
    if cell.accel == "kvm":
        k = (cell.machine, cell.cpus)
        if k not in kvm_cache:
            probe = types.SimpleNamespace(machine=cell.machine, smp=cell.cpus, cpu="-")
            kvm_cache[k] = cases.kvm_problem(probe, qemu)
        return kvm_cache[k]
    return None


def main(argv=None):
    """Command line entry point; returns the exit status."""
    ap = argparse.ArgumentParser(prog="runner.py soak", description="Boot the harness "
                                 "across the QEMU matrix with random kernel arguments.")
    ap.add_argument("--boots", "-n", type=int, default=None,
                    help="boots to run (default 200, --short 6)")
    ap.add_argument("--seed", type=int, default=None, help="the seed (default: from the clock)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="boots at once (default 2)")
    ap.add_argument("--short", action="store_true", help="the smoke form: cheap cells only")
    ap.add_argument("--faults", action="store_true",
                    help="every boot a fault boot (selftest=hang-ap/slow-ap at a drawn "
                    "fault_at=)")
    ap.add_argument("--no-build", action="store_true", help="do not run make first")
    ap.add_argument("--json", help="the summary file (default build/soak-logs/soak-SEED.json)")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiply every boot's timeout (slow machines)")
    ap.add_argument("--qemu", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.jobs < 1:
        ap.error("--jobs must be at least 1")
    boots = opts.boots if opts.boots is not None else (6 if opts.short else 200)
    seed = opts.seed if opts.seed is not None else int(time.time()) % 1000000
    print(f"soak: seed {seed}, {boots} boots{' (short)' if opts.short else ''}"
          f"{' (fault boots only)' if opts.faults else ''}, "
          f"{opts.jobs} at once", flush=True)
    if not opts.no_build:
        ok, why, tail, _ = runner.build()
        if not ok:
            print(f"soak: build failed: {why}", *tail, sep="\n", file=sys.stderr)
            return 1

    tools = cases.have_tools()
    kvm_cache = {}
    opts.kernel, opts.budget = None, 1e9  # what runner.Runner reads
    run = runner.Runner(opts)
    run.log_dir = LOG_DIR
    tally = Tally()
    skipped_cells = {}
    todo = []
    vocab = vocabulary_of_one_boot(run)
    words = words_of(vocab or vocabulary.BEFORE_THE_RECORD)
    for n, (cell, args) in enumerate(plan(seed, boots, opts.short, opts.faults, words), 1):
        boot = Boot(n, seed, cell, args)
        why = availability(cell, tools, kvm_cache, opts.qemu)
        if why:
            skipped_cells.setdefault(cell.key(), why)
            tally.add(cell, "skipped", None, 0.0)
            continue
        todo.append(boot)
    if skipped_cells:
        print(f"soak: {boots - len(todo)} boots skipped, in {len(skipped_cells)} cells "
              f"this machine cannot run:")
        for why in sorted(set(skipped_cells.values())):
            cells = [k for k, w in skipped_cells.items() if w == why]
            print(f"#   {len(cells)} cells ({cells[0]}, ...): {why}")

    t0 = time.monotonic()
    results = []
    pool = ThreadPoolExecutor(max_workers=opts.jobs)
    try:
        futures = {pool.submit(run.execute, b): b for b in todo}
        for fut in as_completed(futures):
            b = futures[fut]
            status, errlines, secs, log = fut.result()
            fault = fault_of(b.kargs)
            landed = None
            if fault:
                outcome, details, landed = judge_fault(status, errlines, log, fault)
            else:
                outcome, details = judge(status, errlines, log)
            tally.add(b.cell, outcome, log, secs)
            word = "ok" if outcome in ("ok", "skipped") else "not ok"
            print(f"{word} {b.n} - {b.cell.key()} ({secs:.1f}s)"
                  + ("" if outcome == "ok" else f": {outcome}"), flush=True)
            print(f"#   {reproduce(b.cell, b.kargs)}", flush=True)
            for d in details if outcome != "ok" else []:
                print(f"#   {d}", flush=True)
            if outcome in BAD:
                print(f"#   console: {os.path.relpath(log, ROOT) if log else '-'}", flush=True)
            results.append({"n": b.n, "cell": b.cell.fields(), "args": b.kargs,
                            "outcome": outcome, "status": status, "secs": round(secs, 1),
                            "log": os.path.relpath(log, ROOT) if log else None,
                            "reproduce": reproduce(b.cell, b.kargs), "details": details,
                            "fault": fault and {"selftest": fault[0], "site": fault[1],
                                                "nth": fault[2], "landed": landed}})
    except KeyboardInterrupt:
        run.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        print("soak: interrupted", file=sys.stderr)
        return 130
    pool.shutdown()
    wall = time.monotonic() - t0

    print()
    print("\n".join(table(tally.rows, "configuration")))
    print()
    print("\n".join(table(by_dimension(tally.rows), "dimension", 18)))
    ftable, frows = fault_table(results, BAD)
    if frows:
        drawn = sum(r["drawn"] for r in frows.values())
        landed = sum(r["landed"] for r in frows.values())
        in_lock = sum(r["in_lock"] for r in frows.values())
        print()
        print("\n".join(ftable))
        print(f"soak: {drawn} fault boots drew a stop point; {landed} landed, "
              f"{in_lock} of them inside a lock or holding a ticket; the others' "
              f"cpu passed its point too few times (SKIP: nothing was injected)")
    bad = tally.bad()
    ran = len(results)
    counts = {k: sum(r[k] for r in tally.rows.values()) for k in BAD}
    load = os.getloadavg()[0]
    print(f"\nsoak: seed {seed}: {ran} boots run, {boots - len(todo)} skipped, "
          f"{counts['hang']} hangs, {counts['protocol']} protocol violations, "
          f"{counts['status']} unexpected statuses, {counts['fail']} with FAILs; "
          f"{wall:.0f} s at -j{opts.jobs}, load average {load:.1f} at the end")
    out = opts.json or os.path.join(LOG_DIR, f"soak-{seed}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"seed": seed, "boots": boots, "short": opts.short, "jobs": opts.jobs,
                   "wall_s": round(wall, 1), "ran": ran, "skipped": boots - len(todo),
                   "skipped_cells": skipped_cells, "totals": counts,
                   "configurations": tally.rows, "faults": frows,
                   "boots_run": sorted(results, key=lambda r: r["n"])}, f, indent=1)
        f.write("\n")
    print(f"soak: summary in {os.path.relpath(out, ROOT)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
