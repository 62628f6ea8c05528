#!/usr/bin/env python3
"""Runs the networked round benchmark (round_benchmark.cc) twice, each time
with run_with_daemon.py (a fresh daemon, state and job), and prints its
per-round instruction counts side by side.

  run_round_benchmark.py [--runs N] -- run_with_daemon.py ARGS...

Fails if a run fails, or if the parts that do not depend on host timing
differ between runs by more than the timer's resolution (40 instructions a
tick, a few ticks a round): the step and the DTLS records exactly up to
that, the CoAP client within 1%. The UDP/lwIP/driver share and the
handshake depend on whether a frame was taken off the driver inside the
link's Wait (not counted) or inside a Receive (counted): printed, not
compared. Runs in which the CoAP client retransmitted (a slow host) are
not compared either.
"""
import argparse
import subprocess
import sys

STABLE = {"per_round_step": 200, "per_round_dtls_records": 200}
CLOSE = {"per_round_coap_client": 0.01}


def run_once(command):
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=280)
    sys.stdout.write(result.stdout)
    if result.returncode != 0:
        raise SystemExit(result.returncode)
    counts = {}
    for line in result.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    runs = [run_once(args.command) for _ in range(args.runs)]
    keys = [k for k in runs[0] if k.startswith("per_round_") or
            k.startswith("session_")]
    print(f"{'instructions':<42}" + "".join(f"{f'run {i + 1}':>14}"
                                           for i in range(len(runs))))
    for key in keys:
        print(f"{key:<42}" + "".join(f"{r.get(key, 0):>14,}" for r in runs))
    failed = False
    if any(r.get("coap_retransmissions", 0) for r in runs):
        # A retransmitted request (a slow host) adds records and CoAP work.
        print("a run retransmitted: counts not compared")
        print("round benchmark: PASS")
        return
    for key, slack in STABLE.items():
        values = [r[key] for r in runs]
        if max(values) - min(values) > slack:
            print(f"FAIL: {key} differs between runs: {values}")
            failed = True
    for key, share in CLOSE.items():
        values = [r[key] for r in runs]
        if max(values) - min(values) > share * max(values):
            print(f"FAIL: {key} differs by more than {share:.0%}: {values}")
            failed = True
    if failed:
        raise SystemExit(1)
    print("round benchmark: PASS")


if __name__ == "__main__":
    main()
