"""Exact binomial acceptance intervals for measured loss rates."""

from __future__ import annotations

import math


def binom_pmf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 1.0 if k == 0 else 0.0
    if p >= 1:
        return 1.0 if k == n else 0.0
    log = (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    return math.exp(log)


def binomial_interval(n: int, p: float, confidence: float) -> tuple[int, int]:
    """Equal-tailed acceptance interval [lo, hi] of Binomial(n, p) for the loss count.

    lo is the smallest k with P(X < k) <= a/2 < P(X <= k) … i.e. P(X < lo) <= a/2 and
    P(X > hi) <= a/2, so a count outside [lo, hi] has probability at most 1 - confidence
    when the true loss probability is p.
    """
    alpha = 1.0 - confidence
    pmf = [binom_pmf(k, n, p) for k in range(n + 1)]
    lo, acc = 0, 0.0
    while lo < n and acc + pmf[lo] <= alpha / 2:
        acc += pmf[lo]
        lo += 1
    hi, acc = n, 0.0
    while hi > 0 and acc + pmf[hi] <= alpha / 2:
        acc += pmf[hi]
        hi -= 1
    return lo, hi
