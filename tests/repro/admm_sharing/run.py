"""Papers 000/003 (Hu et al., "Learning Privately over Distributed Features:
An ADMM Sharing Approach"), a9a with 2 parties, on the real stack:
`edgeadmm` creates an `admm-sharing` job, `edgeadmm-aggregatord` (the
gateway: labels, z- and y-updates, eqs. 7-8) serves it over CoAP/DTLS-PSK
on loopback, and one `edgeadmm-fleet connect --column-blocks 66,57` process
runs the two parties (dev-00000 = party 1 = a9a's first 66 columns,
dev-00001 = party 2 = the remaining 57; x-update eq. 6 / DP eq. 16).
docs/results.md, "Papers 000/003 (ADMM sharing): full a9a on the real stack".

Setting (the choices the paper leaves open, digest A5):
- objective F(x) = (1/N) Σ_i log(1 + exp(−b_i a_iᵀx)) + (λ/2)||x||², i.e.
  loss weight c = 1/N and R_m = ½||x_m||², λ = 1e-2 (--lam), no intercept;
- ρ = ρN/N with ρN = 0.4 (--rho-n; the value the reduced runs use);
- x = y = z = 0 at start, barrier rounds (every party every round);
- labels at the gateway: the job's `labels` is the same a9a file.

Per round t (one epoch: every record once) the script scores the model
x̃(t) = (x̃_1(t), x̃_2(t)) that the parties persisted after their step of
round t: `edgeadmm-fleet --history` appends each device's persisted x̃_m and
its ledger ε after every step (read back from the device's own record; the
wire only carries the last round's scores). Reported: the training
objective F(x̃(t)) on the N records and the test log loss / accuracy on
a9a.t (16,281 records; its first 123 columns split the same way). The
noiseless job also has an exact scoring phase over the wire (every party
uploads its partial scores of the test set with its last share, the
gateway scores their sums): its score must equal the last round's above.

Baselines (numpy, Newton): the centralized optimum of F on all 123 columns
(same λ), and party 1 alone (the centralized optimum of F restricted to the
first 66 columns).

Noise sweep (Fig. 3 of paper 003):
- rigorous mode: N(0, σ²I_N) on each released share, explicit sensitivity Δ
  (--sensitivity, an operator's number: docs/privacy.md), for each σ of
  --sigmas; ε per party is the device ledger's (RDP of T Gaussian charges,
  improved conversion, δ = 1e-5), checked against the aggregator's RDP
  accountant for that many Gaussian releases of σ/Δ (`edgeadmm privacy
  report --sampling none`): the daemon's own ledger does not account
  admm-sharing's shares (its rows are inf);
- paper mode: the paper's ξ ~ N(0, σ²(D_mᵀD_m + κI)⁻¹), σ_m from Lemma 1's
  C_m with b1 = 10, c1 = 1 (--b1, --c1) and per-iteration ε planned so that
  Cor. 1 gives ε' (--paper-eps) at δ_total = 1e-3: the paper's claim, one
  feature column as the privacy unit, not charged by the devices.

  scripts/repro sharing --build-dir build/host-release --out DIR
      [--records N] [--rounds T] [--private-rounds T'] [--quick]
  run.py --ci ... (reduced: N = 2000, ctest repro_admm_sharing_test)
Writes DIR/rounds.csv, table.md, summary.json, objective.png,
test_log_loss.png (and each run's stack directory under DIR/runs).
"""

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

import edgeadmm_db
import edgeadmm_stack as es

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sharing_lib as sl  # noqa: E402

