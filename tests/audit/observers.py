"""Observer audits (issue 31; docs/privacy.md §8, "Observer audits"): the
central ε against colluding devices of the cohort, the local ε against the
gateway, and the trusted-aggregator policy, on the real stack (the
`edgeadmm` CLI, `edgeadmm-aggregatord`, `edgeadmm-fleet connect`).

Canaries as in run.py (one per device and coordinate, regularizer none, so
the per-round release increment n·(z_k − z_{k−1}) is Σ_i Δu_i: 2λC on an
included canary's coordinate, nothing else but noise), with p > m
coordinates: the last p − m are moved by no device.

Co-participant observer. A coalition of K cohort devices knows its own
noises (and its own data), so it sees the release exactly as it would be
had those devices added no noise. The audit realises it literally: K
colluder devices run `edgeadmm-fleet-noiseless` (the audit-only build
whose sampler adds nothing) with all-zero data (their clipped terms are 0)
beside the m canary devices running the production `edgeadmm-fleet`, in
one job whose cohort is all m + K devices. The noise left in the release
is that of the m canaries: λσ√m. The job charges ν·√max(m + K − t, 1) with
t = privacy.max_colluders: t = K is exactly what is left (the audit must
pass), t = 0 (the charge before issue 31) or any t < K charges noise the
observer does not face (the audit must detect it). Two lower bounds:
  - Gaussian (gaussian_bound.py): from the noise-only coordinates of every
    round's increment (excluded canaries and the p − m free coordinates),
    an upper bound on the noise left, hence ε_lb for sensitivity 2λC;
    with K = 3m the old charge is off by a factor 2 in the noise, which it
    sees at any size used here;
  - membership (one_run_bound.py, as run.py): the model-free bound from
    the final model's canary coordinates, checked only for passing: at
    these sizes it cannot see a factor 2 (docs/privacy.md §8).
Gateway observer (the local ledger): the stored uploads (tools/python
edgeadmm_db.committed_uploads, float32 Δu) of each canary device, all
coordinates but its own, give the device's own noise; sensitivity 4λC
(replace-one), compared with the largest `local:<id>` ε of `job ledger`.
The colluders' uploads carry no noise: their finite local ε must be
detected (+inf lower bound).
Trusted-aggregator: m canaries, Poisson q = 1 (every device, so each round
is a plain Gaussian), the gateway's noise on the sum; the release audit
must pass, and detect the ε of the same job at twice its noise multiplier
(an understated ε, `edgeadmm privacy report`); the local ledger must be
+inf for every device, as the noiseless uploads show.

  tests/audit/observers.py --build-dir build/host-release --out /tmp/obs
The reduced runs (--ci) are the ctests `privacy_colluder_audit_test`
(--no-trusted) and `privacy_trusted_audit_test` (--charges none): m = 50
canaries, K = 150 colluders, p = 150, 4 rounds, ε target 1, δ = 1e-6,
β = 1e-4 for the Gaussian bounds, 1e-3 for the membership bound.
"""

import json
import math
import os
import secrets
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es
import gaussian_bound as gb
import one_run_bound as orb
import run as one_run

LAMBDA, GAMMA, CLIP = one_run.LAMBDA, one_run.GAMMA, one_run.CLIP


def log(msg):
    print(f"observers: {msg}", flush=True)


def job_toml(name, args, devices, privacy, sampling):
    return es.job_toml(
        job={"name": name, "algorithm": "prox-admm", "loss": "squared",
             "dimension": args.dimension, "rounds": args.rounds},
        regularizer={"kind": "none"},
        step={"lambda": LAMBDA, "gamma": GAMMA},
        privacy=dict({"clip": CLIP, "target_epsilon": args.epsilon,
                      "delta": args.delta, "central_budget": math.inf,
                      "device_budget": math.inf, "audit": True}, **privacy),
        sampling=dict({"deadline_seconds": 120}, **sampling))


def ledger_rows(stack, name):
    """`job ledger`: {device: (central ε, local ε)}."""
    rows = {}
    for line in stack.run_cli("job", "ledger", name).splitlines():
        f = line.split("\t")
        if f[0] == "device":
            rows[f[1]] = (float(f[3]), float(f[4]))
    return rows


