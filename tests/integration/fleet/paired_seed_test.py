#!/usr/bin/python3
"""Paired-seed runs are paired: `edgeadmm-fleet connect --unsafe-paired-seed`.

Real stack on loopback, three times in fresh databases: 12 enrolled devices,
a prox-admm job of 3 rounds with a fixed cohort of 8 drawn from
`sampling.seed` and device noise sigma = 5, the daemon and one fleet whose
devices seed their DRBGs from the paired seed. Runs A and B use the same
seed, run C another. Checked: the fleet warned that the option is unsafe;
A and B stored the same uploads bit for bit (every (round, device, payload)
row); C stored uploads for the same (round, device) pairs (the cohorts
come from sampling.seed) but every payload differs from A's (the noise
comes from the paired seed), so the comparison would see a difference.
"""

import os
import sys

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

JOB = "paired"
ROUNDS = 3
DEVICES = 12
COHORT = 8
SEED_AB = "00112233445566778899aabbccddeeff"
SEED_C = "ffeeddccbbaa99887766554433221100"


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(a, name, seed):
    """One run with paired seed `seed`: its stored uploads."""
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, name))
    stack.enroll(DEVICES)
    toml = es.device_test_job(JOB, ROUNDS, m=COHORT, m_min=COHORT,
                              deadline_seconds=120, seed=11)
    error = stack.run_to_end(JOB, toml, [
        "--data", a.data, "--dim", "123", "--epsilon-budget", "1000",
        "--unsafe-paired-seed", seed], 240)
    if error:
        fail(f"run {name}: {error}")
    with open(stack.fleet_file(0, "log")) as f:
        if "WARNING: --unsafe-paired-seed: UNSAFE" not in f.read():
            fail(f"run {name}: the fleet did not warn")
    uploads = edgeadmm_db.uploads(stack.db_path)
    if len(uploads) != ROUNDS * COHORT:
        fail(f"run {name}: {len(uploads)} uploads, expected "
             f"{ROUNDS * COHORT}")
    return [(u.round_id, u.device_id, u.payload) for u in uploads]


def main():
    a, _, _ = es.device_process_test(__doc__.split("\n")[0])
    first = run(a, "a", SEED_AB)
    second = run(a, "b", SEED_AB)
    other = run(a, "c", SEED_C)
    if first != second:
        differ = sum(x != y for x, y in zip(first, second))
        fail(f"same seed: {differ} of {len(first)} uploads differ")
    keys = [(r, d) for r, d, _ in first]
    if [(r, d) for r, d, _ in other] != keys:
        fail("another paired seed changed the cohorts")
    same = sum(x[2] == y[2] for x, y in zip(first, other))
    if same != 0:
        fail(f"another seed: {same} of {len(first)} uploads unchanged")
    print(f"OK: {len(first)} uploads bit-identical under one paired seed, "
          f"all {len(other)} different under another")


if __name__ == "__main__":
    main()
