"""In-process numpy hyper-parameter sweep for the a9a user-level experiment.

NOT the real stack: a numpy model of what the devices and the server compute
(paper 002 Alg. 3 with clipping, and DP-SGD / DP-FedAvg with one local
record per device), used only to choose lambda, gamma, C, eta, E before the
real-stack runs of run.py. The noise uses the same multipliers as the job
(planned here with a numpy RDP accountant: Gaussian per participation,
classic conversion; the real runs plan with `edgeadmm privacy plan`).

    scripts/repro a9a-sweep [--epsilon 1] [--q 0.1]
        [--rounds 10] [--participations 7] [--seeds 2]

Prints one line per configuration: algorithm, parameters, mean and min
final test accuracy over the seeds.
"""

import argparse
import itertools
import os
import sys

import numpy as np

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)

ORDERS = np.concatenate([np.linspace(1.1, 10.9, 99), np.arange(11, 257)])


def gaussian_epsilon(nu, compositions, delta):
    """(epsilon, delta) of `compositions` Gaussians with multiplier nu
    (classic RDP conversion)."""
    rdp = compositions * ORDERS / (2 * nu * nu)
    return float(np.min(rdp + np.log(1 / delta) / (ORDERS - 1)))


def plan_nu(epsilon, compositions, delta):
    """Smallest noise multiplier within (epsilon, delta) (bisection)."""
    lo, hi = 1e-3, 1e4
    for _ in range(80):
        mid = np.sqrt(lo * hi)
        if gaussian_epsilon(mid, compositions, delta) > epsilon:
            lo = mid
        else:
            hi = mid
    return hi


def clip_rows(v, c):
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v * np.minimum(1.0, c / np.maximum(norms, 1e-300))


def prox_logistic_one(v, a, y, step):
    """prox_{step f}(v) for f(x) = log(1 + exp(-y a.x)), one record per row:
    x = v + t y a with t = step * sigmoid(-(y a.v + t |a|^2))."""
    b = y * np.einsum("ij,ij->i", a, v)
    c = np.einsum("ij,ij->i", a, a)
    lo, hi = np.zeros_like(b), np.full_like(b, step)
    for _ in range(40):
        t = 0.5 * (lo + hi)
        g = t - step / (1 + np.exp(b + t * c))
        lo = np.where(g < 0, t, lo)
        hi = np.where(g >= 0, t, hi)
    t = 0.5 * (lo + hi)
    return v + (t * y)[:, None] * a


def run_prox_admm(x, y, q, rounds, lam, gamma, clip, nu, l2, rng):
    """Alg. 3. Under `participation` (default) the m devices each add
    lam N(0, sigma^2) with nu = sigma sqrt(m)/(2C); under
    `trusted-aggregator` the server adds lam N(0, sigma^2) to the sum with
    nu = sigma/(2C). Either way the sum carries lam 2C nu N(0, 1), so one
    model serves both (nu is what differs: planned per policy)."""
    n, p = x.shape
    u = np.zeros((n, p))
    s = np.zeros(p)
    z = np.zeros(p)
    for _ in range(rounds):
        cohort = np.flatnonzero(rng.random(n) < q)
        xs = prox_logistic_one(2 * z - u[cohort], x[cohort], y[cohort], gamma)
        du = 2 * lam * clip_rows(xs - z, clip)
        u[cohort] += du
        s += (du.sum(axis=0) + lam * 2 * clip * nu * rng.normal(size=p)) / n
        z = s / (1 + gamma * l2)
    return z


def run_dp_sgd(x, y, q, rounds, eta, steps, clip, nu, l2, rng):
    """DP-FedAvg: E local gradient steps from z, clip, per-device noise;
    nu = sigma sqrt(m)/C."""
    n, p = x.shape
    z = np.zeros(p)
    for _ in range(rounds):
        cohort = np.flatnonzero(rng.random(n) < q)
        m = len(cohort)
        a, b = x[cohort], y[cohort]
        w = np.tile(z, (m, 1))
        for _ in range(steps):
            margin = b * np.einsum("ij,ij->i", a, w)
            w += eta * (b / (1 + np.exp(margin)))[:, None] * a
        delta = clip_rows(w - z, clip)
        sigma = clip * nu / np.sqrt(max(m, 1))
        mean = (delta.sum(axis=0) + sigma * np.sqrt(m) * rng.normal(size=p)) / m
        z = (z + mean) / (1 + eta * l2)
    return z


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=os.environ.get("EDGEADMM_DATA",
                                                    "/work/shared/data"))
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--delta", type=float, default=1e-5)
    p.add_argument("--q", type=float, default=0.1)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--participations", type=int, default=7)
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--only", default="", help="prox-admm|dp-sgd")
    a = p.parse_args(argv)
    x, y = es.read_libsvm(os.path.join(a.data, "a9a.xz"), 123)
    tx, ty = es.read_libsvm(os.path.join(a.data, "a9a.t.xz"), 123)
    nu_part = plan_nu(a.epsilon, a.participations, a.delta)
    print(f"sweep (numpy, not the real stack): n={len(y)} q={a.q} "
          f"rounds={a.rounds} eps={a.epsilon} P={a.participations} "
          f"nu(participation)={nu_part:.3f}", flush=True)

    def report(name, params, fn):
        accs = [es.accuracy(tx, ty, fn(np.random.default_rng(s)))
                for s in range(a.seeds)]
        print(f"{name:10s} {params:40s} mean {100*np.mean(accs):.2f}% "
              f"min {100*np.min(accs):.2f}%", flush=True)

    if a.only in ("", "prox-admm"):
        for lam, gamma, clip in itertools.product([0.5, 1.0], [1, 10, 100],
                                                  [0.25, 0.5, 1, 2]):
            report("prox-admm", f"lam={lam} gamma={gamma} C={clip}",
                   lambda r: run_prox_admm(x, y, a.q, a.rounds, lam, gamma,
                                           clip, nu_part, 1e-3, r))
    if a.only in ("", "dp-sgd"):
        for eta, steps, clip in itertools.product([0.5, 2, 8], [1, 5],
                                                  [0.25, 0.5, 1, 2]):
            report("dp-sgd", f"eta={eta} E={steps} C={clip}",
                   lambda r: run_dp_sgd(x, y, a.q, a.rounds, eta, steps,
                                        clip, nu_part, 1e-3, r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
