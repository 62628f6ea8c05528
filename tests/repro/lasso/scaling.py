"""What it takes for private ADMM on the synthetic Lasso to beat the zero
model at small ε: an IN-PROCESS simulation (lasso_lib.simulate_admm, the
same updates as the stack's prox-admm, NOT the stack) over the number of
devices n, the number of rounds K, ε and the clip, for both policies. The
noise multipliers come from the project's accountant (`edgeadmm privacy
plan`, the same planning as run.py), never from a closed form.

It chose the n = 10,000 stack runs of docs/results.md (run.py --devices
10000 --rounds 100 --prox-admm-params 1,30,0.1). Tuning is not charged to
any budget (docs/results.md says so).

  PYTHONPATH=tools/python /usr/bin/python3 tests/repro/lasso/scaling.py \
      --build-dir build/host-release [--devices 1000,10000] [--seeds 3] \
      [--out DIR]
prints one line per point: mean and range of the test objective; with --out
also scaling.csv and scaling.png (per n, K and policy the best clip at each
ε, beside the zero model and the non-private optimum).
"""
import argparse
import csv
import os
import sys

import numpy as np

import lasso_lib as ll
import run


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--devices", default="1000,10000")
    p.add_argument("--rounds", default="20,100")
    p.add_argument("--epsilons", default="0.1,0.3,1")
    p.add_argument("--clips", default="0.03,0.1,0.3")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    rows, baselines = [], {}
    cli = os.path.join(os.path.abspath(a.build_dir), "aggregator", "cli",
                       "edgeadmm")
    hp = run.DEFAULTS["prox-admm"]
    for n in (int(v) for v in a.devices.split(",")):
        run.N, run.M_MIN = n, run.m_min_for(n)
        d = ll.generate(n, 1000)
        at, bt = d["a_test"], d["b_test"]
        kappa, _ = ll.cross_validate_kappa(d["a_train"], d["b_train"],
                                           run.KAPPA_GRID)
        x_ref = ll.lasso_fista(d["a_train"], d["b_train"], kappa)
        baselines[n] = (ll.objective(at, bt, np.zeros(ll.P), kappa),
                        ll.objective(at, bt, x_ref, kappa))
        print(f"n = {n} (m_min {run.M_MIN}): zero model "
              f"{ll.objective(at, bt, np.zeros(ll.P), kappa):.6g}, "
              f"non-private optimum {ll.objective(at, bt, x_ref, kappa):.6g}",
              flush=True)
        for rounds in (int(v) for v in a.rounds.split(",")):
            for clip in (float(v) for v in a.clips.split(",")):
                z = ll.simulate_admm(d["a_train"], d["b_train"], kappa,
                                     hp["lam"], hp["gamma"], clip, 0.0,
                                     rounds, run.Q, 0,
                                     np.random.default_rng(1))
                print(f"  K {rounds:>3} clip {clip:<5g} no noise: "
                      f"{ll.objective(at, bt, z, kappa):.6g}", flush=True)
            for policy in ("trusted-aggregator", "participation"):
                for e in (float(v) for v in a.epsilons.split(",")):
                    nu = run.plan_noise_multiplier(cli, policy, e, rounds)
                    for clip in (float(v) for v in a.clips.split(",")):
                        sigma = run.sigma_for("prox-admm", policy, nu, clip)
                        trusted = policy == "trusted-aggregator"
                        values = [ll.objective(at, bt, ll.simulate_admm(
                            d["a_train"], d["b_train"], kappa, hp["lam"],
                            hp["gamma"], clip, sigma, rounds, run.Q,
                            0 if trusted else run.M_MIN,
                            np.random.default_rng(s), trusted=trusted),
                            kappa) for s in range(a.seeds)]
                        rows.append({"n": n, "rounds": rounds,
                                     "policy": policy, "epsilon": e,
                                     "noise_multiplier": nu, "clip": clip,
                                     "mean": float(np.mean(values)),
                                     "min": min(values), "max": max(values)})
                        print(f"  K {rounds:>3} {policy:<18} eps {e:<4g} "
                              f"nu {nu:<8.4g} clip {clip:<5g}: "
                              f"{np.mean(values):.6g} ({min(values):.4g}.."
                              f"{max(values):.4g})", flush=True)


    if a.out:
        write_outputs(a.out, rows, baselines)


def write_outputs(out, rows, baselines):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "scaling.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = sorted(baselines)
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.5 * len(sizes), 4.2),
                             squeeze=False)
    for ax, n in zip(axes[0], sizes):
        zero, optimum = baselines[n]
        for (rounds, policy), style in (
                ((20, "participation"), "C0o--"),
                ((20, "trusted-aggregator"), "C1o--"),
                ((100, "participation"), "C0s-"),
                ((100, "trusted-aggregator"), "C1s-")):
            points = {}
            for r in rows:
                if (r["n"], r["rounds"], r["policy"]) == (n, rounds, policy):
                    e = r["epsilon"]
                    if e not in points or r["mean"] < points[e]["mean"]:
                        points[e] = r
            if points:
                eps = sorted(points)
                ax.plot(eps, [points[e]["mean"] for e in eps], style,
                        label=f"{policy}, K = {rounds}")
        ax.axhline(zero, color="k", ls=":", label="zero model")
        ax.axhline(optimum, color="g", ls=":", label="non-private optimum")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("central ε (δ = 1e-6)")
        ax.set_ylabel("test objective (best clip, mean of seeds)")
        ax.set_title(f"n = {n} devices (in-process simulation)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"))
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1:])
