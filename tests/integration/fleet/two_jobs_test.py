#!/usr/bin/python3
"""Two jobs at once on one daemon, each equal to itself run alone.

Real stack on loopback (daemon, `edgeadmm-fleet connect` over DTLS), three
times in fresh databases with the same setup: 12 devices, job alpha created
while the even ones of d-00000..d-00011 were the enabled devices and job
beta while the odd ones were (so each job has its own six), both prox-admm
jobs of 3 rounds with a fixed cohort of all six and device noise sigma = 5,
the fleet's noise from one paired seed. Run "both" starts both jobs
together with one fleet (the gateway picks each device's job); run
"selectors" the same with one fleet per job whose devices send the
Uri-Query job=<name> (`--job`); runs "alpha" and "beta" start one. Checked: both jobs completed in the
shared run with every upload accepted (the fleet's 36 accepted at first
try, none stale, duplicate or rejected; 3 x 6 stored per job); each job's stored uploads and every committed model z in both shared
runs are bit for bit those of its run alone; and a run with another seed differs (the
comparison can fail).
"""

import os
import sys
import time

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

ROUNDS = 3
PER_JOB = 6
SEED = "00112233445566778899aabbccddeeff"
OTHER_SEED = "ffeeddccbbaa99887766554433221100"


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def setup(stack):
    """Both jobs created, each over its own six devices (alpha the even
    ones of d-00000..d-00011, beta the odd ones); none started. Returns
    {job: its devices}."""
    devices = stack.enroll(2 * PER_JOB, prefix="d-")
    groups = {"alpha": devices[0::2], "beta": devices[1::2]}
    # Each job enrols the devices enabled when it is created.
    for job, other in (("alpha", "beta"), ("beta", "alpha")):
        for device in groups[other]:
            stack.run_cli("devices", "disable", device)
        stack.create_job(job, es.device_test_job(
            job, ROUNDS, m=PER_JOB, m_min=PER_JOB, deadline_seconds=120,
            seed=11), start=False)
        for device in groups[other]:
            stack.run_cli("devices", "enable", device)
    return groups


def run(a, name, jobs, seed, selectors=False):
    """Starts `jobs` together; returns {job: (uploads, models)}. With
    `selectors`, one fleet per job runs that job's devices with
    `--job <name>` (the Uri-Query), else one fleet runs all twelve and the
    gateway picks each device's job."""
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, name))
    setup(stack)
    fleet_args = ["--data", a.data, "--dim", "123", "--epsilon-budget",
                  "1000", "--unsafe-paired-seed", seed]
    try:
        stack.start_daemon()
        for job in jobs:
            stack.start_job(job)
        if not selectors:
            stack.start_fleet(fleet_args)
        for part, job in enumerate(jobs if selectors else []):
            # --part I/2 runs the devices of index I mod 2 (this job's six)
            # with the data shards they have in one fleet of twelve.
            stack.start_fleet(fleet_args + ["--job", job, "--part",
                                            f"{part}/2"])
        # Not Stack.follow: a fleet of one job exits when its job ends,
        # while the other job runs on.
        deadline = time.monotonic() + 120
        while any(stack.job_state(j) not in es.FINISHED_STATES
                  for j in jobs):
            if stack.daemon is not None and stack.daemon.poll() is not None:
                fail(f"run {name}: the daemon exited; see daemon.log")
            if time.monotonic() > deadline:
                fail(f"run {name}: jobs still running after 120 s")
            time.sleep(0.5)
        for job in jobs:
            if stack.job_state(job) != "completed":
                fail(f"run {name}: job {job} {stack.job_state(job)}: "
                     f"{stack.end_reason(job)}")
        # A fleet per job sees its job end and exits (its summary counts).
        for fleet in stack.fleets if selectors else []:
            fleet.wait(timeout=60)
    except es.StackError as e:
        fail(f"run {name}: {e}")
    finally:
        stack.stop()
    totals = es.fleet_totals(stack.state_dir)
    expected = ROUNDS * PER_JOB * len(jobs)
    if totals is None or totals["accepted"] != expected or any(
            totals[k] for k in ("duplicate", "stale", "rejected")):
        fail(f"run {name}: the fleet's uploads: {totals} (expected "
             f"{expected} accepted, none refused)")
    out = {}
    for job in jobs:
        job_id = edgeadmm_db.job(stack.db_path, job).id
        uploads = [(u.round_id, u.device_id, u.payload)
                   for u in edgeadmm_db.uploads(stack.db_path, job_id)]
        if len(uploads) != ROUNDS * PER_JOB:
            fail(f"run {name}: job {job} stored {len(uploads)} uploads, "
                 f"expected {ROUNDS * PER_JOB}")
        models = [r["z"].tobytes() for r in stack.rounds(job)]
        if len(models) != ROUNDS:
            fail(f"run {name}: job {job} committed {len(models)} rounds")
        out[job] = (uploads, models)
    return out


def main():
    a, _, _ = es.device_process_test(__doc__.split("\n")[0])
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
    print(f"OK: 2 jobs x {ROUNDS} rounds x {PER_JOB} uploads at once, each "
          "bit-identical to its run alone")


if __name__ == "__main__":
    main()
