"""Paper 001 (Zhang, Khalili, Liu: M-ADMM with penalty perturbation) on UCI
Adult one-hot, on the real stack: `edgeadmm` creates a `pp-admm` job,
`edgeadmm-aggregatord` relays the complete virtual graph over CoAP/DTLS-PSK
and `edgeadmm-fleet connect` runs the N nodes, each with its own private
schedule (--pp-eta1, --pp-eta-growth, --pp-alpha1, --pp-alpha-growth; never
sent). docs/results.md, "Paper 001".

Data: `edgeadmm data adult-onehot` (45,222 x 105, rows of norm <= 1, labels
+-1), permuted with numpy default_rng(seed) (seed 0 here), the first
N x B records split evenly (node i = the i-th block = the i-th enrolled
device), or with --split uneven (Fig. 4; the paper gives no distribution)
the same records in blocks of B_i = B_min + m_i, (m_i) ~ Multinomial(N·B −
N·B_min, p), p ~ Dirichlet(0.5) (--uneven-concentration), B_min = C
(--uneven-min; C <= B_i), drawn with default_rng([seed, N]); the fleet's
--shard-sizes gives node i its B_i, and its accountant uses it.

Objective (paper 001 eq. 1): Σ_i C·mean_i ℒ(y fᵀx) + (ρ/2)||f||², ℒ the
logistic loss; the job's loss_weight C and reg_weight ρ (not given by the
paper). Per committed round t the script reads every node's own upload
f_i(t) (float32, the `uploads` table) and the released mean f̄(t):
- L(t) = (1/N) Σ_i mean_{n∈D_i} ℒ(y fᵢ(t)ᵀx)  (the paper's accuracy metric,
  each node's own f_i on its own data);
- gap(t) = (F(f̄(t)) − F*)/F*, F the objective above, F* by Newton;
- P(t) = max_i Σ_{r≤t} C(1.4c₁ + α_i(r))/(η_i(r) V B_i) (Thm. 4.1, c₁ = ¼,
  V = N − 1; with one schedule for all, the smallest B_i's node); the
  daemon's max_i P_i (reported by the nodes with their last upload) must
  equal P(T).

Experiments:
  §5.1  non-private M-ADMM (noise = false), θ = 0.5, five nodes with
        η(1) = [0.55, 0.65, 0.6, 0.55, 0.6], q = [1.01, 1.03, 1.1, 1.2,
        1.02]; and Fig. 1(b): every node η(t) = 0.5 q₁^{t−1}, q₁ = 1.01 vs
        larger q₁ (slower).
  §5.2  PP (η(t) = θ q₁^{t−1}, α(t) = α₁ q₂^{t−1}) vs DVP (η ≡ θ, α ≡ α₁)
        at α₁ = 3 and 5, θ = 0.5, several runs each (each a fresh noise
        draw: the devices' DRBG is seeded from getrandom): mean and range of
        L(T) and P(T); --split uneven for Fig. 4.

  scripts/repro pp-admm --build-dir build/host-release --out DIR [--hundred]
      [--split uneven]
  run.py --merge DIR... --out DIR (one table of several passes' runs)
  run.py --ci ... (reduced, asserts; ctest repro_pp_admm_test; also one PP
      run on an uneven split of 5 x 2,000 records)
Writes DIR/results.csv, curves.csv, table.md, summary.json and plots
(convergence_51.png, loss_52.png, privacy_52.png).
"""

import argparse
import csv
import os
import shutil
import struct
import sys
import time

import numpy as np

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "adult_dp_admm"))
from onehot import encode  # noqa: E402  (edgeadmm data adult-onehot)

DIM = 105
C1 = 0.25  # logistic: ℒ'' <= 1/4
ETA1_51 = [0.55, 0.65, 0.6, 0.55, 0.6]
Q_51 = [1.01, 1.03, 1.1, 1.2, 1.02]


def uneven_sizes(nodes, total, b_min, concentration, seed):
    """Fig. 4's uneven split (the paper gives no distribution): node i
    holds B_i = b_min + m_i records, (m_1..m_N) ~ Multinomial(total −
    N·b_min, p), p ~ Dirichlet(concentration·1) (quantity skew), drawn
    with default_rng([seed, nodes]). b_min = C keeps C <= B_i (Thm. 4.1)."""
    spare = total - nodes * b_min
    if spare < 0:
        raise ValueError(f"{nodes} x B_min {b_min} > {total} records")
    rng = np.random.default_rng([seed, nodes])
    p = rng.dirichlet(np.full(nodes, concentration))
    return [int(b_min + m) for m in rng.multinomial(spare, p)]


