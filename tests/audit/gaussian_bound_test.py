"""gaussian_bound.py against an independent computation (mpmath at 50
digits: the same Balle-Wang curve solved by a 200-step bisection), the
coverage of its noise bound on simulated Gaussian residuals (fixed seed),
and its limits (no noise -> +inf; too few residuals refused)."""

import math
import sys

import mpmath
import numpy as np

import gaussian_bound as gb

mpmath.mp.dps = 50


def reference_epsilon(mu, delta):
    mu = mpmath.mpf(mu)
    phi = lambda x: mpmath.ncdf(x)
    f = lambda e: (phi(-e / mu + mu / 2) - mpmath.exp(e) *
                   phi(-e / mu - mu / 2) - mpmath.mpf(delta))
    if f(0) <= 0:
        return 0.0
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while f(hi) > 0:
        lo, hi = hi, 2 * hi
    for _ in range(200):  # bisection to far below double precision
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return float(lo)


def main():
    failures = []
    for mu in (0.05, 0.3, 1.0, 2.5, 6.0):
        for delta in (1e-3, 1e-5, 1e-6):
            got = gb.gaussian_epsilon(mu, delta)
            want = reference_epsilon(mu, delta)
            if not (got <= want + 1e-9 and want - got < 1e-6 * max(1, want)):
                failures.append(f"mu {mu} delta {delta}: {got} vs {want}")
    # Monotone in mu, and the pure-noise limits.
    eps = [gb.gaussian_epsilon(mu, 1e-5) for mu in np.linspace(0.1, 5, 50)]
    if any(b < a for a, b in zip(eps, eps[1:])):
        failures.append("gaussian_epsilon is not increasing in mu")
    if gb.epsilon_lower_bound([0.0] * 100, 1.0, 4, 1e-5, 1e-3)[0] != math.inf:
        failures.append("no noise must give +inf")
    try:
        gb.noise_std_upper([1.0] * 10, 1e-3)
        failures.append("10 residuals at beta 1e-3 must be refused")
    except ValueError:
        pass
    # Coverage: P[s > s_up] <= beta on 20000 simulated audits of N = 200.
    rng = np.random.default_rng(20261129)
    for beta in (0.2, 0.05):
        misses = sum(gb.noise_std_upper(rng.standard_normal(200), beta) < 1
                     for _ in range(20000))
        if misses > beta * 20000:
            failures.append(f"beta {beta}: {misses}/20000 misses")
        print(f"beta {beta}: s_up < s in {misses}/20000 simulated audits")
    # Power: with N = 500 at beta 1e-4 the bound is within 20 % of s.
    ratio = np.median([gb.noise_std_upper(rng.standard_normal(500), 1e-4)
                       for _ in range(200)])
    print(f"N 500, beta 1e-4: median s_up / s = {ratio:.3f}")
    if not 1 < ratio < 1.2:
        failures.append(f"s_up / s = {ratio:.3f} at N 500")
    for f in failures:
        print(f"FAIL: {f}")
    if not failures:
        print("ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
