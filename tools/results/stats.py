"""The statistics `compare` and `answer` need, in the standard library only.

The run is the unit. The samples of one boot are not independent of that
boot: under TCG whole launches come out tens of percent slower or faster
than their twins, and on hardware frequency, placement and firmware
differ from boot to boot too. So a change is judged on one number per run
(its p50, as benchstat and hyperfine treat each run as one observation):
Student's t on the logs of the runs' p50s (run_test: two sides, pooled
variance; paired_test: the ratio of two strategies within each run). With
one run a side there is no estimate of the launch-to-launch variance at
all, and nothing is called significant; nor when every run gave the same
value (zero spread: no p, no interval). A launch effect shared by every
configuration of a boot is taken out by run_levels (compare divides each
run by its own level before testing rows), and the level itself is
tested distribution-free over runs (permutation_p).

The sample-level tools below (kept for reading one run's distribution):
latencies are far from normal (a long tail of interrupts and, under TCG,
host preemptions), so the test is Mann-Whitney U, which asks only whether
one side's samples tend to be larger. It runs on raw samples where a run
printed them, else on histogram buckets (every sample of a bucket at the
bucket's middle: many ties, which the tie-corrected variance accounts
for). With many rows per comparison, Holm's step-down correction keeps
the chance of calling any unchanged row different at alpha. The size of a
change is a ratio of medians, with a percentile-bootstrap interval.
"""

import functools
import itertools
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



# --- the run as the unit ------------------------------------------------------

def betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified
    Lentz, as Numerical Recipes' betacf)."""
    tiny, eps = 1e-300, 3e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * betacf(a, b, x) / a
    return 1.0 - front * betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return min(1.0, betainc(df / 2.0, 0.5, df / (df + t * t)))


@functools.lru_cache(maxsize=256)
def t_quantile(p_two_sided, df):
    """The t with P(|T| >= t) = p_two_sided (bisection; t_{df, 1 - p/2})."""
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > p_two_sided:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > p_two_sided:
            lo = mid
        else:
            hi = mid
    return hi


class RunTest:
    """A t-test over runs, on the log scale.

    ratio:  the estimated ratio (geometric means: b over a, or the mean
            per-run ratio for a paired test); change_pct = ratio - 1 in %.
    df:     degrees of freedom (None: not testable, see why).
    p:      two-sided p-value, or None.
    ci:     (lo, hi) of the change in percent at the confidence asked, or None.
    why:    why there is no test (one run a side), else None.
    """

    def __init__(self, log_diff, se, df, confidence, why=None):
        self.ratio = math.exp(log_diff)
        self.change_pct = (self.ratio - 1.0) * 100.0
        self.df, self.why = df, why
        self.p = self.ci = None
        if df is None:
            return
        if se < ZERO_SE:
            # Identical values in every run: no spread to weigh the change
            # against, so no p and no interval (a zero-width interval
            # would claim a certainty the runs cannot give).
            self.df, self.why = None, ZERO_SPREAD
            return
        self.p = t_two_sided_p(log_diff / se, df)
        half = t_quantile(1.0 - confidence, df) * se
        self.ci = ((math.exp(log_diff - half) - 1.0) * 100.0,
                   (math.exp(log_diff + half) - 1.0) * 100.0)


ONE_RUN = "one run a side: launch-to-launch variance cannot be told from a change"
ZERO_SPREAD = "zero spread: every run gave the same value, so no spread to test against"
# A standard error below this (on the log scale: a ratio of 1 + 1e-9) is
# the rounding of identical values, not a spread.
ZERO_SE = 1e-9
ONE_RUN_PAIRED = "one run: launch-to-launch variance cannot be told from a difference"


def _logs(values):
    return [math.log(v) for v in values]


def _ss(xs):
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs)


