"""Steering devices on the real stack: how far malicious enrolled devices move
the model within the gateway's upload rules (docs/security.md, "Influence
across rounds").

A fresh aggregator database, a prox-admm job on a9a (participation with
fixed cohorts, or trusted-aggregator with Poisson cohorts: --policies),
`edgeadmm-aggregatord` on loopback and two
`edgeadmm-fleet connect` processes over CoAP/DTLS-PSK: the honest devices
(an even split of the training records) and the steering devices
(`--steering-devices`: every update the longest step the rule allows along
u = (1, ..., 1)/sqrt(p), steering_transport.h). For each fraction of steering
devices it reports the final model's projection on u, its accuracy on a9a.t,
and the uploads each side had accepted and refused.

    scripts/repro steering --build-dir build/host-release --out DIR
    scripts/repro steering --ci --build-dir build/host-release --out DIR

--mode one-upload: 0.9999 x the one-upload bound every round (the attack of
the review; refused from a device's second upload by the sum rule);
--mode sum: a step that keeps the device's sum just within the rule.
--baseline-daemon PATH runs the daemon of an older build (schema 8, before
the sum rule) on the same database, taken back to schema 8 (version 9 only
adds the upload_sums table), to measure the attack without the sum rule.

Writes DIR/results.csv and DIR/report.json; prints progress. With --ci it
exits 1 unless: no honest upload was refused, no steering device has more
than one upload in committed rounds in one-upload mode (the sum rule refuses
the rest),
and no sum-mode step was refused (the rule admits what it says it admits).
"""

import argparse
import csv
import math
import os
import shutil
import signal
import subprocess
import sys

import numpy as np

import edgeadmm_db as edb  # tools/python (on PYTHONPATH)
import edgeadmm_job_toml as jt
import edgeadmm_stack as es

DIM = 123
JOB = "steering"
# Gaussian tail allowance of the rule, in standard deviations beyond sqrt(p)
# (host/include/edgeadmm/host/upload_bound.h, kNoiseTailSigmas).
TAIL_SIGMAS = 10

PRESETS = {
    "full": dict(devices=500, cohort=100, rounds=40,
                 fractions=[0.0, 0.01, 0.05, 0.10], modes=["one-upload", "sum"],
                 policies=["participation", "trusted-aggregator"]),
    "ci": dict(devices=60, cohort=20, rounds=8, fractions=[0.10],
               modes=["one-upload", "sum"], policies=["participation"]),
}


