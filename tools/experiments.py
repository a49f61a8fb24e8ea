"""The experiments and what each strategy must show, as the host tools
check them: tests/qemu/runner.py, tests/qemu/soak.py and tools/checklog.py
import it (docs/experiments.md describes each strategy).

Which strategies there are is not restated here: the kernel prints its
vocabulary in every run (each strategy's experiment, role, flush kind and
global variant; docs/records.md "vocabulary"), and the checks of a log use
that log's record (tools/vocabulary.py). What a run covers is not
restated either: the plan record names every run it is about to make
(`runs`), and check_runs() holds the result records to it. What each
strategy must show is here, from its definition, keyed by the flush kind
and role its vocabulary entry gives (an IPI a responder a flush, one a
page for a flush a page, none by INVLPGB), so that a record's counts are
checked against the record's own parameters (its pages, responders,
batch), never against a number the kernel printed as expected. A
strategy a record names and the log's vocabulary does not is a problem,
named; a new strategy is added in C and in the docs, not here.
"""

import sys

from vocabulary import BEFORE_THE_RECORD, of_log

# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True

# bench= (bench/options.c).
EXPERIMENTS = ("primitives", "shootdown", "reclaim", "flushloop")

# The fields each experiment's result records carry besides the common
# ones (checklog.RESULT_FIELDS): docs/experiments.md.
FIELDS = {
    "shootdown": ("pages", "targets", "ipis_sent", "irqs_received", "stale_reads"),
    "reclaim": ("batch", "pages", "targets", "ipis_sent", "irqs_received",
                "flushes", "lost_writes", "worker_loss_pct"),
    "flushloop": ("cpus", "ops_per_s", "nonzero_reads", "remote_reads",
                  "stale_remote_reads"),
}


def strategies(bench, vocab=BEFORE_THE_RECORD):
    """The strategies an experiment takes, as its SKIP lines name them."""
    return vocab.strategies(bench)


def cpu_counts(n):
    """1, 2, 4, ... and n: the CPU counts flushloop runs at (the kernel's
    series, bench/flushloop.c)."""
    counts, c = [], 1
    while c < n:
        counts.append(c)
        c *= 2
    return counts + [n]


def shootdown_base(strategy, vocab=BEFORE_THE_RECORD):
    """The strategies= name a shootdown record's strategy is a variant of
    (ipi-full-global: ipi-full), or None for one not in vocab."""
    return vocab.base(strategy)


def shootdown_ipis(strategy, pages, targets, vocab=BEFORE_THE_RECORD):
    """IPIs one sample sends, from the strategy's kind of flush: by IPI one
    per responder, one per page and responder for a flush a page (role
    page), by INVLPGB none; None for a strategy not in vocab."""
    base = vocab.what("shootdown", vocab.base(strategy))
    if base is None:
        return None
    if base.get("flush") != "ipi":
        return 0
    return (pages if base.get("role") == "page" else 1) * targets


def shootdown_icr_writes(strategy, mode, pages, targets, vocab=BEFORE_THE_RECORD):
    """ICR writes of one sample: one per IPI, but a broadcast (the
    all-but-self shorthand) reaches every responder with one write."""
    ipis = shootdown_ipis(strategy, pages, targets, vocab)
    if ipis is None or mode != "broadcast":
        return ipis
    return ipis // targets if targets else 0


def shootdown_records(names, pages, targets, responders, classes=1,
                      vocab=BEFORE_THE_RECORD):
    """Result records a shootdown sweep makes, from the strategies'
    definitions: per name the plan gives (global variants included), page
    count and responder count one, and one more for an IPI strategy to
    every responder (the all-but-self shorthand); each distance class the
    1-responder configuration does not stand for adds a 1-responder
    configuration. None for a name not in vocab."""
    kinds = [vocab.flush("shootdown", s) for s in names]
    if None in kinds:
        return None
    extra = max(classes - (1 in targets), 0)
    per_page = 0
    for kind in kinds:
        ipi = kind == "ipi"
        per_page += sum(1 + (ipi and t == responders) for t in targets)
        per_page += extra * (1 + (ipi and responders == 1))
    return per_page * len(pages)


def shootdown_classes(env):
    """Distance classes the env record's topology has CPUs in (1 if it
    says nothing): each one is a 1-responder configuration of the sweep."""
    classes = (env or {}).get("topology", {}).get("classes")
    if not isinstance(classes, dict):
        return 1
    return max(sum(1 for n in classes.values() if _is_int(n) and n > 0), 1)


