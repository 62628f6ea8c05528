"""The one-run audit's conversion: correct membership guesses -> an ε lower
bound at confidence 1 − β.

Steinke, Nasr and Jagielski, "Privacy Auditing with One (1) Training Run",
NeurIPS 2023 (arXiv:2305.08846), Theorem 3 (the (ε, δ) form of Theorem 1):
m canaries, each included independently with probability 1/2
(S ∈ {−1, +1}^m uniform), a mechanism that is (ε, δ)-DP with respect to
each canary's inclusion (the other canaries and all other data fixed), and
an auditor that sees the output and makes r guesses T_i ∈ {−1, +1}
(abstaining on the other m − r). Then the number of correct guesses
W = Σ_i max(0, T_i·S_i) satisfies, for every v,

    P[W ≥ v] ≤ f(v) + 2mδ · max_{1 ≤ i ≤ v} (f(v − i) − f(v)) / i,
    f(v) = P[Binomial(r, q) ≥ v],  q = e^ε / (1 + e^ε)

(q is the accuracy of ε-DP randomised response; f(v − i) − f(v) =
P[v − i ≤ Binomial(r, q) < v]; for i > v the term (1 − f(v))/i is below the
one at i = v, so the maximum may stop at v). With δ = 0 it is Theorem 1:
W is stochastically dominated by Binomial(r, q).

So observing v correct guesses rejects "(ε, δ)-DP" at level β whenever the
right-hand side, the p-value p(ε), is ≤ β; the lower bound is the largest ε
so rejected. p(ε) is computed exactly in log space (no scipy); ε_lb is the
first crossing of β on a grid of step 1e-3 from 0 upwards, so every ε below
the reported bound is rejected (conservative even if p(ε) were not
monotone in ε).
"""

import functools
import math


@functools.lru_cache(maxsize=8)
def _log_binomials(r):
    return tuple(math.lgamma(r + 1) - math.lgamma(j + 1) -
                 math.lgamma(r - j + 1) for j in range(r + 1))


def p_value(m, r, v, epsilon, delta):
    """Theorem 3's bound on P[W ≥ v] for an (epsilon, delta)-DP mechanism
    with m canaries and r guesses."""
    if not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= v <= r <= m, got v={v} r={r} m={m}")
    if v == 0:
        return 1.0
    log_q = -math.log1p(math.exp(-epsilon))      # log e^ε/(1+e^ε)
    log_1mq = -math.log1p(math.exp(epsilon))     # log 1/(1+e^ε)
    pmf = [math.exp(c + j * log_q + (r - j) * log_1mq)
           for j, c in enumerate(_log_binomials(r))]
    tail = math.fsum(pmf[v:])                    # f(v)
    worst, below = 0.0, 0.0
    for i in range(1, v + 1):                    # below = f(v − i) − f(v)
        below += pmf[v - i]
        worst = max(worst, below / i)
    return min(1.0, tail + 2 * m * delta * worst)


def epsilon_lower_bound(m, r, v, delta, beta, step=1e-3, limit=50.0):
    """Largest ε on the grid 0, step, 2·step, ... such that every grid ε up
    to it has p_value ≤ beta: with probability ≥ 1 − beta the mechanism is
    not (ε, δ)-DP for any ε below the result. 0 when nothing is rejected."""
    best, epsilon = 0.0, 0.0
    while epsilon <= limit:
        if p_value(m, r, v, epsilon, delta) > beta:
            return best
        best = epsilon
        epsilon += step
    return best


def all_correct_pure(r, beta):
    """Closed form for δ = 0 and W = r: p(ε) = q^r, so ε = logit(β^{1/r})
    (a check of the code above)."""
    q = beta ** (1.0 / r)
    return math.log(q / (1 - q))
