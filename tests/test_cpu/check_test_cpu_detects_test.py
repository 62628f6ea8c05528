#!/usr/bin/env python3
"""check_test_cpu.py fails on a listing that breaks the rule: a test that
declares no CPU and one that asks for more than the machine has are both
named, the test that declares a quarter core is not, and the exit code is 1."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    run = subprocess.run(
        [sys.executable, os.path.join(HERE, "check_test_cpu.py"),
         "--tests-json", os.path.join(HERE, "testdata", "undeclared_tests.json"),
         "--resources-json", os.path.join(HERE, "testdata", "two_cores.json")],
        capture_output=True, text=True)
    out = run.stdout
    checks = [
        ("exit code 1", run.returncode == 1),
        ("names the test that declares nothing",
         "FAIL: declares_nothing:" in out),
        ("names the request above the machine",
         "FAIL: asks_for_more_than_the_machine: asks for cpu:400" in out),
        ("passes the declared test", "declares_a_quarter_core" not in out),
    ]
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}: {name}")
    if not all(ok for _, ok in checks):
        print(out, run.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
