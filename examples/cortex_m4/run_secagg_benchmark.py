#!/usr/bin/env python3
"""Runs the secure-aggregation benchmark firmware (secagg_benchmark.cc)
twice under QEMU with -icount shift=0 and prints one device's instructions
and static-pool bytes per SecAgg+ phase.

  run_secagg_benchmark.py [--runs N] -- RUNNER... IMAGE

Fails unless every run exits 0, the calibration loop counts what it executes
(so the counts are instructions), and all runs print identical output.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_step_benchmark import run_calibrated  # noqa: E402

PHASES = ("keys", "shares", "mask", "reveal")


def main():
    runs, counts = run_calibrated()
    print("SecAgg+ device 0 of n = 16, k = 8, s = 5, 123 words mod 2^32 "
          f"(QEMU -icount shift=0, {runs} identical runs)")
    print(f"{'phase':>8} {'instructions':>14} {'pool high water (B)':>20}")
    for phase in PHASES:
        print(f"{phase:>8} {counts[phase + '_instructions']:>14,} "
              f"{counts[phase + '_pool_high_water']:>20,}")
    print(f"round state kept by the device: {counts['round_state_bytes']} B")
    print("benchmark: PASS")


if __name__ == "__main__":
    main()
