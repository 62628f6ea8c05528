#!/usr/bin/env python3
"""Instructions per local step and per round's device compute of every step
kind the Cortex-M4F runs (step_kinds_benchmark.cc), under QEMU -icount
shift=0, in float32 beside double.

  step_kinds_table.py                       # the table (docs/porting.md)
      [--float-build build/cortex-m4f] [--double-build build/cortex-m4f-double]
  step_kinds_table.py --image IMAGE -- RUNNER...   # one build's column (ctest)

The table mode configures the double tree when it has no CMakeCache.txt
(cmake --preset cortex-m4f -B DIR -DEDGEADMM_REAL=double), builds
mcu_step_kinds_benchmark in both trees (-j2) and runs each image once with
the board's QEMU command from the tree's cache. Fails unless the firmware
prints "done" and its calibration loop counts what it executes (so the
counts are instructions).
"""
import argparse
import os
import subprocess

from run_step_benchmark import run_once, with_icount

KINDS = [("prox_admm", "prox-admm (Newton-CG prox)"),
         ("dp_admm", "dp-admm (linearized)"),
         ("dp_sgd", "dp-sgd (5 gradient steps)"),
         ("pp_admm", "pp-admm (penalty perturbation)"),
         ("admm_sharing", "admm-sharing streaming party")]
TARGET = "mcu_step_kinds_benchmark"
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def run(command):
    _, counts = run_once(with_icount(command), timeout=600)
    executed, measured = counts["calibration_executed"], counts["calibration_measured"]
    if abs(measured - executed) > 80:  # resolution 40, plus the loop's setup
        raise SystemExit(f"FAIL: calibration loop of {executed} instructions "
                         f"measured {measured}: is -icount shift=0 in effect?")
    return counts


def cached_runner(build):
    with open(os.path.join(build, "CMakeCache.txt")) as cache:
        for line in cache:
            if line.startswith("EDGEADMM_BOARD_RUNNER:"):
                return line.split("=", 1)[1].strip().split(";")
    raise SystemExit(f"{build}: no EDGEADMM_BOARD_RUNNER (not a bare-metal tree)")


def build_and_run(build, real):
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", "--preset", "cortex-m4f", "-B", build,
                        f"-DEDGEADMM_REAL={real}"], cwd=SOURCE, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j2", "--target", TARGET],
                   cwd=SOURCE, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(build, "CMakeCache.txt")) as cache:
        if f"EDGEADMM_REAL:STRING={real}\n" not in cache.read():
            raise SystemExit(f"{build} is not an EDGEADMM_REAL={real} tree")
    image = os.path.join(build, "examples", "cortex_m4", TARGET + ".elf")
    return run(cached_runner(build) + [image])


def column(counts):
    print(f"{'step kind':<32} {'per local step':>16} {'per round':>16}")
    for key, name in KINDS:
        print(f"{name:<32} {counts[key + '_mean_step']:>16,} "
              f"{counts[key + '_mean_round']:>16,}")
    print(f"admm-sharing Cholesky factor (once per job): "
          f"{counts['sharing_factor']:,}")


def table(double, single):
    print("| step kind | double: step | float32: step | ratio | "
          "double: round | float32: round | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key, name in KINDS:
        cells = []
        for part in ("step", "round"):
            d, f = double[f"{key}_mean_{part}"], single[f"{key}_mean_{part}"]
            cells += [f"{d:,}", f"{f:,}", f"{d / f:.1f}×"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    d, f = double["sharing_factor"], single["sharing_factor"]
    print(f"| admm-sharing Cholesky factor (once per job) | {d:,} | {f:,} | "
          f"{d / f:.1f}× | | | |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--image")
    parser.add_argument("--float-build", default="build/cortex-m4f")
    parser.add_argument("--double-build", default="build/cortex-m4f-double")
    parser.add_argument("runner", nargs="*")
    args = parser.parse_args()
    if args.image:
        column(run(args.runner + [args.image]))
    else:
        single = build_and_run(os.path.join(SOURCE, args.float_build), "float")
        double = build_and_run(os.path.join(SOURCE, args.double_build), "double")
        print("QEMU -icount shift=0, calibration checked; means of 5 rounds; "
              "instructions")
        table(double, single)
    print("benchmark: PASS")


if __name__ == "__main__":
    main()