DIM = 123
COLUMNS = (66, 57)
FULL_RECORDS = 32561
DELTA = 1e-5


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--data-dir", default=os.environ.get("EDGEADMM_DATA",
                                                        "../shared/data"))
    p.add_argument("--records", type=int, default=FULL_RECORDS,
                   help="N: the first N a9a records (default: all 32,561)")
    p.add_argument("--test-records", type=int, default=0,
                   help="score on the first K a9a.t records (0: all 16,281)")
    p.add_argument("--rounds", type=int, default=60,
                   help="T of the noiseless run")
    p.add_argument("--private-rounds", type=int, default=20,
                   help="T of every noisy run (paper 003: T < 20 advised)")
    p.add_argument("--lam", type=float, default=1e-2)
    p.add_argument("--rho-n", type=float, default=0.4, help="ρ·N")
    p.add_argument("--sensitivity", type=float, default=1e-3,
                   help="rigorous mode's explicit Δ (L2, one share)")
    p.add_argument("--sigmas", default="1e-2,1e-1,1,3",
                   help="rigorous σ per share entry, comma-separated")
    p.add_argument("--paper-eps", default="10,50",
                   help="paper mode's total ε' (Cor. 1), comma-separated")
    p.add_argument("--paper-delta", type=float, default=1e-3)
    p.add_argument("--b1", type=float, default=10.0)
    p.add_argument("--c1", type=float, default=1.0)
    p.add_argument("--ci", action="store_true",
                   help="reduced run with assertions (ctest)")
    p.add_argument("--timeout", type=float, default=1800)
    a = p.parse_args(argv)
    if a.ci:
        a.records = 2000
        a.test_records = 4000
        a.rounds = 40
        a.private_rounds = 10
        a.sigmas = "1e-2"
        a.paper_eps = ""
    return a


def numbers(text):
    return [float(v) for v in text.split(",") if v.strip()]