def prepare(a, lines, x, y, nodes, sizes):
    """The permuted first Σ sizes records: a LIBSVM file and the node
    blocks (x_i, y_i), node i the i-th run of sizes[i] records (the
    fleet's --shard-sizes)."""
    total = sum(sizes)
    order = np.random.default_rng(a.seed).permutation(len(y))[:total]
    even = len(set(sizes)) == 1
    path = os.path.join(a.out, f"train-{nodes}x{sizes[0]}.libsvm" if even
                        else f"train-{nodes}-uneven-{total}.libsvm")
    with open(path, "w") as f:
        for i in order:
            f.write(lines[i])
    ends = np.cumsum([0] + list(sizes))
    blocks = [(x[order[ends[k]:ends[k + 1]]], y[order[ends[k]:ends[k + 1]]])
              for k in range(nodes)]
    return path, blocks


def mean_loss(xb, yb, f):
    return float(np.mean(np.logaddexp(0.0, -yb * (xb @ f))))


def objective(blocks, f, c, rho):
    return c * sum(mean_loss(xb, yb, f) for xb, yb in blocks) + \
        0.5 * rho * float(f @ f)


def optimum(blocks, c, rho, iterations=100):
    """argmin Σ_i C mean_i ℒ + (ρ/2)||f||² (Newton)."""
    f = np.zeros(DIM)
    for _ in range(iterations):
        grad = rho * f
        hess = rho * np.eye(DIM)
        for xb, yb in blocks:
            p = np.exp(-np.logaddexp(0.0, yb * (xb @ f)))
            grad = grad - c * (xb.T @ (yb * p)) / len(yb)
            hess = hess + c * (xb.T * (p * (1 - p))) @ xb / len(yb)
        step = np.linalg.solve(hess, grad)
        f -= step
        if np.linalg.norm(step) < 1e-12:
            break
    return f


def privacy_curve(schedules, rounds, c, v, sizes, dvp, theta):
    """P(t) = max_i P_i(t), t = 1..rounds (paper 001 Thm. 4.1), node i
    with its own schedule and B_i = sizes[i]."""
    out = np.zeros(rounds)
    for s, b in zip(schedules, sizes):
        t = np.arange(1, rounds + 1)
        eta = np.full(rounds, theta) if dvp else np.minimum(
            s["eta1"] * s["q1"] ** (t - 1.0), s.get("eta_max", 1e6))
        alpha = s["alpha1"] * s["q2"] ** (t - 1.0)
        out = np.maximum(out, np.cumsum(c * (1.4 * C1 + alpha) / (eta * v * b)))
    return out


def reported_epsilon(pure, rounds, dim=DIM, radius=1e-6, z=200.0,
                     delta=1e-5):
    """The epsilon a node reports (sdk pp_output_perturbation.h): paper
    001's pure P_i plus `rounds` approximate-minima releases (the host
    fleet's default gamma and z, sigma = 2 gamma z, grid sigma/2^10),
    converted at delta: pure + rho + 2 sqrt(rho ln(1/delta))."""
    sigma = 2 * radius * z
    sens = 2 * radius + sigma / 1024 * np.sqrt(dim) * (1 + 2.0 ** -22)
    rho = rounds * (sens / sigma) ** 2 / 2
    return pure + rho + 2 * np.sqrt(rho * np.log(1 / delta))


def job_toml(name, rounds, nodes, theta, c, rho, min_samples, mode, noise):
    return es.job_toml(
        job={"name": name, "algorithm": "pp-admm", "loss": "logistic",
             "dimension": DIM, "rounds": rounds},
        pp_admm={"graph": "complete", "nodes": nodes, "theta": theta,
                 "loss_weight": c, "reg_weight": rho,
                 "min_samples": min_samples, "mode": mode,
                 "noise": bool(noise), "barrier_retries": 2},
        sampling={"deadline_seconds": 60})


def node_uploads(stack, name):
    """{round_id: [f_i as float64, node order]} and the reported P_i."""
    rows = edgeadmm_db.committed_uploads(stack.db_path, name)
    by_round, losses = {}, []
    for round_id, _device, payload, extra in rows:
        by_round.setdefault(round_id, []).append(
            np.frombuffer(payload, dtype="<f4").astype(np.float64))
        if extra is not None:  # pp-admm's extra: (epsilon, delta) float64 LE
            (loss, _delta) = struct.unpack("<dd", extra)
            if loss > 0:
                losses.append(loss)
    return by_round, losses