def run_job(args, state, name, toml, colluders):
    """One job of m canaries (production fleet) and `colluders` noiseless
    colluder devices. Returns what the observers get."""
    m, p = args.canaries, args.dimension
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    stack = es.Stack(args.build_dir, state, log=log)
    canaries = stack.enroll(m, prefix="canary-")
    included = [secrets.SystemRandom().random() < 0.5 for _ in range(m)]
    data = os.path.join(state, "canaries.libsvm")
    one_run.write_canary_data(data, included, args.rounds, p)
    fleet_args = ["--dim", str(p), "--loss", "squared", "--delta",
                  str(args.delta)]
    colluder_psk = os.path.join(state, "psk-colluders")
    if colluders:
        stack.psk_dir, canary_psk = colluder_psk, stack.psk_dir
        stack.enroll(colluders, prefix="colluder-")
        stack.psk_dir = canary_psk
        zeros = os.path.join(state, "colluders.libsvm")
        one_run.write_canary_data(zeros, [False] * colluders, args.rounds, p)
    stack.create_job(name, toml)
    rows = []
    try:
        stack.start_daemon()
        # Trusted-aggregator tasks carry σ = 0: the devices must be told
        # that a step without noise of their own is expected.
        stack.start_fleet(["--data", data] + fleet_args + (
            [] if colluders or "trusted" not in name
            else ["--allow-unaccounted-steps"]))
        if colluders:
            stack.start_fleet(["--data", zeros] + fleet_args,
                              fleet_bin=os.path.join(
                                  args.build_dir, "tools", "fleet",
                                  "edgeadmm-fleet-noiseless"),
                              psk_dir=colluder_psk)
        final = stack.follow(name, rows.append, args.timeout)
    finally:
        stack.stop()
    n = m + colluders
    if final != "completed" or len(rows) != args.rounds:
        raise es.StackError(f"{name}: {final} after {len(rows)} rounds")
    short = [r["round"] for r in rows if r["participants"] != n]
    if short and colluders:  # the colluders' noise must be in every round
        raise es.StackError(f"{name}: rounds {short} had fewer than {n} "
                            "uploads")
    releases = [np.zeros(p)]
    for r in rows:
        export = stack.export_model(
            name, os.path.join(state, f"export-{r['round']}.json"),
            str(r["round"]))
        releases.append(np.array(export["z"], dtype=float))
    uploads = {}
    for _round, device, payload, _extra in edgeadmm_db.committed_uploads(
            stack.db_path, name):
        uploads.setdefault(device, []).append(
            np.frombuffer(payload, dtype="<f4").astype(np.float64))
    return {"signs": np.array([1 if i else -1 for i in included]),
            "canaries": canaries, "n": n, "releases": releases,
            "meaning": export["epsilon_meaning"],
            "ledger": ledger_rows(stack, name), "uploads": uploads,
            "sigma": edgeadmm_db.job_sigma(stack.db_path, name)}


def release_audit(args, run):
    """The release observer's two lower bounds (Gaussian from the noise-only
    coordinates of each round's increment; membership from the final
    model) and the measured per-round signal of the included canaries."""
    m, s, n = args.canaries, run["signs"], run["n"]
    free = [i for i in range(m) if s[i] == -1] + list(
        range(m, args.dimension))
    steps = [n * (b - a) for a, b in zip(run["releases"],
                                         run["releases"][1:])]
    residuals = np.concatenate([d[free] for d in steps])
    delta = float(run["meaning"]["delta"])
    lb, s_up = gb.epsilon_lower_bound(residuals, 2 * LAMBDA * CLIP,
                                      args.rounds, delta, args.beta)
    signal = float(np.mean([d[i] for d in steps for i in range(m)
                            if s[i] == 1]))
    k = int(one_run.GUESS_FRACTION * m)
    t = one_run.guesses(run["releases"][-1][:m], k)
    membership = orb.epsilon_lower_bound(
        m, int(np.sum(t != 0)), int(np.sum(t * s == 1)), delta,
        args.membership_beta)
    return {"gaussian_lower_bound": lb, "noise_std_upper": s_up,
            "noise_samples": len(residuals), "signal_per_round": signal,
            "signal_design": 2 * LAMBDA * CLIP,
            "membership_lower_bound": membership,
            "reported_epsilon": float(run["meaning"]["epsilon"]),
            "delta": delta}


