"""Paper 002 Alg. 4 (`random-walk-admm`) next to Alg. 3 (`prox-admm`) on
a9a, accuracy vs the charged ε, on the real stack (docs/results.md, "Paper
002 Alg. 4 vs Alg. 3").

n devices hold a9a's first n x B training records (fleet::SplitRecords,
contiguous), validation and accuracy on a9a.t. Both algorithms run paper
002's local prox step with the same λ, γ, r = (l2/2)||w||², clip C and σ,
under `participation-own-noise` (each device adds its own noise), and the
same expected number of local steps per device S:
- Alg. 4: K = n·S walk steps, one uniformly drawn holder per step, the noise
  kept in u_i (Alg. 4 as printed); charged ε = the largest local Gaussian ε
  over the devices' counted visits K_i (ν = σ/(4C) per visit);
- Alg. 3: S rounds, every device every round (fixed m = n), noise not kept in
  u_i (the sound default); charged ε = participation-own-noise's device
  ε over S rounds (ν = σ/(2C)).
Both ε are the daemon's (`job export`), δ = 1e-5, one device's whole data
(device-level). σ = 0 gives each algorithm's non-private reference.

  scripts/repro a9a-walk --build-dir build/host-release --out DIR \\
      [--devices 100 --records 300 --steps-per-device 10 --sigmas 0,1,2,5,10,20]
Writes DIR/results.csv, DIR/table.md and DIR/accuracy_vs_epsilon.png.
"""

import argparse
import csv
import os
import shutil
import sys
import time

import numpy as np

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)

DIM = 123


def job_toml(name, algorithm, a, sigma):
    n = a.devices
    if algorithm == "random-walk-admm":
        rounds, m, state = n * a.steps_per_device, 1, ""
    else:
        rounds, m, state = a.steps_per_device, n, ""
    clip = a.clip if sigma > 0 else 1000.0
    return f"""[job]
name = "{name}"
algorithm = "{algorithm}"
loss = "logistic"
dimension = {DIM}
rounds = {rounds}
[regularizer]
kind = "l2"
l2 = {a.l2}
[step]
lambda = {a.lam}
gamma = {a.gamma}
[privacy]
policy = "participation-own-noise"
{state}clip = {clip}
sigma = {sigma}
delta = 1e-5
central_budget = inf
device_budget = inf
[sampling]
scheme = "fixed"
m = {m}
m_min = {m}
deadline_seconds = 60
[validation]
data = "{a.test}"
format = "libsvm"
release = "last"
"""


