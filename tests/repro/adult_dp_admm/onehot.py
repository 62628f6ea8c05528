"""Paper 004 (DP-ADMM) on UCI Adult one-hot as paper 001 preprocesses it,
on the real stack: the reproduction's one-hot setup (docs/results.md,
"Paper 004 one-hot"), beside the paper's exact setup of run.py.

Data: `edgeadmm data adult-onehot` (dataio/adult_onehot.h): adult.data and
adult.test without '?' records, 45,222 x 105, columns scaled to max 1, rows
to norm <= 1. Per seed (numpy default_rng(seed)) the records are permuted
into 222 pre-training (D_w only, treated as public as in paper 004) /
30,000 training (N devices x 30,000/N records, device i the i-th block) /
15,000 test records.

Per seed:
- majority class of the test split;
- the central optimum: full-batch Newton on the 30,000 training records of
  mean logistic + (l2/2)||w||², the regularized loss the devices minimize;
- `dp-admm` jobs on the real stack (daemon + N DeviceClients over DTLS-PSK,
  policy participation-own-noise, smooth schedule, every device every
  round): non-private (the largest-ε job with `dp_admm.noise = false`:
  the same schedule and hyperparameters without the noise) and private
  at record-level ε in {0.1, 0.2, 0.5}, δ = 1e-6. The per-step ε of each point is the largest (bisection on the
  accountant, `edgeadmm privacy paper-004`) whose paper-004 moments
  accountant ε̄ over T steps is <= the target; its RDP ε (improved
  conversion) is smaller still. Both are record-level (one record of one
  device, replace-one).
Accuracy = the final released w^T on the test split.

The defaults (N = 10, T = 200, l2 = 1e-4, ρ = 0.01, clip S1 = 1) were
chosen by onehot_sweep.py on seed 0 (not charged to the privacy budget);
paper 004's N = 100 runs with --devices 100, which selects T = 400,
l2 = 1e-5, ρ = 0.1, clip 0.3 (N100 below), chosen the same way and checked
on held-out seeds 6-8.

  scripts/repro adult --onehot --build-dir build/host-release --out DIR
  scripts/repro adult --onehot-ci ...   (reduced, asserts; ctest)
Writes DIR/onehot.libsvm, results.csv, curves.csv, table.md, summary.json
and accuracy_onehot.png.
"""

import csv
import json
import math
import os
import shutil
import subprocess
import time

import numpy as np

import edgeadmm_stack as es

DIM = 105
DELTA = 1e-6
PRETRAIN, TRAIN = 222, 30000
DEVICES = 10
ROUNDS = 200
L2 = 1e-4
RHO = 0.01
CLIP = 1.0
EPSILONS = (0.1, 0.2, 0.5)
# N = 100 (paper 004's N): `--devices 100` alone selects these, tuned by
# onehot_sweep.py on seed 0 and on held-out seeds 6-8 (not charged to the
# budget); the surface is flat there (docs/results.md).
N100 = dict(rounds=400, l2=1e-5, rho=0.1, clip=0.3)


def encode(cli, data_dir, out):
    path = os.path.join(out, "onehot.libsvm")
    if not os.path.exists(path):
        subprocess.run([cli, "data", "adult-onehot", "--data",
                        os.path.join(data_dir, "adult.data.xz"), "--test",
                        os.path.join(data_dir, "adult.test.xz"), "--output",
                        path], check=True, capture_output=True)
    return path


def read_onehot(path):
    return es.read_libsvm(path, DIM)


def split(x, y, seed, devices):
    """Index split of the permuted records: pretrain / train / test."""
    order = np.random.default_rng(seed).permutation(len(y))
    per = TRAIN // devices
    parts = {"pretrain": order[:PRETRAIN],
             "train": order[PRETRAIN:PRETRAIN + per * devices],
             "test": order[PRETRAIN + TRAIN:]}
    return {k: (x[v], y[v]) for k, v in parts.items()} | {"order": parts}


