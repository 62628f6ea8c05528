"""Paper 002 Alg. 4 (`random-walk-admm`) next to Alg. 3 (`prox-admm`) on
a9a, accuracy vs ε against each observer, on the real stack
(docs/results.md, "Paper 002 Alg. 4 vs Alg. 3").

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
Both charged ε are the daemon's (`job export`). Beside them, from `job
ledger`: Alg. 3's gateway ε (its local ledgers: replace-one, ν = σ/(4C)) and
Alg. 4's network ε (paper 002 Thm. 4, corrected condition, valid only for an
observer with Def. 3's view, never charged). All are the largest over the
devices, δ = 1e-5, one device's whole data (device-level); table.md carries
the ledger's labels. σ = 0 gives each algorithm's non-private reference.

  scripts/repro a9a-walk --build-dir build/host-release --out DIR \\
      [--devices 100 --records 300 --steps-per-device 10 --sigmas 0,1,2,5,10,20]
      [--repeats R] [--append]
Writes DIR/results.csv, DIR/table.md and DIR/accuracy_vs_epsilon.png.
`--optimum` runs walk_optimum.py instead (the σ = 0 walk against F*).
"""

import argparse
import csv
import math
import os
import shutil
import sys
import time

import numpy as np

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)

DIM = 123


def job_toml(name, algorithm, rounds, m, sigma, clip, lam, gamma, l2,
             test=None):
    """A job of paper 002's local prox step under participation-own-noise
    (walk_optimum.py uses it too); validation on `test` when given."""
    tables = {
        "job": {"name": name, "algorithm": algorithm, "loss": "logistic",
                "dimension": DIM, "rounds": rounds},
        "regularizer": {"kind": "l2", "l2": l2},
        "step": {"lambda": lam, "gamma": gamma},
        "privacy": {"policy": "participation-own-noise", "clip": clip,
                    "sigma": sigma, "delta": 1e-5,
                    "central_budget": math.inf, "device_budget": math.inf,
                    "audit": True},
        "sampling": {"scheme": "fixed", "m": m, "m_min": m,
                     "deadline_seconds": 60},
    }
    if test:
        tables["validation"] = {"data": test, "format": "libsvm",
                                "release": "last"}
    return es.job_toml(**tables)


def comparison_toml(name, algorithm, a, sigma):
    """Alg. 4: n·S steps of one holder; Alg. 3: S rounds of all n."""
    n, s = a.devices, a.steps_per_device
    rounds, m = (n * s, 1) if algorithm == "random-walk-admm" else (s, n)
    return job_toml(name, algorithm, rounds, m, sigma,
                    a.clip if sigma > 0 else 1000.0, a.lam, a.gamma, a.l2,
                    a.test)


# The ledger's labels of each ε (first private run of each algorithm).
LABELS = {}