def gateway_audit(args, run, prefix):
    """The gateway's Gaussian lower bound on the local ε of the devices
    whose id starts with `prefix`, pooled (the pooled noise bound bounds
    the smallest device noise, so the ε bound is one on their largest ε),
    and their largest reported local ε."""
    residuals = []
    for device, vectors in sorted(run["uploads"].items()):
        if not device.startswith(prefix):
            continue
        own = (run["canaries"].index(device) if device in run["canaries"]
               else None)
        for v in vectors:
            residuals.append(np.delete(v, own) if own is not None else v)
    residuals = np.concatenate(residuals)
    reported = max(local for device, (_c, local) in run["ledger"].items()
                   if device.startswith(prefix))
    lb, s_up = gb.epsilon_lower_bound(residuals, 4 * LAMBDA * CLIP,
                                      args.rounds, args.delta, args.beta)
    return {"gaussian_lower_bound": lb, "noise_std_upper": s_up,
            "noise_samples": len(residuals), "reported_epsilon": reported}


def understated_epsilon(args, run):
    """The ε that `edgeadmm privacy report` gives the trusted-aggregator job
    at twice its noise multiplier ν = σ/(2C): a deliberately understated
    report that the release audit must reject."""
    cli = os.path.join(args.build_dir, "aggregator", "cli", "edgeadmm")
    out = subprocess.run(
        [cli, "privacy", "report", "--sampling", "poisson", "--q", "1",
         "--noise-multiplier", repr(2 * run["sigma"] / (2 * CLIP)),
         "--rounds", str(args.rounds), "--delta", repr(args.delta),
         "--accountant", "pld", "--json"],
        capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout)["epsilon"])


def participation_run(args, charged):
    """The co-participant job with privacy.max_colluders = `charged`."""
    m, k = args.canaries, args.colluders
    name = f"colluders-t{charged}"
    toml = job_toml(name, args, m + k,
                    {"policy": "participation", "max_colluders": charged},
                    {"scheme": "fixed", "m": m + k, "m_min": m + k})
    started = time.time()
    run = run_job(args, os.path.join(args.out, name), name, toml, k)
    report = {"job": name, "max_colluders": charged, "canaries": m,
              "colluders": k, "release": release_audit(args, run),
              "gateway_canaries": gateway_audit(args, run, "canary-"),
              "gateway_colluders": gateway_audit(args, run, "colluder-"),
              "seconds": round(time.time() - started, 1)}
    return report


def trusted_run(args):
    m = args.canaries
    name = "trusted-aggregator"
    # Rounds release at their deadline only (docs/privacy.md): a short one.
    # A device late for it is independent of the canaries (the audit stays
    # valid, the round just has less signal).
    toml = job_toml(name, args, m, {"policy": "trusted-aggregator"},
                    {"scheme": "poisson", "q": 1.0, "m_min": 0,
                     "deadline_seconds": args.deadline})
    started = time.time()
    run = run_job(args, os.path.join(args.out, name), name, toml, 0)
    locals_ = [local for _c, local in run["ledger"].values()]
    return {"job": name, "canaries": m,
            "release": release_audit(args, run),
            "understated_epsilon": understated_epsilon(args, run),
            "gateway_canaries": gateway_audit(args, run, "canary-"),
            "local_ledger_all_inf": all(math.isinf(e) for e in locals_),
            "seconds": round(time.time() - started, 1)}


