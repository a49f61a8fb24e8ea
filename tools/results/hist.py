"""Latency distributions of result records: histograms and raw samples.

A result record carries its percentiles, and (from the build that added
them) `"hist": {"lo": L, "per_octave": 4, "counts": [c0, c1, ...]}`:
bucket i covers [L*2^(i/4), L*2^((i+1)/4)) cycles, L a power of two, the
counts sum to `samples`, trailing zeros trimmed, at most 64 buckets. With
`raw=on` a record may also carry every sample; its format is not fixed yet,
so raw_samples() reads the likeliest form (a `raw` list of integers) and
is the one place to change when it is.

Because L is a power of two and there are 4 buckets an octave, every
bucket of every record lies on one grid: bucket i of a histogram with
lo = 2^e is global bucket 4*e + i, covering [2^(g/4), 2^((g+1)/4)). So
histograms of several runs add up bucket by bucket, whatever their lo.
"""

import bisect
import itertools
import math

PER_OCTAVE = 4
MAX_BUCKETS = 64


def bucket_mid(g):
    """A bucket's geometric middle: the value a rank test gives its samples
    (the buckets are even on a log scale, so the geometric mean is their
    centre)."""
    return 2.0 ** ((g + 0.5) / PER_OCTAVE)


def hist_problem(rec):
    """None when rec's hist follows the contract, else what is wrong; a
    record without one is fine (older builds)."""
    h = rec.get("hist")
    if h is None:
        return None
    if not isinstance(h, dict):
        return "hist is not an object"
    lo, per, counts = h.get("lo"), h.get("per_octave"), h.get("counts")
    if not isinstance(lo, int) or isinstance(lo, bool) or lo < 1 or lo & (lo - 1):
        return f"hist lo {lo!r} is not a power of two"
    if per != PER_OCTAVE:
        return f"hist per_octave {per!r} is not {PER_OCTAVE}"
    if not isinstance(counts, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        return "hist counts are not a list of counts"
    if len(counts) > MAX_BUCKETS:
        return f"hist has {len(counts)} buckets, more than {MAX_BUCKETS}"
    if counts and counts[-1] == 0:
        return "hist counts end in a zero (trailing zeros are trimmed)"
    if isinstance(rec.get("samples"), int) and sum(counts) != rec["samples"]:
        return f"hist counts sum to {sum(counts)}, not samples {rec['samples']}"
    return None


def raw_samples(rec):
    """rec's every sample (cycles) when it carries them, else None: the
    `raw` list runs.attach_raw() makes from raw=on's `raw` records."""
    raw = rec.get("raw")
    if isinstance(raw, list) and raw and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw):
        return sorted(raw)
    return None


class Dist:
    """One side's latency distribution, in cycles: raw samples (sorted)
    or histogram counts on the global grid ({g: count}). Several runs'
    records pool into one Dist when they are all raw or all histograms."""

    def __init__(self, raw=None, counts=None):
        self.raw = raw
        self.counts = counts
        self._buckets = self._cum = None  # sorted buckets, cumulative counts

    @property
    def kind(self):
        """'raw' or 'hist'."""
        return "raw" if self.raw is not None else "hist"

    @property
    def n(self):
        """The number of samples."""
        return len(self.raw) if self.raw is not None else sum(self.counts.values())

    @classmethod
    def of_record(cls, rec):
        """rec's distribution (raw samples first), or None when it has neither
        or its hist breaks the contract."""
        raw = raw_samples(rec)
        if raw is not None:
            return cls(raw=raw)
        if rec.get("hist") is None or hist_problem(rec):
            return None
        h = rec["hist"]
        base = PER_OCTAVE * (h["lo"].bit_length() - 1)
        return cls(counts={base + i: c for i, c in enumerate(h["counts"]) if c})

    @classmethod
    def pool(cls, dists):
        """Several runs' distributions as one, or None when there is none or
        they are of different kinds (raw in one run, histograms in another:
        the histograms' resolution then rules, so raw ones are bucketed)."""
        dists = [d for d in dists if d is not None]
        if not dists:
            return None
        if all(d.kind == "raw" for d in dists):
            return cls(raw=sorted(v for d in dists for v in d.raw))
        counts = {}
        for d in dists:
            for g, c in d.as_counts().items():
                counts[g] = counts.get(g, 0) + c
        return cls(counts=counts)

    def as_counts(self):
        """Histogram counts on the global grid (raw samples bucketed)."""
        if self.counts is not None:
            return dict(self.counts)
        counts = {}
        for v in self.raw:
            g = math.floor(PER_OCTAVE * math.log2(max(v, 1)))
            counts[g] = counts.get(g, 0) + 1
        return counts

    def points(self):
        """(value, weight) pairs in cycles for a rank test: raw samples one
        by one, or each bucket's middle with its count."""
        if self.raw is not None:
            return [(v, 1) for v in self.raw]
        return [(bucket_mid(g), c) for g, c in sorted(self.counts.items())]

    def quantile(self, q):
        """The q-quantile in cycles: nearest rank over raw samples; over a
        histogram, interpolated inside its bucket on the log scale (the
        buckets are log-spaced, so a linear guess would lean high)."""
        if self.raw is not None:
            return nearest_rank(self.raw, q)
        if self._cum is None:
            groups = sorted(self.counts.items())
            self._buckets = [g for g, _ in groups]
            self._cum = list(itertools.accumulate(c for _, c in groups))
        return hist_quantile(self._buckets, self._cum, q)


def nearest_rank(sorted_values, q):
    """The kernel's percentile: the ceil(q*n)-th smallest value."""
    n = len(sorted_values)
    idx = min(n - 1, max(0, math.ceil(q * n) - 1))
    return sorted_values[idx]


def hist_quantile(buckets, cum, q):
    """The q-quantile of a histogram: buckets ascending, cum their
    cumulative counts; found by bisection (the bootstrap asks thousands of
    times), interpolated inside the bucket on the log scale."""
    total = cum[-1]
    rank = q * total
    i = min(len(cum) - 1, bisect.bisect_left(cum, rank))
    while i > 0 and cum[i] == cum[i - 1]:
        i -= 1
    before = cum[i - 1] if i else 0
    count = cum[i] - before
    frac = min(1.0, max(0.0, (rank - before) / count)) if count else 1.0
    return 2.0 ** ((buckets[i] + frac) / PER_OCTAVE)
