"""reclaim's timeline records, decoded, and the loss they give.

A `timeline` record (docs/records.md) carries one reader pass's bins: the
window before the page-out, the page-out, the window after, each series
(the time each bin spans in microseconds, the reclaimer's pages, each
worker's reads in units of `reads_unit`) as one string in the kernel's
encoding (bench/rc_timeline.h): per value the difference from the one
before, zigzagged, five bits a character from ALPHABET, lowest first,
characters 32-63 meaning more follow.

The loss is the kernel's arithmetic redone (bench/rc_timeline.c): each
window's rate is its reads over its time (a ratio estimator; bins no
snapshot closed left out), the loss 100 - 100 * rate(during) /
rate(before), and the half-width of its 95% interval by batch means:
each window's bins grouped into consecutive blocks of floor(sqrt(n)) bins
or the lag-1 autocorrelation time (1 + rho) / (1 - rho), the longer, the
last block taking the rest; then t(0.975, fewer blocks - 1) times the
delta-method standard error of the ratio over the blocks. Under 5 blocks
or effective bins n (1 - rho) / (1 + rho) in either window there is no
interval (half None), and the result record has no worker_loss_lo_pct or
worker_loss_hi_pct. Those put the half-width around worker_loss_pct (the
whole windows' loss); `check_against` holds the two to each other. The
interval is over one pass's bins: it describes that boot only.
"""

import math

from timeline_codec import ALPHABET, DecodeError, decode, encode  # noqa: F401

# t(0.975, df) in thousandths, df 0..30, as the kernel has it.
_T975 = (0, 12706, 4303, 3182, 2776, 2571, 2447, 2365, 2306, 2262, 2228, 2201, 2179,
         2160, 2145, 2131, 2120, 2110, 2101, 2093, 2086, 2080, 2074, 2069, 2064, 2060,
         2056, 2052, 2048, 2045, 2042)
WINDOWS = ("before", "during", "after")


def t975(df):
    """t(0.975, df) as the kernel takes it."""
    if df < len(_T975):
        return _T975[df] / 1000.0
    return 2.0 if df < 60 else 1.98 if df < 120 else 1.96


MIN_BLOCKS = 5  # bench/rc_timeline.h RC_TL_MIN_BLOCKS


def _rho_x1000(pairs, c_sum, t_sum):
    """Lag-1 autocorrelation of the residuals c T - C t in thousandths,
    as the kernel rounds it (both sums shifted until the squares fit 63
    bits, then truncated), within [-1000, 999]."""
    e = [c * t_sum - c_sum * t for c, t in pairs]
    sq = sum(x * x for x in e)
    lag = sum(a * b for a, b in zip(e, e[1:]))
    num = abs(lag)
    while sq >> 63:
        sq >>= 1
        num >>= 1
    if not sq:
        return 0
    r = num * 1000 // sq
    r = r if lag >= 0 else -r
    return max(-1000, min(999, r))


def block_len(n, rho):
    """Bins per block: floor(sqrt(n)) or ceil((1 + rho) / (1 - rho))."""
    tau = 1999 // (1000 - rho) if rho > 0 else 1
    return max(math.isqrt(n), tau, 1)


def effective_bins(n, rho):
    """n (1 - rho) / (1 + rho), rounded down; n where rho <= 0."""
    return n if rho <= 0 else n * (1000 - rho) // (1000 + rho)


def _window(counts, times):
    """One window as the kernel has it: a dict of rate, relvar (over the
    blocks, None under 2), n, rho (thousandths), eff, len, blocks; None
    with fewer than 2 timed bins."""
    pairs = [(c, t) for c, t in zip(counts, times) if t]
    n = len(pairs)
    if n < 2:
        return None
    c_sum, t_sum = sum(c for c, _ in pairs), sum(t for _, t in pairs)
    rho = _rho_x1000(pairs, c_sum, t_sum) if c_sum else 0
    size = block_len(n, rho)
    k = n // size
    w = {"rate": c_sum / t_sum, "n": n, "rho": rho, "eff": effective_bins(n, rho),
         "len": size, "blocks": k, "relvar": None}
    if k < 2:
        return w
    if not c_sum:
        w["relvar"] = 0.0
        return w
    blocks = [pairs[i * size:(i + 1) * size] for i in range(k - 1)] + [pairs[(k - 1) * size:]]
    e = sum((sum(c for c, _ in b) * t_sum - c_sum * sum(t for _, t in b)) ** 2 for b in blocks)
    w["relvar"] = k * e / ((k - 1) * t_sum ** 2 * c_sum ** 2)
    return w


