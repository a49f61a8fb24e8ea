"""checklog's reading of a Linux-side log (docs/linux.md; docs/output.md,
"The Linux side"): the env record of a run whose `side` is "linux", the
result records of `bench` "linux" (tlb_flush2 and pageout) and the
page-out's timeline, each against the fields and the arithmetic they
claim. The harness's own rules (the line protocol, seq, the summary and
EXIT, verdict names, the timeline's encoding and sums) apply to it as they
are: checklog calls these only where a record is the Linux side's.

Each function takes ck, the checklog module, for its value checks (one
set of them for both sides).
"""

from checklog_claims import TCG_SIGNATURE

WORKLOADS = ("tlb_flush2", "pageout")
PMD_PAGES = 512  # the pages of one MADV_PAGEOUT call (linux/pageout.c)


def is_linux_env(rec):
    return isinstance(rec, dict) and rec.get("side") == "linux"


def want_tags(v):
    """The env's caveats: a list of the guest's tags (bench/caveats.c)."""
    if not isinstance(v, list) or not all(isinstance(t, str) and t for t in v):
        return "must be a list of caveat tags"
    return None


def env_fields(ck):
    return {
        "schema": ck.want_int(1),
        "side": ck.want_choice("linux"),
        "run_id": ck.want_hex_str(),
        "version": ck.want_str(nonempty=True),
        "kernel": ck.want_str(nonempty=True),
        "cmdline": ck.want_str(),
        "cpu": ck.want_object({"vendor": ck.want_str(), "family": ck.want_int(0),
                               "model": ck.want_int(0), "stepping": ck.want_int(0),
                               "brand": ck.want_str()}),
        "hypervisor": ck.want_str(nullable=True),
        "cpus_online": ck.want_int(1),
        "caveats": want_tags,
        "mem_bytes": ck.want_int(1),
        "invlpgb": ck.want_object({"in_use": ck.want_bool(), "cpuid": ck.want_bool(),
                                   "cpuinfo_flag": ck.want_bool(),
                                   "max_pages": ck.want_int(0),
                                   "boot_param": ck.want_str(nullable=True),
                                   "kernel_log": ck.want_str(nullable=True),
                                   "why": ck.want_str(nonempty=True)}),
        "swap": lambda v: None if v is None else ck.want_object({
            "device": ck.want_str(nonempty=True), "comp_algorithm": ck.want_str(),
            "bytes": ck.want_int(1)})(v),
        "workloads": ck.want_object({}),
    }


def check_env(rec, ck):
    """Problems of a Linux-side env record: its fields, and INVLPGB's state
    as it derives it (in use exactly where CPUID has it and /proc/cpuinfo
    lists it; a boot parameter it names is on the command line)."""
    later = {"tainted": ck.want_int(0)}  # builds before it lack it
    probs = ck.check_fields(rec, dict(env_fields(ck),
                                      **{k: v for k, v in later.items() if k in rec}))
    inv = rec.get("invlpgb")
    if probs or not isinstance(inv, dict):
        return probs
    if inv["in_use"] != (inv["cpuid"] and inv["cpuinfo_flag"]):
        probs.append(f"invlpgb.in_use is {str(inv['in_use']).lower()}, but CPUID says "
                     f"{str(inv['cpuid']).lower()} and /proc/cpuinfo's flag "
                     f"{str(inv['cpuinfo_flag']).lower()}")
    # the caveats against where it ran (the harness's findings are held
    # to the same: tools/checklog_claims.py)
    tcg = rec["hypervisor"] == TCG_SIGNATURE
    if tcg != ("QEMU TCG" in rec["caveats"]):
        probs.append(f"caveats {rec['caveats']} " + ("lack 'QEMU TCG' under QEMU TCG" if tcg
                                                     else "say 'QEMU TCG' off QEMU TCG"))
    param = inv.get("boot_param")
    if param is not None and param not in rec["cmdline"].split():
        probs.append(f"invlpgb.boot_param {param!r} is not a word of the cmdline")
    return probs


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_flush2(rec, env, ck):
    probs = ck.check_fields(rec, {k: ck.want_int(lo) for k, lo in (
        ("threads", 1), ("pages", 1), ("duration_us", 1), ("loops", 0),
        ("loops_per_s", 0), ("loops_min", 0), ("loops_max", 0),
        ("tlb_shootdowns", 0), ("errors", 0))})
    if probs:
        return probs
    n, cpus = rec["threads"], (env or {}).get("cpus_online")
    if _int(cpus) and n > cpus:
        probs.append(f"tlb_flush2: {n} threads, but {cpus} cpus online")
    if not rec["loops_min"] <= rec["loops_max"] or \
            not n * rec["loops_min"] <= rec["loops"] <= n * rec["loops_max"]:
        probs.append(f"tlb_flush2: {rec['loops']} loops of {n} threads is not within "
                     f"threads x [loops_min, loops_max] = [{rec['loops_min']}, "
                     f"{rec['loops_max']}]")
    want = rec["loops"] * 1_000_000 // rec["duration_us"]
    if abs(rec["loops_per_s"] - want) > max(1, want // 100):
        probs.append(f"tlb_flush2: loops_per_s {rec['loops_per_s']}, but {rec['loops']} "
                     f"loops in {rec['duration_us']} us are {want}")
    return probs


def check_pageout(rec, ck):
    probs = ck.check_fields(rec, {k: ck.want_int(lo) for k, lo in (
        ("workers", 1), ("pages", 1), ("pageout_us", 0), ("worker_reads_during", 0),
        ("worker_loss_blocks", 0), ("worker_loss_effective_bins", 0),
        ("tlb_shootdowns", 0), ("swapped_pages", 0), ("resident_pages", 0),
        ("madvise_calls", 1), ("madvise_errors", 0))})
    if probs:
        return probs
    calls = -(-rec["pages"] // PMD_PAGES)
    if rec["madvise_calls"] != calls:
        probs.append(f"pageout: {rec['madvise_calls']} MADV_PAGEOUT calls for "
                     f"{rec['pages']} pages, not {calls} (one a {PMD_PAGES} pages)")
    if rec["madvise_errors"] > rec["madvise_calls"]:
        probs.append("pageout: more madvise_errors than madvise_calls")
    for key in ("worker_loss_pct", "worker_loss_lo_pct", "worker_loss_hi_pct",
                "worker_after_loss_pct"):
        if key in rec and not (_int(rec[key]) and -2 ** 63 <= rec[key] <= 100):
            probs.append(f"pageout: {key} must be an integer of at most 100")
    lo, hi, pct = (rec.get(k) for k in ("worker_loss_lo_pct", "worker_loss_hi_pct",
                                        "worker_loss_pct"))
    if lo is not None and pct is None:
        probs.append("pageout: an interval without worker_loss_pct")
    return probs


def check_result(rec, env, ck):
    """Problems of a result record of bench "linux"."""
    probs = ck.check_fields(rec, {"workload": ck.want_choice(*WORKLOADS)})
    if not is_linux_env(env):
        probs.append("a Linux-side result in a log whose env record is not the "
                     "Linux side's")
    if probs:
        return probs
    if rec["workload"] == "tlb_flush2":
        return check_flush2(rec, env, ck)
    return check_pageout(rec, ck)


def timeline_fields(ck):
    """The harness's timeline fields, but for what names a reclaim pass."""
    fields = {k: v for k, v in ck.TIMELINE_FIELDS.items()
              if k not in ("strategy", "batch", "cpus_concurrent")}
    fields["bench"] = ck.want_choice("linux")
    fields["workload"] = ck.want_choice("pageout")
    return fields
