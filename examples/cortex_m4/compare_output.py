#!/usr/bin/env python3
"""Runs the example (host program or firmware under QEMU) and compares its
output with expected_output.txt, produced by the host build.

Lines are "key value...". drbg_bytes must match exactly (same DRBG seed, same
bytes); real values are given as IEEE-754 bits and must agree within
|a - b| <= ATOL + RTOL * |b|, because newlib's and glibc's libm may differ in
the last bits of exp/log/sqrt and the prox solver carries that forward.

usage: compare_output.py EXPECTED [--rtol R] [--atol A] [--write] -- COMMAND...
  --write  store the output as EXPECTED instead of comparing (regenerate).
"""
import argparse
import struct
import subprocess
import sys


def parse(text):
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            values[parts[0]] = parts[1]
        elif len(parts) == 1:
            values[parts[0]] = ""
    return values


def as_real(bits):
    return struct.unpack("<d", struct.pack("<Q", int(bits, 16)))[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--atol", type=float, default=1e-12)
    parser.add_argument("--write", action="store_true")
    # Keys whose value depends on the build (a float build's byte sizes).
    parser.add_argument("--skip", action="append", default=[])
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("missing '-- COMMAND...'")
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=300)
    print(run.stdout, end="")
    if run.returncode != 0:
        sys.exit(f"compare_output: {command[0]} exited with {run.returncode}")
    actual = parse(run.stdout)
    if "done" not in actual:
        sys.exit("compare_output: the program did not print 'done'")
    if args.write:
        keep = [l for l in run.stdout.splitlines() if l.split()[:1] and l.split()[0] != "stack_used"]
        with open(args.expected, "w") as f:
            f.write("\n".join(keep) + "\n")
        return
    with open(args.expected) as f:
        expected = parse(f.read())
    failures = []
    max_diff = 0.0
    for key, want in expected.items():
        got = actual.get(key)
        if key in args.skip:
            print(f"compare_output: {key} skipped ({got})")
        elif got is None:
            failures.append(f"{key}: missing")
        elif key == "drbg_bytes" or key == "done":
            if got != want:
                failures.append(f"{key}: {got} != {want}")
        else:
            a, b = as_real(got), as_real(want)
            if not abs(a - b) <= args.atol + args.rtol * abs(b):
                failures.append(f"{key}: {a!r} vs expected {b!r} (diff {a - b:.3g})")
            else:
                max_diff = max(max_diff, abs(a - b))
                print(f"compare_output: {key} ok (diff {a - b:.3g})")
    if failures:
        sys.exit("compare_output: mismatches:\n  " + "\n  ".join(failures))
    print(f"compare_output: {len(expected)} values match {args.expected} "
          f"(max |diff| {max_diff:.3g})")


if __name__ == "__main__":
    main()