def read_ledger(text):
    """`edgeadmm job ledger` output: per device (participations, central and
    local ε), the network ε lines (random-walk-admm) and the header lines
    that label them (mechanism, neighbours, conversion, δ, observer)."""
    out = {"devices": [], "network": [], "labels": []}
    for line in text.splitlines():
        cells = line.split("\t")
        if cells[0] == "device":
            out["devices"].append({"participations": int(cells[2]),
                                   "central": float(cells[3]),
                                   "local": float(cells[4])})
        elif cells[0] == "network":
            out["network"].append(float(cells[3]))
        elif line.startswith(("# central epsilon", "# local epsilon",
                              "# conversions", "# per device: "
                              "participations, paper")):
            out["labels"].append(line[2:])
    return out


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
        tag, comparison_toml(tag, algorithm, a, sigma), fleet, a.timeout,
        server_options={"non_confirmable_notifications": True})
    seconds = time.time() - start
    rows = stack.rounds(tag)
    z = rows[-1]["z"] if rows else None
    ledger = None
    if error is None:
        export = stack.export_model(tag, os.path.join(state, "model.json"),
                                    "last")
        ledger = read_ledger(stack.run_cli("job", "ledger", tag))
    acc = es.accuracy(*test, z) if z is not None else None
    loss = es.logistic_loss(*test, z) if z is not None else None
    eps = export.get("epsilon") if export else None
    gateway = network = visits = None
    if ledger:
        gateway = max(d["local"] for d in ledger["devices"])
        visits = max(d["participations"] for d in ledger["devices"])
        if ledger["network"]:
            network = max(ledger["network"])
        if sigma > 0:
            LABELS.setdefault(algorithm, ledger["labels"])
    if sigma == 0:
        eps = gateway = float("inf")
        network = float("inf") if algorithm == "random-walk-admm" else None
    row = {"algorithm": algorithm, "sigma": sigma, "repeat": repeat,
           "rounds": len(rows), "accuracy": acc, "test_loss": loss,
           "epsilon": eps, "epsilon_gateway": gateway,
           "epsilon_network": network, "max_participations": visits,
           "seconds": seconds, "error": error}
    print(f"{algorithm:<17} sigma/C {sigma:g} run {repeat}: accuracy "
          f"{acc if acc is None else f'{100 * acc:.2f}%'}, charged eps "
          f"{eps}, gateway eps {gateway}, network eps {network} (max K_i "
          f"{visits}), {len(rows)} rounds ({seconds:.0f} s)"
          f"{' ERROR ' + error if error else ''}", flush=True)
    if error is None and not a.keep_runs:
        shutil.rmtree(state, ignore_errors=True)
    return row


def read_results(path):
    """The rows of an earlier results.csv, numbers parsed."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("epsilon_gateway", "epsilon_network", "max_participations"):
            r.setdefault(k, "")  # absent before these columns existed
        for k, v in r.items():
            if k not in ("algorithm", "error"):
                r[k] = float(v) if v not in ("", "None") else None
            elif v == "":
                r[k] = None
    return rows


def cell(values, fmt):
    """Mean (min–max) of the values, or the one value."""
    v = np.array([x for x in values if x is not None], dtype=float)
    if not len(v):
        return "—"
    if len(v) == 1 or v.min() == v.max():
        return format(v.mean(), fmt)
    return f"{format(v.mean(), fmt)} ({format(v.min(), fmt)}–" \
           f"{format(v.max(), fmt)})"


def write_table(a, results, central, tx, ty):
    lines = ["| σ/C | Alg. 3 accuracy % | Alg. 3 ε release observer "
             "(charged) | Alg. 3 ε gateway | Alg. 4 accuracy % | Alg. 4 ε "
             "gateway (charged) | Alg. 4 ε network (Thm. 4, not charged) | "
             "Alg. 4 max K_i |", "|" + "---|" * 8]
    for sigma in sorted({r["sigma"] for r in results}):
        cells = []
        for algorithm in ("prox-admm", "random-walk-admm"):
            rs = [r for r in results if r["sigma"] == sigma and
                  r["algorithm"] == algorithm and r["accuracy"] is not None]
            cells.append(cell([100 * r["accuracy"] for r in rs], ".2f"))
            cells.append(cell([r["epsilon"] for r in rs], ".3g"))
            if algorithm == "prox-admm":
                cells.append(cell([r["epsilon_gateway"] for r in rs], ".3g"))
            else:
                cells.append(cell([r["epsilon_network"] for r in rs], ".3g"))
                cells.append(cell([r["max_participations"] for r in rs],
                                  ".3g"))
        lines.append(f"| {sigma:g} | " + " | ".join(cells) + " |")
    lines.append(f"\nn = {a.devices} x {a.records} records, "
                 f"{a.steps_per_device} local steps per device (Alg. 4: "
                 f"K = {a.devices * a.steps_per_device}), λ = {a.lam:g}, "
                 f"γ = {a.gamma:g}, l2 = {a.l2:g}, C = {a.clip:g}, δ = 1e-5; "
                 f"central optimum "
                 f"{100 * es.accuracy(tx, ty, central):.2f}%; mean (min–max) "
                 f"over runs. The ε columns as `job ledger` labels them:")
    for algorithm, labels in LABELS.items():
        lines += [f"- {algorithm}: " + "; ".join(labels)]
    write_lines(os.path.join(a.out, "table.md"), lines)


def plot(a, results, central, tx, ty):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
    for algorithm, key, label, style in (
            ("prox-admm", "epsilon", "Alg. 3, release observer (charged: "
             "zero-out, ν = σ/(2C), PLD)",
             dict(marker="o", color="tab:blue")),
            ("prox-admm", "epsilon_gateway", "Alg. 3, gateway (local: "
             "replace-one, ν = σ/(4C), RDP)",
             dict(marker="o", color="tab:blue", fillstyle="none")),
            ("random-walk-admm", "epsilon", "Alg. 4, gateway and devices "
             "(charged = local: replace-one, ν = σ/(4C), RDP)",
             dict(marker="s", color="tab:orange")),
            ("random-walk-admm", "epsilon_network", "Alg. 4, network "
             "(Thm. 4, Def. 3 view only, not charged: replace-one, RDP)",
             dict(marker="s", color="tab:orange", fillstyle="none"))):
        rs = [r for r in results if r["algorithm"] == algorithm and
              r["accuracy"] is not None and r["sigma"] > 0 and r[key]]
        ax.plot([r[key] for r in rs], [r["accuracy"] for r in rs],
                linestyle="none", label=label, **style)
    ax.axhline(es.accuracy(tx, ty, central), linestyle="--", color="0.4",
               label="central optimum")
    ax.axhline(es.majority_rate(ty), linestyle=":", color="tab:red",
               label="majority class")
    if any(r["sigma"] > 0 and r["epsilon"] for r in results):
        ax.set_xscale("log")
    ax.set_xlabel("device-level ε, δ = 1e-5 (observer and accounting in the "
                  "legend)")
    ax.set_ylabel("a9a.t accuracy")
    ax.set_title(f"paper 002 Alg. 4 vs Alg. 3, n = {a.devices}, "
                 f"{a.steps_per_device} local steps each, real stack")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13),
              ncol=1)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "accuracy_vs_epsilon.png"),
                bbox_inches="tight")
    plt.close(fig)


def add_common_args(p):
    """Options walk.py and walk_optimum.py share: the stack, the data, n and
    paper 002's step (λ, γ) and r = (l2/2)||z||²."""
    p.add_argument("--build-dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--data", default=os.environ.get("EDGEADMM_DATA", ""))
    p.add_argument("--devices", type=int, default=100)
    p.add_argument("--lam", type=float, default=0.9)
    p.add_argument("--gamma", type=float, default=10.0)
    p.add_argument("--l2", type=float, default=0.01)


