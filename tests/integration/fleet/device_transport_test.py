#!/usr/bin/python3
"""The two device transports of edgeadmm-device (docs/architecture.md, "Two
device transports") pass the same conformance run against the real daemon:
`--transport libcoap` (libcoap + OpenSSL) and `--transport sdk` (the SDK's
CoapClient over DtlsPskLink on Mbed TLS, what the MCU runs).

For each transport, on loopback, a prox-admm job whose rounds need all
three enrolled devices (m = m_min = 3):
1. devices A and B start; each uploads in round 1 and gets its receipt
   (the job cannot go on without C);
2. the daemon is SIGKILLed and restarted on the same port: round 1 is lost,
   and the new daemon has forgotten every DTLS session and drops their
   records without an answer. A and B are idle observers on dead sessions
   and must find their way back on their own (no notification for
   --refresh-ms: register again on a new session, a new handshake);
3. C starts provisioned with two gateways, the first a UDP port that takes
   datagrams and never answers, the daemon the second (--gateway): it must
   fail over to the daemon on its own; the job completes with every round
   committed by all three, every device exits 0, and the database is
   consistent.
Before the SDK's client had a Reconnect that drops the DTLS session (and a
silence timeout), a `--transport sdk` device re-registered on the dead
session forever and this job never completed.
"""

import os
import socket
import subprocess
import sys

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)

# The devices find a restarted daemon after twice its task heartbeat
# (docs/device.md, "Refresh interval"): 1 s, not the default 10 s.
SERVER = {"task_heartbeat_seconds": 1}
ROUNDS = 4


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def device_argv(binary, stack, device, data, state_dir, transport, first,
                silent_port=None):
    """silent_port: the device's first gateway is that port, the daemon its
    further one."""
    gateways = ["--port", str(stack.port)]
    if silent_port is not None:
        gateways = ["--port", str(silent_port), "--gateway",
                    f"127.0.0.1:{stack.port}"]
    return [binary, "--transport", transport, "--host", "127.0.0.1"] + \
        gateways + ["--identity", device, "--psk-file",
            os.path.join(stack.psk_dir, device), "--data", data, "--dim",
            "123", "--first", str(first), "--count", "200", "--state-dir",
            state_dir, "--epsilon-budget", "inf", "--refresh-ms", "2000",
            "--silence-timeout-ms", "2000", "--retry-max-ms", "1000",
            "--ack-timeout-ms", "1000", "--timeout-s", "150"]


def wait_for_receipt(proc, transport):
    """Reads the device's output until its first upload was answered (an
    UPLOADING line, then IDLE); returns the lines read."""
    lines, uploading = [], False
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("device: UPLOADING"):
            uploading = True
        elif uploading and line.startswith("device: IDLE"):
            return lines
    print("".join(lines), end="")
    fail(f"{transport}: a device exited ({proc.wait()}) before its receipt")


def run_transport(a, device_bin, transport):
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, transport))
    procs, early = [], []
    # Bound for the whole run and never read: no answer, no ICMP.
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    try:
        devices = stack.enroll(3)
        job = f"transport-{transport}"
        stack.create_job(job, es.fixed_cohort_job(
            job, 123, ROUNDS, m=3, m_min=3, deadline_seconds=60, seed=5))
        stack.start_daemon(server_options=SERVER)

        def start(i, silent_port=None):
            argv = device_argv(device_bin, stack, devices[i], a.data,
                               os.path.join(a.work_dir, transport,
                                            devices[i]), transport, 200 * i,
                               silent_port)
            procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT,
                                          text=True))

        start(0)
        start(1)
        for proc in procs:  # 1. A's and B's round-1 uploads are durable
            early.append(wait_for_receipt(proc, transport))
        stack.kill_daemon()  # 2.
        stack.start_daemon(server_options=SERVER, same_port=True)
        start(2, silent.getsockname()[1])  # 3.
        final = stack.follow(job, lambda row: None, timeout_seconds=200)
        for i, proc in enumerate(procs):
            out, _ = proc.communicate(timeout=120)
            print("".join(early[i]) if i < len(early) else "", end="")
            print(out, end="")
            if proc.returncode != 0:
                fail(f"{transport}: a device exited {proc.returncode}")
        if final != "completed":
            fail(f"{transport}: job {final}: {stack.end_reason(job)}")
        rounds = stack.rounds(job)
        if len(rounds) != ROUNDS or any(r["participants"] != 3
                                        for r in rounds):
            fail(f"{transport}: not every round committed with all three")
        stack.stop()
        problems = stack.check_database()
        if problems:
            fail(f"{transport}: database: {problems}")
        return len(rounds), rounds[0]["round"]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        stack.stop()
        silent.close()


def main():
    a, device_bin, _ = es.device_process_test()
    results = {t: run_transport(a, device_bin, t) for t in ("libcoap", "sdk")}
    print("OK: both transports came back after a daemon SIGKILL, failed "
          "over from a silent gateway and completed the job: " +
          ", ".join(f"{t} {n} rounds committed (the first is round {k}: "
                    "round 1 was lost in the crash)"
                    for t, (n, k) in results.items()))


if __name__ == "__main__":
    main()
