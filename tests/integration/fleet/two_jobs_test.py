#!/usr/bin/python3
"""Two jobs at once on one daemon, each equal to itself run alone.

Real stack on loopback (daemon, `edgeadmm-fleet connect` over DTLS), in
fresh databases with the same setup: 2N devices enrolled, a-00000.. and
b-00000..; job alpha has `job.device_prefix = "a-"` and job beta "b-" (so
each enrols its own N), both prox-admm jobs of R rounds with a fixed cohort
of M (a seeded sample; all N by default) and device noise sigma = 5, the fleet's noise from one paired seed.
Run "both" starts both jobs together with one fleet of all 2N devices (the
gateway picks each device's job); run "selectors" the same with one fleet
per job, `--device-prefix` of its devices, whose devices send the Uri-Query
job=<name> (`--job`); runs "alpha" and "beta" start one job (the fleet of
all 2N again: the other job's devices idle). Checked: both jobs completed in
the shared runs with every upload accepted once (the fleets' 2RM steps
each answered accepted, or duplicate for a resend after a lost receipt;
none stale or rejected; R x M stored per job, each of a device of the
job); each job's stored
uploads and every committed model z in both shared runs are bit for bit
those of its run alone; and a run with another seed differs (the comparison
can fail). Each run also prints the daemon's answers on the task resources
(requests and notifications, from its metrics file): a job's own task
(`--job`: v1/task/<name>) is notified of that job's rounds only. The suite
runs N = M = 6, R = 3 (about 15 s); `--per-job 10000`
with niced fleet processes on source addresses of their own is the manual
scaled run (integration_fleet_two_jobs_test_10k).
"""

import argparse
import os
import re
import shutil
import sys
import time

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_metrics
import edgeadmm_stack as es

SEED = "00112233445566778899aabbccddeeff"
OTHER_SEED = "ffeeddccbbaa99887766554433221100"
PREFIXES = {"alpha": "a-", "beta": "b-"}


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def setup(a, stack):
    """Both jobs created, each over the N devices of its prefix; none
    started."""
    for prefix in PREFIXES.values():
        stack.enroll(a.per_job, prefix=prefix)
    for job, prefix in PREFIXES.items():
        stack.create_job(job, es.device_test_job(
            job, a.rounds, m=a.cohort, m_min=a.cohort,
            deadline_seconds=a.deadline, seed=11, device_prefix=prefix),
            start=False)
        n = edgeadmm_db.job(stack.db_path, job).n
        if n != a.per_job:
            fail(f"job {job} enrolled {n} devices, expected {a.per_job}")


