"""The runner's own checks of a case's console, beside checklog's (the
checks column of tests/qemu/cases.tsv: tsc, mem=, sweep=, timeline=,
stopped): each takes what checklog read and returns a list of problems,
empty when the console holds what the case asks.
"""

import json
import os

import cases  # (first: puts tools/ on the path)
import checklog  # noqa: E402
import experiments  # noqa: E402

TSC_TOLERANCE = 0.01  # guest TSC under TCG = host TSC: within 1%
MEM_TOLERANCE = 0.05  # usable RAM found vs -m: firmware keeps a little


def check_tsc(env, host_khz):
    """The guest's TSC rate against the host's (None: not measured)."""
    guest = env.get("tsc_khz")
    if host_khz is None:
        return ["could not measure the host's TSC rate (build/host/host-tsc-khz)"]
    if not isinstance(guest, int):
        return [f"guest tsc_khz is {json.dumps(guest)}, expected about {host_khz}"]
    off = abs(guest - host_khz) / host_khz
    if off > TSC_TOLERANCE:
        return [f"guest tsc_khz {guest} is {off:.2%} off the host's {host_khz} "
                f"(tolerance {TSC_TOLERANCE:.0%})"]
    return []


def judged(problems, log):
    """(reason, details) from the problems found, or (None, [])."""
    if not problems:
        return None, []
    reason = problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    return reason, problems + [f"console: {os.path.relpath(log, cases.ROOT)}"]


def console_before_kernel(log):
    """What came on the console before the kernel's first protocol line
    (the firmware, GRUB's menu) as one line of text: ANSI escapes removed,
    line breaks and control characters made spaces."""
    with open(log, "rb") as f:
        lines = checklog.split_lines(f.read())
    first, _ = checklog.find_start(lines)
    text = " ".join(lines if first is None else lines[:first])
    text = checklog.ANSI_RE.sub(" ", text)
    return "".join(c if " " <= c <= "~" else " " for c in text)


def check_stopped(log, last):
    """A guest that stopped running mid-run: it had started (the env record
    is there) and run-qemu.sh's last line names the cause. Its console ends
    where the guest stopped, so it is not checked for a summary."""
    problems = []
    with open(log, "rb") as f:
        if b'@json {"type":"env"' not in f.read():
            problems.append("the guest never printed its env record: it did not run")
    if "guest stopped running" not in last:
        problems.append(f"run-qemu.sh's last line does not name a stopped guest: {last}")
    return problems


TIMELINE_RECORD_BYTES = 8192  # bench/reclaim_timeline.h RC_TL_RECORD_BYTES


def check_timeline(rep, budget_pct):
    """Every reclaim reader pass (not the control) has its timeline record
    just before its result, with bins before, during and after; each
    record within its byte budget; with budget_pct, all of them within
    that share of the console. (checklog holds each record's bins to its
    result's pages, reads and page-out.)"""
    problems, last, total = [], {}, 0
    for rec, raw in zip(rep.records, rep.raw):
        if rec.get("type") == "timeline":
            last[(rec.get("strategy"), rec.get("batch"))] = rec
            size = len("@json ") + len(raw) + 2
            total += size
            if size > TIMELINE_RECORD_BYTES:
                problems.append(f"timeline {rec.get('strategy')} {rec.get('batch')}: {size} "
                                f"bytes, over its budget of {TIMELINE_RECORD_BYTES}")
        elif rec.get("type") == "result" and rec.get("bench") == "reclaim" and \
                rec.get("strategy") != "writeback-before-flush":
            tl = last.pop((rec.get("strategy"), rec.get("batch")), None)
            name = f"{rec.get('strategy')} {rec.get('batch')}"
            if tl is None:
                problems.append(f"reclaim {name}: no timeline record before its result")
                continue
            empty = [w for w in ("before", "during", "after") if not tl.get(w)]
            if empty:
                problems.append(f"reclaim {name}: its timeline has no bins {', '.join(empty)} "
                                "the page-out")
    console = sum(len(line) + 2 for line in rep.lines)
    if budget_pct and total > console * budget_pct / 100:
        problems.append(f"the timeline records take {total} of the console's {console} "
                        f"bytes, over {budget_pct:g}%")
    if not total:
        problems.append("no timeline record")
    return problems


def check_mem(env, given):
    """mem_bytes (usable RAM the guest found) within 5% of what QEMU had."""
    seen = env.get("mem_bytes")
    if not isinstance(seen, int) or abs(seen - given) > MEM_TOLERANCE * given:
        return [f"env mem_bytes {json.dumps(seen)} is not within "
                f"{MEM_TOLERANCE:.0%} of the {given} bytes QEMU was given"]
    return []


def check_sweep(records, sweep, smp):
    """The case's sweep (strategies x pages x targets, 0: all) is in the
    plan record's shootdown runs, each of which checklog held to a record
    with exact counts (tools/experiments.py); the records are as many as
    the strategies' definitions make of the plan's runs; no record has a
    stale read or lacks its fields; INVLPGB runs only as the software
    model (no QEMU accelerator exposes it)."""
    pages, targets, strategies = sweep
    targets = [smp - 1 if t == 0 else t for t in targets]  # 0: all
    plan = experiments.find_plan(records).get("shootdown")
    plan = plan if isinstance(plan, dict) else {}
    want = {"strategies": strategies, "pages": pages, "targets": targets}
    problems = [f"the plan's shootdown runs leave out {key} {x}"
                for key, xs in want.items() for x in xs if x not in plan.get(key, [])]
    problems += experiments.check_clean(records, "shootdown")
    env = next((r for r in records if r.get("type") == "env"), {})
    want_n = experiments.shootdown_records(
        plan.get("strategies", []), plan.get("pages", []), plan.get("targets", []),
        env.get("cpus_online", smp) - 1, experiments.shootdown_classes(env),
        experiments.of_log(records))
    got_n = sum(1 for r in records if r.get("type") == "result" and
                r.get("bench") == "shootdown")
    if want_n != got_n:
        problems.append(f"{got_n} shootdown records, {want_n} from the plan's "
                        "runs and the strategies' definitions (tools/experiments.py)")
    problems += [f"shootdown record {r.get('strategy')} pages={r.get('pages')} "
                 f"targets={r.get('targets')}: not marked emulated" for r in records
                 if r.get("type") == "result" and r.get("bench") == "shootdown" and
                 r.get("flush") == "invlpgb" and
                 r.get("emulated") is not True]
    return problems