def run_job(a, template, tag, toml, schedules, data_path, blocks, c, rho,
            f_star, sizes=None):
    """One pp-admm job on the real stack; returns its per-round curve and
    info (seconds, error, reported max P_i)."""
    state = os.path.join(a.out, "runs", tag)
    shutil.rmtree(state, ignore_errors=True)
    shutil.copytree(template, state)
    stack = es.Stack(a.build_dir, state, log=lambda *_: None)
    fleet = ["--data", data_path, "--format", "libsvm", "--dim", str(DIM),
             "--allow-unaccounted-steps"]
    if sizes is not None:
        fleet += ["--shard-sizes", ",".join(str(b) for b in sizes)]
    for option, key in (("--pp-eta1", "eta1"), ("--pp-eta-growth", "q1"),
                        ("--pp-alpha1", "alpha1"),
                        ("--pp-alpha-growth", "q2")):
        fleet += [option, ",".join(repr(s[key]) for s in schedules)]
    if any("eta_max" in s for s in schedules):
        fleet += ["--pp-eta-max",
                  ",".join(repr(s.get("eta_max", 1e6)) for s in schedules)]
    start = time.time()
    error = stack.run_to_end(tag, toml, fleet, a.timeout)
    seconds = time.time() - start
    rows = stack.rounds(tag)
    uploads, reported = node_uploads(stack, tag)
    curve = []
    for row in rows:
        fs = uploads.get(row["round"], [])
        if len(fs) != len(blocks):
            error = error or f"round {row['round']}: {len(fs)} uploads"
            break
        loss = float(np.mean([mean_loss(xb, yb, f)
                              for (xb, yb), f in zip(blocks, fs)]))
        gap = None
        if f_star is not None:
            fo = objective(blocks, f_star, c, rho)
            gap = (objective(blocks, row["z"], c, rho) - fo) / fo
        curve.append({"iteration": row["iteration"], "loss": loss,
                      "gap": gap})
    if not a.keep_runs and error is None:
        shutil.rmtree(state, ignore_errors=True)
    return curve, {"seconds": seconds, "error": error,
                   "reported_max_p": max(reported) if reported else None,
                   "reported_nodes": len(reported)}


def enrolled(a, nodes):
    template = os.path.join(a.out, f"enrolled-{nodes}")
    if not os.path.exists(os.path.join(template, "aggregator.db")):
        shutil.rmtree(template, ignore_errors=True)
        es.Stack(a.build_dir, template, log=lambda *_: None).enroll(nodes)
    return template


def section_51(a, lines, x, y, results, curves):
    """Non-private M-ADMM: the paper's five schedules, and q₁ sweeps."""
    nodes = 5
    path, blocks = prepare(a, lines, x, y, nodes, [a.per_node] * nodes)
    f_star = optimum(blocks, a.c, a.rho)
    fo = objective(blocks, f_star, a.c, a.rho)
    lo = float(np.mean([mean_loss(xb, yb, f_star) for xb, yb in blocks]))
    print(f"§5.1: N = 5 x {a.per_node}, C = {a.c:g}, rho = {a.rho:g}, "
          f"F* = {fo:.6f}, L(f*) = {lo:.6f}", flush=True)
    template = enrolled(a, nodes)
    cap = {"eta_max": a.eta_max_51} if a.eta_max_51 else {}
    settings = [("paper-5.1", [{"eta1": e, "q1": q, "alpha1": 3.0, "q2": 1.0,
                                **cap} for e, q in zip(ETA1_51, Q_51)])]
    for q1 in a.q1_51:
        settings.append((f"q1={q1:g}", [{"eta1": 0.5, "q1": q1,
                                        "alpha1": 3.0, "q2": 1.0, **cap}] *
                         nodes))
    for label, schedules in settings:
        tag = "m51-" + label.replace("=", "").replace(".", "p")
        toml = job_toml(tag, a.rounds_51, nodes, 0.5, a.c, a.rho,
                        a.per_node, "pp", False)
        curve, info = run_job(a, template, tag, toml, schedules, path,
                              blocks, a.c, a.rho, f_star)
        row = {"section": "5.1", "setting": label, "nodes": nodes,
               "run": 0, "rounds": a.rounds_51,
               "final_loss": curve[-1]["loss"] if curve else None,
               "final_gap": curve[-1]["gap"] if curve else None,
               "optimum_loss": lo, **info}
        for target in (1e-3, 1e-4, 1e-6):
            hit = next((c["iteration"] for c in curve
                        if c["gap"] is not None and c["gap"] <= target), None)
            row[f"iterations_to_{target:g}"] = hit
        results.append(row)
        for c in curve:
            curves.append({"section": "5.1", "setting": label, "nodes": nodes,
                           "run": 0, "iteration": c["iteration"],
                           "loss": c["loss"], "gap": c["gap"],
                           "privacy": None})
        print(f"§5.1 {label:<12} T = {len(curve)}: L(T) {row['final_loss']}, "
              f"gap {row['final_gap']}, to 1e-6 at "
              f"{row['iterations_to_1e-06']} ({info['seconds']:.0f} s)"
              f"{' ERROR ' + info['error'] if info['error'] else ''}",
              flush=True)


