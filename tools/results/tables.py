"""The human tables: one per experiment, from any log or JSONL file.

The kernel prints its own tables on the console, but only for the run in
front of you and interleaved with everything else; these are rebuilt from
the records, so they come out the same from a BMC log, a QEMU log or a
JSONL file, and sort by configuration rather than by the order the
strategies happened to run in. Times are nanoseconds where the run knew
its TSC rate (cycles otherwise, and the header says so).
"""

from config import config_key

GIB = 1 << 30
PAGE = 4096


def format_table(headers, rows, right=()):
    """Rows of strings as aligned text; columns in `right` (indexes) are
    right-aligned (numbers), the others left-aligned."""
    cells = [[str(c) for c in headers]] + [[("" if c is None else str(c)) for c in r]
                                           for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r):
        out = [c.rjust(w) if i in right else c.ljust(w)
               for i, (c, w) in enumerate(zip(r, widths))]
        return "  ".join(out).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(r) for r in cells[1:]])


def latency(rec, stat):
    """(value, unit) of one statistic: ns where the record has it, else
    cycles."""
    ns = rec.get("ns_" + stat)
    if isinstance(ns, (int, float)) and not isinstance(ns, bool):
        return ns, "ns"
    return rec.get(stat), "cyc"


def fmt_latency(rec, stat):
    """One statistic as text with its unit: '2483 ns'."""
    value, unit = latency(rec, stat)
    return "-" if value is None else f"{value} {unit}"