def batch_means(before, during):
    """The two windows' batch means as the kernel reports them: (blocks,
    effective bins), the fewer windows' each; None where a side has fewer
    than 2 timed bins."""
    b, d = _window(*before), _window(*during)
    if b is None or d is None:
        return None
    return min(b["blocks"], d["blocks"]), min(b["eff"], d["eff"])


def loss_interval(before, during):
    """(loss %, half-width % or None) of during against before, each a
    pair (counts per bin, microseconds per bin); None if a side has fewer
    than 2 timed bins or before counted nothing. The half-width is None
    (no interval) under MIN_BLOCKS blocks or effective bins a window."""
    b, d = _window(*before), _window(*during)
    if b is None or d is None or not b["rate"]:
        return None
    q = d["rate"] / b["rate"]
    blocks = min(b["blocks"], d["blocks"])
    if blocks < MIN_BLOCKS or min(b["eff"], d["eff"]) < MIN_BLOCKS:
        return 100.0 * (1 - q), None
    half = 100.0 * t975(blocks - 1) * q * math.sqrt(b["relvar"] + d["relvar"])
    return 100.0 * (1 - q), half


class Timeline:
    """One decoded timeline record.

    strategy, batch, workers, reads_unit, pageout_us: the record's.
    bins:    {window: count}; width_us: {window: nominal bin width}.
    time_us: the time each bin spans; pages: pages paged out per bin;
    reads:   per shown worker, reads per bin (in reads, not units);
    total:   all workers' reads per bin.
    """

    def __init__(self, rec):
        self.rec = rec
        self.strategy, self.batch = rec.get("strategy"), rec.get("batch")
        self.workers, self.reads_unit = rec.get("workers"), rec.get("reads_unit", 1)
        self.pageout_us = rec.get("pageout_us")
        self.bins = {w: rec.get(w) for w in WINDOWS}
        self.width_us = {w: rec.get(w + "_us") for w in WINDOWS}
        self.time_us = decode(rec.get("time", ""))
        self.pages = decode(rec.get("pages", ""))
        self.reads = [[c * self.reads_unit for c in decode(s)] for s in rec.get("reads", [])]
        if rec.get("reads_all") is not None:
            self.total = [c * self.reads_unit for c in decode(rec["reads_all"])]
        else:
            self.total = [sum(col) for col in zip(*self.reads)] if self.reads else []

    @property
    def label(self):
        if self.rec.get("bench") == "linux":  # the Linux side's page-out
            return "Linux MADV_PAGEOUT"
        return f"{self.strategy} {self.batch}"

    def n(self):
        """Bins in all: before + during + after."""
        return sum(self.bins[w] or 0 for w in WINDOWS)

    def window(self, name):
        """(first, last + 1) bin index of a window."""
        first = 0
        for w in WINDOWS:
            if w == name:
                return first, first + (self.bins[w] or 0)
            first += self.bins[w] or 0
        raise KeyError(name)

    def rates(self, series=None):
        """Reads per second per bin of series (default: all workers), None
        where a bin has no time."""
        series = self.total if series is None else series
        return [c * 1e6 / us if us else None for c, us in zip(series, self.time_us)]

    def _pair(self, series, name):
        lo, hi = self.window(name)
        return series[lo:hi], self.time_us[lo:hi]

    def loss(self, series=None, against="during"):
        """(loss %, half-width % or None: no interval) of window `against`
        vs before, of series (default all workers), as the kernel computes
        it; or None."""
        series = self.total if series is None else series
        return loss_interval(self._pair(series, "before"), self._pair(series, against))

    def worker_losses(self):
        """Per shown worker: (loss %, half-width %) or None."""
        return [self.loss(s) for s in self.reads]

    def problems(self):
        """What is inconsistent in the record itself."""
        out, n = [], self.n()
        names = ["time", "pages"] + [f"reads[{i}]" for i in range(len(self.reads))]
        for name, series in zip(names, [self.time_us, self.pages] + self.reads):
            if len(series) != n:
                out.append(f"{name} has {len(series)} bins, not before + during + "
                           f"after = {n}")
        lo, hi = self.window("during")
        if len(self.time_us) == n and sum(self.time_us[lo:hi]) != self.pageout_us:
            out.append(f"the page-out's bins span {sum(self.time_us[lo:hi])} us, "
                       f"not pageout_us {self.pageout_us}")
        if len(self.pages) == n and sum(self.pages[:lo]) + sum(self.pages[hi:]):
            out.append("pages paged out outside the page-out's bins")
        return out


