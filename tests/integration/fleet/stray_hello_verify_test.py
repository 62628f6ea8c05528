#!/usr/bin/python3
"""A stray HelloVerifyRequest does not lock a device out (both device
transports against the real daemon).

A device's first ClientHello is answered by a forged HelloVerifyRequest
(from the gateway's address and port, before the gateway's own answer),
as when a HelloVerifyRequest meant for an earlier socket on the same port
arrives. Both the libcoap (OpenSSL) and the SDK (Mbed TLS) client take it,
then the gateway's, and send a third ClientHello (message_seq 2) that
OpenSSL's DTLSv1_listen refuses. libcoap keeps the session it made for a
refused ClientHello and feeds it every later datagram from the address: the
device failed every handshake from then on (found as CI flakes: a test's
first handshake timing out after 5 s, a device of a three-device job never
getting in for 240 s). The daemon now drops such a ClientHello, and the
device gets in on its next handshake.

A fresh daemon also sends nothing at start: the client session that sets
up its DTLS context used to send a ClientHello to the daemon's own port,
which answered it with a HelloVerifyRequest to a port the kernel could give
to the next device's socket (that stray answer). Checked on the metrics
file: no HelloVerifyRequest and no session event before any device.
"""

import os
import select
import socket
import subprocess
import sys
import threading
import time

import edgeadmm_metrics  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

HANDSHAKE = 22
CLIENT_HELLO = 1
HELLO_VERIFY_REQUEST = 3


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def client_hello(datagram):
    """(message_seq, cookie length) of an epoch-0 ClientHello, else None."""
    d = datagram
    if len(d) < 13 + 12 + 2 + 32 + 2 or d[0] != HANDSHAKE or d[3:5] != b"\0\0" \
            or d[13] != CLIENT_HELLO:
        return None
    at = 13 + 12 + 2 + 32
    at += 1 + d[at]  # session id
    if at >= len(d):
        return None
    return int.from_bytes(d[17:19], "big"), d[at]


def forged_hello_verify_request():
    """A HelloVerifyRequest (RFC 6347 4.2.1) for message_seq 0 carrying a
    cookie the gateway never made."""
    cookie = os.urandom(17)
    body = bytes([0xFE, 0xFF, len(cookie)]) + cookie
    handshake = bytes([HELLO_VERIFY_REQUEST]) + len(body).to_bytes(3, "big") \
        + b"\0\0" + b"\0\0\0" + len(body).to_bytes(3, "big") + body
    return bytes([HANDSHAKE, 0xFE, 0xFF]) + b"\0\0" + b"\0" * 6 \
        + len(handshake).to_bytes(2, "big") + handshake


class StrayAnswerRelay:
    """Relays one device and the daemon; answers the device's first
    ClientHello with a forged HelloVerifyRequest before forwarding it, and
    records the message_seq of every ClientHello the device sends."""

    def __init__(self, daemon_port):
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", 0))
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.bind(("127.0.0.1", 0))
        self.back.connect(("127.0.0.1", daemon_port))
        self.port = self.front.getsockname()[1]
        self.device = None
        self.injected = False
        self.hello_seqs = []
        self.stopping = False
        self.thread = threading.Thread(target=self.pump, daemon=True)
        self.thread.start()

    def pump(self):
        while not self.stopping:
            ready, _, _ = select.select([self.front, self.back], [], [], 0.2)
            for s in ready:
                datagram, sender = s.recvfrom(65536)
                if s is self.back:
                    if self.device is not None:
                        self.front.sendto(datagram, self.device)
                    continue
                self.device = sender
                hello = client_hello(datagram)
                if hello is not None:
                    self.hello_seqs.append(hello[0])
                    if not self.injected and hello[1] == 0:
                        self.front.sendto(forged_hello_verify_request(), sender)
                        self.injected = True
                self.back.send(datagram)

    def close(self):
        self.stopping = True
        self.thread.join()
        self.front.close()
        self.back.close()


def quiet_start(metrics_path, transport):
    """Waits for the daemon's second metrics write (a full interval of its
    loop after start) and checks that it answered nothing."""
    first, deadline = None, time.time() + 20
    while time.time() < deadline:
        if os.path.exists(metrics_path):
            stamp = os.stat(metrics_path).st_mtime_ns
            if first is None:
                first = stamp
            elif stamp != first:
                break
        time.sleep(0.1)
    else:
        fail(f"{transport}: the daemon wrote no metrics twice in 20 s")
    samples = edgeadmm_metrics.read(metrics_path)
    for name, label, which in (
            ("edgeadmm_handshake_admission_total", "verdict", "verify_request"),
            ("edgeadmm_dtls_session_events_total", "event", "closed"),
            ("edgeadmm_dtls_session_events_total", "event", "handshake_started")):
        value = edgeadmm_metrics.value(samples, name, **{label: which})
        if value != 0:
            fail(f'{transport}: {name}{{{label}="{which}"}} is {value} '
                 "before any device")


def run_transport(a, device_bin, transport):
    work = os.path.join(a.work_dir, transport)
    stack = es.Stack(a.build_dir, os.path.join(work, "stack"))
    relay = None
    try:
        device = stack.enroll(1)[0]
        job = f"stray-{transport}"
        stack.create_job(job, es.fixed_cohort_job(
            job, 123, 3, m=1, m_min=1, deadline_seconds=60, seed=5))
        metrics_path = os.path.join(work, "metrics.prom")
        stack.start_daemon(
            server_options={"task_heartbeat_seconds": 1},
            config_tables={"metrics": {"file": metrics_path,
                                       "interval_seconds": 1}})
        quiet_start(metrics_path, transport)
        relay = StrayAnswerRelay(stack.port)
        argv = [device_bin, "--transport", transport, "--host", "127.0.0.1",
                "--port", str(relay.port), "--identity", device,
                "--psk-file", os.path.join(stack.psk_dir, device),
                "--data", a.data, "--dim", "123", "--first", "0",
                "--count", "200", "--state-dir", os.path.join(work, "device"),
                "--epsilon-budget", "inf", "--refresh-ms", "2000",
                "--timeout-s", "90"]
        done = subprocess.run(argv, capture_output=True, text=True,
                              timeout=150)
        print(done.stdout, end="")
        if not relay.injected:
            fail(f"{transport}: the device sent no ClientHello")
        if 2 not in relay.hello_seqs:
            fail(f"{transport}: the device ignored the stray answer "
                 f"(ClientHello message_seq {relay.hello_seqs}): the test "
                 "no longer reproduces the lock-out")
        if done.returncode != 0:
            fail(f"{transport}: the device exited {done.returncode} "
                 "(locked out after the stray HelloVerifyRequest)")
        state = stack.job_state(job)
        if state != "completed":
            fail(f"{transport}: job {state}")
        return relay.hello_seqs
    finally:
        if relay is not None:
            relay.close()
        stack.stop()


def main():
    a, device_bin, _ = es.device_process_test()
    seqs = {t: run_transport(a, device_bin, t) for t in ("libcoap", "sdk")}
    print("OK: a stray HelloVerifyRequest did not lock a device out: " +
          ", ".join(f"{t} ClientHello message_seq {s}"
                    for t, s in seqs.items()) +
          "; the fresh daemons answered nothing before a device came")


if __name__ == "__main__":
    main()
