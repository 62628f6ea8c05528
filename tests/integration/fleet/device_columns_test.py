#!/usr/bin/python3
"""edgeadmm-device --columns: two standalone device processes run an
admm-sharing job (papers 000/003) as the two parties of a vertical partition.

Real stack on loopback: the `edgeadmm` CLI enrolls two devices and creates an
admm-sharing job (rigorous noise: the device program takes accounted steps
only) over the first 200 a9a records (party 0 = dev-00000 = the first 66
columns, party 1 = dev-00001 = the remaining 57; labels at the
gateway, read from the same file), `edgeadmm-aggregatord` serves it over
CoAP/DTLS-PSK and two `edgeadmm-device` processes run it with
`--columns 0:66 --count 200` and `--columns 66:57 --count 200`; party 0 is
a streaming party on the SDK's transport (`--transport sdk --stream-rows
64`: its N-vectors go through in 64-row blocks), party 1 holds them whole
on libcoap:
1. both exit 0 (job finished) and the job is completed with every round
   committed by both parties (the barrier);
2. the training objective of the released state fell: the gateway's z
   differs from 0 and the last round's broadcast residual is small;
3. a block outside the file (--columns 100:57) is refused before anything
   starts, naming the option;
4. the scoring phase with standalone devices: each also holds its block of
   the first 100 a9a.t records (`--test-data a9a.t.xz --test-count 100`),
   uploads their Gaussian partial scores with its last share, and
   `edgeadmm job status` shows the gateway's stored test score.
"""

import os
import re
import subprocess
import sys

import numpy as np

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)

JOB = "columns-check"
RECORDS = 200
ROUNDS = 8
TEST_RECORDS = 100


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def job_toml(labels, test_labels):
    return es.sharing_job_toml(
        JOB, ROUNDS, [66, 57], RECORDS, 4e-4, 1e-2, labels,
        deadline_seconds=60, noise="rigorous", sigma=1e-2, sensitivity=1e-3,
        target_delta=1e-5, test_labels=test_labels,
        test_records=TEST_RECORDS, score_noise="gaussian", score_sigma=1e-2,
        score_sensitivity=1e-3)


def device_argv(binary, stack, device, data, test, state_dir, columns):
    return [binary, "--host", "127.0.0.1", "--port", str(stack.port),
            "--identity", device, "--psk-file",
            os.path.join(stack.psk_dir, device), "--data", data, "--dim",
            "123", "--first", "0", "--count", str(RECORDS), "--columns",
            columns, "--test-data", test, "--test-count", str(TEST_RECORDS),
            "--state-dir", state_dir, "--epsilon-budget", "inf",
            "--timeout-s", "120"]


def main():
    a, device_bin, stack = es.device_process_test()
    try:
        devices = stack.enroll(2)
        test = os.path.join(os.path.dirname(os.path.abspath(a.data)),
                            "a9a.t.xz")
        stack.create_job(JOB, job_toml(os.path.abspath(a.data), test))
        stack.start_daemon()
        # 3. a block that leaves the file is refused before any exchange.
        bad = subprocess.run(
            device_argv(device_bin, stack, devices[0], a.data, test,
                        os.path.join(a.work_dir, "bad"), "100:57"),
            capture_output=True, text=True, timeout=120)
        if bad.returncode != 1 or "--columns 100:57" not in bad.stderr:
            fail(f"--columns 100:57 exited {bad.returncode}: {bad.stderr}")
        # 1. the two parties, each its own process and column block.
        procs = []
        parties = zip(devices, ("0:66", "66:57"),
                      (["--transport", "sdk", "--stream-rows", "64"], []))
        for device, columns, extra in parties:
            argv = device_argv(device_bin, stack, device, a.data, test,
                               os.path.join(a.work_dir, device), columns)
            argv[1:1] = extra
            procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT,
                                          text=True))
        outputs = []
        for proc in procs:
            out, _ = proc.communicate(timeout=300)
            print(out, end="")
            outputs.append(out)
            if proc.returncode != 0:
                fail(f"a party exited {proc.returncode}")
        for out, cols, how in zip(outputs, (66, 57),
                                  ("a column block, streamed in row blocks",
                                   "a column block: vectors of N = records")):
            if f"device: {RECORDS} records x {cols} columns ({how}" not in out:
                fail(f"a party did not hold {RECORDS} x {cols} ({how})")
        if stack.job_state(JOB) != "completed":
            fail(f"job state {stack.job_state(JOB)}")
        rounds = stack.rounds(JOB)
        if len(rounds) != ROUNDS or any(r["participants"] != 2
                                        for r in rounds):
            fail("not every round committed with both parties")
        # 2. the released (v, y): y moved off 0 and the residual v shrank.
        v0 = np.linalg.norm(rounds[0]["z"][:RECORDS])
        v_last = np.linalg.norm(rounds[-1]["z"][:RECORDS])
        y_last = np.linalg.norm(rounds[-1]["z"][RECORDS:])
        if not (y_last > 0 and v_last < v0):
            fail(f"no progress: |v| {v0:.3g} -> {v_last:.3g}, |y| {y_last}")
        # 4. the gateway's score of the parties' partial scores, stored.
        status = stack.run_cli("job", "status", JOB)
        score = re.search(r"test \(gateway, from the parties' partial "
                          rf"scores of {TEST_RECORDS} records\) log loss "
                          r"([0-9.]+) accuracy ([0-9.]+)", status)
        if not score:
            fail(f"job status shows no test score:\n{status}")
        print(f"OK: {ROUNDS} rounds by 2 edgeadmm-device parties "
              f"(--columns 0:66 streamed over the SDK's transport, 66:57 "
              f"whole over libcoap): |v| {v0:.3g} -> {v_last:.3g}; "
              f"a9a.t[:{TEST_RECORDS}] scored at the gateway: log loss "
              f"{score.group(1)}, accuracy {score.group(2)}")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