def reclaim_flushes(pages, batch):
    """Flushes of a run: one per batch, the last one short."""
    return -(-pages // batch)


def reclaim_ipis(strategy, pages, batch, targets, vocab=BEFORE_THE_RECORD):
    """IPIs of a reclaim run: one per other CPU per flush by IPI, none by
    INVLPGB; None for a strategy not in vocab."""
    kind = vocab.flush("reclaim", strategy, batch)
    if kind is None:
        return None
    return reclaim_flushes(pages, batch) * targets if kind == "ipi" else 0


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _results(records, bench):
    return [r for r in records if r.get("type") == "result" and r.get("bench") == bench]


def _name(r):
    """A record, as a problem names it."""
    keys = ("strategy", "ipi_mode", "pages", "targets", "batch", "cpus")
    return f"{r.get('bench')} " + " ".join(f"{k}={r[k]}" for k in keys if r.get(k) is not None)


def find_plan(records):
    """The plan record's runs ({} without a plan, or from a build before
    the plan named them)."""
    for r in records:
        if r.get("type") == "plan":
            return r["runs"] if isinstance(r.get("runs"), dict) else {}
    return {}


# --- what every log must show (tools/checklog.py) ---------------------------

def _shootdown_counts(r, online, vocab):
    """A shootdown record's counts against its strategy, pages and responders."""
    s, mode, k, t = r.get("strategy"), r.get("ipi_mode"), r.get("pages"), r.get("targets")
    kind = vocab.flush("shootdown", s)
    if kind is None:
        return [f"strategy {s!r} is not in {vocab.source}"]
    if not (_is_int(k) and _is_int(t)):
        return []
    probs = []
    if _is_int(online) and not 1 <= t < online:
        probs.append(f"{t} responders, with {online} cpus online")
    if (kind != "ipi") != (mode is None):
        probs.append(f"ipi_mode {mode!r} for {s}")
    if kind != "ipi" and r.get("emulated"):
        return probs  # the software model sends IPIs of its own
    ipis = shootdown_ipis(s, k, t, vocab)
    want = {"ipis_sent": ipis, "irqs_received": ipis,
            "icr_writes": shootdown_icr_writes(s, mode, k, t, vocab)}
    how = f"{s}{' ' + mode if mode else ''}, {k} pages, {t} responders"
    return probs + [f"{key} {r[key]}, expected {n} for {how}"
                    for key, n in want.items() if key in r and r[key] != n]


def _reclaim_counts(r, online, vocab):
    """A reclaim record's flushes and IPIs against its pages, batch and
    responders."""
    s, b, pages, t = r.get("strategy"), r.get("batch"), r.get("pages"), r.get("targets")
    if vocab.what("reclaim", s, b) is None:
        return [f"strategy {s!r} is not in {vocab.source}"]
    if not (_is_int(b) and b > 0 and _is_int(pages) and _is_int(t)):
        return []
    probs = []
    if _is_int(online) and not 1 <= t < online:  # fewer: a cpu taken out
        probs.append(f"{t} responders, with {online} cpus online")
    flushes = reclaim_flushes(pages, b)
    if "flushes" in r and r["flushes"] != flushes:
        probs.append(f"flushes {r['flushes']}, expected {flushes} for {pages} pages "
                     f"in batches of {b}")
    if r.get("emulated"):
        return probs  # the software model sends IPIs of its own
    ipis = reclaim_ipis(s, pages, b, t, vocab)
    return probs + [f"{key} {r[key]}, expected {ipis} for {flushes} flushes of {s} "
                    f"to {t} responders" for key in ("ipis_sent", "irqs_received")
                    if key in r and r[key] != ipis]


def _flushloop_counts(r, online, vocab):
    s, c = r.get("strategy"), r.get("cpus")
    if vocab.what("flushloop", s) is None:
        return [f"strategy {s!r} is not in {vocab.source}"]
    if _is_int(c) and _is_int(online) and not 1 <= c <= online:
        return [f"{c} cpus, with {online} online"]
    return []


COUNTS = {"shootdown": _shootdown_counts, "reclaim": _reclaim_counts,
          "flushloop": _flushloop_counts}


def check_records(records, env):
    """Problems of each result record of shootdown, reclaim and flushloop
    against its strategy's definition: a strategy known here, and the
    counts that follow from the record's own parameters exact (shootdown:
    ipis_sent, irqs_received and icr_writes from pages and responders;
    reclaim: flushes from pages and batch, IPIs one per responder per
    flush, none by INVLPGB). Records of the INVLPGB software model are not
    held to IPI counts: it sends IPIs of its own. Returns
    [(record, problem)]."""
    online = env.get("cpus_online") if env else None
    vocab, out = of_log(records), []
    for r in records:
        check = COUNTS.get(r.get("bench")) if r.get("type") == "result" else None
        if check:
            out += [(r, p) for p in check(r, online, vocab)]
    return out


def check_planned(records, env, waived=()):
    """Problems of the runs the plan record names: each must have its
    result record (shootdown: every strategy x pages x responders, unicast
    for the IPI strategies; reclaim: every strategy and batch; flushloop:
    every strategy at every CPU count, and the cross-CPU control at all of
    them where there are two), and flushloop's CPU counts must be 1, 2,
    4, ... all of the CPUs online. Experiments in waived are not held to
    their plan (a FAIL line said why a run is missing), nor strategies in
    waived as (experiment, strategy) (a SKIP line said they do not run)."""
    plan, probs, vocab = find_plan(records), [], of_log(records)
    online = env.get("cpus_online") if env else None
    results = [r for r in records if r.get("type") == "result"]

    def have(bench, **want):
        return any(r.get("bench") == bench and all(r.get(k) == v for k, v in want.items())
                   for r in results)

    sd = plan.get("shootdown")
    if isinstance(sd, dict) and "shootdown" not in waived:
        for s in sd.get("strategies", []):
            if ("shootdown", vocab.base(s) or s) in waived:
                continue
            mode = "unicast" if vocab.flush("shootdown", s) == "ipi" else None
            for k in sd.get("pages", []):
                for t in sd.get("targets", []):
                    if not have("shootdown", strategy=s, ipi_mode=mode, pages=k, targets=t):
                        probs.append(f"no shootdown record for the planned {s}"
                                     f"{' ' + mode if mode else ''} pages={k} targets={t}")
    rc = plan.get("reclaim")
    if isinstance(rc, list) and "reclaim" not in waived:
        for run in rc:
            if not isinstance(run, dict) or not have("reclaim", strategy=run.get("strategy"),
                                                     batch=run.get("batch")):
                probs.append(f"no reclaim record for the planned run {json_word(run)}")
    fl = plan.get("flushloop")
    if isinstance(fl, dict):
        cpus = fl.get("cpus", [])
        if _is_int(online) and cpus != cpu_counts(online):
            probs.append(f"flushloop: the plan's cpu counts {cpus} are not "
                         f"{cpu_counts(online)} ({online} cpus online)")
        if "flushloop" not in waived:
            for s in fl.get("strategies", []):
                probs += [f"no flushloop record for the planned {s} at {c} cpus"
                          for c in cpus if not have("flushloop", strategy=s, cpus=c)]
            top = max(cpus) if cpus and all(map(_is_int, cpus)) else 1
            for ctl in vocab.controls("flushloop") if top > 1 else ():
                if not have("flushloop", strategy=ctl, cpus=top):
                    probs.append(f"no flushloop cross-cpu control ({ctl}) "
                                 f"record at {top} cpus")
    return probs


def json_word(obj):
    """A plan entry as a problem quotes it."""
    if isinstance(obj, dict):
        return " ".join(f"{k}={v}" for k, v in obj.items())
    return repr(obj)


# --- what a passing run must show (tests/qemu/runner.py's checks) -----------

def _planned_names(plan, bench):
    """The strategies the plan names for bench."""
    runs = plan.get(bench)
    if isinstance(runs, list):
        return [r.get("strategy") for r in runs if isinstance(r, dict)]
    return list(runs.get("strategies", [])) if isinstance(runs, dict) else []


def check_clean(records, bench):
    """Problems of a run of bench that should have passed: the plan names
    its runs, among them every strategy known here that flushes by IPIs
    (reclaim, flushloop: they run on any machine); every record has the
    experiment's fields, and none shows what the kernel's verdicts would
    FAIL: no stale read (shootdown), no lost write but in the negative
    control (reclaim), operations done, no remapped page read old data
    and no stale read of another CPU's page but in the cross-CPU control
    (flushloop)."""
    names, vocab = _planned_names(find_plan(records), bench), of_log(records)
    probs = [] if names else [f"the plan record names no {bench} runs"]
    ipi = vocab.strategies(bench) if bench in ("reclaim", "flushloop") else ()
    probs += [f"the plan's {bench} runs leave out {s}" for s in ipi
              if vocab.flush(bench, s) == "ipi" and names and s not in names]
    for r in _results(records, bench):
        gone = [f for f in FIELDS[bench] if f not in r]
        if gone:
            probs.append(f"{_name(r)}: missing {', '.join(gone)}")
        control = r.get("strategy") in vocab.controls(bench)
        bad = {"stale_reads": True, "lost_writes": not control, "nonzero_reads": True,
               "stale_remote_reads": not control}
        probs += [f"{_name(r)}: {key} {r[key]}" for key, on in bad.items()
                  if on and r.get(key)]
        if bench == "flushloop" and not r.get("ops_per_s"):
            probs.append(f"{_name(r)}: no operations")
    return probs
