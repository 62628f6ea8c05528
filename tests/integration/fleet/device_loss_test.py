#!/usr/bin/python3
"""Must-show over real DTLS: with 30% datagram loss every upload is
delivered exactly once.

Real stack on loopback: three enrolled devices, a paper 002 job of three
rounds (fixed cohort of all three), `edgeadmm-aggregatord`, and three
`edgeadmm-device` processes, each behind its own UDP relay that drops 30% of
the datagrams in both directions (DTLS handshakes included). Checked: every
device computed exactly one step per round and got a receipt for each (first
copy or duplicate), and the aggregator's database holds exactly one accepted
upload per (device, round), for every round.
"""

import os
import random
import re
import select
import socket
import subprocess
import sys
import threading

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

JOB = "loss-check"
ROUNDS = 3
DEVICES = 3
LOSS = 0.3
# At 30% loss each way the six flights of a PSK handshake are often
# retransmitted (1 s, doubling): the default 5 s ends many handshakes that
# would complete, and the device starts over after its backoff (one device
# took 18 such failures, 140 s, for its last upload). A device on a link
# this lossy is given longer, and so is the daemon's own handshake timeout
# (server.handshake_timeout_ms), so that it never drops a handshake that a
# device is still finishing (docs/device.md: measured times).
HANDSHAKE_TIMEOUT_MS = 20000
TOML = es.device_test_job(JOB, ROUNDS, m=DEVICES, m_min=DEVICES,
                          deadline_seconds=300, seed=7)


class LossyRelay(threading.Thread):
    """127.0.0.1:port <-> 127.0.0.1:server_port, dropping each datagram with
    probability `loss` (a test link, not a noise source).

    NAT-like: each client address (a device's socket) gets its own upstream
    socket, so a device that opens a new session from a new port reaches
    the daemon from a new address too, and each answer goes back to the
    socket that asked. One shared upstream socket would make every new
    session look like a restart on the old address and would send the new
    session's answers to whichever socket spoke last."""

    def __init__(self, server_port, loss, seed):
        super().__init__(daemon=True)
        self.server_port = server_port
        self.listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.listen.bind(("127.0.0.1", 0))
        self.port = self.listen.getsockname()[1]
        self.upstream = {}  # client address -> its upstream socket
        self.client_of = {}  # upstream socket -> its client address
        self.loss = loss
        self.rng = random.Random(seed)
        self.stopped = False
        self.sent = 0
        self.dropped = 0

    def upstream_for(self, client):
        sock = self.upstream.get(client)
        if sock is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.connect(("127.0.0.1", self.server_port))
            self.upstream[client] = sock
            self.client_of[sock] = client
        return sock

    def run(self):
        while not self.stopped:
            ready, _, _ = select.select(
                [self.listen, *self.client_of], [], [], 0.2)
            for sock in ready:
                data, addr = sock.recvfrom(65536)
                self.sent += 1
                if self.rng.random() < self.loss:
                    self.dropped += 1
                    continue
                if sock is self.listen:
                    self.upstream_for(addr).send(data)
                else:
                    self.listen.sendto(data, self.client_of[sock])
        for sock in self.client_of:
            sock.close()
        self.listen.close()


def print_tail(path, lines=40):
    """The end of a log, so that a failure in CI can be diagnosed."""
    try:
        with open(path, errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        return
    print(f"--- last {len(tail)} lines of {path}")
    for line in tail:
        print(f"    {line}")


def fail(message, logs=()):
    for path in logs:
        print_tail(path)
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    a, device_bin, stack = es.device_process_test()
    relays = []
    try:
        devices = stack.enroll(DEVICES)
        stack.create_job(JOB, TOML)
        stack.start_daemon(
            server_options={"handshake_timeout_ms": HANDSHAKE_TIMEOUT_MS})
        procs = []
        device_logs = []
        for i, device in enumerate(devices):
            relay = LossyRelay(stack.port, LOSS, seed=100 + i)
            relay.start()
            relays.append(relay)
            argv = [device_bin, "--host", "127.0.0.1", "--port",
                    str(relay.port), "--identity", device, "--psk-file",
                    os.path.join(stack.psk_dir, device), "--data", a.data,
                    "--dim", "123", "--first", str(300 * i), "--count", "300",
                    "--state-dir", os.path.join(a.work_dir, f"state-{i}"),
                    "--epsilon-budget", "1000", "--refresh-ms", "5000",
                    "--retry-max-ms", "4000", "--ack-timeout-ms", "1000",
                    "--handshake-timeout-ms", str(HANDSHAKE_TIMEOUT_MS),
                    "--max-uploads", str(ROUNDS), "--timeout-s", "300"]
            device_logs.append(os.path.join(a.work_dir, f"{device}.log"))
            with open(device_logs[-1], "w") as log:
                procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE,
                                              stderr=log, text=True))
        outputs = []
        for proc in procs:
            try:
                outputs.append(proc.communicate(timeout=450)[0])
            except subprocess.TimeoutExpired:
                proc.terminate()  # prints its counters and exits 5
                outputs.append(proc.communicate()[0])
        daemon_log = os.path.join(stack.state_dir, "daemon.log")
        for device, proc, out, log in zip(devices, procs, outputs,
                                          device_logs):
            summary = out.strip().splitlines()[-1] if out.strip() else ""
            print(f"{device}: exit {proc.returncode}: {summary}")
            if proc.returncode != 0:
                fail(f"{device} exited {proc.returncode}", [log, daemon_log])
            m = re.search(r"steps (\d+), refused 0, uploads accepted (\d+), "
                          r"duplicate (\d+), stale (\d+), rejected 0",
                          summary)
            if not m:
                fail(f"{device}: no summary line")
            steps, accepted, duplicate, stale = map(int, m.groups())
            # One step per round; each upload settled once (a receipt, or
            # 4.12 when its receipt was lost and the round closed before
            # the resend: the database below shows whether it counted).
            if steps != ROUNDS or accepted + duplicate + stale != ROUNDS:
                fail(f"{device}: {steps} steps, {accepted} + {duplicate} + "
                     f"{stale} settled uploads for {ROUNDS} rounds")
        dropped = sum(r.dropped for r in relays)
        sent = sum(r.sent for r in relays)
        print(f"relays: {sent} datagrams, {dropped} dropped "
              f"({100.0 * dropped / max(sent, 1):.1f}%)")
        if dropped == 0:
            fail("no datagram was dropped")
        rows = edgeadmm_db.upload_counts(stack.db_path, JOB, by_round=True)
        committed = len(edgeadmm_db.committed_rounds(stack.db_path, JOB))
        per_device = {d: 0 for d in devices}
        for device, _round, count in rows:
            if count != 1:
                fail(f"{device} has {count} uploads in one round")
            per_device[device] += 1
        if committed != ROUNDS or any(n != ROUNDS for n in per_device.values()):
            fail(f"{committed} committed rounds, uploads per device "
                 f"{per_device}")
        print(f"OK: {ROUNDS} rounds x {DEVICES} devices, every upload "
              f"accepted exactly once under {LOSS:.0%} datagram loss")
    finally:
        for r in relays:
            r.stopped = True
        stack.stop()


if __name__ == "__main__":
    main()
