"""The kernel's vocabulary, as the host tools read it: every strategy the
kernel can run, with its experiment, role, flush kind and global variant,
and the numbers the checks rest on (docs/records.md, "vocabulary").

The kernel prints it in every run (bench/vocabulary.c); a log's own
record is the one its checks use (of_log), so that a strategy added in C
reaches the host tools with no list here to extend. Logs of builds
before the record are read with BEFORE_THE_RECORD: the strategies those
builds had, frozen; a new strategy is never added to it.
"""

import sys

# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True


class Vocabulary:
    """Entries of {bench, strategy, role, flush} (and shootdown's global or
    variant_of, reclaim's batch), from a record or a frozen table; source
    says which, for the problems that name it."""

    def __init__(self, entries, source, numbers=None):
        self.entries = [e for e in entries if isinstance(e, dict)]
        self.source = source
        self.numbers = numbers or {}

    def what(self, bench, strategy, batch=None):
        """The entry of bench's strategy (reclaim: at that batch, where
        entries name batches), or None for one not in the vocabulary."""
        for e in self.entries:
            if e.get("bench") == bench and e.get("strategy") == strategy and \
                    (batch is None or e.get("batch") in (None, batch)):
                return e
        return None

    def base(self, strategy):
        """The strategies= name a shootdown strategy is a variant of
        (ipi-full-global: ipi-full), or None for one not in it."""
        e = self.what("shootdown", strategy)
        return None if e is None else e.get("variant_of", strategy)

    def flush(self, bench, strategy, batch=None):
        """The kind of flush ("ipi", "invlpgb", "local"), or None."""
        e = self.what(bench, strategy, batch)
        return None if e is None else e.get("flush")

    def strategies(self, bench):
        """What strategies= takes for bench: no variant, no control."""
        out = []
        for e in self.entries:
            name = e.get("strategy")
            if e.get("bench") == bench and "variant_of" not in e and \
                    e.get("role") != "control" and name not in out:
                out.append(name)
        return tuple(out)

    def controls(self, bench):
        """bench's negative controls (role control)."""
        return tuple(e.get("strategy") for e in self.entries
                     if e.get("bench") == bench and e.get("role") == "control")


def _frozen():
    """The strategies of the builds before the record (never extended)."""
    rows = [("shootdown", "ipi-page", "page", "ipi"), ("shootdown", "ipi-range", "range", "ipi"),
            ("shootdown", "ipi-full", "full", "ipi"), ("shootdown", "ipi-linux", "linux", "ipi"),
            ("shootdown", "invlpgb", "range", "invlpgb"),
            ("shootdown", "invlpgb-linux", "linux", "invlpgb"),
            ("reclaim", "per-page", "page", "ipi"), ("reclaim", "per-page-invlpg", "variant", "ipi"),
            ("reclaim", "batch", "batch", "ipi"), ("reclaim", "batch-pages", "variant", "ipi"),
            # a page at batch 1, a batch at 512; no batch here: any is read
            ("reclaim", "invlpgb", "batch", "invlpgb"),
            ("reclaim", "invlpgb-pages", "variant", "invlpgb"),
            ("reclaim", "writeback-before-flush", "control", "ipi"),
            ("flushloop", "ipi-page", "page", "ipi"), ("flushloop", "ipi-range", "range", "ipi"),
            ("flushloop", "invlpgb", "range", "invlpgb"),
            ("flushloop", "local-only", "control", "local")]
    entries = [dict(zip(("bench", "strategy", "role", "flush"), r)) for r in rows]
    for base, g in (("ipi-full", "ipi-full-global"), ("invlpgb", "invlpgb-global")):
        entries.append(dict(next(e for e in entries if e["strategy"] == base
                                 and e["bench"] == "shootdown"),
                            strategy=g, role="variant", variant_of=base))
    return entries


BEFORE_THE_RECORD = Vocabulary(_frozen(), "tools/vocabulary.py",
                               {"linux_ceiling": 33, "pmd_pages": 512,
                                "pages": [1, 2, 8, 32, 33, 64, 512]})


def of_record(rec):
    """A vocabulary record as a Vocabulary."""
    entries = rec.get("strategies") if isinstance(rec.get("strategies"), list) else []
    numbers = {k: rec[k] for k in ("linux_ceiling", "pmd_pages", "pages") if k in rec}
    return Vocabulary(entries, "the log's vocabulary record", numbers)


def of_log(records):
    """The log's own vocabulary record, else BEFORE_THE_RECORD (a build
    before it)."""
    rec = next((r for r in records if r.get("type") == "vocabulary"), None)
    return BEFORE_THE_RECORD if rec is None else of_record(rec)
