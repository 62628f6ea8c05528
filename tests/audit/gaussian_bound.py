"""The observer audits' conversion (docs/privacy.md §8, "Observer audits"):
noise the observer sees -> an ε lower bound at confidence 1 − β, for a
mechanism of the Gaussian family.

Model (the one every ledger of a Gaussian job charges): each of K rounds
releases, to the observer, a vector whose coordinates the data does not
touch are i.i.d. N(0, s²) with an unknown s, and one record (one device)
moves one coordinate by at most Δ (the ledger's sensitivity, attained by
the canaries). Such a K-round mechanism is exactly μ-GDP with μ = √K·Δ/s
(Dong, Roth and Su 2022, Cor. 3.3: a composition of Gaussians is a
Gaussian), and its (ε, δ) curve is the Gaussian one (Balle and Wang 2018,
Thm. 8):

    δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2).

Noise bound: given N residuals known to be pure noise (their mean is 0),
Σr²/s² ~ χ²_N, and Laurent and Massart (2000, Lemma 1) give
P[χ²_N ≤ N − 2√(N·x)] ≤ e^−x; with x = ln(1/β), with probability ≥ 1 − β
s² ≤ Σr² / (N − 2√(N·ln(1/β))). A smaller s means a larger ε, so
ε_G(√K·Δ/s_up, δ) is a lower bound on the mechanism's ε at confidence
1 − β: a ledger that reports less understates its ε (or a β event).

Unlike the membership audit (one_run_bound.py), this one assumes the
Gaussian family (the noise the system adds is Gaussian: the sampler's own
tests) and trusts Δ (the clip the membership audit checks without any
model); in exchange it sees a factor of 2 in the noise at a few hundred
samples, where the membership audit would need thousands of canaries.
"""

import math


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def gaussian_delta(epsilon, mu):
    """δ(ε) of μ-GDP (Balle and Wang 2018, Thm. 8)."""
    if mu == 0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    head = _phi(-epsilon / mu + mu / 2)
    tail = _phi(-epsilon / mu - mu / 2)
    second = 0.0 if tail == 0 else math.exp(epsilon + math.log(tail))
    return max(0.0, head - second)


def gaussian_epsilon(mu, delta, tolerance=1e-9):
    """The smallest ε with δ(ε) ≤ delta for μ-GDP, from below: the returned
    value never exceeds the exact one by more than `tolerance` and is the
    lower end of the final bracket (δ is decreasing in ε)."""
    if math.isinf(mu):
        return math.inf
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while gaussian_delta(hi, mu) > delta:
        lo, hi = hi, 2 * hi
    while hi - lo > tolerance * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
    return lo


def noise_std_upper(residuals, beta):
    """s_up with P[s > s_up] ≤ beta for N i.i.d. N(0, s²) residuals
    (Laurent and Massart 2000, Lemma 1). 0 when every residual is 0."""
    n = len(residuals)
    x = math.log(1.0 / beta)
    floor = n - 2 * math.sqrt(n * x)
    if floor <= 0:
        raise ValueError(f"{n} residuals are too few for beta {beta:g}")
    return math.sqrt(math.fsum(float(r) ** 2 for r in residuals) / floor)


def epsilon_lower_bound(residuals, sensitivity, rounds, delta, beta):
    """ε lower bound at confidence 1 − beta of `rounds` Gaussian releases
    of sensitivity `sensitivity` whose noise the residuals sample; +inf
    when the residuals are all 0 (no noise). Returns (ε_lb, s_up)."""
    s_up = noise_std_upper(residuals, beta)
    if s_up == 0:
        return math.inf, 0.0
    return gaussian_epsilon(math.sqrt(rounds) * sensitivity / s_up,
                            delta), s_up
