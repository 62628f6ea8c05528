"""one_run_bound.py against an independent computation (50-digit decimal
arithmetic with exact binomial coefficients, the maximum over every i ≤ m as
Theorem 3 states it) on a grid, the δ = 0 closed form, and the
monotonicity the grid search relies on."""

import decimal
import math
import sys

import one_run_bound as orb

decimal.getcontext().prec = 50


def reference(m, r, v, epsilon, delta):
    e = decimal.Decimal(epsilon).exp()
    q = e / (1 + e)
    pmf = [math.comb(r, j) * q ** j * (1 - q) ** (r - j) for j in range(r + 1)]
    f = lambda x: sum(pmf[max(x, 0):])  # P[Bin(r, q) ≥ x]
    worst = max((f(v - i) - f(v)) / i for i in range(1, m + 1))
    return min(1.0, float(f(v) + 2 * m * decimal.Decimal(delta) * worst))


def main():
    failures = []
    for m, r in ((40, 28), (200, 140), (1000, 696)):
        for v in sorted({r // 2, (2 * r) // 3, r - 5, r}):
            for epsilon in (0.0, 0.5, 1.0, 2.0, 4.0):
                for delta in (0.0, 1e-6, 1e-3):
                    got = orb.p_value(m, r, v, epsilon, delta)
                    want = reference(m, r, v, epsilon, delta)
                    if abs(got - want) > 1e-9 * max(1.0, want) + 1e-15:
                        failures.append((m, r, v, epsilon, delta, got, want))
    for r in (28, 140, 696):
        got = orb.epsilon_lower_bound(r, r, r, 0.0, 1e-3)
        want = orb.all_correct_pure(r, 1e-3)
        if not want - 2e-3 < got <= want:
            failures.append(("closed form", r, got, want))
    # p(ε) nondecreasing in ε below 1/2, where the search crosses β
    # (r = 140, δ = 1e-6; near 1 the tail sum wobbles in its last bits).
    for v in (80, 100, 120, 140):
        ps = [orb.p_value(200, 140, v, e / 100, 1e-6) for e in range(0, 500)]
        if any(b < a * (1 - 1e-12) for a, b in zip(ps, ps[1:]) if a < 0.5):
            failures.append(("not monotone", v))
    for f in failures:
        print("one_run_bound_test: FAIL", f)
    print(f"one_run_bound_test: {'ok' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
