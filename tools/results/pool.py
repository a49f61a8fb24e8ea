"""Distribution-free statistics over runs, the run being the unit.

With n runs a sign test cannot give p below 2 / 2^n (0.25 at 3 runs,
0.0625 at 5): printed beside a model's p (Student's t on the logs), it
shows how much of a verdict rests on the model. The same binomial(n, 1/2)
gives the ranks of an order-statistic interval of the median over runs,
which needs no model and ranks a censored run (a value beyond what was
measured) at its bound without averaging it.
"""

import math


def binom_cdf(k, n):
    """P(X <= k) for X ~ binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2 ** n


def sign_p(below, above):
    """The two-sided sign test's p: below and above are the runs on each
    side of the null (ties left out); None without a run."""
    n = below + above
    if n == 0:
        return None
    return min(1.0, 2 * binom_cdf(min(below, above), n))


def median_ranks(n, confidence=0.95):
    """(lo, hi, coverage): 1-based ranks of the sorted n values whose span
    covers the median with at least `confidence`, the narrowest such
    symmetric pair; (1, n, coverage) where n is too small for it (the
    coverage then says how much less it is)."""
    best = (1, n, 1.0 - 2 * binom_cdf(0, n))
    for lo in range(1, n // 2 + 1):
        cover = 1.0 - 2 * binom_cdf(lo - 1, n)
        if cover < confidence:
            break
        best = (lo, n + 1 - lo, cover)
    return best