def section_52(a, lines, x, y, results, curves, nodes, per_node, c, rho,
               split="even", alphas=None, runs=None, modes=("dvp", "pp")):
    """PP vs DVP at α₁ in alphas (a.alphas), runs (a.runs) runs each,
    weights C and ρ, nodes x per_node records split evenly or unevenly
    (uneven_sizes, B_min = a.uneven_min or C)."""
    sizes = [per_node] * nodes
    if split == "uneven":
        sizes = uneven_sizes(nodes, nodes * per_node,
                             a.uneven_min or int(np.ceil(c)),
                             a.uneven_concentration, a.seed)
    path, blocks = prepare(a, lines, x, y, nodes, sizes)
    template = enrolled(a, nodes)
    f_star = optimum(blocks, c, rho)
    lo = float(np.mean([mean_loss(xb, yb, f_star) for xb, yb in blocks]))
    print(f"§5.2: N = {nodes}, {split} split of {sum(sizes)} records (B_i "
          f"{min(sizes)}..{max(sizes)}), C = {c:g}, rho = {rho:g}, "
          f"theta = {a.theta:g}, T = {a.rounds}, L(f*) = {lo:.6f}",
          flush=True)
    if split == "uneven":
        print(f"§5.2: B_i = {','.join(map(str, sizes))}", flush=True)
    theta = a.theta
    for alpha1 in alphas or a.alphas:
        settings = [("DVP", "dvp", {"eta1": theta, "q1": 1.0,
                                    "alpha1": alpha1, "q2": 1.0})]
        settings.append((f"PP q1={a.q1:g} q2={a.q2:g}", "pp",
                         {"eta1": theta, "q1": a.q1, "alpha1": alpha1,
                          "q2": a.q2, **({"eta_max": a.eta_max}
                                         if a.eta_max else {})}))
        for label, mode, s in settings:
            if mode not in modes:
                continue
            schedules = [s] * nodes
            expected = privacy_curve(schedules, a.rounds, c, nodes - 1,
                                     sizes, mode == "dvp", theta)
            for run in range(runs or a.runs):
                tag = (f"m52-n{nodes}{'u' if split == 'uneven' else ''}-"
                       f"a{alpha1:g}-{mode}-r{run}").replace(".", "p")
                toml = job_toml(tag, a.rounds, nodes, theta, c, rho,
                                min(sizes), mode, True)
                curve, info = run_job(a, template, tag, toml, schedules,
                                      path, blocks, c, rho, None,
                                      sizes if split == "uneven" else None)
                row = {"section": "5.2", "setting": label, "mode": mode,
                       "alpha1": alpha1, "nodes": nodes, "split": split,
                       "run": run, "rounds": a.rounds,
                       "min_b": min(sizes), "max_b": max(sizes),
                       "final_loss": curve[-1]["loss"] if curve else None,
                       "final_privacy": float(expected[-1]),
                       "even_privacy": float(privacy_curve(
                           schedules, a.rounds, c, nodes - 1,
                           [sum(sizes) / nodes] * nodes, mode == "dvp",
                           theta)[-1]),
                       "optimum_loss": lo, **info}
                results.append(row)
                for point in curve:
                    t = point["iteration"]
                    curves.append({"section": "5.2", "setting": label,
                                   "alpha1": alpha1, "nodes": nodes,
                                   "split": split,
                                   "run": run, "iteration": t,
                                   "loss": point["loss"], "gap": None,
                                   "privacy": float(expected[t - 1])})
                rep = info["reported_max_p"]
                print(f"§5.2 N={nodes} {split} alpha1={alpha1:g} "
                      f"{label:<18} run "
                      f"{run}: L(T) {row['final_loss']}, P(T) "
                      f"{expected[-1]:.6g} (daemon max P_i {rep}) "
                      f"({info['seconds']:.0f} s)"
                      f"{' ERROR ' + info['error'] if info['error'] else ''}",
                      flush=True)