def timelines(run):
    """The run's reclaim timelines, decoded, in order; records that do not
    decode are left out (checklog names them)."""
    out = []
    for rec in run.records:
        if rec.get("type") == "timeline" and rec.get("bench") == "reclaim":
            try:
                out.append(Timeline(rec))
            except DecodeError:
                continue
    return out


def linux_timelines(run):
    """The Linux side's page-out timelines (docs/linux.md): the same
    record, bench "linux" and workload "pageout"."""
    out = []
    for rec in run.records:
        if rec.get("type") == "timeline" and rec.get("bench") == "linux" and \
                rec.get("workload") == "pageout":
            try:
                out.append(Timeline(rec))
            except DecodeError:
                continue
    return out


def all_timelines(run):
    """The harness's reclaim timelines and the Linux side's page-outs."""
    return timelines(run) + linux_timelines(run)


def result_for(run, tl):
    """The reclaim result record of tl's pass: the first of its strategy
    and batch after it (for a Linux page-out: the first page-out result
    after it)."""
    seq = tl.rec.get("seq", -1)
    if tl.rec.get("bench") == "linux":
        return next((r for r in run.results("linux") if r.get("seq", -1) > seq and
                     r.get("workload") == "pageout"), None)
    for rec in run.results("reclaim"):
        if rec.get("seq", -1) > seq and rec.get("strategy") == tl.strategy and \
                rec.get("batch") == tl.batch:
            return rec
    return None


def check_against(tl, res):
    """What disagrees between a timeline and its result record."""
    out = []
    lo, hi = tl.window("during")
    if sum(tl.pages[lo:hi]) != res.get("pages"):
        out.append(f"{tl.label}: the bins page out {sum(tl.pages[lo:hi])} pages, the "
                   f"result {res.get('pages')}")
    during = sum(tl.total[lo:hi])
    if res.get("worker_reads_during") is not None and during != res["worker_reads_during"]:
        out.append(f"{tl.label}: the workers' bins during the page-out sum to {during} "
                   f"reads, the result says {res['worker_reads_during']}")
    li = tl.loss()
    if li is not None and (li[1] is None) != ("worker_loss_lo_pct" not in res):
        out.append(f"{tl.label}: the bins give {'no' if li[1] is None else 'an'} "
                   f"interval, the result {'has' if li[1] is None else 'has none'}")
    elif li is not None and li[1] is not None:
        half = li[1]
        pct = res.get("worker_loss_pct")
        want = (min(100, math.floor(pct - half)), min(100, math.ceil(pct + half)))
        got = (res["worker_loss_lo_pct"], res["worker_loss_hi_pct"])
        if abs(got[0] - want[0]) > 1 or abs(got[1] - want[1]) > 1:
            out.append(f"{tl.label}: the result's interval {list(got)} is not the "
                       f"bins' {list(want)}")
    return out
