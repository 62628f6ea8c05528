#!/usr/bin/env python3
"""Runs the secure-aggregation benchmark firmware (secagg_benchmark.cc)
twice under QEMU with -icount shift=0 and prints one device's instructions
and static-pool bytes per SecAgg+ phase.

  run_secagg_benchmark.py [--runs N] -- RUNNER... IMAGE

Fails unless every run exits 0, the calibration loop counts what it executes
(so the counts are instructions), and all runs print identical output.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_step_benchmark import run_once, with_icount  # noqa: E402

PHASES = ("keys", "shares", "mask", "reveal")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    command = with_icount(args.command)
    outputs = [run_once(command) for _ in range(args.runs)]
    text, counts = outputs[0]
    if any(other != text for other, _ in outputs[1:]):
        raise SystemExit("FAIL: runs differ: the count is not deterministic")
    expected = counts["calibration_loop_instructions"]
    measured = counts["calibration_measured"]
    if abs(measured - expected) > 80:
        raise SystemExit(f"FAIL: calibration loop of {expected} instructions "
                         f"measured {measured}: is -icount shift=0 in effect?")
    print("SecAgg+ device 0 of n = 16, k = 8, s = 5, 123 words mod 2^32 "
          f"(QEMU -icount shift=0, {args.runs} identical runs)")
    print(f"{'phase':>8} {'instructions':>14} {'pool high water (B)':>20}")
    for phase in PHASES:
        print(f"{phase:>8} {counts[phase + '_instructions']:>14,} "
              f"{counts[phase + '_pool_high_water']:>20,}")
    print(f"round state kept by the device: {counts['round_state_bytes']} B")
    print("benchmark: PASS")


if __name__ == "__main__":
    main()
