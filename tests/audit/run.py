"""Empirical privacy audit of the participation policy on the real stack
(issue 13): a one-run membership audit (Steinke, Nasr and Jagielski 2023;
one_run_bound.py) of the central ε that the daemon reports.

The stack is the production one: `edgeadmm` enrolls m canary devices and
creates a prox-admm job (policy participation, σ planned by `job create`
from target_epsilon), `edgeadmm-aggregatord` serves it over CoAP/DTLS-PSK on
127.0.0.1 and `edgeadmm-fleet connect` runs the m DeviceClients. The
negative control runs the same job with `edgeadmm-fleet-noiseless`, the one
audit-only executable whose SDK Gaussian sampler adds nothing
(EDGEADMM_AUDIT_NOISELESS, tools/fleet/CMakeLists.txt): the job, the
ledger and the reported ε are unchanged, the noise is gone, and the audit
must detect the violation.

Canaries (one per device, one per coordinate: dimension p = m). Device i
holds R = p squared-loss records a_l = c·e_l, b_l = c·t_{i,l}
(l = 1..p, c = √(R/γ)), so its mean loss is ‖x − t_i‖²/(2γ) and the prox
step of paper 002 Alg. 3, x = prox_{γf}(2z − u), gives exactly
x − z = (t_i − u_i)/2 whatever z is. Included canary (S_i = +1):
t_i = T·e_i with T = 2C(λK + 2), so its clipped term 2λ·Clip(x − z, C) is
2λC·e_i in each of the K rounds (u_i grows by 2λC per round, and
‖t_i − u_i‖/2 stays ≥ C). Excluded canary (S_i = −1): t_i = 0, u_i stays 0,
its clipped term is 0 in every round: it is in the cohort and uploads its
own noise only. That is exactly the ledger's zero-out neighbour ("a null
record whose clipped contribution is 0", docs/privacy.md §1), so each
canary's inclusion bit is protected by the central ε of its device,
`central:<id>`, and the reported ε (their maximum) covers every canary.

Observer: the release observer. The auditor reads only the released model
(`edgeadmm job export --round last`, the model every device receives) and
the reported ε (the same export's epsilon_meaning, i.e. what the daemon's
ledger says). With regularizer none, z_K = (1/n)·Σ_rounds Σ_i Δu_i, so
canary i's score is z_K[i]. Guesses: the k highest scores "included",
the k lowest "excluded" (k = ⌊0.35·m⌋, fixed in advance), r = 2k.

  scripts/repro audit --build-dir build/host-release --out /tmp/audit-full
       --canaries 250 --jobs 4 --epsilon 1,2,4,8     (docs/results.md)
writes one folder per job (database, logs, canaries.libsvm, export.json)
and report.json (one entry per build and ε).
The reduced run (--ci) is the ctest `privacy_audit_test`: m = 200, K = 4,
ε target 1, δ = 1e-6, β = 1e-3 (100 canaries under the sanitizers); it
asserts lower bound ≤ reported ε with noise and lower bound > reported ε
without. --jobs pools several jobs into one audit (jobs of more than 250
canaries need Block2 tasks, which work since the block2 fix: docs/results.md).
"""

import argparse
import json
import math
import os
import secrets
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es
import one_run_bound as orb

LAMBDA = 1.0
GAMMA = 1.0
CLIP = 1.0
GUESS_FRACTION = 0.35


def log(msg):
    print(f"audit: {msg}", flush=True)


def write_canary_data(path, included, rounds, dimension=None):
    """The LIBSVM file of all canaries, device i's R = p records at lines
    [i·p, (i+1)·p) (edgeadmm-fleet splits records evenly in PSK-file
    order); p = `dimension`, default m (p > m adds coordinates that no
    device moves: pure noise for observers.py)."""
    m = len(included)
    p = dimension or m
    c = math.sqrt(p / GAMMA)
    target = 2 * CLIP * (LAMBDA * rounds + 2)
    with open(path, "w") as f:
        for i, inc in enumerate(included):
            for l in range(p):
                t = target if (inc and l == i) else 0.0
                f.write(f"{c * t!r} {l + 1}:{c!r}\n")


