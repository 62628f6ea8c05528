#!/usr/bin/env python3
"""Runs a networked MPS2-AN386 firmware image against coap-server-openssl.

Starts Debian's coap-server-openssl on 127.0.0.1 on a free UDP port (plain
CoAP; its DTLS port, port + 1, is also free), waits until it answers a CoAP
ping (an empty confirmable message, answered with a reset), runs QEMU with
the board's NIC on user networking (the firmware reaches the host's loopback
as 10.0.2.2) and the port on the semihosting command line, then checks the
firmware's output and exit status and stops the server by its pid.

  run_with_coap_server.py --server PROG [--arg WORD]... [--expect TEXT]...
      [--reject TEXT]... [--expect-failure] [--drop-first N] -- RUNNER... IMAGE

--drop-first N puts a UDP relay on loopback between the firmware and the
server that drops the firmware's first N datagrams (the firmware must
retransmit); the firmware then gets the relay's port.

RUNNER ends with -kernel (EDGEADMM_BOARD_RUNNER); NIC options and -append
are inserted before it.
"""
import argparse
import os
import random
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

QEMU_TIMEOUT_S = 150
READY_TIMEOUT_S = 10


def free_port_pair():
    """A UDP port p on 127.0.0.1 such that p and p + 1 were free just now."""
    for _ in range(64):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port >= 65535:
                continue
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as b:
                    b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise RuntimeError("no free UDP port pair on 127.0.0.1")


def answers_ping(port, server, deadline):
    """True once the server answers a CoAP ping with a reset."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("127.0.0.1", port))
        mid = 0
        while time.monotonic() < deadline and server.poll() is None:
            mid += 1
            s.send(bytes([0x40, 0x00, (mid >> 8) & 0xFF, mid & 0xFF]))
            ready, _, _ = select.select([s], [], [], 0.1)
            if ready:
                try:
                    answer = s.recv(64)
                except ConnectionRefusedError:  # not bound yet
                    continue
                if len(answer) >= 4 and (answer[0] & 0x30) == 0x30:
                    return True
    return False


def start_server(program, log):
    for _ in range(3):
        port = free_port_pair()
        server = subprocess.Popen(
            [program, "-A", "127.0.0.1", "-p", str(port), "-k", "unused-key",
             "-d", "64", "-v", "4"],
            stdout=log, stderr=subprocess.STDOUT)
        if answers_ping(port, server, time.monotonic() + READY_TIMEOUT_S):
            return server, port
        stop(server)
    raise RuntimeError("coap-server-openssl did not answer a ping")


def stop(server):
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=2)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class Relay(threading.Thread):
    """Forwards datagrams between one client and the server on loopback,
    dropping the client's first `drop_first` datagrams, then each datagram
    in either direction with probability `loss` (seeded: reproducible)."""

    def __init__(self, server_port, drop_first, loss=0.0, seed=1):
        super().__init__(daemon=True)
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", 0))
        self.port = self.front.getsockname()[1]
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.connect(("127.0.0.1", server_port))
        self.drop_first = drop_first
        self.loss = loss
        self.random = random.Random(seed)
        self.dropped = 0
        self.dropped_back = 0
        self.forwarded = 0
        self.client = None
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            ready, _, _ = select.select([self.front, self.back], [], [], 0.1)
            if self.front in ready:
                data, self.client = self.front.recvfrom(2048)
                if (self.dropped < self.drop_first
                        or self.random.random() < self.loss):
                    self.dropped += 1
                else:
                    self.forwarded += 1
                    self.back.send(data)
            if self.back in ready:
                try:
                    data = self.back.recv(2048)
                except ConnectionRefusedError:
                    continue
                if self.random.random() < self.loss:
                    self.dropped_back += 1
                elif self.client is not None:
                    self.front.sendto(data, self.client)

    def stop(self):
        self.stopping.set()
        self.join()
        self.front.close()
        self.back.close()


def report(failures, peer, peer_log):
    """Prints the peer's log tail and each failure; the exit status."""
    if not failures:
        return 0
    print(f"--- {peer} log (tail)")
    print(peer_log[-4000:])
    for f in failures:
        print("FAILED: " + f)
    return 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--reject", action="append", default=[])
    parser.add_argument("--expect-failure", action="store_true")
    parser.add_argument("--drop-first", type=int, default=0)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    runner, image = args.command[:-1], args.command[-1]
    if not runner or runner[-1] != "-kernel":
        parser.error("the runner must end with -kernel")

    with tempfile.TemporaryFile(mode="w+") as log:
        server, port = start_server(args.server, log)
        relay = None
        try:
            if args.drop_first > 0:
                relay = Relay(port, args.drop_first)
                relay.start()
                port = relay.port
            command = (runner[:-1]
                       + ["-nic", "user,model=lan9118",
                          "-append", " ".join([str(port)] + args.arg),
                          "-kernel", image])
            print("firmware's peer 127.0.0.1:%d; %s" % (port, " ".join(command)))
            sys.stdout.flush()
            run = subprocess.run(command, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 timeout=QEMU_TIMEOUT_S)
        finally:
            if relay is not None:
                relay.stop()
                print("relay: dropped %d, forwarded %d datagrams from the "
                      "firmware" % (relay.dropped, relay.forwarded))
            stop(server)
        output = run.stdout
        print(output)
        log.seek(0)
        server_log = log.read()

    failures = []
    for text in args.expect:
        if text not in output:
            failures.append("expected '%s' in the output" % text)
    for text in args.reject:
        if text in output:
            failures.append("did not expect '%s' in the output" % text)
    if args.expect_failure and run.returncode == 0:
        failures.append("expected a non-zero exit status, got 0")
    if not args.expect_failure and run.returncode != 0:
        failures.append("expected exit status 0, got %d" % run.returncode)
    if relay is not None and relay.dropped < args.drop_first:
        failures.append("the relay dropped %d of %d datagrams"
                        % (relay.dropped, args.drop_first))
    return report(failures, "coap-server-openssl", server_log)


if __name__ == "__main__":
    sys.exit(main())
