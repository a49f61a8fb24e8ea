"""The statistics `compare` needs, in the standard library only.

Latencies are far from normal (a long tail of interrupts and, under TCG,
host preemptions), so the test is Mann-Whitney U, which asks only whether
one side's samples tend to be larger. It runs on raw samples where a run
printed them, else on histogram buckets (every sample of a bucket at the
bucket's middle: many ties, which the tie-corrected variance accounts
for). With many rows per comparison, Holm's step-down correction keeps
the chance of calling any unchanged row different at alpha. The size of a
change is a ratio of medians, with a percentile-bootstrap interval.
"""

import math
import random



class MannWhitney:
    """The result of a two-sided Mann-Whitney U test of a against b.

    u:  U of side a (the pairs where a's sample is larger, ties half).
    z:  the normal approximation's statistic (continuity-corrected).
    p:  the two-sided p-value.
    auc: u / (n_a * n_b): 0.5 means no tendency; above, a tends larger.
    """

    def __init__(self, u, z, p, auc):
        self.u, self.z, self.p, self.auc = u, z, p, auc


def mann_whitney(a_points, b_points):
    """Mann-Whitney U over weighted points: lists of (value, weight).

    Tied values share their mean rank; the variance is corrected for ties;
    p comes from the normal approximation with a continuity correction,
    fine from about 8 samples a side (the kernel takes at least 10)."""
    groups = {}
    for v, w in a_points:
        groups.setdefault(v, [0, 0])[0] += w
    for v, w in b_points:
        groups.setdefault(v, [0, 0])[1] += w
    n1 = sum(g[0] for g in groups.values())
    n2 = sum(g[1] for g in groups.values())
    if n1 == 0 or n2 == 0:
        raise ValueError("a side without samples")
    n = n1 + n2
    rank_sum_a, below, ties = 0.0, 0, 0.0
    for v in sorted(groups):
        wa, wb = groups[v]
        t = wa + wb
        mean_rank = below + (t + 1) / 2.0
        rank_sum_a += wa * mean_rank
        ties += t ** 3 - t
        below += t
    u = rank_sum_a - n1 * (n1 + 1) / 2.0
    mu = n1 * n2 / 2.0
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if var <= 0:
        return MannWhitney(u, 0.0, 1.0, u / (n1 * n2))
    z = max(0.0, abs(u - mu) - 0.5) / math.sqrt(var)
    p = math.erfc(z / math.sqrt(2.0))
    return MannWhitney(u, math.copysign(z, u - mu), min(1.0, p), u / (n1 * n2))


def holm(pvalues):
    """Holm-Bonferroni adjusted p-values, in the order given: the i-th
    smallest of m is multiplied by (m - i), running maximum, capped at 1.
    None entries (rows without a test) are passed through and not counted."""
    idx = [i for i, p in enumerate(pvalues) if p is not None]
    m = len(idx)
    out = list(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda j: pvalues[j])):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


class Resampler:
    """Bootstrap resamples of one Dist's q-quantile, drawn without drawing
    the samples: the k-th smallest of n draws from a distribution F is
    F^-1(U) with U the k-th smallest of n uniforms, which is Beta(k, n+1-k).
    So one resample's quantile is the empirical quantile at a Beta variate:
    exact for raw samples, and as interpolated as the quantile itself for
    histograms, in microseconds whatever n (a flushloop record has tens of
    thousands of samples)."""

    def __init__(self, dist):
        self.dist = dist
        self.n = dist.n

    def quantile(self, rng, q):
        """The q-quantile (cycles) of one resample."""
        k = min(self.n, max(1, math.ceil(q * self.n)))
        return self.dist.quantile(rng.betavariate(k, self.n + 1 - k))


def bootstrap_ratio_ci(dist_a, dist_b, q=0.5, scale_a=1.0, scale_b=1.0,
                       iterations=1000, confidence=0.95, seed=1):
    """A percentile-bootstrap interval for (b's q-quantile / a's) - 1, in
    percent, each side resampled on its own; the scales turn each side's
    cycles into a common unit (ns) when the TSC rates differ. Seeded, so
    that the same inputs print the same interval."""
    rng = random.Random(seed)
    ra, rb = Resampler(dist_a), Resampler(dist_b)
    ratios = []
    for _ in range(iterations):
        qa = ra.quantile(rng, q) * scale_a
        qb = rb.quantile(rng, q) * scale_b
        if qa > 0:
            ratios.append((qb / qa - 1.0) * 100.0)
    if not ratios:
        return None
    ratios.sort()
    tail = (1.0 - confidence) / 2.0
    lo = ratios[max(0, int(math.floor(tail * len(ratios))))]
    hi = ratios[min(len(ratios) - 1, int(math.ceil((1.0 - tail) * len(ratios))) - 1)]
    return lo, hi


def median(values):
    """The median of a non-empty list of numbers (mean of the middle two)."""
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2.0

