"""The soak's fault boots (selftest=hang-ap or slow-ap at a drawn
fault_at=, docs/faults.md): their kernel arguments, how each is
judged, and their table by the kind of point drawn. tests/qemu/soak.py
plans them among its boots.
"""

import os
import re

import cases  # (tests/qemu; puts tools/ on the path too)
import checklog  # noqa: E402
import exitcodes  # noqa: E402

ROOT = cases.ROOT


def stop_sites():
    """fault_at='s kinds of point, read from kernel/stoppoint.h (the one
    list), without "any"."""
    path = os.path.join(ROOT, "kernel", "stoppoint.h")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"#define STOP_SITE_NAMES\s*\\?\s*\{(.*?)\}", text, re.S)
    names = re.findall(r'"([a-z-]+)"', m.group(1)) if m else []
    if not names:
        raise SystemExit(f"soak: no STOP_SITE_NAMES in {path}")
    return tuple(n for n in names if n != "any")


# The kinds of point at which the stopped CPU holds a lock or a ticket.
IN_LOCK = ("mbox-ticket", "mbox-lock", "pt-lock", "frame-lock", "console-lock")


def draw_fault_args(rng, cell, sites):
    """A fault boot: selftest=hang-ap (3 in 4) or slow-ap, stopping at the
    Nth pass of a drawn kind of point (docs/faults.md, "Injecting a stop"), over
    experiments that pass it: flushloop makes every CPU map pages and lock
    mailboxes; the console-lock point comes at each experiment's line of
    the faulty CPU, so N is small there."""
    site = rng.choice(sites)
    nth = rng.randint(1, 3) if site == "console-lock" else rng.randint(1, 64)
    benches = rng.choice(["all", "flushloop", "shootdown,flushloop",
                          "reclaim,flushloop", "shootdown", "reclaim"])
    args = [f"seed={rng.randrange(1 << 32)}", f"budget_s={rng.randint(1, 3)}",
            "selftest=" + ("slow-ap" if rng.random() < 0.25 else "hang-ap"),
            f"fault_at={site}:{nth}", "bench=" + benches]
    if "flushloop" in benches or "reclaim" in benches:
        args.append(f"duration_ms={rng.randint(10, 40)}")
    if cell.accel == "tcg-single" and rng.random() < 0.3:
        args.append("idle=" + rng.choice(["poll", "hlt"]))
    rng.shuffle(args)
    return args


def fault_of(args):
    """(selftest, site, nth) of a fault boot's arguments, else None."""
    kv = dict(a.split("=", 1) for a in args if "=" in a)
    if kv.get("selftest") not in ("hang-ap", "slow-ap"):
        return None
    site, _, nth = kv.get("fault_at", "xcall:20").partition(":")
    return kv["selftest"], site, int(nth)


STOPPED = re.compile(r"^INFO: selftest: cpu (\d+) (stopped|stalled) at ([a-z-]+)$")


def judge_fault(status, errlines, log, fault):
    """(outcome, details, landed) of a fault boot, landed the kind of point
    the stop came at (None if the CPU never passed its point often
    enough). It must end (no hang), keep the protocol (checklog: every
    record before the stop valid), and: if the stop landed, end with
    status 1, name the stopped CPU in a FAIL line (hang-ap) and PASS the
    selftest's own check; if it did not, SKIP saying nothing was
    injected."""
    what = fault[0]
    last = errlines[-1] if errlines else "(the launcher printed nothing)"
    if status is None:
        return "skipped", [last], None
    if status == exitcodes.E_TIMEOUT or status < 0:
        return "hang", [last], None
    if status not in (exitcodes.E_PASS, exitcodes.E_FAIL) or not log or \
            not os.path.exists(log):
        return "status", [f"exit {status} ({exitcodes.LAUNCHER_WORDS.get(status, '?')}): "
                          f"{last}"], None
    rep = checklog.check_file(log)
    if rep.problems:
        return "protocol", rep.problems[:10], None
    landed = [STOPPED.match(ln) for ln in rep.lines]
    landed = [m for m in landed if m]
    if not landed:
        skip = any(ln.startswith(("SKIP: selftest: ap fault -- ", "SKIP: selftest: ap fault:")) and "nothing was injected" in ln
                   for ln in rep.lines)
        return ("ok", [], None) if skip else \
            ("fail", ["neither a stop nor the 'nothing was injected' SKIP"], None)
    cpu, site = landed[0].group(1), landed[0].group(3)
    check = f"PASS: selftest: {what}: "
    problems = []
    if not any(ln.startswith(check) for ln in rep.lines):
        problems.append(f"no '{check}...' line")
    if what == "hang-ap":
        if status != exitcodes.E_FAIL:
            problems.append(f"exit {status}, not 1, after cpu {cpu} stopped")
        if not any(ln.startswith("FAIL: ") and f"cpu {cpu}, apic id" in ln
                   for ln in rep.lines):
            problems.append(f"no FAIL line names cpu {cpu}")
    return ("fail" if problems else "ok"), problems, site


def fault_table(results, bad):
    """Fault boots by the kind of point drawn: how many, how many landed
    (inside a lock or not), and how they ended."""
    rows = {}
    for r in results:
        if not r.get("fault"):
            continue
        row = rows.setdefault(r["fault"]["site"], {"drawn": 0, "landed": 0, "in_lock": 0,
                                                   "hang-ap": 0, "slow-ap": 0,
                                                   **{k: 0 for k in ("ok", *bad)}})
        row["drawn"] += 1
        row[r["fault"]["selftest"]] += 1
        row[r["outcome"]] = row.get(r["outcome"], 0) + 1
        if r["fault"]["landed"]:
            row["landed"] += 1
            row["in_lock"] += r["fault"]["landed"] in IN_LOCK
    out = [f"{'fault_at site':14} {'drawn':>5} {'hang':>5} {'slow':>5} {'landed':>6} "
           f"{'inlock':>6} {'ok':>5} {'hangs':>5} {'proto':>5} {'status':>6} {'FAIL':>5}"]
    for site in sorted(rows):
        r = rows[site]
        out.append(f"{site:14} {r['drawn']:>5} {r['hang-ap']:>5} {r['slow-ap']:>5} "
                   f"{r['landed']:>6} {r['in_lock']:>6} {r['ok']:>5} {r['hang']:>5} "
                   f"{r['protocol']:>5} {r['status']:>6} {r['fail']:>5}")
    return out, rows
