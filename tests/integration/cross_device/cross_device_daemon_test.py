#!/usr/bin/python3
"""A cross-built edgeadmm-device (libcoap + Mbed TLS, e.g. armhf under
qemu-arm) trains in a job served by the real daemon (libcoap + OpenSSL) of
a host build: DTLS-PSK across two TLS stacks and two architectures.

The `edgeadmm` CLI of the host build enrols two devices and creates a
3-round paper 002 job (both devices every round); `edgeadmm-aggregatord`
serves it on 127.0.0.1; both devices run the cross-built binary (the command
after `--`, e.g. `qemu-arm -L /usr/arm-linux-gnueabihf edgeadmm-device`)
until the job completes. Checks: both exit 0 with 3 uploads accepted, the
job is completed, the database holds 6 uploads (each device once per round)
and passes its consistency checks. Then a third run with a wrong PSK must
fail and store nothing (so the test can fail).

--secure: four devices (--secagg-neighbours 4) in a
2-round prox-admm job under privacy.policy = "secure-aggregation" (SecAgg+
with X25519, HKDF-SHA256 and AES-CCM from the device's Mbed TLS, the
distributed discrete Gaussian): each exits 0 with 2 uploads accepted, the
job completes, both rounds commit with all 4 and every device has a local
ledger row for each (its own DDG noise charged).

Exits 77 (ctest: skipped) when the host programs are not built; the cross
presets' scripts/test-targets builds them first.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es
from edgeadmm_job_toml import job_toml

SKIP = 77
JOB = "cross-device"
ROUNDS = 3
TOML = es.device_test_job(JOB, ROUNDS, m=2, m_min=2, deadline_seconds=120)
ACCEPTED = re.compile(r"uploads accepted (\d+)")
SECURE_DEVICES = 4
SECURE_ROUNDS = 2
SECURE_TOML = job_toml(
    job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
         "dimension": 123, "rounds": SECURE_ROUNDS},
    regularizer={"kind": "l2", "l2": 0.01},
    step={"lambda": 0.5, "gamma": 1.0},
    privacy={"policy": "secure-aggregation", "clip": 1.0,
             "target_epsilon": 8.0, "delta": 1e-5, "central_budget": 1000.0,
             "device_budget": 1000.0},
    sampling={"scheme": "fixed", "m": SECURE_DEVICES,
              "m_min": SECURE_DEVICES - 1, "deadline_seconds": 120,
              "seed": 20261202},
    secure_aggregation={"dropouts": 1, "phase_seconds": 30})


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def device_argv(device_cmd, stack, device, psk_file, data, first, state):
    return device_cmd + [
        "--host", "127.0.0.1", "--port", str(stack.port), "--identity",
        device, "--psk-file", psk_file, "--data", data, "--dim", "123",
        "--first", str(first), "--count", "200", "--state-dir", state,
        "--epsilon-budget", "1000", "--timeout-s", "150"]


def uploads_stored(stack, device=None):
    counts = dict(edgeadmm_db.upload_counts(stack.db_path))
    return sum(counts.values()) if device is None else counts.get(device, 0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host-bin", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--secure", action="store_true",
                   help="a secure-aggregation job of 3 devices")
    p.add_argument("device_cmd", nargs="+",
                   help="after --: emulator and cross-built edgeadmm-device")
    a = p.parse_args()
    for program in (("aggregator", "daemon", "edgeadmm-aggregatord"),
                    ("aggregator", "cli", "edgeadmm")):
        if not os.access(os.path.join(a.host_bin, *program), os.X_OK):
            print(f"SKIP: {os.path.join(a.host_bin, *program)} is not built; "
                  "build the host preset first (scripts/test-targets does)")
            return SKIP
    with tempfile.TemporaryDirectory(prefix="cross-device-") as work:
        stack = es.Stack(a.host_bin, os.path.join(work, "stack"))
        try:
            count = SECURE_DEVICES if a.secure else 2
            rounds = SECURE_ROUNDS if a.secure else ROUNDS
            devices = stack.enroll(count)
            stack.create_job(JOB, SECURE_TOML if a.secure else TOML)
            stack.start_daemon()
            procs = []
            for i, device in enumerate(devices):
                argv = device_argv(a.device_cmd, stack, device,
                                   os.path.join(stack.psk_dir, device),
                                   a.data, 200 * i,
                                   os.path.join(work, f"state-{i}"))
                if a.secure:
                    argv += ["--secagg-neighbours", "4"]
                procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE,
                                              stderr=subprocess.STDOUT,
                                              text=True))
            for device, proc in zip(devices, procs):
                out, _ = proc.communicate(timeout=180)
                print(out, end="")
                accepted = ACCEPTED.findall(out)
                if proc.returncode != 0:
                    fail(f"{device} exited {proc.returncode}")
                if not accepted or int(accepted[-1]) != rounds:
                    fail(f"{device}: expected {rounds} uploads accepted, "
                         f"got {accepted[-1] if accepted else 'none'}")
            if stack.job_state(JOB) != "completed":
                fail(f"job state {stack.job_state(JOB)}, expected completed")
            if a.secure:
                check_secure_rounds(stack, devices)
                summary = (f"{SECURE_DEVICES} cross-built devices committed "
                           f"{SECURE_ROUNDS} secure-aggregation rounds with "
                           "the host daemon")
            else:
                check_uploads_and_wrong_psk(a, stack, devices, work)
                summary = (f"2 cross-built devices trained {ROUNDS} rounds "
                           "with the host daemon over DTLS-PSK; a wrong PSK "
                           "was refused")
        except BaseException:
            stack.stop()
            raise
        return finish(stack, summary)


def check_uploads_and_wrong_psk(a, stack, devices, work):
    """Each device's uploads stored; a wrong PSK refused, nothing stored."""
    for device in devices:
        if uploads_stored(stack, device) != ROUNDS:
            fail(f"{device}: {uploads_stored(stack, device)} uploads "
                 f"stored, expected {ROUNDS}")

    # The same binary with a wrong key: the handshake must fail and
    # nothing be stored.
    before = uploads_stored(stack)
    wrong = os.path.join(work, "wrong.psk")
    with open(os.path.join(stack.psk_dir, devices[0])) as f:
        key = f.read()  # hex text
    with open(wrong, "w") as f:
        f.write(("1" if key[0] == "0" else "0") + key[1:])
    os.chmod(wrong, 0o600)
    argv = device_argv(a.device_cmd, stack, devices[0], wrong, a.data,
                       0, os.path.join(work, "state-wrong"))
    argv[argv.index("--timeout-s") + 1] = "20"
    done = subprocess.run(argv, capture_output=True, text=True,
                          timeout=60)
    # 1 (error) or 4 (timeout), not 0 and not a usage error (2).
    if done.returncode not in (1, 4):
        fail(f"a device with a wrong PSK exited {done.returncode}: "
             f"{done.stdout[-300:]}{done.stderr[-300:]}")
    if uploads_stored(stack) != before:
        fail("a device with a wrong PSK stored an upload")


def check_secure_rounds(stack, devices):
    """Both rounds committed with every device, each charged locally."""
    rounds = [r for r in edgeadmm_db.round_states(stack.db_path, JOB)
              if r[1] == "committed"]
    if len(rounds) != SECURE_ROUNDS:
        fail(f"{len(rounds)} committed rounds, expected {SECURE_ROUNDS}: "
             f"{edgeadmm_db.round_states(stack.db_path, JOB)}")
    for round_id, _, participants in rounds:
        charged = edgeadmm_db.local_ledger_devices(stack.db_path, JOB,
                                                   round_id)
        print(f"round {round_id}: {participants} participants, local ledger "
              f"rows {charged}")
        if participants != len(devices) or sorted(charged) != sorted(devices):
            fail(f"round {round_id}: {participants} participants, ledger "
                 f"rows {charged}, expected all of {devices}")


def finish(stack, summary):
    """Stops the stack, checks the daemon's exit and the database."""
    stopped = stack.stop()
    problems = stack.check_database()
    if problems or not stopped["daemon"][1]:
        fail(f"daemon shutdown {stopped['daemon']}, database {problems}")
    print(f"OK: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