def run(a, template, algorithm, sigma, repeat, train, test):
    tag = f"{'walk' if algorithm == 'random-walk-admm' else 'alg3'}-s{sigma:g}" \
          f"-r{repeat}".replace(".", "p")
    state = os.path.join(a.out, "runs", tag)
    shutil.rmtree(state, ignore_errors=True)
    shutil.copytree(template, state)
    stack = es.Stack(a.build_dir, state, log=lambda *_: None)
    fleet = ["--data", train, "--dim", str(DIM)]
    if sigma == 0:
        fleet.append("--allow-unaccounted-steps")
    start = time.time()
    export = None
    error = stack.run_to_end(
        tag, job_toml(tag, algorithm, a, sigma), fleet, a.timeout,
        server_options={"non_confirmable_notifications": "true"})
    seconds = time.time() - start
    rows = stack.rounds(tag)
    z = rows[-1]["z"] if rows else None
    if error is None:
        export = stack.export_model(tag, os.path.join(state, "model.json"),
                                    "last")
    acc = es.accuracy(*test, z) if z is not None else None
    loss = es.logistic_loss(*test, z) if z is not None else None
    eps = export.get("epsilon") if export else None
    if sigma == 0:
        eps = float("inf")
    row = {"algorithm": algorithm, "sigma": sigma, "repeat": repeat,
           "rounds": len(rows), "accuracy": acc, "test_loss": loss,
           "epsilon": eps, "seconds": seconds, "error": error}
    print(f"{algorithm:<17} sigma/C {sigma:g} run {repeat}: accuracy "
          f"{acc if acc is None else f'{100 * acc:.2f}%'}, charged eps "
          f"{eps}, {len(rows)} rounds ({seconds:.0f} s)"
          f"{' ERROR ' + error if error else ''}", flush=True)
    if error is None and not a.keep_runs:
        shutil.rmtree(state, ignore_errors=True)
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--data", default=os.environ.get("EDGEADMM_DATA", ""))
    p.add_argument("--devices", type=int, default=100)
    p.add_argument("--records", type=int, default=300,
                   help="records per device (the first n x B of a9a)")
    p.add_argument("--steps-per-device", type=int, default=10)
    p.add_argument("--sigmas", default="0,1,2,5,10,20",
                   help="sigma/C values (C = --clip)")
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--lam", type=float, default=0.9)
    p.add_argument("--gamma", type=float, default=10.0)
    p.add_argument("--l2", type=float, default=0.01)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--keep-runs", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    a.test = os.path.join(a.data, "a9a.t.xz")
    x, y = es.read_libsvm(os.path.join(a.data, "a9a.xz"), DIM)
    tx, ty = es.read_libsvm(a.test, DIM)
    train = os.path.join(a.out, "train.libsvm")
    with es.open_text(os.path.join(a.data, "a9a.xz")) as f, \
            open(train, "w") as out:
        for k, line in enumerate(f):
            if k >= a.devices * a.records:
                break
            out.write(line)
    used = a.devices * a.records
    central = es.central_logistic_optimum(x[:used], y[:used], a.l2)
    print(f"a9a: n = {a.devices} x {a.records}, {a.steps_per_device} local "
          f"steps per device; central optimum (l2 {a.l2:g}) "
          f"{100 * es.accuracy(tx, ty, central):.2f}%, majority "
          f"{100 * es.majority_rate(ty):.2f}%", flush=True)
    template = os.path.join(a.out, f"enrolled-{a.devices}")
    if not os.path.exists(os.path.join(template, "aggregator.db")):
        shutil.rmtree(template, ignore_errors=True)
        es.Stack(a.build_dir, template, log=lambda *_: None).enroll(a.devices)
    results = []
    for sigma in (float(s) for s in a.sigmas.split(",")):
        for algorithm in ("prox-admm", "random-walk-admm"):
            for r in range(a.repeats if sigma > 0 else 1):
                results.append(run(a, template, algorithm, sigma, r, train,
                                   (tx, ty)))
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0]))
        w.writeheader()
        w.writerows(results)
    lines = ["| σ/C | Alg. 3 (`prox-admm`) accuracy % | Alg. 3 charged ε | "
             "Alg. 4 (`random-walk-admm`) accuracy % | Alg. 4 charged ε |",
             "|" + "---|" * 5]
    for sigma in sorted({r["sigma"] for r in results}):
        cells = []
        for algorithm in ("prox-admm", "random-walk-admm"):
            rs = [r for r in results if r["sigma"] == sigma and
                  r["algorithm"] == algorithm and r["accuracy"] is not None]
            acc = np.array([r["accuracy"] for r in rs]) * 100
            eps = [r["epsilon"] for r in rs]
            cells.append(f"{acc.mean():.2f}" + (
                f" ({acc.min():.2f}–{acc.max():.2f})" if len(acc) > 1 else "")
                if len(acc) else "—")
            cells.append(", ".join(f"{e:.3g}" for e in eps) if eps else "—")
        lines.append(f"| {sigma:g} | " + " | ".join(cells) + " |")
    lines.append(f"\nn = {a.devices} x {a.records} records, "
                 f"{a.steps_per_device} local steps per device (Alg. 4: "
                 f"K = {a.devices * a.steps_per_device}), λ = {a.lam:g}, "
                 f"γ = {a.gamma:g}, l2 = {a.l2:g}, C = {a.clip:g}, δ = 1e-5; "
                 f"central optimum "
                 f"{100 * es.accuracy(tx, ty, central):.2f}%")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for algorithm, label in (("prox-admm", "Alg. 3 (prox-admm)"),
                             ("random-walk-admm", "Alg. 4 (random-walk)")):
        rs = [r for r in results if r["algorithm"] == algorithm and
              r["accuracy"] is not None and r["sigma"] > 0]
        ax.plot([r["epsilon"] for r in rs], [r["accuracy"] for r in rs],
                marker="o", linestyle="none", label=label)
    ax.axhline(es.accuracy(tx, ty, central), linestyle="--", color="0.4",
               label="central optimum")
    ax.axhline(es.majority_rate(ty), linestyle=":", color="tab:red",
               label="majority class")
    if any(r["sigma"] > 0 and r["epsilon"] for r in results):
        ax.set_xscale("log")
    ax.set_xlabel("charged device-level ε (δ = 1e-5)")
    ax.set_ylabel("a9a.t accuracy")
    ax.set_title(f"paper 002 Alg. 4 vs Alg. 3, n = {a.devices}, real stack")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "accuracy_vs_epsilon.png"))
    plt.close(fig)
    return 1 if any(r["error"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