def run_test(a_values, b_values, confidence=0.95):
    """Did b's runs come out slower than a's? One positive number per run
    (its p50). Student's t with the variance pooled over both sides, on
    the logs (launch variance is a factor, not an offset): df = runs - 2,
    so one side with one run is testable against a side with several (its
    launch variance is then taken to be the other's), one run a side is
    not (RunTest.why says so); nor are runs that all gave one value."""
    return log_test(_logs(a_values), _logs(b_values), confidence)


def log_test(la, lb, confidence=0.95):
    """run_test on values already on the log scale (such as log p50s less
    their run's level: compare's rows)."""
    diff = sum(lb) / len(lb) - sum(la) / len(la)
    df = len(la) + len(lb) - 2
    if df < 1:
        return RunTest(diff, None, None, confidence, ONE_RUN)
    sp = math.sqrt((_ss(la) + _ss(lb)) / df)
    return RunTest(diff, sp * math.sqrt(1.0 / len(la) + 1.0 / len(lb)), df, confidence)


def paired_test(ratios, confidence=0.95):
    """Is the ratio of two strategies measured in the same runs different
    from 1? One ratio per run; a one-sample t on their logs, df = runs - 1.
    Launch variance common to both strategies cancels in the ratio; what is
    left of it shows up as the ratios' spread over runs. One run: no test."""
    lr = _logs(ratios)
    mean = sum(lr) / len(lr)
    if len(lr) < 2:
        return RunTest(mean, None, None, confidence, ONE_RUN_PAIRED)
    sd = math.sqrt(_ss(lr) / (len(lr) - 1))
    return RunTest(mean, sd / math.sqrt(len(lr)), len(lr) - 1, confidence)


def geomean(values):
    """The geometric mean of positive numbers."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def mean_ci(values, confidence=0.95):
    """(mean, lo, hi): Student's t interval of the mean of one number per
    run (an offset, such as a loss in percent, which may be negative);
    lo and hi are None with one run."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None, None
    half = t_quantile(1.0 - confidence, len(values) - 1) * \
        math.sqrt(_ss(values) / (len(values) - 1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


# --- the launch effect ---------------------------------------------------------

def run_levels(table):
    """Each run's level: table is one list per run of log values, the same
    configurations in the same order in every run. A configuration's
    deviations are taken from its mean over all runs; a run's level is
    the median of its deviations. A median, so that a change confined to
    fewer than half the configurations does not move the level (and so
    does not show up, with the opposite sign, in every other row)."""
    ncols = len(table[0])
    means = [sum(run[c] for run in table) / len(table) for c in range(ncols)]
    return [median([run[c] - means[c] for c in range(ncols)]) for run in table]


def permutation_p(a, b, max_splits=20000, seed=1):
    """(p, splits): the two-sided permutation test of mean(b) - mean(a)
    over every way to deal the pooled values into sides of these sizes
    (a seeded sample of max_splits of them when there are more). Exact
    whatever the distribution when the runs are exchangeable, which is
    what identical runs are: of all splits of a set of identical runs, at
    most alpha of them give p <= alpha. The smallest p it can give is
    smallest_permutation_p(len(a), len(b))."""
    pooled, na = list(a) + list(b), len(a)
    total = sum(pooled)
    n = len(pooled)

    def diff(idx_a):
        sa = sum(pooled[i] for i in idx_a)
        return (total - sa) / (n - na) - sa / na

    observed = abs(diff(range(na))) * (1 - 1e-9) - 1e-12
    if math.comb(n, na) <= max_splits:
        splits = list(itertools.combinations(range(n), na))
    else:
        rng = random.Random(seed)
        splits = [tuple(range(na))] + [rng.sample(range(n), na) for _ in range(max_splits - 1)]
    hits = sum(1 for s in splits if abs(diff(s)) >= observed)
    return hits / len(splits), len(splits)


def smallest_permutation_p(na, nb):
    """The smallest p permutation_p can give with these side sizes (the
    observed split and, with equal sides, its mirror image)."""
    return (2 if na == nb else 1) / math.comb(na + nb, na)
