#!/usr/bin/env python3
"""One job on the real daemon with firmware and Linux devices (issue 12).

With a host build of `edgeadmm` (CLI), `edgeadmm-aggregatord` and
`edgeadmm-fleet` in --host-bin (the cross build does not build them), in a
fresh state directory: enrols 3 firmware devices (mcu-00000..2) and 2 Linux
devices (lnx-00000..1), each with its own PSK, creates and starts one
prox-admm logistic job of dimension 3 and --rounds rounds (5) with σ = 0
(noise off: the devices run unaccounted steps), a fixed cohort seed and
m = m_min = --cohort (default 5: full participation; below 5 the seed picks
the cohorts and the firmware gets `sampled`), starts the daemon on
127.0.0.1, then at once

  * three QEMU boards (the firmware IMAGE, `dtls_daemon_test.cc`), each with
    its identity, PSK and its shard on the semihosting command line
    ("data=x1,x2,x3,y;..." in thousandths, and `noiseless`), and
  * `edgeadmm-fleet connect` for the two Linux devices (a PSK directory of
    their own; their shards are the halves of a LIBSVM file, in the fleet's
    even split over the sorted PSK file names).

Checks: every firmware exits 0 (its 3 gtest tests pass) and reports as many
uploads accepted as the database holds for it (5 with full participation, at
least 1 when sampled), no duplicate; the fleet exits 0; the job is
completed; every round committed with exactly one upload per (round, device)
of its cohort (all five devices, or m of them and not every round the same);
and the released model (`edgeadmm job export --round last`) equals the
reference within --tolerance (1e-5).

The reference is an independent numpy implementation of paper 002 Alg. 3 as
the SDK and daemon document it (prox_admm_step.h, docs/aggregator.md "Server
update"): per device x = prox_{γ f_i}(2z − u_i) with f_i the mean logistic
loss of its shard (Newton's method to a gradient norm of 1e-13), Δu_i =
2λ·Clip(x − z, C), u_i += Δu_i (float64), the upload rounded to float32 (the
wire), z rounded to float32 before the devices see it; the server's
ŝ += (1/n)·Σ_{i∈S} Δu_i over the round's participants S as the database
records them, n = 5 enrolled, z = ŝ/(1 + γ·l2). Each stored upload is also
compared with the reference's upload of that device and round.

The comparison has teeth: the same reference with one firmware record's
feature moved by 0.05 must differ from the released model by more than the
tolerance (checked every run); --perturb-firmware gives firmware device 0
that perturbed shard while the reference keeps the original: then the model
comparison must fail, and the model must equal the perturbed reference (the
test of the test).

  run_mixed_job.py --host-bin DIR [--rounds K] [--cohort M]
      [--perturb-firmware] -- RUNNER... IMAGE

Exits 77 (ctest: skipped) when the host programs are missing.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

# Stopping by pid; the CLI, the job and the daemon (same folder).
from run_with_coap_server import stop
from run_with_daemon import create_job, programs, run_cli, start_daemon
import edgeadmm_db  # noqa: E402 (tools/python: run_with_daemon adds it)
from edgeadmm_job_toml import fixed_cohort_job  # noqa: E402

SKIP = 77
QEMU_TIMEOUT_S = 240
JOB = "mcu-mixed"
DIM = 3
MCU = 3
LINUX = 2
RECORDS = 6  # per device
LAMBDA, GAMMA, CLIP, L2 = 0.5, 2.0, 0.5, 0.01


def job_toml(rounds, m):
    """The sigma = 0 prox-admm job of the mixed fleet (fixed cohort seed)."""
    return fixed_cohort_job(JOB, DIM, rounds, m, m, deadline_seconds=200,
                            l2=L2, lam=LAMBDA, gamma=GAMMA, clip=CLIP,
                            sigma=0.0, seed=20261125)


# The cohorts the daemon drew from seed 20261125 for m = 3 of the 5 sorted
# ids in 8 rounds (the same in every run): a changed draw shows here.
SAMPLED_COHORTS = [
    "lnx-00000 mcu-00001 mcu-00002", "lnx-00000 mcu-00001 mcu-00002",
    "mcu-00000 mcu-00001 mcu-00002", "lnx-00001 mcu-00000 mcu-00001",
    "lnx-00000 mcu-00000 mcu-00002", "mcu-00000 mcu-00001 mcu-00002",
    "lnx-00000 lnx-00001 mcu-00002", "lnx-00000 lnx-00001 mcu-00000"]


def fixed_data():
    """(features in thousandths (int), labels ±1), one block of RECORDS rows
    per device in enrolment order: mcu-0..2, then lnx-0..1."""
    rng = np.random.default_rng(12)
    n = RECORDS * (MCU + LINUX)
    milli = rng.integers(-1000, 1001, size=(n, DIM))
    truth = np.array([1.5, -2.0, 0.7])
    margin = milli / 1000 @ truth + 0.5 * rng.normal(size=n)
    labels = np.where(margin >= 0, 1, -1)
    return milli, labels


def shard_word(milli, labels):
    return "data=" + ";".join(
        ",".join(str(int(v)) for v in row) + f",{int(y) * 1000}"
        for row, y in zip(milli, labels))


def prox_logistic(a, b, v, step):
    """argmin_x mean_j log(1 + exp(-b_j a_j·x)) + ||x − v||²/(2 step)."""
    x = v.copy()
    m = len(b)
    for _ in range(100):
        t = a @ x
        s = 1 / (1 + np.exp(b * t))  # σ(−b t)
        grad = -(a.T @ (b * s)) / m + (x - v) / step
        if np.linalg.norm(grad) < 1e-13:
            break
        d = s * (1 - s)
        hess = (a.T * d) @ a / m + np.eye(len(x)) / step
        x = x - np.linalg.solve(hess, grad)
    return x


def f32(v):
    return np.asarray(v, dtype=np.float32).astype(np.float64)


def reference(shards, devices, cohorts, rounds):
    """Paper 002 Alg. 3 in numpy (module docstring). `shards[id]` = (A, b);
    `cohorts[k]` = the device ids of round k. Returns (z, uploads[(k, id)])."""
    n = len(devices)
    z = np.zeros(DIM)
    state = np.zeros(DIM)
    u = {d: np.zeros(DIM) for d in devices}
    uploads = {}
    for k in range(1, rounds + 1):
        z_wire = f32(z)
        total = np.zeros(DIM)
        for d in cohorts[k]:
            a, b = shards[d]
            x = prox_logistic(a, b, 2 * z_wire - u[d], GAMMA)
            delta = x - z_wire
            norm = np.linalg.norm(delta)
            if norm > CLIP:
                delta *= CLIP / norm
            delta *= 2 * LAMBDA
            u[d] = u[d] + delta
            uploads[(k, d)] = f32(delta)
            total += uploads[(k, d)]
        state = state + total / n
        z = state / (1 + GAMMA * L2)
    return z, uploads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host-bin", required=True)
    parser.add_argument("--tolerance", type=float, default=1e-5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cohort", type=int, default=MCU + LINUX,
                        help="m = m_min of the job (default all 5 devices "
                        "every round); below 5 the fixed seed picks them")
    parser.add_argument("--perturb-firmware", action="store_true",
                        help="firmware device 0 trains on a perturbed shard; "
                        "the reference keeps the original: the model "
                        "comparison must fail")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    ROUNDS = args.rounds
    sampled = args.cohort < MCU + LINUX
    runner, image, cli, daemon_bin = programs(parser, args)
    fleet_bin = os.path.join(args.host_bin, "tools", "fleet", "edgeadmm-fleet")
    for program in (cli, daemon_bin, fleet_bin):
        if not os.access(program, os.X_OK):
            print(f"SKIPPED: {program} is not built: build the host daemon, "
                  "CLI and fleet first (cmake --build --preset host-release "
                  "--target edgeadmm-aggregatord edgeadmm edgeadmm-fleet), or "
                  "set EDGEADMM_HOST_BUILD_DIR; scripts/test-targets does this")
            return SKIP

    milli, labels = fixed_data()
    mcu_ids = [f"mcu-{i:05d}" for i in range(MCU)]
    lnx_ids = [f"lnx-{i:05d}" for i in range(LINUX)]
    blocks = {d: slice(RECORDS * i, RECORDS * (i + 1))
              for i, d in enumerate(mcu_ids + lnx_ids)}
    shards = {d: (milli[s] / 1000, labels[s].astype(float))
              for d, s in blocks.items()}
    failures = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mcu-mixed-") as state:
        db = os.path.join(state, "aggregator.db")
        psk_dir = os.path.join(state, "psk")
        fleet_psk = os.path.join(state, "psk-linux")
        run_cli(cli, db, "devices", "add", "--count", str(MCU), "--prefix",
                "mcu-", "--psk-dir", psk_dir)
        run_cli(cli, db, "devices", "add", "--count", str(LINUX), "--prefix",
                "lnx-", "--psk-dir", fleet_psk)
        psks = {}
        for folder in (psk_dir, fleet_psk):
            for d in os.listdir(folder):
                with open(os.path.join(folder, d)) as f:
                    psks[d] = f.read().strip()
        if sorted(psks) != sorted(mcu_ids + lnx_ids):
            raise RuntimeError(f"enrolled {sorted(psks)}")
        # The Linux devices' shards: lnx-0's records, then lnx-1's (the
        # fleet splits the file evenly in sorted PSK-file order).
        libsvm = os.path.join(state, "linux.libsvm")
        with open(libsvm, "w") as f:
            for d in lnx_ids:
                for row, y in zip(milli[blocks[d]], labels[blocks[d]]):
                    items = " ".join(f"{j + 1}:{repr(v / 1000)}"
                                     for j, v in enumerate(row) if v != 0)
                    f.write(f"{'+1' if y > 0 else '-1'} {items}\n")
        job_id = create_job(cli, db, state, JOB,
                            job_toml(ROUNDS, args.cohort))
        daemon = start_daemon(daemon_bin, db, state)
        port = daemon.port
        boards, outputs = [], {}
        fleet = None
        try:
            print(f"daemon pid {daemon.pid} on 127.0.0.1:{port}; job {job_id}")
            for i, d in enumerate(mcu_ids):
                rows = milli[blocks[d]].copy()
                if args.perturb_firmware and i == 0:
                    rows[0, 0] += 50
                words = [str(port), d, psks[d], str(job_id),
                         shard_word(rows, labels[blocks[d]]), "noiseless"]
                if sampled:
                    words.append("sampled")
                command = (runner[:-1] + ["-nic", "user,model=lan9118",
                                          "-append", " ".join(words),
                                          "-kernel", image])
                out = open(os.path.join(state, f"{d}.log"), "w+")
                boards.append((d, subprocess.Popen(
                    command, stdout=out, stderr=subprocess.STDOUT), out))
                print(f"{d}: pid {boards[-1][1].pid}: {' '.join(command)}")
            fleet_argv = [fleet_bin, "connect", "--host", "127.0.0.1",
                          "--port", str(port), "--psk-dir", fleet_psk,
                          "--data", libsvm, "--dim", str(DIM),
                          "--allow-unaccounted-steps"]
            fleet_log = open(os.path.join(state, "fleet.log"), "w+")
            fleet = subprocess.Popen(fleet_argv, stdout=fleet_log,
                                     stderr=subprocess.STDOUT)
            print(f"fleet: pid {fleet.pid}: {' '.join(fleet_argv)}")
            sys.stdout.flush()
            deadline = time.monotonic() + QEMU_TIMEOUT_S
            for d, proc, out in boards:
                try:
                    proc.wait(timeout=max(1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                    failures.append(f"{d}: QEMU did not exit within "
                                    f"{QEMU_TIMEOUT_S} s (killed)")
                out.seek(0)
                outputs[d] = out.read()
                out.close()
            try:
                fleet.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                failures.append("the fleet did not exit")
            fleet_log.seek(0)
            fleet_out = fleet_log.read()
            fleet_log.close()
        finally:
            for d, proc, out in boards:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            if fleet is not None:
                stop(fleet)
            daemon_exit, clean = daemon.stop()  # exit 0 on SIGTERM
        elapsed = time.monotonic() - start
        daemon_log = daemon.log_text()
        rows = [(u.round_id, u.device_id, u.payload)
                for u in edgeadmm_db.uploads(db, job_id)]
        job_state = edgeadmm_db.job(db, JOB).state
        committed = edgeadmm_db.committed_round_ids(db, job_id)
        export = os.path.join(state, "model.json")
        run_cli(cli, db, "job", "export", JOB, "--format", "json", "--output",
                export, "--round", "last")
        with open(export) as f:
            model = json.load(f)

    for d, _, _ in boards:
        print(f"--- {d}\n{outputs.get(d, '')}")
    print(f"--- fleet\n{fleet_out}")
    # Every upload of every device once per round; the rounds' cohorts.
    cohorts, stored = {}, {}
    for round_id, device, payload in rows:
        if (round_id, device) in stored:
            failures.append(f"{device} stored twice in round {round_id}")
        stored[(round_id, device)] = np.array(
            struct.unpack(f"<{len(payload) // 4}f", payload))
        cohorts.setdefault(round_id, []).append(device)
    # Round ids are the job's; the reference counts rounds 1..ROUNDS.
    round_ids = sorted(cohorts)
    for d, proc, _ in boards:
        out = outputs.get(d, "")
        if proc.returncode != 0 or "3 passed, 0 failed" not in out:
            failures.append(f"{d}: exit status {proc.returncode}, expected 0 "
                            "and 3 passed")
        mine = sum(1 for (_, dev) in stored if dev == d)
        if f"uploads accepted {mine}, duplicate 0" not in out:
            failures.append(f"{d}: the firmware did not report 'uploads "
                            f"accepted {mine}, duplicate 0' (the database's "
                            "count)")
        if f"shard from the command line: {RECORDS} records" not in out:
            failures.append(f"{d}: did not train on its given shard")
    if fleet.returncode != 0:
        failures.append(f"the fleet exited {fleet.returncode}")
    if job_state != "completed":
        failures.append(f"the job is {job_state}, not completed")

    if committed != round_ids or len(round_ids) != ROUNDS:
        failures.append(f"committed rounds {committed}, rounds with uploads "
                        f"{round_ids}, expected {ROUNDS}")
    for d in mcu_ids:
        n = sum(1 for (_, dev) in stored if dev == d)
        if n != ROUNDS and not sampled:
            failures.append(f"{d}: {n} uploads stored, expected {ROUNDS}")
    for r in round_ids:
        if len(cohorts[r]) != args.cohort or (
                not sampled and sorted(cohorts[r]) != sorted(mcu_ids +
                                                             lnx_ids)):
            failures.append(f"round {r}: participants {sorted(cohorts[r])}")
    if sampled and len(round_ids) == ROUNDS:
        print("cohorts: " + "; ".join(
            f"{r}: {' '.join(sorted(cohorts[r]))}" for r in round_ids))
        if len({tuple(sorted(cohorts[r])) for r in round_ids}) < 2:
            failures.append("every round had the same cohort")
        drawn = [" ".join(sorted(cohorts[r])) for r in round_ids]
        if args.cohort == 3 and ROUNDS == 8 and drawn != SAMPLED_COHORTS:
            failures.append("the fixed seed drew other cohorts than in "
                            f"every earlier run: {drawn}")
    print(f"database: {len(rows)} uploads, {len(stored)} distinct (round, "
          f"device), rounds {round_ids}, job {job_state}")

    devices = sorted(mcu_ids + lnx_ids)
    released = np.array(model.get("z") or model.get("model") or [],
                        dtype=float)
    if len(round_ids) == ROUNDS and released.shape == (DIM,):
        ref_cohorts = {k + 1: sorted(cohorts[r])
                       for k, r in enumerate(round_ids)}
        z_ref, ref_uploads = reference(shards, devices, ref_cohorts, ROUNDS)
        diff = float(np.max(np.abs(released - z_ref)))
        up_diff = max(float(np.max(np.abs(
            stored[(r, d)] - ref_uploads[(k + 1, d)])))
            for k, r in enumerate(round_ids) for d in cohorts[r])
        mcu_up_diff = max(float(np.max(np.abs(
            stored[(r, d)] - ref_uploads[(k + 1, d)])))
            for k, r in enumerate(round_ids) for d in mcu_ids
            if (r, d) in stored)
        perturbed = {d: (a.copy(), b) for d, (a, b) in shards.items()}
        perturbed[mcu_ids[0]][0][0, 0] += 0.05
        z_bad, _ = reference(perturbed, devices, ref_cohorts, ROUNDS)
        teeth = float(np.max(np.abs(released - z_bad)))
        print(f"released model {released.tolist()} (iteration "
              f"{model.get('iteration')}), ||z|| = "
              f"{np.linalg.norm(released):.4f}")
        print(f"reference (numpy) {z_ref.tolist()}")
        print(f"max |released - reference| = {diff:.3g} (tolerance "
              f"{args.tolerance:g}); max |stored upload - reference upload| "
              f"= {up_diff:.3g} (firmware devices {mcu_up_diff:.3g})")
        print(f"reference with one firmware record perturbed by 0.05: max "
              f"|released - it| = {teeth:.3g}")
        if np.linalg.norm(released) < 0.05:
            failures.append("the model did not move: no check")
        model_ok = diff <= args.tolerance and up_diff <= args.tolerance
        if args.perturb_firmware:
            # The firmware had the perturbed shard: the model must differ
            # from the reference and equal the perturbed one.
            if model_ok:
                failures.append("firmware device 0 trained on a perturbed "
                                "shard, yet the model matched the reference")
            elif teeth > args.tolerance:
                failures.append("the model equals neither reference")
            else:
                print("as expected: the perturbed firmware shard makes the "
                      f"model differ from the reference ({diff:.3g}) and "
                      f"equal the perturbed reference ({teeth:.3g})")
        elif teeth <= args.tolerance:
            failures.append("a perturbed shard's reference is within the "
                            "tolerance: the comparison has no teeth")
        elif not model_ok:
            failures.append(f"the released model differs from the reference "
                            f"by {diff:.3g} (uploads by {up_diff:.3g}), "
                            f"above {args.tolerance:g}")
    else:
        failures.append(f"no model to compare (rounds {round_ids}, model "
                        f"keys {sorted(model)})")
    if not clean:
        failures.append(f"the daemon did not stop cleanly ({daemon_exit})")
    print(f"mixed job: {MCU} firmware + {LINUX} Linux devices, {ROUNDS} "
          f"rounds in {elapsed:.1f} s")
    if failures:
        print("--- daemon log (tail)")
        print(daemon_log[-4000:])
        for f in failures:
            print("FAILED: " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
