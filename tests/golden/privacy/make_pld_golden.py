#!/usr/bin/env python3
"""Reference delta(epsilon) for the PLD accountant (pld_golden_test).

Independent of the C++ code: mpmath at 30 digits.
  * Gaussian mechanism (sensitivity 1, noise multiplier nu), T rounds: the
    T-fold composition is the Gaussian with nu / sqrt(T), and (Balle & Wang
    2018, Thm. 8)
        delta(eps) = Phi(1/(2nu) - eps nu) - e^eps Phi(-1/(2nu) - eps nu).
  * Heterogeneous Gaussians (nu1, T1) + (nu2, T2): again one Gaussian, with
    1/nu^2 = T1/nu1^2 + T2/nu2^2, same formula.
  * Poisson-subsampled Gaussian, add/remove, both directions, the larger one:
        remove: P = (1-q) N(0,nu^2) + q N(1,nu^2), Q = N(0,nu^2)
        add:    P = N(0,nu^2), Q = (1-q) N(0,nu^2) + q N(1,nu^2)
    One round: delta(eps) = int (p(x) - e^eps q(x))_+ dx by mpmath.quad, split
    at the crossing point (bisection on the log ratio, 200 steps).
    Two rounds (possibly different (q, nu)): delta(eps) =
        E_{x ~ P1}[ delta_2(eps - L1(x)) ]
    (the loss of a product is the sum of losses), where delta_2 of one round
    at any real eps' is E_{P2}[(1 - e^{eps' - L2})_+], integrated with quad
    too; the outer integral is mpmath.quad over x.
Run:  /usr/bin/python3 make_pld_golden.py > pld_delta_golden.csv
Columns: kind,q1,nu1,count1,q2,nu2,count2,epsilon,delta  (kind gaussian rows
use q = 1 and count = T; the second mechanism is empty for one mechanism).
"""
import sys
import mpmath as mp

mp.mp.dps = 30


def phi(x):
    return mp.ncdf(x)


def gaussian_delta(nu, eps):
    nu = mp.mpf(nu)
    eps = mp.mpf(eps)
    return phi(1 / (2 * nu) - eps * nu) - mp.exp(eps) * phi(-1 / (2 * nu) - eps * nu)


def densities(q, nu):
    q = mp.mpf(q)
    nu = mp.mpf(nu)
    n0 = lambda x: mp.npdf(x, 0, nu)
    n1 = lambda x: mp.npdf(x, 1, nu)
    mix = lambda x: (1 - q) * n0(x) + q * n1(x)
    return n0, mix


def one_round_delta(q, nu, eps, direction):
    """int (p - e^eps q)_+ over the real line, numerically."""
    n0, mix = densities(q, nu)
    p, r = (mix, n0) if direction == "remove" else (n0, mix)
    eps = mp.mpf(eps)
    f = lambda x: p(x) - mp.exp(eps) * r(x)
    nu = mp.mpf(nu)
    lo, hi = -40 * nu - 2, 40 * nu + 3
    # p/r is monotone in x (increasing for remove, decreasing for add), so
    # f changes sign at most once; find it by bisection on the log ratio.
    g = lambda x: mp.log(p(x)) - mp.log(r(x)) - eps
    glo, ghi = g(lo), g(hi)
    if glo * ghi > 0:
        return mp.quad(lambda x: max(f(x), 0), [lo, 0, 1, hi]) if glo > 0 else mp.mpf(0)
    a, b = lo, hi
    for _ in range(200):
        m = (a + b) / 2
        if (g(m) > 0) == (glo > 0):
            a = m
        else:
            b = m
    root = (a + b) / 2
    if direction == "remove":  # f > 0 above the root
        return mp.quad(f, [root, root + 1, root + 5 * nu, hi])
    return mp.quad(f, [lo, root - 5 * nu, root - 1, root])


def loss(q, nu, x, direction):
    n0, mix = densities(q, nu)
    l = mp.log(mix(x)) - mp.log(n0(x))
    return l if direction == "remove" else -l


def two_round_delta(q1, nu1, q2, nu2, eps, direction):
    n0, mix = densities(q1, nu1)
    p1 = mix if direction == "remove" else n0
    nu1m = mp.mpf(nu1)
    eps = mp.mpf(eps)

    def inner(x):
        e2 = eps - loss(q1, nu1, x, direction)
        return p1(x) * hockey_any(q2, nu2, e2, direction)

    return mp.quad(inner, [-12 * nu1m, -2 * nu1m, 0, 1, 2 * nu1m + 1, 12 * nu1m + 1])


def hockey_any(q, nu, eps, direction):
    """E_P[(1 - e^{eps - L})_+] for any real eps (may be negative)."""
    if eps >= 0:
        return one_round_delta(q, nu, eps, direction)
    # For eps < 0: E_P[(1 - e^{eps-L})_+] = 1 - e^eps + e^eps E_Q[(1 - e^{-eps-L'})_+]
    # with L' the reverse loss (the identity (p - c r)_+ = p - c r + (c r - p)_+).
    other = "add" if direction == "remove" else "remove"
    return 1 - mp.exp(eps) + mp.exp(eps) * one_round_delta(q, nu, -eps, other)


def main():
    out = sys.stdout
    out.write(__doc__.replace("\n", "\n# ").join(["# ", "\n"]))
    out.write("kind,q1,nu1,count1,q2,nu2,count2,epsilon,delta\n")
    for nu in [0.5, 1.0, 2.0, 5.0]:
        for t in [1, 10, 100]:
            for eps in [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]:
                d = gaussian_delta(mp.mpf(nu) / mp.sqrt(t), eps)
                if d < 1e-12:
                    continue
                out.write("gaussian,1,%r,%d,,,,%r,%s\n" % (nu, t, eps, mp.nstr(d, 20)))
    for (nu1, t1, nu2, t2) in [(5.0, 10, 10.0, 30), (2.0, 3, 20.0, 200),
                               (20.0, 100, 50.0, 1000)]:
        nu = 1 / mp.sqrt(t1 / mp.mpf(nu1) ** 2 + t2 / mp.mpf(nu2) ** 2)
        for eps in [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]:
            d = gaussian_delta(nu, eps)
            if d < 1e-12:
                continue
            out.write("gaussian,1,%r,%d,1,%r,%d,%r,%s\n" % (nu1, t1, nu2, t2, eps, mp.nstr(d, 20)))
    for q in [0.01, 0.1, 0.5]:
        for nu in [0.5, 1.0, 2.0]:
            for eps in [0.05, 0.2, 0.5, 1.0, 2.0]:
                d = max(one_round_delta(q, nu, eps, "remove"),
                        one_round_delta(q, nu, eps, "add"))
                if d < 1e-12:
                    continue
                out.write("subsampled,%r,%r,1,,,,%r,%s\n" % (q, nu, eps, mp.nstr(d, 20)))
            out.flush()
    mp.mp.dps = 20
    for (q1, nu1, q2, nu2) in [(0.1, 1.0, 0.1, 1.0), (0.5, 1.0, 0.1, 2.0),
                               (0.01, 0.5, 0.2, 1.0)]:
        for eps in [0.1, 0.5, 1.0]:
            d = max(two_round_delta(q1, nu1, q2, nu2, eps, "remove"),
                    two_round_delta(q1, nu1, q2, nu2, eps, "add"))
            if d < 1e-12:
                continue
            out.write("subsampled,%r,%r,1,%r,%r,1,%r,%s\n" % (q1, nu1, q2, nu2, eps, mp.nstr(d, 15)))
            out.flush()


if __name__ == "__main__":
    main()