def job_toml(name, m, rounds, epsilon, delta):
    return es.job_toml(
        job={"name": name, "algorithm": "prox-admm", "loss": "squared",
             "dimension": m, "rounds": rounds},
        regularizer={"kind": "none"},
        step={"lambda": LAMBDA, "gamma": GAMMA},
        privacy={"policy": "participation", "clip": CLIP,
                 "target_epsilon": epsilon, "delta": delta,
                 "central_budget": math.inf, "device_budget": math.inf,
                 "audit": True},
        sampling={"scheme": "fixed", "m": m, "m_min": m,
                  "deadline_seconds": 120})


def guesses(scores, k):
    """+1 for the k highest scores, −1 for the k lowest, 0 otherwise."""
    order = np.argsort(scores, kind="stable")
    t = np.zeros(len(scores), dtype=int)
    t[order[-k:]] = 1
    t[order[:k]] = -1
    return t


def run_job(args, variant, epsilon, state):
    """One audited job in a fresh database. Returns the canaries' inclusion
    signs S, the released model's scores, the export's epsilon_meaning and
    the planned σ."""
    m, rounds = args.canaries, args.rounds
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    stack = es.Stack(args.build_dir, state, log=log)
    if variant == "noiseless":
        stack.fleet_bin = os.path.join(args.build_dir, "tools", "fleet",
                                       "edgeadmm-fleet-noiseless")
        if not os.access(stack.fleet_bin, os.X_OK):
            raise es.StackError(f"{stack.fleet_bin} is not built "
                                "(EDGEADMM_BUILD_AUDIT_NOISELESS)")
    stack.enroll(m, prefix="canary-")
    # S: each canary included independently with probability 1/2, from the
    # OS's generator (the theorem needs S uniform and unknown to the run).
    rng = secrets.SystemRandom()
    included = [rng.random() < 0.5 for _ in range(m)]
    data = os.path.join(state, "canaries.libsvm")
    write_canary_data(data, included, rounds)
    name = f"audit-{variant}"
    stack.create_job(name, job_toml(name, m, rounds, epsilon, args.delta))
    rows = []
    try:
        stack.start_daemon()
        stack.start_fleet(["--data", data, "--dim", str(m), "--loss",
                           "squared", "--delta", str(args.delta)])
        final = stack.follow(name, rows.append, args.timeout)
    finally:
        stack.stop()
    if final != "completed" or len(rows) != rounds:
        raise es.StackError(f"{name}: {final} after {len(rows)} of {rounds} "
                            "rounds")
    short = [r["round"] for r in rows if r["participants"] != m]
    if short:
        raise es.StackError(f"{name}: rounds {short} had fewer than {m} "
                            "uploads")
    # What the release observer gets: the released model and its ε.
    export = stack.export_model(name, os.path.join(state, "export.json"),
                                "last")
    sigma = edgeadmm_db.job_sigma(stack.db_path, name)
    signs = np.array([1 if inc else -1 for inc in included])
    return signs, np.array(export["z"], dtype=float), \
        export["epsilon_meaning"], sigma