def write_lines(path, lines):
    """Writes the table's lines to `path` and prints them."""
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_args(p)
    p.add_argument("--records", type=int, default=300,
                   help="records per device (the first n x B of a9a)")
    p.add_argument("--steps-per-device", type=int, default=10)
    p.add_argument("--sigmas", default="0,1,2,5,10,20",
                   help="sigma/C values (C = --clip)")
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--keep-runs", action="store_true")
    p.add_argument("--append", action="store_true",
                   help="add to OUT/results.csv (same n, B, S) instead of "
                        "replacing it")
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
    results = read_results(os.path.join(a.out, "results.csv")) \
        if a.append else []
    for sigma in (float(s) for s in a.sigmas.split(",")):
        for algorithm in ("prox-admm", "random-walk-admm"):
            for r in range(a.repeats if sigma > 0 else 1):
                results.append(run(a, template, algorithm, sigma, r, train,
                                   (tx, ty)))
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[-1]), restval="")
        w.writeheader()
        w.writerows(results)
    write_table(a, results, central, tx, ty)
    plot(a, results, central, tx, ty)
    return 1 if any(r["error"] for r in results) else 0


if __name__ == "__main__":
    if "--optimum" in sys.argv[1:]:  # the σ = 0 walk against F* (item 1)
        import walk_optimum
        sys.exit(walk_optimum.main([v for v in sys.argv[1:]
                                    if v != "--optimum"]))
    sys.exit(main())
