#!/usr/bin/env python3
"""One secure-aggregation job on the real daemon, firmware and Linux devices
together (issue 33).

With a host build of `edgeadmm` (CLI), `edgeadmm-aggregatord` and
`edgeadmm-device` in --host-bin, in a fresh state directory: enrols one
firmware device (mcu-00000) and --linux Linux devices (lnx-00000..), each
with its own PSK; creates and starts a prox-admm logistic job of dimension 3
under privacy.policy = "secure-aggregation" (DDG noise split over the
cohort, SecAgg+ with one tolerated dropout), --rounds rounds, a fixed cohort
of every device (m = n, m_min = n - 1); writes the firmware's provisioning
blob (examples/cortex_m4_device/make_provisioning_blob.py) in the state
directory, starts the daemon on 127.0.0.1, then at once

  * QEMU with IMAGE (the reference firmware built with secure rounds,
    example_cortex_m4_device_secure: a StaticDeviceClient whose shape opts
    in, its phase state in the board's flash model, a file of the state
    directory), and
  * `edgeadmm-device --secagg-neighbours 4` for each
    Linux device, its own shard (LIBSVM) and state directory.

It waits for every process to exit (QEMU within QEMU_TIMEOUT_S) and checks:
the firmware exits 0 with "job done 1: steps R, uploads accepted R" (every
secure round joined, its answer accepted) and a positive local epsilon (its
own DDG noise charged); every Linux device exits 0; the job is completed;
R rounds committed, each with n participants (the firmware's masked input
is in every sum); and the daemon's ledger has a local row for the firmware
device in every committed round, like every Linux device's.

--reboot: the firmware's first boot ends as a power cut once its client
enters its first secure round ("cut-in-round": the round's input and phase
state are in the board's flash); the second boot, on the same flash, must
resume that round: it reports steps R - 1 and uploads accepted R (the cut
round answered without a new step), and every check above holds.

--expect-failure inverts the outcome: with the plain reference image (no
secure rounds: the firmware refuses the task as UNIMPLEMENTED) the checks
must fail (the test of the test).

  run_secure_mixed_job.py --host-bin DIR --provision TOOL [--linux L]
      [--rounds R] [--reboot] [--expect-failure] -- RUNNER... IMAGE

Exits 77 (ctest: skipped) when the host programs are missing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

from run_with_coap_server import stop
from run_with_daemon import create_job, programs, run_cli, start_daemon
import edgeadmm_db  # noqa: E402 (tools/python: run_with_daemon adds it)
from edgeadmm_job_toml import job_toml  # noqa: E402

SKIP = 77
QEMU_TIMEOUT_S = 240
JOB = "mcu-secure"
DIM = 3
RECORDS = 6  # per Linux device
K = 4  # the devices' most secure-round neighbours (the firmware's shape's)


def secure_job_toml(rounds, n):
    """prox-admm under secure aggregation, every device each round."""
    return job_toml(
        job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
             "dimension": DIM, "rounds": rounds},
        regularizer={"kind": "l2", "l2": 0.01},
        step={"lambda": 0.5, "gamma": 2.0},
        privacy={"policy": "secure-aggregation", "clip": 1.0,
                 "target_epsilon": 8.0, "delta": 1e-5,
                 "central_budget": 1000.0, "device_budget": 1000.0},
        sampling={"scheme": "fixed", "m": n, "m_min": n - 1,
                  "deadline_seconds": 120, "seed": 20261130},
        secure_aggregation={"dropouts": 1, "phase_seconds": 20})


def write_shard(path, seed):
    rng = np.random.default_rng(seed)
    truth = np.array([1.5, -2.0, 0.7])
    with open(path, "w") as f:
        for _ in range(RECORDS):
            x = rng.uniform(-1, 1, size=DIM)
            y = "+1" if x @ truth + 0.3 * rng.normal() >= 0 else "-1"
            f.write(y + " " + " ".join(f"{j + 1}:{v:.4f}"
                                       for j, v in enumerate(x)) + "\n")


def check(args, run, linux, linux_logs, db, n):
    """The failures of the run (module docstring)."""
    failures = []
    out = run.get("stdout", "")
    done = re.search(r"job done (\d): steps (\d+), uploads accepted (\d+)",
                     out)
    if run.get("returncode") != 0:
        failures.append(f"the firmware exited {run.get('returncode')}")
    if f"secure rounds: k {K}," not in out:
        failures.append("the image does not join secure rounds")
    steps = args.rounds - 1 if args.reboot else args.rounds
    if not done or done.groups() != ("1", str(steps), str(args.rounds)):
        failures.append("the firmware did not report 'job done 1: steps "
                        f"{steps}, uploads accepted {args.rounds}'")
    if args.reboot and "power cut in a secure round (phase 2" not in run.get(
            "first", ""):
        failures.append("the first boot did not stop in a secure round")
    eps = re.search(r"local epsilon spent ([0-9.e+-]+)", out)
    if not eps or not float(eps.group(1)) > 0:
        failures.append("the firmware's ledger charged nothing")
    # The same job and rounds: the Linux devices' own charge (printed to
    # 4 significant digits) is the firmware's.
    for d, text in linux_logs.items():
        last = re.findall(r"local epsilon ([0-9.e+-]+) at delta", text)
        if eps and (not last or abs(float(last[-1]) - float(eps.group(1)))
                    > 1e-3 * float(last[-1])):
            failures.append(f"{d} charged {last[-1:]} , the firmware "
                            f"{eps.group(1)}")
    for d, code in linux.items():
        if code != 0:
            failures.append(f"{d} exited {code}")
    state = edgeadmm_db.job(db, JOB).state
    if state != "completed":
        failures.append(f"the job is {state}, not completed")
    rounds = [r for r in edgeadmm_db.round_states(db, JOB)
              if r[1] == "committed"]
    if len(rounds) != args.rounds:
        failures.append(f"{len(rounds)} committed rounds, expected "
                        f"{args.rounds}: {edgeadmm_db.round_states(db, JOB)}")
    for round_id, _, participants in rounds:
        charged = edgeadmm_db.local_ledger_devices(db, JOB, round_id)
        print(f"round {round_id}: {participants} participants, local "
              f"ledger rows {charged}")
        if participants != n:
            failures.append(f"round {round_id}: {participants} "
                            f"participants, expected {n}")
        if "mcu-00000" not in charged or len(charged) != n:
            failures.append(f"round {round_id}: local charges {charged}")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host-bin", required=True)
    parser.add_argument("--provision", required=True,
                        help="make_provisioning_blob.py")
    parser.add_argument("--linux", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reboot", action="store_true")
    parser.add_argument("--expect-failure", action="store_true")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    runner, image, cli, daemon_bin = programs(parser, args)
    device_bin = os.path.join(args.host_bin, "examples", "device_linux",
                              "edgeadmm-device")
    for program in (cli, daemon_bin, device_bin):
        if not os.access(program, os.X_OK):
            print(f"SKIPPED: {program} is not built: build the host daemon, "
                  "CLI and device first (cmake --build --preset host-release "
                  "--target edgeadmm-aggregatord edgeadmm edgeadmm-device), "
                  "or set EDGEADMM_HOST_BUILD_DIR")
            return SKIP
    n = 1 + args.linux
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mcu-secure-") as state:
        db = os.path.join(state, "aggregator.db")
        mcu_psk = os.path.join(state, "psk-mcu")
        lnx_psk = os.path.join(state, "psk-linux")
        run_cli(cli, db, "devices", "add", "--count", "1", "--prefix",
                "mcu-", "--psk-dir", mcu_psk)
        run_cli(cli, db, "devices", "add", "--count", str(args.linux),
                "--prefix", "lnx-", "--psk-dir", lnx_psk)
        with open(os.path.join(mcu_psk, "mcu-00000")) as f:
            psk = f.read().strip()
        job_id = create_job(cli, db, state, JOB,
                            secure_job_toml(args.rounds, n))
        daemon = start_daemon(daemon_bin, db, state)
        port = daemon.port
        subprocess.run([sys.executable, args.provision, "--identity",
                        "mcu-00000", "--psk", psk, "--port", str(port),
                        os.path.join(state, "provision.bin")], check=True)
        devices, run, linux, logs = [], {}, {}, {}
        board = None
        try:
            print(f"daemon pid {daemon.pid} on 127.0.0.1:{port}; job {job_id}")
            def boot(word):
                command = (runner[:-1] + ["-nic", "user,model=lan9118",
                                          "-append", word, "-kernel", image])
                log = open(os.path.join(state, "mcu.log"), "w+")
                proc = subprocess.Popen(command, stdout=log,
                                        stderr=subprocess.STDOUT, cwd=state)
                print(f"mcu-00000: pid {proc.pid}: {' '.join(command)}")
                return proc, log
            board, board_log = boot("cut-in-round" if args.reboot else "-")
            for i in range(args.linux):
                d = f"lnx-{i:05d}"
                shard = os.path.join(state, f"{d}.libsvm")
                write_shard(shard, 100 + i)
                home = os.path.join(state, d)
                os.makedirs(home)
                argv = [device_bin, "--identity", d, "--psk-file",
                        os.path.join(lnx_psk, d), "--data", shard,
                        "--state-dir", home, "--host", "127.0.0.1",
                        "--port", str(port), "--dim", str(DIM),
                        "--secagg-neighbours", str(K),
                        "--epsilon-budget", "1000", "--timeout-s",
                        str(QEMU_TIMEOUT_S)]
                logs[d] = open(os.path.join(state, f"{d}.log"), "w+")
                devices.append((d, subprocess.Popen(
                    argv, stdout=logs[d], stderr=subprocess.STDOUT)))
                print(f"{d}: pid {devices[-1][1].pid}: {' '.join(argv)}")
            sys.stdout.flush()
            deadline = time.monotonic() + QEMU_TIMEOUT_S
            try:
                board.wait(timeout=max(1, deadline - time.monotonic()))
                if args.reboot:  # the same flash file (cwd = state)
                    board_log.seek(0)
                    run["first"] = board_log.read()
                    board_log.close()
                    print(f"--- mcu-00000, first boot (exit "
                          f"{board.returncode})\n{run['first']}")
                    board, board_log = boot("-")
                    board.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"QEMU did not exit within {QEMU_TIMEOUT_S} s")
            for d, proc in devices:
                try:
                    linux[d] = proc.wait(
                        timeout=max(1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    linux[d] = "no exit (stopped)"
        finally:
            if board is not None and board.poll() is None:
                board.kill()
                board.wait()
            for d, proc in devices:
                if proc.poll() is None:
                    stop(proc)
            daemon_exit, clean = daemon.stop()
        if board is not None:
            board_log.seek(0)
            run.update(stdout=board_log.read(), returncode=board.returncode)
            board_log.close()
        print(f"--- mcu-00000 (exit {run.get('returncode')})\n"
              f"{run.get('stdout', '')}")
        linux_logs = {}
        for d, f in logs.items():
            f.seek(0)
            linux_logs[d] = f.read()
            f.close()
            print(f"--- {d} (exit {linux.get(d)})\n{linux_logs[d][-1500:]}")
        failures = check(args, run, linux, linux_logs, db, n)
        daemon_log = daemon.log_text()
    if not clean:
        failures.append(f"the daemon did not stop cleanly ({daemon_exit})")
    print(f"secure job: 1 firmware + {args.linux} Linux devices, "
          f"{args.rounds} rounds in {time.monotonic() - start:.1f} s")
    for f in failures:
        print(("as expected: " if args.expect_failure else "FAILED: ") + f)
    if args.expect_failure:
        if not failures:
            print("FAILED: expected the checks to fail")
            return 1
        return 0
    if failures:
        print("--- daemon log (tail)\n" + daemon_log[-4000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