def start_fleets(a, stack, fleet_args, selected_jobs):
    """`--fleet-parts` processes over all 2N devices, or with
    `selected_jobs` as many in all, an equal share per job, each `--job J
    --device-prefix P`. Every process gets its own source addresses with
    `--addresses`."""
    groups = ([["--job", j, "--device-prefix", PREFIXES[j]]
               for j in selected_jobs] if selected_jobs else [[]])
    parts = max(1, a.fleet_parts // len(groups))
    index = 0
    for group_args in groups:
        for part in range(parts):
            part_args = ["--part", f"{part}/{parts}"] if parts > 1 else []
            if a.addresses > 0:
                part_args += es.fleet_part_sources(index, a.addresses,
                                                   a.start_rate,
                                                   a.max_starting)
            stack.start_fleet(fleet_args + group_args + part_args,
                              nice=a.fleet_nice)
            index += 1


def task_answers(metrics_path):
    """The daemon's answers on v1/task and the jobs' v1/task/<name>
    (requests and notifications), from its metrics file."""
    by_resource = edgeadmm_metrics.by_label(
        edgeadmm_metrics.read(metrics_path), "edgeadmm_coap_responses_total",
        "resource")
    return int(sum(v for resource, v in by_resource.items()
                   if resource.startswith("v1/task")))


def devices_done(state_dir):
    """Devices done in the last progress line of every fleet*.log."""
    done = 0
    for name in os.listdir(state_dir):
        if name.startswith("fleet") and name.endswith(".log"):
            with open(os.path.join(state_dir, name)) as f:
                lines = re.findall(r"^fleet: (\d+)/\d+ devices done",
                                   f.read(), re.M)
            done += int(lines[-1]) if lines else 0
    return done


def run(a, name, jobs, seed, selectors=False):
    """Starts `jobs` together; returns {job: (uploads, models)}."""
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, name))
    setup(a, stack)
    fleet_args = ["--data", a.data, "--dim", "123", "--epsilon-budget",
                  "1000", "--unsafe-paired-seed", seed, "--progress-ms",
                  "1000"]
    if a.task_refresh_ms:
        fleet_args += ["--task-refresh-ms", str(a.task_refresh_ms)]
    started = time.monotonic()
    try:
        server = {"task_heartbeat_seconds": a.task_heartbeat_seconds}
        if a.non_confirmable_notifications:
            server["non_confirmable_notifications"] = True
        metrics = os.path.join(stack.state_dir, "metrics.prom")
        stack.start_daemon(server_options=server,
                           config_tables={"metrics": {"file": metrics}})
        for job in jobs:
            stack.start_job(job)
        start_fleets(a, stack, fleet_args, jobs if selectors else None)
        # Not Stack.follow: a fleet of one job exits when its job ends,
        # while the other job runs on.
        deadline = time.monotonic() + a.timeout
        while any(stack.job_state(j) not in es.FINISHED_STATES
                  for j in jobs):
            if stack.daemon is not None and stack.daemon.poll() is not None:
                fail(f"run {name}: the daemon exited; see daemon.log")
            if time.monotonic() > deadline:
                fail(f"run {name}: jobs still running after {a.timeout} s")
            time.sleep(0.5)
        for job in jobs:
            if stack.job_state(job) != "completed":
                fail(f"run {name}: job {job} {stack.job_state(job)}: "
                     f"{stack.end_reason(job)}")
        # A fleet per job sees its job end and exits (its summary counts).
        for fleet in stack.fleets if selectors else []:
            fleet.wait(timeout=60)
        # A fleet of all 2N devices does not (the other job's devices idle):
        # its job devices are done once each has its last receipt (a lost
        # one is resent) and has heard the end, which may wait for a refresh.
        # The counts are then final; a device still short fails below.
        deadline = time.monotonic() + 60
        while (not selectors and time.monotonic() < deadline and
               any(f.poll() is None for f in stack.fleets) and
               devices_done(stack.state_dir) < a.per_job * len(jobs)):
            time.sleep(0.5)
    except es.StackError as e:
        fail(f"run {name}: {e}")
    finally:
        stack.stop()
    seconds = time.monotonic() - started
    # The devices of a job that ended answer the other job's notifications
    # with RSTs; libcoap's alert for each goes to a counter, not the log.
    with open(os.path.join(stack.state_dir, "daemon.log")) as f:
        if "got RST" in f.read():
            fail(f"run {name}: libcoap's RST alerts reached the daemon log")
    totals = es.fleet_totals(stack.state_dir)
    expected = a.rounds * a.cohort * len(jobs)
    # A device whose receipt was lost (a busy gateway) sends its upload
    # again and is answered `duplicate`: each upload is accepted once, and
    # the store holds one per (round, device), checked below.
    if totals is None or totals["steps"] != expected or (
            totals["accepted"] + totals["duplicate"] != expected) or any(
            totals[k] for k in ("stale", "rejected")):
        fail(f"run {name}: the fleet's uploads: {totals} (expected "
             f"{expected} steps, each accepted once, none refused)")
    out = {}
    for job in jobs:
        job_id = edgeadmm_db.job(stack.db_path, job).id
        uploads = [(u.round_id, u.device_id, u.payload)
                   for u in edgeadmm_db.uploads(stack.db_path, job_id)]
        if len(uploads) != a.rounds * a.cohort:
            fail(f"run {name}: job {job} stored {len(uploads)} uploads, "
                 f"expected {a.rounds * a.cohort}")
        if any(not u[1].startswith(PREFIXES[job]) for u in uploads):
            fail(f"run {name}: job {job} stored an upload of another job's "
                 "device")
        models = [r["z"].tobytes() for r in stack.rounds(job)]
        if len(models) != a.rounds:
            fail(f"run {name}: job {job} committed {len(models)} rounds")
        out[job] = (uploads, models)
    print(f"run {name}: {'+'.join(jobs)} completed, {expected} uploads "
          f"accepted ({totals['duplicate']} resent after a lost receipt), "
          f"{totals['transport_errors']} transport errors, "
          f"{totals['handshakes']} DTLS handshakes, "
          f"{task_answers(metrics)} task answers, "
          f"{seconds:.1f} s from the daemon's start", flush=True)
    if a.remove_state:
        shutil.rmtree(stack.state_dir, ignore_errors=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--per-job", type=int, default=6, help="N")
    p.add_argument("--rounds", type=int, default=3, help="R")
    p.add_argument("--cohort", type=int, default=None,
                   help="M, each job's fixed cohort (default: all N)")
    p.add_argument("--deadline", type=float, default=120,
                   help="each round's sampling.deadline_seconds")
    p.add_argument("--timeout", type=float, default=120,
                   help="seconds each run may take")
    p.add_argument("--fleet-parts", type=int, default=1,
                   help="fleet processes per run (--part I/K; split between "
                        "the jobs in the run with one fleet per job)")
    p.add_argument("--task-refresh-ms", type=int, default=0,
                   help="the devices' Observe refresh (0: the fleet's "
                        "default)")
    p.add_argument("--addresses", type=int, default=0,
                   help="loopback source addresses of each fleet process "
                        "(0: all from 127.0.0.1)")
    p.add_argument("--fleet-nice", type=int, default=0,
                   help="the fleet processes' nice value: on one machine "
                        "they would otherwise take most of the daemon's CPU")
    p.add_argument("--non-confirmable-notifications", action="store_true",
                   help="the daemon's server.non_confirmable_notifications "
                        "(at scale: docs/aggregator.md)")
    p.add_argument("--task-heartbeat-seconds", type=int, default=10,
                   help="the daemon's server.task_heartbeat_seconds")
    p.add_argument("--start-rate", type=float, default=2000)
    p.add_argument("--max-starting", type=int, default=64)
    p.add_argument("--remove-state", action="store_true",
                   help="remove each run's state once checked (disk)")
    a = p.parse_args()
    a.cohort = a.cohort or a.per_job
    shutil.rmtree(a.work_dir, ignore_errors=True)
    both = run(a, "both", ["alpha", "beta"], SEED)
    selected = run(a, "selectors", ["alpha", "beta"], SEED, selectors=True)
    for job in ("alpha", "beta"):
        alone = run(a, job, [job], SEED)[job]
        for label, shared in (("at once", both[job]),
                              ("with job=", selected[job])):
            if shared[0] != alone[0]:
                differ = sum(x != y for x, y in zip(shared[0], alone[0]))
                fail(f"job {job} {label}: {differ} uploads differ from its "
                     "run alone")
            if shared[1] != alone[1]:
                fail(f"job {job} {label}: its models differ from its run "
                     "alone")
    other = run(a, "other-seed", ["alpha"], OTHER_SEED)["alpha"]
    if other[1] == both["alpha"][1]:
        fail("another paired seed gave the same models: the check is blind")
    print(f"OK: 2 jobs x {a.rounds} rounds x {a.cohort} uploads of "
          f"{a.per_job} devices at once, "
          "each bit-identical to its run alone")


if __name__ == "__main__":
    main()