def summarize(results):
    """(nodes, split, alpha1, setting) -> mean/min/max/sd of L(T), P(T)."""
    groups = {}
    for r in results:
        if r["section"] != "5.2" or r["final_loss"] is None:
            continue
        key = (r["nodes"], r.get("split", "even"), r["alpha1"], r["setting"])
        groups.setdefault(key, []).append(r)
    out = {}
    for key, rows in groups.items():
        loss = np.array([r["final_loss"] for r in rows])
        out[key] = {"runs": len(rows), "loss_mean": float(loss.mean()),
                    "loss_min": float(loss.min()),
                    "loss_max": float(loss.max()),
                    "loss_sd": float(loss.std(ddof=1)) if len(rows) > 1
                    else None,
                    "privacy": rows[0]["final_privacy"],
                    "even_privacy": rows[0].get("even_privacy"),
                    "reported": [r["reported_max_p"] for r in rows]}
    return out


NUMERIC = {"alpha1": float, "nodes": int, "run": int, "rounds": int,
           "final_loss": float, "final_privacy": float,
           "even_privacy": float, "reported_max_p": float, "min_b": int,
           "max_b": int, "seconds": float, "optimum_loss": float,
           "reported_nodes": int, "final_gap": float, "iteration": int,
           "loss": float, "gap": float, "privacy": float}


def read_rows(path):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["section"] == "5.2":
                r = {k: (None if v == "" else NUMERIC.get(k, str)(v))
                     for k, v in r.items()}
                r["split"] = r.get("split") or "even"
                yield r


def load_results(paths):
    """§5.2 rows of earlier passes' results.csv (DIR or file) and, for a
    DIR, its curves.csv, for --merge; runs renumbered per setting in the
    order given."""
    rows, curves, seen = [], [], {}
    for path in paths:
        curves_path = os.path.join(path, "curves.csv")
        if os.path.isdir(path):
            path = os.path.join(path, "results.csv")
        offsets = {}
        for r in read_rows(path):
            if r.get("even_privacy") is None:  # before --split
                r["even_privacy"] = r["final_privacy"]
            key = (r["nodes"], r["split"], r["alpha1"], r["setting"])
            offsets.setdefault(key, seen.get(key, -1) + 1)
            r["run"] = seen[key] = seen.get(key, -1) + 1
            rows.append(r)
        if os.path.exists(curves_path):
            for c in read_rows(curves_path):
                key = (c["nodes"], c["split"], c["alpha1"], c["setting"])
                c["run"] += offsets.get(key, 0)
                curves.append(c)
    return rows, curves