def accountant_epsilon(build_dir, rounds, multiplier):
    """ε of `rounds` Gaussian releases of noise multiplier σ/Δ by the
    aggregator's RDP accountant (`edgeadmm privacy report --sampling none`,
    improved conversion, δ = 1e-5): what a device ledger that charged every
    share once must report."""
    cli = os.path.join(build_dir, "aggregator", "cli", "edgeadmm")
    out = subprocess.run(
        [cli, "privacy", "report", "--sampling", "none", "--rounds",
         str(rounds), "--noise-multiplier", repr(multiplier), "--delta",
         repr(DELTA), "--conversion", "improved", "--json"],
        capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["epsilon"]


def gateway_score(stack, name):
    """The gateway's score of the last model from the parties' partial
    scores (the scoring phase over the wire): (records, log loss,
    accuracy) of the job's last committed model, or None."""
    return edgeadmm_db.last_test_scores(stack.db_path, name, scored_only=True)


def run_one(args, label, noise, rounds, data, test, work, score=False):
    """One job on the stack; per-round scores of the parties' x̃. With
    `score`, the job also has an exact scoring phase on the test set (the
    gateway scores the last model from the parties' partial scores)."""
    # A job name is 1..64 of [A-Za-z0-9._-] (docs/aggregator.md, "Jobs").
    name = re.sub(r"[^A-Za-z0-9._-]", "", label.replace(" ", "-").replace(
        "σ", "sigma").replace("ε", "eps"))
    state = os.path.join(work, name)
    shutil.rmtree(state, ignore_errors=True)
    keys = dict(noise or {"noise": "none"})
    extra = ["--allow-unaccounted-steps"] if noise is None or \
        noise.get("noise") == "paper" else []
    if score:
        keys.update({"test_labels": test["path"],
                     "test_records": len(test["y"]),
                     "score_noise": "exact"})
        extra += ["--test-data", test["path"], "--test-records",
                  str(len(test["y"]))]
    toml = sl.sharing_toml(name, rounds, COLUMNS, args.records,
                           args.rho_n / args.records, args.lam,
                           data["labels_path"], noise=keys,
                           deadline_seconds=120)
    print(f"--- {label}: {rounds} rounds", flush=True)
    result = sl.run_sharing_job(
        args.build_dir, state, name, toml, data["path"], DIM, COLUMNS,
        args.records, timeout_seconds=args.timeout, delta=DELTA,
        extra_fleet_args=extra)
    if result["error"]:
        raise SystemExit(f"{label}: {result['error']} (see {state})")
    models = sl.per_round_models(result["history"], COLUMNS)
    rows = []
    for t, (round_id, x, eps, sent) in enumerate(models, start=1):
        test_loss, test_acc = sl.test_scores(test["x"], test["y"], x)
        rows.append({"run": label, "epoch": t, "round_id": round_id,
                     "objective": sl.objective(data["x"], data["y"], x,
                                               args.lam),
                     "test_log_loss": test_loss, "test_accuracy": test_acc,
                     "epsilon_party1": eps[0], "epsilon_party2": eps[1],
                     "sent_epsilon_party1": sent[0],
                     "sent_epsilon_party2": sent[1]})
    reported = None
    if noise is not None and noise.get("noise") == "rigorous":
        reported = accountant_epsilon(
            args.build_dir, len(rows),
            float(noise["sigma"]) / float(noise["sensitivity"]))
    print(f"    {len(rows)} epochs in {result['seconds']:.1f} s; last: "
          f"objective {rows[-1]['objective']:.6f}, test log loss "
          f"{rows[-1]['test_log_loss']:.6f}, ε (device ledgers) "
          f"{rows[-1]['epsilon_party1']:.4g} / {rows[-1]['epsilon_party2']:.4g}"
          f"; RDP accountant for {len(rows)} charges: {reported}", flush=True)
    wire = gateway_score(result["stack"], name) if score else None
    if wire:
        print(f"    the gateway's score from the wire ({wire[0]} records): "
              f"log loss {wire[1]:.8f}, accuracy {wire[2]:.6f}", flush=True)
    plan = None
    if noise is not None:
        # The job's per-party plan (`edgeadmm job status`, labelled JSON).
        status = result["stack"].run_cli("job", "status", name)
        for line in status.splitlines():
            if line.startswith("admm-sharing plan per party "):
                plan = json.loads(line.split(": ", 1)[1])["parties"]
    return {"label": label, "rows": rows, "seconds": result["seconds"],
            "accountant_epsilon": reported, "plan": plan,
            "gateway_score": wire,
            "uploads": result["totals"], "rounds": rounds}


def load(args):
    t0 = time.monotonic()
    train_path = os.path.join(args.data_dir, "a9a.xz")
    test_path = os.path.join(args.data_dir, "a9a.t.xz")
    x, y = es.read_libsvm(train_path, DIM)
    if args.records > len(y):
        raise SystemExit(f"--records {args.records} > {len(y)} in a9a")
    x, y = x[:args.records], y[:args.records]
    tx, ty = es.read_libsvm(test_path, DIM)
    if args.test_records:
        tx, ty = tx[:args.test_records], ty[:args.test_records]
    os.makedirs(args.out, exist_ok=True)
    # The gateway's labels and the parties' data: the same N records.
    labels_path = train_path
    if args.records < FULL_RECORDS:
        labels_path = os.path.join(os.path.abspath(args.out),
                                   "a9a-first.libsvm")
        sl.write_libsvm(labels_path, x, y)
    print(f"a9a: {len(y)} records, a9a.t: {len(ty)} records "
          f"({time.monotonic() - t0:.1f} s)", flush=True)
    return ({"x": x, "y": y, "path": labels_path,
             "labels_path": labels_path},
            {"x": tx, "y": ty, "path": os.path.abspath(test_path)})


def references(args, data, test):
    lam = args.lam
    x_star = sl.centralized_optimum(data["x"], data["y"], lam)
    d1 = COLUMNS[0]
    x_one = sl.centralized_optimum(data["x"][:, :d1], data["y"], lam)
    ref = {
        "objective": sl.objective(data["x"], data["y"], x_star, lam),
        "test_log_loss": sl.test_scores(test["x"], test["y"], x_star)[0],
        "test_accuracy": sl.test_scores(test["x"], test["y"], x_star)[1],
        "party1_objective": sl.objective(data["x"][:, :d1], data["y"], x_one,
                                         lam),
        "party1_test_log_loss": sl.test_scores(test["x"][:, :d1], test["y"],
                                               x_one)[0],
        "party1_test_accuracy": sl.test_scores(test["x"][:, :d1], test["y"],
                                               x_one)[1],
    }
    print(f"centralized (numpy Newton, 123 columns): F* = "
          f"{ref['objective']:.8f}, test log loss {ref['test_log_loss']:.6f};"
          f" party 1 alone (66 columns): test log loss "
          f"{ref['party1_test_log_loss']:.6f}", flush=True)
    return ref


def write_outputs(args, ref, runs):
    out = args.out
    with open(os.path.join(out, "rounds.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(runs[0]["rows"][0].keys()))
        w.writeheader()
        for r in runs:
            w.writerows(r["rows"])
    lines = [
        f"a9a, N = {args.records} records, 2 parties (66 + 57 columns), "
        f"λ = {args.lam:g}, ρ = {args.rho_n:g}/N, c = 1/N; test: "
        f"{len(runs) and ''}a9a.t ({'all' if not args.test_records else args.test_records} records).",
        "",
        f"Centralized optimum (numpy Newton, 123 columns): F* = "
        f"{ref['objective']:.8f}, test log loss {ref['test_log_loss']:.6f}, "
        f"accuracy {100 * ref['test_accuracy']:.2f}%.  ",
        f"Party 1 alone (66 columns, same λ): test log loss "
        f"{ref['party1_test_log_loss']:.6f}, accuracy "
        f"{100 * ref['party1_test_accuracy']:.2f}%.",
        "",
        "| run | epochs | (F − F*)/F* | test log loss | vs centralized | "
        "test accuracy | ε per party (δ) | seconds |",
        "|---|---|---|---|---|---|---|---|"]

    def privacy(r, last):
        if r["plan"] is None:
            return "inf (no noise, unaccounted)"
        p1, p2 = r["plan"]
        if p1["mode"] == "rigorous":
            return (f"{last['epsilon_party1']:.4g} / "
                    f"{last['epsilon_party2']:.4g} (device ledgers: RDP, "
                    f"{DELTA:g}; Δ = {p1['sensitivity']:g} explicit); plan "
                    f"{p1['epsilon']:.4g} (zCDP form)")
        return (f"paper's claim ε' = {p1['epsilon']:g} (δ_total "
                f"{p1['delta']:g}), per-iteration ε {p1['step_epsilon']:.4g}"
                f", δ {p1['step_delta']:.3g}; one feature column; C_m = "
                f"{p1['sensitivity']:.4g} / {p2['sensitivity']:.4g}, σ_m = "
                f"{p1['sigma']:.4g} / {p2['sigma']:.4g}; not charged")

    def row(r, last, label):
        gap = (last["objective"] - ref["objective"]) / ref["objective"]
        rel = last["test_log_loss"] / ref["test_log_loss"] - 1
        return (f"| {label} | {last['epoch']} | {gap:.3g} | "
                f"{last['test_log_loss']:.6g} | {100 * rel:+.3f}% | "
                f"{100 * last['test_accuracy']:.2f}% | {privacy(r, last)} | "
                f"{r['seconds']:.0f} |")
    for r in runs:
        lines.append(row(r, r["rows"][-1], r["label"]))
        if r["plan"] is None and len(r["rows"]) > args.private_rounds:
            lines.append(row(r, r["rows"][args.private_rounds - 1],
                             r["label"] + f" (at epoch {args.private_rounds})"))
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    def curve(key, label):
        longest = max(len(r["rows"]) for r in runs)
        series = []
        top = 2 * (ref["objective"] if key == "objective" else
                   ref["party1_test_log_loss"])
        for r in runs:
            ys = [row[key] for row in r["rows"]]
            if max(ys) > top:
                continue  # diverged (paper mode): in the table, not plotted
            ys += [math.nan] * (longest - len(ys))
            eps = r["rows"][-1]["epsilon_party1"]
            tag = r["label"]
            if "rigorous" in tag:
                tag += f" (ε = {eps:.3g}, δ = {DELTA:g})"
            series.append((tag, ys))
        hl = [("centralized", ref["objective" if key == "objective"
                                 else "test_log_loss"])]
        if key == "test_log_loss":
            hl.append(("party 1 alone", ref["party1_test_log_loss"]))
        es.plot_series(os.path.join(out, f"{key}.png"),
                       list(range(1, longest + 1)), series, "epoch", label,
                       f"ADMM sharing, a9a N = {args.records}, 2 parties",
                       hlines=hl)
    curve("objective", "training objective F(x̃)")
    curve("test_log_loss", "a9a.t log loss")
    es.write_json(os.path.join(out, "summary.json"), {
        "records": args.records, "columns": list(COLUMNS),
        "lambda": args.lam, "rho": args.rho_n / args.records,
        "loss_weight": f"1/N = {1 / args.records:.6g}",
        "reference": ref,
        "runs": [{"label": r["label"], "rounds": r["rounds"],
                  "seconds": r["seconds"], "last": r["rows"][-1],
                  "accountant_epsilon": r["accountant_epsilon"],
                  "gateway_score": r["gateway_score"],
                  "plan": r["plan"], "uploads": r["uploads"]}
                 for r in runs]})


def main(argv):
    args = parse_args(argv)
    start = time.monotonic()
    data, test = load(args)
    ref = references(args, data, test)
    work = os.path.join(args.out, "runs")
    os.makedirs(work, exist_ok=True)
    runs = [run_one(args, "none", None, args.rounds, data, test, work,
                    score=True)]
    for sigma in numbers(args.sigmas):
        runs.append(run_one(
            args, f"rigorous σ={sigma:g}", {
                "noise": "rigorous", "sigma": sigma,
                "sensitivity": args.sensitivity,
                "target_delta": DELTA},
            args.private_rounds, data, test, work))
    for eps in numbers(args.paper_eps):
        runs.append(run_one(
            args, f"paper ε'={eps:g}", {
                "noise": "paper", "paper_b1": args.b1,
                "paper_c1": args.c1,
                "target_epsilon": eps,
                "target_delta": args.paper_delta},
            args.private_rounds, data, test, work))
    write_outputs(args, ref, runs)
    print(f"total {time.monotonic() - start:.0f} s", flush=True)
    if not args.ci:
        return 0
    # Reduced run's assertions (ctest repro_admm_sharing_test).
    failures = []
    noiseless = runs[0]["rows"][-1]["test_log_loss"]
    if abs(noiseless / ref["test_log_loss"] - 1) > 0.01:
        failures.append(f"noiseless test log loss {noiseless:.6f} not within "
                        f"1% of the centralized {ref['test_log_loss']:.6f}")
    if not noiseless < ref["party1_test_log_loss"]:
        failures.append(f"noiseless test log loss {noiseless:.6f} not below "
                        f"party 1 alone ({ref['party1_test_log_loss']:.6f})")
    # The wire's scoring phase agrees with the per-round scores of the
    # parties' persisted models (float32 partial scores on the wire).
    wire = runs[0]["gateway_score"]
    if wire is None or abs(wire[1] - noiseless) > 1e-5:
        failures.append(f"the gateway's score from the wire {wire} != the "
                        f"persisted models' {noiseless:.8f}")
    for r in runs[1:]:
        if "rigorous" not in r["label"]:
            continue
        last = r["rows"][-1]
        for m in (1, 2):
            # The ε the party reports with each share (on the wire) is its
            # device ledger's, and the ledger charged every round's share.
            eps = [row[f"epsilon_party{m}"] for row in r["rows"]]
            sent = [row[f"sent_epsilon_party{m}"] for row in r["rows"]]
            compared = [(e, s) for e, s in zip(eps, sent) if not math.isnan(s)]
            if len(compared) < len(eps) // 2:
                failures.append(f"{r['label']}: party {m}: only "
                                f"{len(compared)} rounds with a pending upload")
            for e, s in compared:
                if not (math.isfinite(e) and e > 0 and s == e):
                    failures.append(f"{r['label']}: party {m}: ε reported on "
                                    f"the wire {s!r} != its device ledger's "
                                    f"{e!r}")
                    break
            if any(b <= a for a, b in zip(eps, eps[1:])):
                failures.append(f"{r['label']}: party {m}: ledger ε not "
                                f"increasing every round: {eps}")
            # The same T Gaussian releases by the aggregator's accountant
            # (another order grid: equal within 1%).
            expected = r["accountant_epsilon"]
            if abs(expected - eps[-1]) > 0.01 * expected:
                failures.append(f"{r['label']}: party {m}: ledger ε "
                                f"{eps[-1]:.6g} vs the accountant's "
                                f"{expected:.6g} for {len(eps)} shares")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