def run_variant(args, variant, epsilon, out):
    """args.jobs independent jobs of m canaries each, audited as one
    mechanism of jobs·m canaries (each canary influences only its own job,
    so the union is (ε, δ)-DP in each canary's bit for the largest reported
    ε of its parts, and the theorem applies to the pooled guesses). Guesses
    per job: its k highest scores +1, its k lowest −1. Returns the report."""
    started = time.time()
    m = args.canaries
    k = int(GUESS_FRACTION * m)
    signs, guessed, reported, sigmas, meaning = [], [], [], [], None
    for j in range(args.jobs):
        suffix = f"-{j}" if args.jobs > 1 else ""
        s, z, meaning, sigma = run_job(
            args, variant, epsilon,
            os.path.join(out, f"{variant}-eps{epsilon:g}{suffix}"))
        signs.append(s)
        guessed.append(guesses(z, k))
        reported.append(float(meaning["epsilon"]))
        sigmas.append(sigma)
        scores = z
        log(f"{variant} job {j}: scores of included canaries mean "
            f"{np.mean(scores[s == 1]):.4g}, excluded {np.mean(scores[s == -1]):.4g}")
    s, t = np.concatenate(signs), np.concatenate(guessed)
    total = len(s)
    r = int(np.sum(t != 0))
    v = int(np.sum(t * s == 1))
    delta = float(meaning["delta"])
    bound = orb.epsilon_lower_bound(total, r, v, delta, args.beta)
    seconds = time.time() - started
    report = {
        "variant": variant,
        "target_epsilon": epsilon,
        "jobs": args.jobs,
        "canaries": total,
        "included": int(np.sum(s == 1)),
        "rounds": args.rounds,
        "guesses": r,
        "correct": v,
        "beta": args.beta,
        "delta": delta,
        "reported_epsilon": max(reported),
        "epsilon_meaning": meaning,
        "sigma_planned": sigmas,
        "lower_bound": bound,
        "seconds": round(seconds, 1),
    }
    log(f"{variant}, target epsilon {epsilon:g}: {v}/{r} correct guesses of "
        f"{total} canaries ({report['included']} included, {args.jobs} "
        f"job(s)), reported epsilon {max(reported):.4f} (delta {delta:g}), "
        f"empirical lower bound {bound:.3f} at confidence 1 - "
        f"{args.beta:g}; {seconds:.0f} s")
    return report


def audit_parser(doc):
    """The options every audit driver takes (this one and observers.py)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ci", action="store_true",
                    help="reduced run with assertions (the ctest)")
    return ap


def main():
    ap = audit_parser(__doc__)
    ap.add_argument("--canaries", type=int, default=200,
                    help="canaries (devices, dimension) per job")
    ap.add_argument("--jobs", type=int, default=1,
                    help="independent jobs pooled into one audit")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--epsilon", default="1",
                    help="target_epsilon of the job (σ is planned from "
                         "it); a comma list runs one job per value")
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--beta", type=float, default=1e-3,
                    help="1 − confidence of the lower bound")
    ap.add_argument("--variants", default="real,noiseless")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    if args.ci:
        args.canaries = es.sanitizer_scale("privacy_audit_test", "canaries",
                                           args.canaries, 100)
    args.build_dir = os.path.abspath(args.build_dir)
    os.makedirs(args.out, exist_ok=True)

    # The conversion against its closed form (δ = 0, all guesses right).
    closed = orb.all_correct_pure(140, args.beta)
    assert abs(orb.epsilon_lower_bound(200, 140, 140, 0.0, args.beta) -
               closed) < 2e-3, "one_run_bound disagrees with its closed form"

    reports = [run_variant(args, v, float(e), args.out)
               for e in args.epsilon.split(",")
               for v in args.variants.split(",")]
    es.write_json(os.path.join(args.out, "report.json"), reports)
    failures = []
    for rep in reports:
        lb, eps = rep["lower_bound"], rep["reported_epsilon"]
        if rep["variant"] == "real" and lb > eps:
            failures.append(f"real build: empirical lower bound {lb:.3f} > "
                            f"reported epsilon {eps:.4f}: the reported "
                            "epsilon is violated (or a 1 - beta event)")
        if rep["variant"] == "noiseless" and lb <= eps:
            failures.append(f"noiseless build: lower bound {lb:.3f} <= "
                            f"reported epsilon {eps:.4f}: the audit did not "
                            "detect the missing noise")
    if failures:
        for f in failures:
            log(f"FAIL: {f}")
        return 1 if args.ci else 0
    log("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