def write_outputs(a, results, curves):
    os.makedirs(a.out, exist_ok=True)
    keys = sorted({k for r in results for k in r})
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(results)
    keys = ["section", "setting", "alpha1", "nodes", "split", "run",
            "iteration", "loss", "gap", "privacy"]
    with open(os.path.join(a.out, "curves.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(curves)
    summary = summarize(results)
    lines = ["| section | setting | rounds | L(T) | gap (F(f̄)−F*)/F* | "
             "iterations to gap 1e-6 | seconds |", "|" + "---|" * 7]
    for r in results:
        if r["section"] == "5.1":
            gap = r["final_gap"]
            lines.append(
                f"| 5.1 | {r['setting']} | {r['rounds']} | "
                f"{r['final_loss']:.6f} | "
                f"{'' if gap is None else f'{gap:.3g}'} | "
                f"{r['iterations_to_1e-06'] or '> T'} | "
                f"{r['seconds']:.0f} |")
    lines += ["", "| N | split | α(1) | setting | runs | L(T) mean | "
              "L(T) min | L(T) max | L(T) sd | P(T) = max_i P_i | P(T) if "
              "even | daemon's max_i P_i |", "|" + "---|" * 12]
    for (nodes, split, alpha1, setting), s in sorted(summary.items()):
        got = [f"{p:.6g}" for p in s["reported"] if p is not None]
        rep = ", ".join(f"{v} ({got.count(v)} runs)" for v in sorted(set(got)))
        if len(got) < s["runs"]:
            rep += f"; {s['runs'] - len(got)} runs without a report"
        sd = "" if s["loss_sd"] is None else f"{s['loss_sd']:.4f}"
        lines.append(f"| {nodes} | {split} | {alpha1:g} | {setting} | "
                     f"{s['runs']} | {s['loss_mean']:.4f} | "
                     f"{s['loss_min']:.4f} | {s['loss_max']:.4f} | {sd} | "
                     f"{s['privacy']:.6g} | {s['even_privacy']:.6g} | "
                     f"{rep} |")
    lines.append(f"\nC = {a.c:g}, rho = {a.rho:g} (N = 100: C = "
                 f"{a.c_100:g}, rho = {a.rho_100:g}), theta = {a.theta:g}, "
                 f"§5.1: 5 x {a.per_node} records, T = {a.rounds_51}; §5.2: "
                 f"T = {a.rounds}, B_i = {a.per_node} (N = 5) / "
                 f"{a.per_node_100} (N = 100) or, split uneven, that many "
                 f"on average with B_i = B_min + Multinomial(spare, "
                 f"Dirichlet({a.uneven_concentration:g})), B_min = "
                 f"{a.uneven_min or 'C'}; complete graph (V = N - 1); "
                 f"data seed {a.seed}")
    if a.merge:
        lines.append(f"\nmerged from {', '.join(a.merge)}")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    es.write_json(os.path.join(a.out, "summary.json"), {
        "config": vars(a), "results": results,
        "summary": {f"{k[0]}/{k[1]}/{k[2]:g}/{k[3]}": v
                    for k, v in summary.items()}})
    plot(a, curves)
    print("\n".join(lines), flush=True)
    print(f"report in {os.path.abspath(a.out)}", flush=True)


def plot(a, curves):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def series(section, value, key):
        out = {}
        for c in curves:
            if c["section"] != section or c[value] is None:
                continue
            out.setdefault(key(c), {}).setdefault(c["iteration"], []).append(
                c[value])
        return out

    s51 = series("5.1", "gap", lambda c: c["setting"])
    if s51:
        fig, ax = plt.subplots(1, 2, figsize=(11, 4), dpi=100)
        l51 = series("5.1", "loss", lambda c: c["setting"])
        for label, by in s51.items():
            its = sorted(by)
            ax[0].semilogy(its, [max(by[t][0], 1e-12) for t in its],
                           label=label)
            ax[1].plot(its, [l51[label][t][0] for t in its], label=label)
        ax[0].set_ylabel("(F(f̄(t)) − F*)/F*")
        ax[1].set_ylabel("L(t) (nodes' own f_i(t))")
        for x in ax:
            x.set_xlabel("iteration t")
            x.grid(True, alpha=0.3)
            x.legend(fontsize=7)
        fig.suptitle("paper 001 §5.1: non-private M-ADMM, 5 nodes, "
                     "real stack")
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "convergence_51.png"))
        plt.close(fig)
    for value, name, ylabel in (("loss", "loss_52.png", "L(t)"),
                                ("privacy", "privacy_52.png",
                                 "P(t) = max_i P_i(t)")):
        s = series("5.2", value,
                   lambda c: (c["nodes"], c.get("split", "even"),
                              c["alpha1"], c["setting"]))
        if not s:
            continue
        fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
        for (nodes, split, alpha1, setting), by in sorted(s.items()):
            its = sorted(by)
            mean = [float(np.mean(by[t])) for t in its]
            line = ax.plot(its, mean, label=f"N={nodes} {split} "
                           f"α(1)={alpha1:g} {setting}")
            if value == "loss":
                ax.fill_between(its, [min(by[t]) for t in its],
                                [max(by[t]) for t in its], alpha=0.2,
                                color=line[0].get_color())
        ax.set_xlabel("iteration t")
        ax.set_ylabel(ylabel)
        if value == "loss":
            ax.set_yscale("log")
        ax.set_title("paper 001 §5.2: PP vs DVP (mean, band = range over "
                     "runs), real stack")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, name))
        plt.close(fig)


