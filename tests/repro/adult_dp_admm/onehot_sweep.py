"""In-process tuning sweep for the one-hot Adult setup of paper 004
(docs/results.md, "Paper 004 one-hot"): a numpy copy of the SDK's
LinearizedAdmmStep (smooth schedule, per-example clip, noise
σ_k = 2 S1 z / (m (ρ + 1/η_k)), z = sqrt(2 ln(1.25/δ))/ε_step) and the
daemon's mean, on the tuning seed's split (seed 0; the reported runs use
seeds 1-5). The step ε for a record-level target is the largest whose paper
004 ε̄ (its moments accountant over T steps, the formula of
`edgeadmm privacy paper-004`) is <= the target; the reported runs take
their ε from the CLI itself. Tuning is not charged to the
privacy budget (the grid looks at the test split of seed 0).

  PYTHONPATH=tools/python /usr/bin/python3 tests/repro/adult_dp_admm/onehot_sweep.py \
      --onehot ONEHOT.libsvm --out sweep.csv
"""
import argparse
import csv
import itertools
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onehot  # noqa: E402


def simulate(xs, ys, xt, yt, rounds, l2, rho, clip, dw, step_eps, delta,
             noise, rng, s3=0.25):
    """Final test accuracy of linearized DP-ADMM (the SDK step, in numpy)."""
    n, m, d = xs.shape
    wt, gam, w = np.zeros((n, d)), np.zeros((n, d)), np.zeros(d)
    z = math.sqrt(2 * math.log(1.25 / delta)) / step_eps
    rn = np.linalg.norm(xs, axis=2)
    for k in range(rounds):
        inv_eta = s3 + l2 + 2 * clip * math.sqrt(
            4 * (k + 1) * math.log(1.25 / delta)) / (m * step_eps * dw)
        t = np.einsum("imd,id->im", xs, wt) * ys
        coef = -ys * np.exp(-np.logaddexp(0.0, t))
        norm = np.abs(coef) * rn
        coef = np.where(norm > clip, coef * clip / np.maximum(norm, 1e-300),
                        coef)
        g = np.einsum("imd,im->id", xs, coef) / m + l2 * wt
        wn = (rho * w[None, :] + gam + inv_eta * wt - g) / (rho + inv_eta)
        if noise:
            wn += 2 * clip * z / (m * (rho + inv_eta)) * rng.standard_normal(
                wn.shape)
        wt = wn
        w = wt.mean(axis=0)
        gam -= rho * (wt - w[None, :])
    return float(np.mean(np.where(xt @ w > 0, 1.0, -1.0) == yt))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--onehot", required=True,
                   help="`edgeadmm data adult-onehot` output (LIBSVM)")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--devices", type=int, nargs="+", default=[10, 100])
    p.add_argument("--epsilons", type=float, nargs="+", default=[0.5])
    p.add_argument("--rounds", type=int, nargs="+", default=[50, 100, 200])
    p.add_argument("--l2", type=float, nargs="+", default=[1e-3, 1e-4, 1e-5])
    p.add_argument("--rho", type=float, nargs="+", default=[0.01, 0.03, 0.1])
    p.add_argument("--clip", type=float, nargs="+", default=[0.3, 1.0])
    a = p.parse_args(argv)
    x, y = onehot.read_onehot(a.onehot)
    rows = []
    for devices in a.devices:
        split = onehot.split(x, y, a.seed, devices)
        xs, ys = split["train"]
        xs = xs.reshape(devices, -1, xs.shape[1])
        ys = ys.reshape(devices, -1)
        xt, yt = split["test"]
        for l2 in a.l2:
            dw = onehot.estimate_dw(*split["pretrain"], l2)
            for rounds, rho, clip, eps in itertools.product(
                    a.rounds, a.rho, a.clip, a.epsilons):
                step = onehot.step_epsilon_for(eps, rounds, onehot.DELTA)
                acc = simulate(xs, ys, xt, yt, rounds, l2, rho, clip, dw,
                               step, onehot.DELTA, True,
                               np.random.default_rng(1000 + a.seed))
                row = dict(devices=devices, record_epsilon=eps,
                           rounds=rounds, l2=l2, rho=rho, clip=clip,
                           d_w=dw, step_epsilon=step, accuracy=acc)
                rows.append(row)
                print(row, flush=True)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
