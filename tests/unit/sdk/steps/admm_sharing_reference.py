#!/usr/bin/env python3
"""numpy reference for the ADMM sharing golden values (paper 000, Hu et al.).

Prints the values embedded in tests/unit/sdk/steps/admm_sharing_step_host_test.cc
(x-update, eq. 6) and tests/unit/aggregator/algorithms/
admm_sharing_server_test.cc (z-update eq. 7 by scipy-free bisection on the
scalar optimality condition, y-update eq. 8). Deterministic inputs from
closed formulas, so the C++ tests rebuild them exactly. Run:
  /usr/bin/python3 tests/unit/sdk/steps/admm_sharing_reference.py
"""
import numpy as np

N, P = 9, 4
LAM, RHO = 0.3, 0.7


def inputs():
    i = np.arange(N)[:, None]
    j = np.arange(P)[None, :]
    d = np.sin(1.0 + i * P + j) * 0.5           # D_m, row-major
    x_prev = np.cos(1.0 + np.arange(P)) * 0.25  # x̃_m^t
    y = 0.1 * np.sin(2.0 + np.arange(N))
    v = 0.2 * np.cos(3.0 + np.arange(N))
    return d, x_prev, y, v


def x_update(d, x_prev, y, v):
    # eq. (6), R = ½||x||²: (λI + ρDᵀD)x = −Dᵀ(y + ρ(v − D x̃)).
    k = LAM * np.eye(P) + RHO * d.T @ d
    return np.linalg.solve(k, -d.T @ (y + RHO * (v - d @ x_prev)))


def z_scalar(label, y, s, rho, c):
    # eq. (7): root of φ'(z) = −cY/(1+e^{Yz}) − y + ρ(z − s) by bisection.
    lo, hi = s + (y - c) / rho, s + (y + c) / rho
    g = lambda z: -c * label / (1 + np.exp(label * z)) - y + rho * (z - s)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid) > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def main():
    d, x_prev, y, v = inputs()
    x = x_update(d, x_prev, y, v)
    print("x-update:", ", ".join("%.17g" % t for t in x))
    # server: labels (−1)^i, two shares, c = 1/N, y^t and ρ as above
    labels = np.array([1.0 if i % 3 else -1.0 for i in range(N)])
    s1 = 0.5 * np.sin(0.5 + np.arange(N))
    s2 = 0.3 * np.cos(0.25 + 2 * np.arange(N))
    s = s1 + s2
    c = 1.0 / N
    yt = c * 0.5 * np.sin(7.0 + np.arange(N))
    z = np.array([z_scalar(labels[i], yt[i], s[i], RHO, c) for i in range(N)])
    ynew = yt + RHO * (s - z)
    print("z:", ", ".join("%.17g" % t for t in z))
    print("y:", ", ".join("%.17g" % t for t in ynew))


if __name__ == "__main__":
    main()