def job_toml(a, sigma, policy):
    if policy == "trusted-aggregator":  # needs a secret Poisson cohort
        sampling = {"scheme": "poisson", "q": a.cohort / a.devices,
                    "m_min": 0}
    else:
        sampling = {"scheme": "fixed", "m": a.cohort,
                    "m_min": max(1, a.cohort // 2), "seed": 11}
    sampling["deadline_seconds"] = a.deadline
    return jt.job_toml(
        job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
             "dimension": DIM, "rounds": a.rounds},
        regularizer={"kind": "l2", "l2": a.l2},
        step={"lambda": a.lam, "gamma": a.gamma},
        privacy={"policy": policy, "clip": a.clip, "sigma": sigma,
                 "delta": 1e-5, "central_budget": 1e6,
                 "device_budget": 1e6},
        sampling=sampling)


def device_sigma(a, policy):
    """The sigma of the devices' own noise: none under trusted-aggregator
    (the gateway adds the noise)."""
    return 0.0 if policy == "trusted-aggregator" else a.sigma


def upload_norm(a, sigma, k):
    """The rule's bound on the norm of the sum of k honest uploads:
    k*2*lambda*C + sqrt(k)*lambda*sigma*(sqrt(p) + 10)."""
    return (k * 2 * a.lam * a.clip +
            math.sqrt(k) * a.lam * sigma * (math.sqrt(DIM) + TAIL_SIGMAS))


def fleet_summary(path):
    """accepted and rejected uploads from a fleet log's final summary."""
    text = " ".join(es.parse_fleet_log(path))
    accepted = rejected = None
    for part in text.split(";"):
        if "accepted" in part and "uploads" in part:
            nums = [int(t) for t in part.replace(",", " ").split()
                    if t.isdigit()]
            if len(nums) >= 4:
                accepted, rejected = nums[0], nums[3]
    return accepted, rejected


def fleet_args(a, policy):
    """The options both fleets share."""
    args = ["--data", a.train, "--dim", str(DIM), "--epsilon-budget", "1e9",
            "--task-refresh-ms", "60000"]
    if policy == "trusted-aggregator":
        args.append("--allow-unaccounted-steps")
    return args


def start_steering_fleet(stack, a, psk_dir, steering, policy, mode):
    """The steering devices' own fleet process (its log: fleet-steering.log)."""
    argv = ([stack.fleet_bin, "connect", "--host", "127.0.0.1", "--port",
             str(stack.port), "--psk-dir", psk_dir] + fleet_args(a, policy) +
            ["--steering-devices", str(steering),
             "--steering-signal", repr(2 * a.lam * a.clip),
             "--steering-noise", repr(a.lam * device_sigma(a, policy)),
             "--steering-mode", mode])
    log_path = os.path.join(stack.state_dir, "fleet-steering.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    stack.fleets.append(proc)
    stack.log(f"steering fleet: {steering} devices, mode {mode} "
              f"(pid {proc.pid})")
    return log_path


def run_one(a, policy, fraction, mode, baseline, test_x, test_y, out_dir):
    steering = int(round(fraction * a.devices))
    state = os.path.join(out_dir, f"run-{policy}-{fraction:g}-{mode}"
                         f"{'-baseline' if baseline else ''}")
    shutil.rmtree(state, ignore_errors=True)
    stack = es.Stack(a.build_dir, state, log=lambda m: print(f"  {m}",
                                                             flush=True))
    if baseline:
        stack.daemon_bin = a.baseline_daemon
    ids = stack.enroll(a.devices)
    steering_psk = os.path.join(state, "psk-steering")
    os.makedirs(steering_psk, mode=0o700)
    for device in ids[len(ids) - steering:]:
        os.rename(os.path.join(stack.psk_dir, device),
                  os.path.join(steering_psk, device))
    stack.create_job(JOB, job_toml(a, a.sigma, policy))
    if baseline:
        edb.back_to_schema_8(stack.db_path)
    steering_log = None
    try:
        stack.start_daemon()
        stack.start_fleet(fleet_args(a, policy))
        if steering:
            steering_log = start_steering_fleet(stack, a, steering_psk,
                                                steering, policy, mode)
        final = stack.follow(JOB, lambda row: None, a.timeout)
        rows = stack.rounds(JOB)
    finally:
        stack.stop()
    if final != "completed":
        raise es.StackError(f"job {final}: {stack.end_reason(JOB)}")
    u = np.ones(DIM) / math.sqrt(DIM)
    z = rows[-1]["z"]
    honest = fleet_summary(stack.fleet_file(0, "log"))
    evil = fleet_summary(steering_log) if steering_log else (0, 0)
    # What the committed rounds hold (the fleets also count acceptances in
    # rounds that were discarded later, e.g. round 1 below m_min).
    stored = dict(edb.upload_counts(stack.db_path, JOB))
    steering_stored = [stored.get(d, 0) for d in ids[len(ids) - steering:]]
    result = {
        "policy": policy, "fraction": fraction,
        "steering_devices": steering, "mode": mode,
        "daemon": "baseline (no sum rule)" if baseline else "this build",
        "rounds": len(rows), "projection": float(z @ u),
        "accuracy": es.accuracy(test_x, test_y, z),
        "honest_accepted": honest[0], "honest_rejected": honest[1],
        "steering_accepted": evil[0], "steering_rejected": evil[1],
        "steering_committed": sum(steering_stored),
        "steering_committed_max": max(steering_stored, default=0),
    }
    print(f"steering: {policy}, {fraction:.0%} steering ({steering}), {mode}, "
          f"{result['daemon']}: <z,u> {result['projection']:.3f}, accuracy "
          f"{100 * result['accuracy']:.2f}%, honest uploads "
          f"{honest[0]} accepted / {honest[1]} refused, steering "
          f"{evil[0]} accepted / {evil[1]} refused", flush=True)
    return result


def check(results):
    """The CI assertions (see the module doc); returns the failures."""
    failures = []
    for r in results:
        if r["honest_rejected"] != 0:
            failures.append(f"{r['honest_rejected']} honest uploads refused")
        if r["daemon"] != "this build" or not r["steering_devices"]:
            continue
        if r["mode"] == "one-upload" and r["steering_committed_max"] > 1:
            failures.append(f"a steering device has "
                            f"{r['steering_committed_max']} one-upload steps "
                            "in committed rounds (at most one)")
        if r["mode"] == "sum" and r["steering_rejected"] != 0:
            failures.append(f"{r['steering_rejected']} sum-mode steps "
                            "refused: the rule is tighter than it says")
    return failures


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--out", "--work-dir", dest="out", required=True)
    p.add_argument("--ci", action="store_true", help="reduced run, asserts")
    p.add_argument("--data", default=os.environ.get("EDGEADMM_DATA"))
    p.add_argument("--baseline-daemon", default=None,
                   help="edgeadmm-aggregatord of a build before the sum rule")
    p.add_argument("--devices", type=int)
    p.add_argument("--cohort", type=int)
    p.add_argument("--rounds", type=int)
    p.add_argument("--fractions", help="comma list, e.g. 0.01,0.05")
    p.add_argument("--modes", help="comma list of one-upload,sum")
    p.add_argument("--policies",
                   help="comma list of participation,trusted-aggregator")
    p.add_argument("--sigma", type=float, default=1.0)
    p.add_argument("--clip", type=float, default=0.5)
    p.add_argument("--lam", type=float, default=1.0)
    p.add_argument("--gamma", type=float, default=30.0)
    p.add_argument("--l2", type=float, default=1e-3)
    p.add_argument("--deadline", type=float, default=5.0)
    p.add_argument("--timeout", type=float, default=900.0)
    a = p.parse_args(argv)
    for key, value in PRESETS["ci" if a.ci else "full"].items():
        if getattr(a, key) is None:
            setattr(a, key, value)
    if isinstance(a.fractions, str):
        a.fractions = [float(f) for f in a.fractions.split(",")]
    if isinstance(a.modes, str):
        a.modes = a.modes.split(",")
    if isinstance(a.policies, str):
        a.policies = a.policies.split(",")
    for policy in a.policies:
        if policy not in ("participation", "trusted-aggregator"):
            p.error(f"--policies: unknown policy {policy}")
    for mode in a.modes:
        if mode not in ("one-upload", "sum"):
            p.error(f"--modes: unknown mode {mode}")
    if not all(0 <= f < 0.5 for f in a.fractions):
        p.error("--fractions: each in [0, 0.5)")
    if a.cohort > a.devices:
        p.error("--cohort must not exceed --devices")
    return a


def main(argv):
    a = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    data = a.data or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "..", "..", "..", "..", "shared", "data")
    a.train = os.path.join(data, "a9a.xz")
    test_path = os.path.join(data, "a9a.t.xz")
    if not (os.path.exists(a.train) and os.path.exists(test_path)):
        print(f"steering.py: a9a.xz / a9a.t.xz not in {data} (set "
              "$EDGEADMM_DATA)", file=sys.stderr)
        return 2
    if a.baseline_daemon and not os.access(a.baseline_daemon, os.X_OK):
        print(f"steering.py: {a.baseline_daemon} is not executable",
              file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    test_x, test_y = es.read_libsvm(test_path, DIM)
    print(f"steering: a9a, {a.devices} devices, cohorts of {a.cohort}, "
          f"{a.rounds} rounds, prox-admm lambda {a.lam} clip {a.clip} sigma "
          f"{a.sigma}: one-upload bound {upload_norm(a, a.sigma, 1):.3f} "
          f"(participation; trusted-aggregator: the signal bound "
          f"{2 * a.lam * a.clip:.3f})", flush=True)
    results = []
    for policy in a.policies:
        results.append(run_one(a, policy, 0.0, "none", False, test_x, test_y,
                               a.out))
        # Without device noise both modes send the signal bound every round,
        # which the rule allowed before the sum rule too.
        trusted = policy == "trusted-aggregator"
        for fraction in [f for f in a.fractions if f > 0]:
            for mode in ["sum"] if trusted else a.modes:
                results.append(run_one(a, policy, fraction, mode, False,
                                       test_x, test_y, a.out))
            if a.baseline_daemon and not trusted:
                results.append(run_one(a, policy, fraction, "one-upload",
                                       True, test_x, test_y, a.out))
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        w.writeheader()
        w.writerows(results)
    es.write_json(os.path.join(a.out, "report.json"),
                  {"parameters": {k: v for k, v in vars(a).items()
                                  if isinstance(v, (int, float, str, list))},
                   "results": results})
    if a.ci:
        failures = check(results)
        for failure in failures:
            print(f"steering: FAIL: {failure}", flush=True)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
