#!/usr/bin/python3
"""Two jobs at once on one daemon, each equal to itself run alone.

Real stack on loopback (daemon, `edgeadmm-fleet connect` over DTLS), three
times in fresh databases with the same setup: 12 devices, job alpha created
while a-00000..a-00005 were the enabled devices and job beta while
b-00000..b-00005 were (so each job has its own six), both prox-admm jobs of
3 rounds with a fixed cohort of all six and device noise sigma = 5, the
fleet's noise from one paired seed. Run "both" starts both jobs together;
runs "alpha" and "beta" start one. Checked: both jobs completed in the
shared run with every upload accepted (the fleet's 36 accepted at first
try, none stale, duplicate or rejected; 3 x 6 stored per job); each job's stored uploads and every committed model z are bit for
bit those of its run alone; and a run with another seed differs (the
comparison can fail).
"""

import os
import sys

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
    """Both jobs created, each over its own six devices; none started."""
    groups = {}
    for job in ("alpha", "beta"):
        prefix = f"{job[0]}-"
        groups[job] = stack.enroll(PER_JOB, prefix=prefix)
    # Each job enrols the devices enabled when it is created.
    for job, other in (("alpha", "beta"), ("beta", "alpha")):
        for device in groups[other]:
            stack.run_cli("devices", "disable", device)
        stack.create_job(job, es.device_test_job(
            job, ROUNDS, m=PER_JOB, m_min=PER_JOB, deadline_seconds=120,
            seed=11), start=False)
        for device in groups[other]:
            stack.run_cli("devices", "enable", device)


def run(a, name, jobs, seed):
    """Starts `jobs` together; returns {job: (uploads, models)}."""
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, name))
    setup(stack)
    try:
        stack.start_daemon()
        for job in jobs:
            stack.start_job(job)
        stack.start_fleet(["--data", a.data, "--dim", "123",
                           "--epsilon-budget", "1000",
                           "--unsafe-paired-seed", seed])
        for job in jobs:
            final = stack.follow(job, lambda row: None, 120)
            if final != "completed":
                fail(f"run {name}: job {job} {final}: "
                     f"{stack.end_reason(job)}")
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
    for job in ("alpha", "beta"):
        alone = run(a, job, [job], SEED)[job]
        if both[job][0] != alone[0]:
            differ = sum(x != y for x, y in zip(both[job][0], alone[0]))
            fail(f"job {job}: {differ} uploads differ from its run alone")
        if both[job][1] != alone[1]:
            fail(f"job {job}: its models differ from its run alone")
    other = run(a, "other-seed", ["alpha"], OTHER_SEED)["alpha"]
    if other[1] == both["alpha"][1]:
        fail("another paired seed gave the same models: the check is blind")
    print(f"OK: 2 jobs x {ROUNDS} rounds x {PER_JOB} uploads at once, each "
          "bit-identical to its run alone")


if __name__ == "__main__":
    main()