def write_split(lines, parts, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name in ("train", "test"):
        paths[name] = os.path.join(out_dir, f"{name}.libsvm")
        with open(paths[name], "w") as f:
            for i in parts[name]:
                f.write(lines[i])
    return paths


def newton(x, y, l2, iterations=100):
    """argmin mean logistic + (l2/2)||w||² (full-batch Newton)."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = np.exp(-np.logaddexp(0.0, y * (x @ w)))
        grad = -(x.T @ (y * p)) / len(y) + l2 * w
        h = (x.T * (p * (1 - p))) @ x / len(y) + l2 * np.eye(len(w))
        step = np.linalg.solve(h, grad)
        w -= step
        if np.linalg.norm(step) < 1e-10:
            break
    return w


def estimate_dw(x, y, l2):
    return float(np.linalg.norm(newton(x, y, l2)))


def paper_epsilon_bar(step_epsilon, rounds, delta):
    """Paper 004's ε̄ (App. A moments accountant, integer τ): ranking only in
    the sweep; the reported numbers come from `edgeadmm privacy paper-004`,
    which computes the same formula (the CLI test pins its table)."""
    tau = np.arange(1, 20000)
    moment = rounds * tau * (tau + 1) * step_epsilon ** 2 / (
        4 * math.log(1.25 / delta))
    return float(((moment + math.log(1 / delta)) / tau).min())


def step_epsilon_for(target, rounds, delta):
    lo, hi = 1e-6, 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = ((mid, hi) if paper_epsilon_bar(mid, rounds, delta) <= target
                  else (lo, mid))
    return lo


def accountant(cli, step_epsilon, rounds):
    out = subprocess.run([cli, "privacy", "paper-004", "--step-epsilon",
                          repr(step_epsilon), "--step-delta", repr(DELTA),
                          "--rounds", str(rounds), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def step_epsilon_cli(cli, target, rounds):
    """Largest step ε (4 significant digits) with the accountant's paper
    ε̄ <= target."""
    lo, hi = 1e-5, 1.0
    while hi / lo > 1.0001:
        mid = math.sqrt(lo * hi)
        if accountant(cli, mid, rounds)["paper_epsilon_bar"] <= target:
            lo = mid
        else:
            hi = mid
    unit = 10.0 ** (math.floor(math.log10(lo)) - 3)  # the 4th digit
    step = math.floor(lo / unit) * unit
    while accountant(cli, step, rounds)["paper_epsilon_bar"] > target:
        step -= unit
    return float(f"{step:.4g}")


def run_stack(a, template, paths, data, tag, dw, step_epsilon, noise):
    from run import job_toml, run_job  # the paper setup's (run.py)
    x_test, y_test = data["test"]
    curve = []
    fleet = ["--data", paths["train"], "--format", "libsvm", "--dim",
             str(DIM), "--epsilon-budget", "inf", "--delta", repr(DELTA)] + (
                 [] if noise else ["--allow-unaccounted-steps"])

    def on_round(row):
        curve.append({"accuracy": es.accuracy(x_test, y_test, row["z"]),
                      "epsilon": row["epsilon"]})

    error, seconds = run_job(
        a, template, tag,
        job_toml(tag, a.rounds, "l2", dw, step_epsilon, DELTA, paths["test"],
                 noise, a.rho, weight=a.l2, clip=a.clip, devices=a.devices,
                 records=TRAIN // a.devices,
                 validation={"format": "libsvm"}),
        fleet, on_round)
    return curve, {"seconds": seconds, "error": error,
                   "device_epsilon": curve[-1]["epsilon"] if curve else None}


def run(a):
    """The one-hot setup (run.py --onehot / --onehot-ci)."""
    os.makedirs(a.out, exist_ok=True)
    cli = os.path.join(a.build_dir, "aggregator", "cli", "edgeadmm")
    path = encode(cli, a.data_dir, a.out)
    with open(path) as f:
        lines = f.readlines()
    x, y = read_onehot(path)
    print(f"adult one-hot: {x.shape[0]} x {x.shape[1]}; seeds {a.seeds}, "
          f"N = {a.devices}, T = {a.rounds}, l2 = {a.l2}, rho = {a.rho}, "
          f"clip = {a.clip}, record-level eps {a.epsilons}", flush=True)
    template = os.path.join(a.out, f"enrolled-{a.devices}")
    if not os.path.exists(os.path.join(template, "aggregator.db")):
        shutil.rmtree(template, ignore_errors=True)
        es.Stack(a.build_dir, template).enroll(a.devices)
    steps = {e: step_epsilon_cli(cli, e, a.rounds) for e in a.epsilons}
    privacy = {e: accountant(cli, s, a.rounds) for e, s in steps.items()}
    for e in a.epsilons:
        print(f"record-level target {e}: step eps {steps[e]}, paper eps-bar "
              f"{privacy[e]['paper_epsilon_bar']:.4f}, RDP eps "
              f"{privacy[e]['rdp']['epsilon']:.4f}", flush=True)
    results, curves = [], []

    def record(seed, method, target, curve, info):
        row = {"seed": seed, "method": method, "record_epsilon": target,
               "accuracy": curve[-1]["accuracy"] if curve else None,
               "iterations": len(curve), **info}
        if target is not None and method == "dp-admm":
            row["step_epsilon"] = steps[target]
            row["paper_epsilon_bar"] = privacy[target]["paper_epsilon_bar"]
            row["rdp_epsilon"] = privacy[target]["rdp"]["epsilon"]
        results.append(row)
        for k, c in enumerate(curve, 1):
            curves.append({"seed": seed, "method": method,
                           "record_epsilon": target, "iteration": k,
                           "accuracy": c["accuracy"]})
        acc = row["accuracy"]
        print(f"seed {seed} {method:<12} eps {target}: accuracy "
              f"{100 * acc if acc is not None else float('nan'):.2f}% "
              f"({info.get('seconds', 0):.0f} s)"
              f"{' ERROR ' + str(info['error']) if info.get('error') else ''}",
              flush=True)

    for seed in a.seeds:
        data = split(x, y, seed, a.devices)
        paths = write_split(lines, data["order"],
                            os.path.join(a.out, f"seed-{seed}"))
        dw = estimate_dw(*data["pretrain"], a.l2)
        x_test, y_test = data["test"]
        majority = float(max(np.mean(y_test > 0), np.mean(y_test < 0)))
        start = time.time()
        w_star = newton(*data["train"], a.l2)
        optimum = es.accuracy(x_test, y_test, w_star)
        results.append({"seed": seed, "method": "majority-class",
                         "accuracy": majority, "d_w": dw})
        results.append({"seed": seed, "method": "central-optimum",
                        "accuracy": optimum, "seconds": time.time() - start})
        print(f"seed {seed}: D_w {dw:.3f}, majority {100 * majority:.2f}%, "
              f"central optimum {100 * optimum:.2f}%", flush=True)
        if not a.ci:
            # The smooth schedule depends on ε: the noise-free run is the
            # largest-ε job (the target's) without its noise.
            curve, info = run_stack(a, template, paths, data,
                                    f"s{seed}-free", dw,
                                    steps[max(a.epsilons)], False)
            record(seed, "non-private", None, curve, info)
        for e in a.epsilons:
            curve, info = run_stack(a, template, paths, data,
                                    f"s{seed}-dp-{e:g}", dw, steps[e], True)
            record(seed, "dp-admm", e, curve, info)
    write_outputs(a, results, curves, privacy, steps)
    return check(a, results) if a.ci else (
        1 if any(r.get("error") for r in results) else 0)


def write_outputs(a, results, curves, privacy, steps):
    from run import write_csvs
    write_csvs(a.out, results, curves)
    es.write_json(os.path.join(a.out, "summary.json"), {
        "config": {k: v for k, v in vars(a).items()},
        "steps": {f"{e:g}": s for e, s in steps.items()},
        "privacy": {f"{e:g}": p for e, p in privacy.items()},
        "results": results})
    write_table(a, results)
    plot(a, results, curves)
    print(f"report in {os.path.abspath(a.out)}", flush=True)


def _stats(results, method, eps=None):
    acc = [r["accuracy"] for r in results if r["method"] == method
           and r.get("record_epsilon") == eps and r["accuracy"] is not None]
    return np.array(acc, dtype=float)


def write_table(a, results):
    lines = ["| method | record-level ε (δ = 1e-6) | step ε | paper ε̄ | "
             "RDP ε | seeds | test accuracy % mean | min | max |",
             "|" + "---|" * 9]
    rows = [("majority class", "majority-class", None),
            ("central optimum (Newton)", "central-optimum", None),
            ("DP-ADMM non-private", "non-private", None)] + [
        ("DP-ADMM", "dp-admm", e) for e in a.epsilons]
    for label, method, eps in rows:
        acc = _stats(results, method, eps)
        if not len(acc):
            continue
        r = next(r for r in results if r["method"] == method
                 and r.get("record_epsilon") == eps)
        step = r.get("step_epsilon", "")
        bar = r.get("paper_epsilon_bar")
        rdp = r.get("rdp_epsilon")
        shown = ("∞ (no noise)" if method == "non-private" else
                 "—" if eps is None else f"{eps:g}")
        lines.append(
            f"| {label} | {shown} | {step} | "
            f"{'' if bar is None else f'{bar:.4f}'} | "
            f"{'' if rdp is None else f'{rdp:.4f}'} | {len(acc)} | "
            f"{100 * acc.mean():.2f} | {100 * acc.min():.2f} | "
            f"{100 * acc.max():.2f} |")
    lines.append(f"\nN = {a.devices} devices x {TRAIN // a.devices} records, "
                 f"T = {a.rounds}, l2 = {a.l2:g}, rho = {a.rho:g}, clip S1 = "
                 f"{a.clip:g}, smooth schedule; seeds {a.seeds}")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def plot(a, results, curves):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    series = {}
    for c in curves:
        key = (c["method"], c["record_epsilon"])
        series.setdefault(key, {}).setdefault(c["iteration"], []).append(
            c["accuracy"])
    for i, ((method, eps), by_it) in enumerate(sorted(
            series.items(), key=lambda kv: (kv[0][1] is None,
                                            kv[0][1] or 0))):
        its = sorted(by_it)
        ys = [float(np.mean(by_it[k])) for k in its]
        label = ("DP-ADMM non-private" if method == "non-private" else
                 f"DP-ADMM record-level eps={eps:g}")
        drawn = ax.plot(its, ys, linewidth=1, label=label)
        ax.plot(its[-1:], ys[-1:], marker="*", markersize=10,
                color=drawn[0].get_color(), linestyle="none",
                label="released model (last iteration)" if i == 0 else None)
    for method, style, label in (("majority-class", ("-.", "red"),
                                  "majority class"),
                                 ("central-optimum", (":", "black"),
                                  "central optimum (same loss)")):
        acc = _stats(results, method)
        if len(acc):
            ax.axhline(acc.mean(), ls=style[0], color=style[1], label=label)
    ax.set_xlabel("iteration")
    ax.set_ylabel("test accuracy")
    ax.set_title(f"Adult one-hot (paper 001), N = {a.devices} x "
                 f"{TRAIN // a.devices}, delta = 1e-6, mean over seeds "
                 f"{a.seeds}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "accuracy_onehot.png"))
    plt.close(fig)


def rewrite(out):
    """table.md and accuracy_onehot.png again from DIR's summary.json and
    curves.csv (run.py --onehot-table-only DIR)."""
    import argparse
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    a = argparse.Namespace(**summary["config"])
    a.out = out
    with open(os.path.join(out, "curves.csv")) as f:
        curves = [{"seed": int(c["seed"]), "method": c["method"],
                   "record_epsilon": float(c["record_epsilon"])
                   if c["record_epsilon"] else None,
                   "iteration": int(c["iteration"]),
                   "accuracy": float(c["accuracy"])}
                  for c in csv.DictReader(f)]
    write_table(a, summary["results"])
    plot(a, summary["results"], curves)
    return 0


def check(a, results):
    """The reduced run's assertions (ctest repro_adult_onehot_test)."""
    dp = [r for r in results if r["method"] == "dp-admm"]
    majority = [r for r in results if r["method"] == "majority-class"]
    assert len(dp) == 1 and len(majority) == 1, results
    dp, majority = dp[0], majority[0]
    print(f"check: dp-admm {dp['accuracy']}, majority "
          f"{majority['accuracy']}, paper eps-bar "
          f"{dp['paper_epsilon_bar']}, RDP eps {dp['rdp_epsilon']}",
          flush=True)
    problems = [f"run failed: {dp['error']}"] if dp.get("error") else []
    if dp["accuracy"] is None or not (
            dp["accuracy"] > majority["accuracy"] + a.margin):
        problems.append(f"dp-admm not {100 * a.margin:g} points above the "
                        f"majority class")
    if not (dp["paper_epsilon_bar"] <= max(a.epsilons)
            and dp["rdp_epsilon"] <= dp["paper_epsilon_bar"]):
        problems.append("record-level epsilon above the target")
    if dp["iterations"] != a.rounds:
        problems.append("the stack run did not commit every round")
    for p in problems:
        print(f"check: FAIL: {p}", flush=True)
    return 1 if problems else 0
