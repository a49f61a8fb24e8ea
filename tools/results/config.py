"""Which fields of a result record identify the configuration it measured.

`compare` joins the records of two sets of runs on this key, and `table`
sorts by it, so it must hold what was asked for and nothing that was
measured or that the budget planner chose: `samples` (cut to fit the
budget) and reclaim's `pages` (the cold region, cut likewise) differ
between two runs of the same configuration and are not in it; the
counters (`ipis_sent`, ...) are outcomes. The key is documented in
docs/results.md ("compare").
"""

# Fields that identify a configuration in every bench, where present.
COMMON_FIELDS = ("bench", "strategy")
# The fields each bench adds (docs/experiments.md).
BENCH_FIELDS = {
    "shootdown": ("ipi_mode", "pages", "targets", "distance"),
    "primitives": ("pages", "targets", "distance"),
    "reclaim": ("batch",),
    "flushloop": ("cpus",),
}
# A bench this module does not know: every field that usually says how a
# configuration was set up, where present.
GENERIC_FIELDS = ("ipi_mode", "pages", "targets", "distance", "batch", "cpus")
# Flags other benches or later builds may add to any record: part of the
# key where present, so that a run with them never joins one without.
FLAG_FIELDS = ("idle", "global")


def key_fields(rec):
    """The names of the fields that identify rec's configuration, in order."""
    bench_fields = BENCH_FIELDS.get(rec.get("bench"), GENERIC_FIELDS)
    return COMMON_FIELDS + bench_fields + FLAG_FIELDS


def config_key(rec):
    """rec's configuration as a hashable, sortable tuple of (field, value)
    pairs; a field the record does not have is left out, so that "no
    distance" and "distance null" do not join different things."""
    return tuple((f, _sortable(rec[f])) for f in key_fields(rec) if f in rec)


def _sortable(value):
    """Values as they sort in tables: numbers before strings, None first."""
    if value is None:
        return (0, 0)
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, float)):
        return (1, value)
    return (2, str(value))


def plain(value):
    """The value a _sortable() pair stands for, for printing."""
    kind, v = value
    if kind == 0:
        return None
    return v


def describe(key, skip=("bench",)):
    """A key as short text: 'ipi-range unicast pages=8 targets=3'."""
    parts = []
    for field, value in key:
        if field in skip:
            continue
        v = plain(value)
        if field in ("strategy", "ipi_mode", "distance"):
            parts.append(str(v))
        else:
            parts.append(f"{field}={v}")
    return " ".join(parts)

