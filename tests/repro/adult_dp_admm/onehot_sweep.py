"""In-process tuning sweep for the one-hot Adult setup of paper 004
(docs/results.md, "Paper 004 one-hot"): a numpy copy of the SDK's
LinearizedAdmmStep (smooth schedule, per-example clip, noise
σ_k = 2 S1 z / (m (ρ + 1/η_k)), z = sqrt(2 ln(1.25/δ))/ε_step) and the
daemon's mean, on tuning splits (--seeds; default seed 0, the N = 100
choice also on seeds 6-8; the reported runs use seeds 1-5). Without noise it
is the stack's run exactly (seed 1, N = 100, T = 400: 80.86% both); its
noise is its own (numpy), the stack's the devices' (OS). The step ε for a record-level target is the largest whose paper
004 ε̄ (its moments accountant over T steps, the formula of
`edgeadmm privacy paper-004`) is <= the target; the reported runs take
their ε from the CLI itself. Tuning is not charged to the
privacy budget (the grid looks at the test splits of the tuning seeds).

  PYTHONPATH=tools/python /usr/bin/python3 tests/repro/adult_dp_admm/onehot_sweep.py \
      --onehot ONEHOT.libsvm --out sweep.csv
  ... --devices 100 --seeds 6 7 8 --draws 2 --rounds 400 600 800 ...
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
             noise, rng, s3=0.25, dw_scale=1.0, tail=0.0):
    """Final test accuracy of linearized DP-ADMM (the SDK step, in numpy);
    with tail > 0, of the mean of the last tail*T global models instead
    (post-processing of released models: no privacy cost; the daemon
    releases the last iterate, so this is a what-if, not what runs)."""
    n, m, d = xs.shape
    wt, gam, w = np.zeros((n, d)), np.zeros((n, d)), np.zeros(d)
    z = math.sqrt(2 * math.log(1.25 / delta)) / step_eps
    rn = np.linalg.norm(xs, axis=2)
    dw = dw * dw_scale
    first = rounds - int(tail * rounds) if tail > 0 else rounds
    w_sum = np.zeros(d)
    for k in range(rounds):
        # smooth schedule, paper 004 Thm 4 (λS4/N = l2 with S4 = 1)
        inv_eta = s3 + l2 + 2 * clip * math.sqrt(
            4 * (k + 1) * math.log(1.25 / delta)) / (m * step_eps * dw)
        t = np.matmul(xs, wt[:, :, None])[:, :, 0] * ys
        coef = -ys * np.exp(-np.logaddexp(0.0, t))
        norm = np.abs(coef) * rn
        coef = np.where(norm > clip, coef * clip / np.maximum(norm, 1e-300),
                        coef)
        g = np.matmul(coef[:, None, :], xs)[:, 0, :] / m + l2 * wt
        wn = (rho * w[None, :] + gam + inv_eta * wt - g) / (rho + inv_eta)
        if noise:
            wn += 2 * clip * z / (m * (rho + inv_eta)) * rng.standard_normal(
                wn.shape)
        wt = wn
        w = wt.mean(axis=0)
        gam -= rho * (wt - w[None, :])
        if k >= first:
            w_sum += w
    if tail > 0:
        w = w_sum / (rounds - first)
    return float(np.mean(np.where(xt @ w > 0, 1.0, -1.0) == yt))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--onehot", required=True,
                   help="`edgeadmm data adult-onehot` output (LIBSVM)")
    p.add_argument("--out", required=True)
    p.add_argument("--seeds", type=int, nargs="+", default=[0],
                   help="tuning splits (accuracy = mean over seeds x draws;"
                   " the reported runs use seeds 1-5)")
    p.add_argument("--devices", type=int, nargs="+", default=[10, 100])
    p.add_argument("--epsilons", type=float, nargs="+", default=[0.5])
    p.add_argument("--rounds", type=int, nargs="+", default=[50, 100, 200])
    p.add_argument("--l2", type=float, nargs="+", default=[1e-3, 1e-4, 1e-5])
    p.add_argument("--rho", type=float, nargs="+", default=[0.01, 0.03, 0.1])
    p.add_argument("--clip", type=float, nargs="+", default=[0.3, 1.0])
    p.add_argument("--s3", type=float, nargs="+", default=[0.25],
                   help="the smooth schedule's S3 (paper 004: 1/4)")
    p.add_argument("--dw-scale", type=float, nargs="+", default=[1.0],
                   help="multiplies the pre-trained D_w in the schedule")
    p.add_argument("--no-noise", action="store_true",
                   help="the same runs without noise (the stack's "
                   "non-private job)")
    p.add_argument("--tail", type=float, default=0.0,
                   help="what-if: score the mean of the last tail*T models")
    p.add_argument("--draws", type=int, default=1,
                   help="noise draws per point (accuracy = their mean)")
    a = p.parse_args(argv)
    x, y = onehot.read_onehot(a.onehot)
    rows = []
    for devices in a.devices:
        splits = {}
        for seed in a.seeds:
            sp = onehot.split(x, y, seed, devices)
            xs, ys = sp["train"]
            splits[seed] = (xs.reshape(devices, -1, xs.shape[1]),
                            ys.reshape(devices, -1), *sp["test"],
                            sp["pretrain"])
        for l2 in a.l2:
            dws = {s: onehot.estimate_dw(*splits[s][4], l2) for s in a.seeds}
            for rounds, rho, clip, eps, s3, scale in itertools.product(
                    a.rounds, a.rho, a.clip, a.epsilons, a.s3, a.dw_scale):
                step = onehot.step_epsilon_for(eps, rounds, onehot.DELTA)
                accs = [simulate(*splits[s][:4], rounds, l2, rho, clip,
                                 dws[s], step, onehot.DELTA, not a.no_noise,
                                 np.random.default_rng(1000 + s + 7 * r),
                                 s3, scale, a.tail)
                        for s in a.seeds for r in range(a.draws)]
                row = dict(devices=devices, record_epsilon=eps,
                           rounds=rounds, l2=l2, rho=rho, clip=clip,
                           d_w=float(np.mean(list(dws.values()))),
                           step_epsilon=step, accuracy=float(np.mean(accs)))
                if len(accs) > 1 or len(a.s3) > 1 or len(a.dw_scale) > 1:
                    row.update(s3=s3, dw_scale=scale, tail=a.tail,
                               noise=not a.no_noise,
                               seeds=" ".join(map(str, a.seeds)),
                               draws=a.draws,
                               accuracy_min=float(np.min(accs)),
                               accuracy_max=float(np.max(accs)))
                rows.append(row)
                print(row, flush=True)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[-1]))
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