def check(reports, k):
    """The pass and detection assertions; returns the failures."""
    failures = []

    def expect(what, lb, eps, detect):
        ok = lb > eps if detect else lb <= eps
        log(f"{what}: lower bound {lb:.4g} {'>' if lb > eps else '<='} "
            f"reported {eps:.4g} ({'detection' if detect else 'pass'}"
            f"{'' if ok else ' FAILED'})")
        if not ok:
            failures.append(what)

    for rep in reports:
        rel = rep["release"]
        if rep["job"] == "trusted-aggregator":
            expect("trusted-aggregator release (Gaussian)",
                   rel["gaussian_lower_bound"], rel["reported_epsilon"], False)
            expect("trusted-aggregator release (membership)",
                   rel["membership_lower_bound"], rel["reported_epsilon"],
                   False)
            expect("trusted-aggregator release vs the epsilon at 2x noise",
                   rel["gaussian_lower_bound"], rep["understated_epsilon"],
                   True)
            gw = rep["gateway_canaries"]
            # The uploads carry no noise: what is left is the round-off of
            # x − z on coordinates a device does not move (~1e-16), so the
            # bound is astronomically large (or +inf), never a Gaussian's
            # charge at the job's σ (the ledger printed 9.01 before
            # issue 31).
            log(f"trusted-aggregator local ledger all +inf: "
                f"{rep['local_ledger_all_inf']} (uploads: lower bound "
                f"{gw['gaussian_lower_bound']:.3g}, noise std <= "
                f"{gw['noise_std_upper']:.3g})")
            if not (rep["local_ledger_all_inf"] and
                    gw["gaussian_lower_bound"] > 1e6):
                failures.append("trusted-aggregator local ledger")
            continue
        t = rep["max_colluders"]
        honest = t >= k
        expect(f"t = {t}, {k} colluders: release (Gaussian)",
               rel["gaussian_lower_bound"], rel["reported_epsilon"],
               not honest)
        if honest:
            expect(f"t = {t}: release (membership)",
                   rel["membership_lower_bound"], rel["reported_epsilon"],
                   False)
        gw = rep["gateway_canaries"]
        expect(f"t = {t}: canaries' local ledger (gateway)",
               gw["gaussian_lower_bound"], gw["reported_epsilon"], False)
        gw = rep["gateway_colluders"]
        expect(f"t = {t}: noiseless colluders' local ledger (gateway)",
               gw["gaussian_lower_bound"], gw["reported_epsilon"], True)
    return failures


def main():
    ap = one_run.audit_parser(__doc__)
    ap.add_argument("--canaries", type=int, default=50)
    ap.add_argument("--colluders", type=int, default=None,
                    help="noiseless colluder devices (default 3 x canaries)")
    ap.add_argument("--dimension", type=int, default=None,
                    help="p >= canaries (default 3 x canaries)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--beta", type=float, default=1e-4,
                    help="1 - confidence of the Gaussian lower bounds")
    ap.add_argument("--membership-beta", type=float, default=1e-3)
    ap.add_argument("--charges", default=None,
                    help="max_colluders of the co-participant jobs "
                         "(default: K and 0; none: no such job)")
    ap.add_argument("--no-trusted", action="store_true")
    ap.add_argument("--deadline", type=float, default=5.0,
                    help="round deadline of the trusted-aggregator job "
                         "(its rounds close at the deadline only)")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    if args.ci:
        args.canaries = es.sanitizer_scale("privacy observer audit",
                                           "canaries", args.canaries, 30)
        args.deadline = es.sanitizer_scale("privacy observer audit",
                                           "deadline", args.deadline, 8.0)
    args.colluders = args.colluders if args.colluders is not None \
        else 3 * args.canaries
    args.dimension = args.dimension or 3 * args.canaries
    if args.dimension < args.canaries:
        ap.error("--dimension must be >= --canaries")
    args.build_dir = os.path.abspath(args.build_dir)
    os.makedirs(args.out, exist_ok=True)
    charges = ([] if args.charges == "none" else
               [int(c) for c in args.charges.split(",")] if args.charges
               else [args.colluders, 0])
    reports = [participation_run(args, t) for t in charges]
    if not args.no_trusted:
        reports.append(trusted_run(args))
    es.write_json(os.path.join(args.out, "report.json"), reports)
    for rep in reports:
        log(f"{rep['job']}: {rep['seconds']} s; release "
            f"{json.dumps(rep['release'])}")
    failures = check(reports, args.colluders)
    for f in failures:
        log(f"FAIL: {f}")
    if not failures:
        log("ok")
    return 1 if failures and args.ci else 0


if __name__ == "__main__":
    sys.exit(main())
