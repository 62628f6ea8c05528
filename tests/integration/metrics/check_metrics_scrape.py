#!/usr/bin/env python3
"""The gateway's metrics file, scraped after a real job (issue 35).

Runs a small prox-admm job (a9a, 10 devices, a fixed cohort of all 10, 3
rounds) on the real daemon and fleet over DTLS-PSK on loopback, with
[metrics] file set in aggregatord.toml. After the daemon's clean shutdown
(its last metrics write happens then: the event waited for), reads the file
as the node exporter's textfile collector would and checks:
  - the format: every line a HELP, a TYPE or a sample of a declared
    metric, labels well formed (tools/python/edgeadmm_metrics.py's strict
    parser; tests/python/test_metrics.py shows it refuses malformed texts);
  - the values against the store: committed rounds (counter, histogram
    count, job gauge) equal the job's, v1/update 2.04 responses at least
    the committed uploads, completed handshakes at least the devices, the
    central epsilon gauge equal to the last round's charged epsilon, with
    its delta and accountant labels; the version label equals
    `edgeadmm-aggregatord --version`.
Exit 0 on success, 1 on a failed check.
"""

import argparse
import math
import os
import shutil
import subprocess
import sys

import edgeadmm_job_toml
import edgeadmm_metrics
import edgeadmm_stack as es
from edgeadmm_metrics import FormatError, parse

JOB = "metrics-job"
DIM = 123
DEVICES = 10
ROUNDS = 3
DELTA = 1e-5

def value(samples, name, **labels):
    found = edgeadmm_metrics.value(samples, name, **labels)
    if found is None:
        raise AssertionError(f"no sample {name}{labels}")
    return found


def job_file():
    return edgeadmm_job_toml.job_toml(
        job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
             "dimension": DIM, "rounds": ROUNDS},
        regularizer={"kind": "l2", "l2": 0.001},
        step={"lambda": 1.0, "gamma": 10.0},
        privacy={"policy": "participation", "clip": 0.5, "sigma": 2.0,
                 "delta": DELTA, "central_budget": 1000.0,
                 "device_budget": 1000.0},
        sampling={"scheme": "fixed", "m": DEVICES, "m_min": DEVICES,
                  "deadline_seconds": 60})


def check(a):
    work = a.work_dir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    stack = es.Stack(a.build_dir, os.path.join(work, "stack"),
                     log=lambda m: print(f"  {m}", flush=True))
    metrics_path = os.path.join(work, "edgeadmm.prom")
    stack.enroll(DEVICES)
    stack.create_job(JOB, job_file())
    try:
        stack.start_daemon(config_tables={
            "metrics": {"file": metrics_path, "interval_seconds": 1}})
        stack.start_fleet(["--data", os.path.join(a.data, "a9a.xz"),
                           "--dim", str(DIM), "--epsilon-budget", "1e9",
                           "--task-refresh-ms", "60000"])
        state = stack.follow(JOB, lambda row: None, 90)
    finally:
        stopped = stack.stop()
    if state != "completed":
        raise es.StackError(f"job {state}: {stack.end_reason(JOB)}")
    if not stopped.get("daemon", (0, True))[1]:
        raise AssertionError(f"the daemon did not stop cleanly: {stopped}")
    with open(metrics_path) as f:
        text = f.read()
    if os.path.exists(metrics_path + ".tmp"):
        raise AssertionError("the temporary file was left behind")
    samples = parse(text)
    rounds = stack.rounds(JOB)
    uploads = sum(r["participants"] for r in rounds)
    failures = []

    def expect(ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            failures.append(what)

    version = subprocess.run([stack.daemon_bin, "--version"],
                             capture_output=True, text=True,
                             check=True).stdout.split()[-1]
    expect(value(samples, "edgeadmm_build_info", version=version) == 1,
           f"build_info version {version}")
    committed = value(samples, "edgeadmm_rounds_total", outcome="committed")
    expect(committed == ROUNDS == len(rounds),
           f"committed rounds {committed} = {ROUNDS}")
    expect(value(samples, "edgeadmm_round_duration_seconds_count") == ROUNDS,
           "round duration histogram count")
    buckets = sorted((float(dict(labels)["le"]), v)
                     for (name, labels), v in samples.items()
                     if name == "edgeadmm_round_duration_seconds_bucket")
    expect(all(b[1] <= c[1] for b, c in zip(buckets, buckets[1:])) and
           buckets[-1] == (math.inf, ROUNDS),
           f"buckets cumulative up to +Inf = {ROUNDS}")
    # m = m_min = every device: each round closes complete, before its
    # deadline, so each has a commit delay after its last upload.
    expect(value(samples, "edgeadmm_round_commit_delay_seconds_count") ==
           ROUNDS, f"commit delays counted = {ROUNDS}")
    expect(value(samples, "edgeadmm_round_commit_delay_seconds_bucket",
                 le="+Inf") == ROUNDS and
           0 <= value(samples, "edgeadmm_round_commit_delay_seconds_max") <=
           value(samples, "edgeadmm_round_commit_delay_seconds_sum") + 1e-9,
           "commit delay +Inf bucket, max within the sum")
    expect(value(samples, "edgeadmm_job_iteration", job=JOB) == ROUNDS,
           "job iteration gauge")
    accepted = value(samples, "edgeadmm_coap_responses_total",
                     resource="v1/update", code="2.04")
    expect(accepted >= uploads == DEVICES * ROUNDS,
           f"v1/update 2.04 responses {accepted} >= uploads {uploads}")
    done = value(samples, "edgeadmm_dtls_session_events_total",
                 event="handshake_done")
    expect(done >= DEVICES, f"handshakes completed {done} >= {DEVICES}")
    # A prox-admm participation job: the devices' grid noise is converted
    # by RDP (docs/privacy.md, "Discrete Gaussian").
    epsilon = value(samples, "edgeadmm_job_central_epsilon", job=JOB,
                    delta=repr(DELTA), accountant="rdp")
    charged = rounds[-1]["epsilon"]
    expect(math.isclose(epsilon, charged, rel_tol=1e-12),
           f"central epsilon {epsilon} = charged {charged} (delta {DELTA})")
    print(f"metrics file: {len(text.splitlines())} lines, "
          f"{len(samples)} samples")
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--work-dir", required=True)
    a = p.parse_args()
    try:
        return check(a)
    except (AssertionError, es.StackError, FormatError) as e:
        print(f"FAIL {e}", flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