def check(a, results):
    """The reduced run's assertions (ctest repro_pp_admm_test)."""
    problems = []
    for r in results:
        if r.get("error"):
            problems.append(f"{r['section']} {r['setting']} run {r['run']}: "
                            f"{r['error']}")
    m51 = {r["setting"]: r for r in results if r["section"] == "5.1"}
    paper = m51.get("paper-5.1")
    if paper is None or paper["final_gap"] is None or not (
            paper["final_gap"] <= a.gap_51):
        problems.append(f"§5.1: the paper's five schedules did not reach "
                        f"gap {a.gap_51:g}")
    slow = [m51.get(f"q1={q:g}") for q in a.q1_51]
    if len(slow) >= 2 and all(slow) and all(s["final_gap"] is not None
                                           for s in slow):
        gaps = [s["final_gap"] for s in slow]
        if not all(g1 < g2 for g1, g2 in zip(gaps, gaps[1:])):
            problems.append(f"§5.1: a larger q1 did not converge slower: "
                            f"gaps {gaps} for q1 {a.q1_51}")
    summary = summarize(results)
    for alpha1 in a.alphas:
        dvp = summary.get((5, "even", alpha1, "DVP"))
        pp = summary.get((5, "even", alpha1, f"PP q1={a.q1:g} q2={a.q2:g}"))
        if dvp is None or pp is None:
            problems.append(f"§5.2 alpha1 = {alpha1:g}: missing runs")
            continue
        print(f"check: alpha1 {alpha1:g}: PP mean L(T) "
              f"{pp['loss_mean']:.4f} vs DVP {dvp['loss_mean']:.4f}; P(T) "
              f"{pp['privacy']:.6g} vs {dvp['privacy']:.6g}", flush=True)
        if not pp["loss_mean"] < dvp["loss_mean"]:
            problems.append(f"§5.2 alpha1 = {alpha1:g}: PP's mean L(T) "
                            f"{pp['loss_mean']:.4f} not below DVP's "
                            f"{dvp['loss_mean']:.4f}")
        if not pp["privacy"] < dvp["privacy"]:
            problems.append(f"§5.2 alpha1 = {alpha1:g}: PP's P(T) not below "
                            f"DVP's")
        for s in (pp, dvp):
            want = reported_epsilon(s["privacy"], a.rounds)
            if any(p is None or abs(p - want) > 1e-6 * want
                   for p in s["reported"]):
                problems.append(f"§5.2 alpha1 = {alpha1:g}: the daemon's "
                                f"max_i epsilon_i {s['reported']} != "
                                f"{want:.6g} (P(T) {s['privacy']:.6g})")
    # The uneven split: every node's accountant uses its own B_i, so the
    # nodes' max_i P_i is the closed form at the smallest B_i, above the
    # even split's (the same records, B = mean B_i), as in Fig. 4.
    uneven = [r for r in results if r.get("split") == "uneven"]
    if not uneven:
        problems.append("§5.2 uneven split: no run")
    for r in uneven:
        rep, p = r["reported_max_p"], r["final_privacy"]
        want = reported_epsilon(p, a.rounds)
        print(f"check: uneven B_i {r['min_b']}..{r['max_b']}: daemon's max "
              f"epsilon_i {rep} vs {want:.6g} (closed form P(T) {p:.6g}, "
              f"even split {r['even_privacy']:.6g})", flush=True)
        if rep is None or abs(rep - want) > 1e-6 * want:
            problems.append(f"§5.2 uneven: the daemon's max_i epsilon_i "
                            f"{rep} != {want:.6g} (B_min = {r['min_b']})")
        if not p > r["even_privacy"]:
            problems.append(f"§5.2 uneven: P(T) {p:.6g} not above the even "
                            f"split's {r['even_privacy']:.6g}")
    for p in problems:
        print(f"check: FAIL: {p}", flush=True)
    return 1 if problems else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", default="build/host-release")
    p.add_argument("--data-dir", default=os.environ.get("EDGEADMM_DATA"))
    p.add_argument("--out", default="repro-pp-admm")
    p.add_argument("--ci", action="store_true",
                   help="reduced run with assertions (ctest)")
    p.add_argument("--seed", type=int, default=0, help="data permutation")
    p.add_argument("--c", type=float, default=None, help="loss weight C")
    p.add_argument("--rho", type=float, default=None, help="reg weight ρ")
    p.add_argument("--c-100", type=float, default=None,
                   help="C of the 100-node runs (C <= B_i)")
    p.add_argument("--rho-100", type=float, default=None)
    p.add_argument("--theta", type=float, default=0.5)
    p.add_argument("--per-node", type=int, default=None,
                   help="records per node (N = 5)")
    p.add_argument("--per-node-100", type=int, default=None,
                   help="records per node (N = 100)")
    p.add_argument("--rounds-51", type=int, default=None)
    p.add_argument("--q1-51", type=float, nargs="*", default=None,
                   help="Fig. 1(b): every node eta(t) = 0.5 q1^(t-1)")
    p.add_argument("--eta-max-51", type=float, default=None,
                   help="§5.1: cap on every node's eta (digest pitfall 2)")
    p.add_argument("--rounds", type=int, default=None, help="§5.2 T")
    p.add_argument("--alphas", type=float, nargs="*", default=[3.0, 5.0])
    p.add_argument("--q1", type=float, default=None, help="§5.2 PP q1")
    p.add_argument("--q2", type=float, default=None, help="§5.2 PP q2")
    p.add_argument("--eta-max", type=float, default=None)
    p.add_argument("--runs", type=int, default=None)
    p.add_argument("--split", choices=["even", "uneven"], default="even",
                   help="§5.2 data split (Figs. 3/4); uneven: see "
                   "--uneven-concentration, --uneven-min")
    p.add_argument("--uneven-concentration", type=float, default=0.5,
                   help="uneven: B_i = B_min + Multinomial(spare records, "
                   "p), p ~ Dirichlet(this)")
    p.add_argument("--uneven-min", type=int, default=None,
                   help="uneven: B_min (default C, as C <= B_i)")
    p.add_argument("--hundred", action="store_true",
                   help="also §5.2 with 100 nodes")
    p.add_argument("--hundred-only", action="store_true",
                   help="§5.2 with 100 nodes only (implies --skip-51)")
    p.add_argument("--skip-51", action="store_true")
    p.add_argument("--skip-52", action="store_true")
    p.add_argument("--gap-51", type=float, default=1e-4,
                   help="--ci: §5.1's final relative gap at most this")
    p.add_argument("--merge", nargs="+", metavar="DIR_OR_CSV",
                   help="no runs: merge earlier passes' §5.2 results.csv "
                   "into one table (mean, min, max, sd over all runs)")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--keep-runs", action="store_true")
    a = p.parse_args()
    full = {"c": 1000.0, "rho": 10.0, "c_100": 400.0, "rho_100": 4.0,
            "per_node": 9044, "per_node_100": 452, "rounds_51": 100,
            "q1_51": [1.01, 1.05, 1.1], "rounds": 100, "q1": 1.2, "q2": 1.1,
            "runs": 5, "per_node_uneven": None}
    # Reduced (ctest, about a minute): 5 x 1,000 records, T = 60 / 40.
    ci = {"c": 1000.0, "rho": 10.0, "c_100": 400.0, "rho_100": 4.0,
          "per_node": 1000, "per_node_100": 452, "rounds_51": 60,
          "q1_51": [1.01, 1.1], "rounds": 40, "q1": 1.2, "q2": 1.1,
          "runs": 3, "per_node_uneven": 2000}
    for k, v in (ci if a.ci else full).items():
        if getattr(a, k, None) is None:
            setattr(a, k, v)
    if a.merge:
        write_outputs(a, *load_results(a.merge))
        return 0
    if not a.data_dir:
        p.error("--data-dir or EDGEADMM_DATA is required")
    os.makedirs(a.out, exist_ok=True)
    cli = os.path.join(a.build_dir, "aggregator", "cli", "edgeadmm")
    path = encode(cli, a.data_dir, a.out)
    with open(path) as f:
        lines = f.readlines()
    x, y = es.read_libsvm(path, DIM)
    print(f"adult one-hot: {x.shape[0]} x {x.shape[1]}", flush=True)
    results, curves = [], []
    if a.hundred_only:
        a.skip_51, a.hundred = True, True
    if not a.skip_51:
        section_51(a, lines, x, y, results, curves)
    if not a.skip_52:
        if not a.hundred_only:
            section_52(a, lines, x, y, results, curves, 5, a.per_node, a.c,
                       a.rho, a.split)
        if a.hundred:
            section_52(a, lines, x, y, results, curves, 100, a.per_node_100,
                       a.c_100, a.rho_100, a.split)
        if a.ci:
            # One PP run on an uneven split of 5 x 2,000 records (B_i >=
            # C = 1000): the nodes' reported max_i P_i (check).
            section_52(a, lines, x, y, results, curves, 5,
                       a.per_node_uneven, a.c, a.rho, "uneven",
                       alphas=[3.0], runs=1, modes=("pp",))
    write_outputs(a, results, curves)
    if a.ci:
        return check(a, results)
    return 1 if any(r.get("error") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
