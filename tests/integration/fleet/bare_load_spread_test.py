#!/usr/bin/python3
"""The load benchmark's baseline (tools/bare_coap and `edgeadmm-fleet
load`) holds its sessions on several contexts of one port and spreads its
uploads as the daemon's devices do.

Sixteen devices from sixteen source addresses against
`edgeadmm-bare-coap-server --shards 4`, three rounds of sixteen uploads:
  - every round completes with all sixteen uploads, each accepted once;
  - the sessions landed on more than one of the four contexts (the
    kernel hashes each device's addresses and ports over the port's
    SO_REUSEPORT group; all sixteen on one of four has probability
    4 * 4^-16 < 1e-9). Without SO_REUSEPORT the four binds still succeed
    (libcoap sets SO_REUSEADDR) and the kernel gives every datagram to
    one socket: the check fails then (tried: sessions [0, 0, 0, 16]);
  - with `--upload-spread-ms 2000` each device waits a uniform draw in
    [0, 2 s) after a round's notification, so rounds 2 and 3 (which start
    at the notification) take at least 250 ms: all sixteen draws below
    250 ms has probability (1/8)^16 < 1e-14. Without the wait the same
    rounds take milliseconds on loopback; the check fails then.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

from edgeadmm_daemon import free_udp_port  # tools/python (on PYTHONPATH)

DEVICES = 16
ROUNDS = 3
SHARDS = 4
SPREAD_MS = 2000
ROUND = re.compile(r"bare: round (\d+), (\d+) uploads, ([\d.]+) s")
SHARD_SESSIONS = re.compile(r"sessions by shard:((?: \d+)+)")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    p.add_argument("--work-dir")
    a = p.parse_args()
    work = a.work_dir or tempfile.mkdtemp(prefix="bare-load-spread-")
    os.makedirs(work, exist_ok=True)
    psk_dir = os.path.join(work, "psk")
    os.makedirs(psk_dir, exist_ok=True)
    for i in range(DEVICES):
        with open(os.path.join(psk_dir, f"dev{i}"), "w") as f:
            f.write(os.urandom(16).hex() + "\n")
    port = free_udp_port()
    server = subprocess.Popen(
        [os.path.join(a.build_dir, "tools", "bare_coap",
                      "edgeadmm-bare-coap-server"), "--port", str(port),
         "--psk-dir", psk_dir, "--round-size", str(DEVICES), "--rounds",
         str(ROUNDS), "--shards", str(SHARDS)],
        stdout=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        if f"{SHARDS} shards" not in first:
            fail(f"the bare server did not start on {SHARDS} shards: {first!r}")
        fleet = subprocess.run(
            [os.path.join(a.build_dir, "tools", "fleet", "edgeadmm-fleet"),
             "load", "--port", str(port), "--psk-dir", psk_dir, "--rounds",
             str(ROUNDS), "--upload-spread-ms", str(SPREAD_MS),
             "--local-address", "127.3.0.1", "--local-addresses",
             str(DEVICES)], capture_output=True, text=True, timeout=120)
        if fleet.returncode != 0:
            fail(f"edgeadmm-fleet load failed: {fleet.stderr}")
        out, _ = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    rounds = [(int(r), int(u), float(s)) for r, u, s in ROUND.findall(out)]
    print(f"rounds (round, uploads, seconds): {rounds}")
    print(fleet.stdout.strip().splitlines()[-1])
    if [r for r, _, _ in rounds] != list(range(1, ROUNDS + 1)) or any(
            u != DEVICES for _, u, _ in rounds):
        fail(f"expected {ROUNDS} rounds of {DEVICES} uploads")
    if f"uploads {DEVICES * ROUNDS} accepted" not in fleet.stdout:
        fail("the fleet did not count every upload accepted once")
    by_shard = SHARD_SESSIONS.search(out)
    if by_shard is None:
        fail("the bare server did not report its sessions by shard")
    sessions = [int(s) for s in by_shard.group(1).split()]
    print(f"sessions by shard: {sessions}")
    if len(sessions) != SHARDS or sum(sessions) < DEVICES:
        fail(f"expected {SHARDS} shards holding {DEVICES} sessions or more")
    if sum(1 for s in sessions if s > 0) < 2:
        fail("every session landed on one context: the port is not shared")
    for r, _, seconds in rounds[1:]:
        if seconds < 0.25:
            fail(f"round {r} took {seconds:.3f} s: the uploads did not wait "
                 f"their share of a {SPREAD_MS} ms spread")
    print(f"OK: {SHARDS} shards, {ROUNDS} rounds of {DEVICES} uploads, "
          f"the later rounds spread over "
          f"{', '.join(f'{s:.2f}' for _, _, s in rounds[1:])} s")


if __name__ == "__main__":
    main()