def fmt_num(value):
    """An integer with thousands separators, '-' for None."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}"


def fmt_opt(rec, field):
    """A field that may be absent, '-' when it is."""
    return "-" if rec.get(field) is None else str(rec[field])


def by_config(records):
    """Records sorted by their configuration key."""
    return sorted(records, key=config_key)


def shootdown_table(run):
    """Initiator latency per strategy, mode, pages, targets and distance."""
    rows = []
    for r in by_config(run.results("shootdown")):
        rows.append([r.get("strategy"), fmt_opt(r, "ipi_mode"), fmt_opt(r, "pages"),
                     fmt_opt(r, "targets"), fmt_opt(r, "distance"), r.get("samples"),
                     fmt_latency(r, "p50"), fmt_latency(r, "p99"),
                     fmt_stddev(r), fmt_opt(r, "stale_reads")])
    return ("shootdown: latency of the invalidation on the initiator",
            ["strategy", "mode", "pages", "targets", "distance", "samples",
             "p50", "p99", "stddev", "stale"], rows, (2, 3, 5, 6, 7, 8, 9))


def fmt_stddev(rec):
    """stddev (cycles, where the build prints it) as ns when the record
    has ns figures to scale it by, else cycles; '-' when absent."""
    sd = rec.get("stddev")
    if not isinstance(sd, (int, float)) or isinstance(sd, bool):
        return "-"
    p50, ns50 = rec.get("p50"), rec.get("ns_p50")
    if isinstance(ns50, (int, float)) and isinstance(p50, (int, float)) and p50 > 0:
        return f"{round(sd * ns50 / p50)} ns"
    return f"{sd} cyc"


def irqs_per_gib(rec):
    """Interrupts per GiB paged out (docs/experiments.md, reclaim)."""
    pages, irqs = rec.get("pages"), rec.get("irqs_received")
    if not isinstance(pages, int) or not isinstance(irqs, int) or pages <= 0:
        return None
    return round(irqs * GIB / (pages * PAGE))


def reclaim_table(run):
    """Paging out per strategy and batch: IPIs, worker loss, throughput."""
    import caveats
    rows = []
    for r in by_config(run.results("reclaim")):
        rows.append([r.get("strategy"), fmt_opt(r, "batch"), fmt_num(r.get("pages")),
                     fmt_num(r.get("ipis_sent")), fmt_num(r.get("irqs_received")),
                     fmt_num(irqs_per_gib(r)), fmt_pct(r.get("worker_loss_pct")),
                     fmt_interval(r, "worker_loss"), fmt_pct(r.get("worker_after_loss_pct")),
                     fmt_num(r.get("reclaim_pages_per_s")), fmt_latency(r, "p50"),
                     fmt_opt(r, "lost_writes")])
    title = "reclaim: paging out with per-page vs batched flushes"
    turns = [w for w in caveats.union([run], "worker_loss") if w[0] == "CPUs take turns"]
    if turns:
        title += "\n" + caveats.NOT_HARDWARE + turns[0][1]
    return (title, ["strategy", "batch", "pages", "ipis", "irqs", "irqs/GiB", "loss",
                    "loss 95%", "after", "pages/s", "flush p50", "lost"], rows,
            (1, 2, 3, 4, 5, 6, 7, 9, 10, 11))


def fmt_interval(rec, name):
    """[lo, hi] of NAME_lo_pct and NAME_hi_pct, '-' when absent."""
    lo, hi = rec.get(name + "_lo_pct"), rec.get(name + "_hi_pct")
    return "-" if lo is None or hi is None else f"[{lo}, {hi}]"


def fmt_pct(value):
    """A percentage field, '-' when absent."""
    return "-" if value is None else f"{value}%"


def flushloop_table(run):
    """Operations per second per strategy and CPU count, with the ideal
    (linear scaling from one CPU) beside it."""
    rows = []
    one = {r.get("strategy"): r.get("ops_per_s") for r in run.results("flushloop")
           if r.get("cpus") == 1}
    for r in by_config(run.results("flushloop")):
        base, cpus = one.get(r.get("strategy")), r.get("cpus")
        scaling = "-"
        if isinstance(base, int) and base > 0 and isinstance(cpus, int) and \
                isinstance(r.get("ops_per_s"), int):
            scaling = f"{r['ops_per_s'] / (base * cpus):.2f}"
        rows.append([r.get("strategy"), fmt_opt(r, "cpus"), fmt_num(r.get("ops_per_s")),
                     f"{fmt_num(r.get('ops_per_s_cpu_min'))}..{fmt_num(r.get('ops_per_s_cpu_max'))}",
                     scaling, fmt_latency(r, "p50"), fmt_latency(r, "p99"),
                     fmt_opt(r, "nonzero_reads")])
    return ("flushloop: unmap + flush + remap loops (scaling: ops/s over cpus x the 1-cpu rate)",
            ["strategy", "cpus", "ops/s", "per cpu", "scaling", "p50", "p99",
             "nonzero"], rows, (1, 2, 3, 4, 5, 6, 7))


def primitives_table(run):
    """The building blocks: local invalidations and round trips."""
    rows = []
    for r in by_config(run.results("primitives")):
        rows.append([r.get("strategy"), fmt_opt(r, "distance"), fmt_opt(r, "pages"),
                     fmt_opt(r, "cpu"), r.get("samples"), fmt_latency(r, "p50"),
                     fmt_latency(r, "p99"), fmt_stddev(r)])
    return ("primitives: cost of each building block",
            ["strategy", "distance", "pages", "cpu", "samples", "p50", "p99", "stddev"],
            rows, (2, 3, 4, 5, 6, 7))


TABLES = {
    "primitives": primitives_table,
    "shootdown": shootdown_table,
    "reclaim": reclaim_table,
    "flushloop": flushloop_table,
}


def run_tables(run, benches=None):
    """(title, headers, rows, right) of each experiment that has records."""
    out = []
    for bench, make in TABLES.items():
        if benches and bench not in benches:
            continue
        title, headers, rows, right = make(run)
        if rows:
            out.append((title, headers, rows, right))
    return out


def render_run(run, benches=None):
    """Every table of one run as text, or a line saying there is none."""
    parts = []
    for title, headers, rows, right in run_tables(run, benches):
        parts.append(title + "\n" + format_table(headers, rows, right))
    if not parts:
        return f"{run.name}: no result records" + (f" of {', '.join(benches)}" if benches else "")
    return "\n\n".join(parts)
