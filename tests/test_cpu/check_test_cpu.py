#!/usr/bin/env python3
"""Every test declares the CPU it needs (docs/architecture.md, "Tests at once").

ctest starts tests while their declared CPU (resource "cpu", hundredths of a
core, cmake/EdgeAdmmTestSchedule.cmake) fits the machine's
test_resources.json. A test that declares nothing would not count against
the budget and could starve a neighbour that waits on a round deadline, so
this check fails on:
  * a test without a RESOURCE_GROUPS "cpu:N" declaration;
  * a request above the slots of test_resources.json (ctest would not run it);
  * a missing or malformed test_resources.json.

  check_test_cpu.py --build-dir DIR [--ctest PATH]   reads `ctest --show-only=json-v1`
  check_test_cpu.py --tests-json F --resources-json R (what the _detects test feeds it)
"""

import argparse
import json
import subprocess
import sys


def cpu_request(test):
    """The test's declared hundredths of a core, or None."""
    total = None
    for prop in test.get("properties", []):
        if prop["name"] != "RESOURCE_GROUPS":
            continue
        for group in prop["value"]:
            for req in group.get("requirements", []):
                if req.get(".type") == "cpu":
                    total = (total or 0) + req["slots"] * group.get("count", 1)
    return total


def cpu_slots(resources):
    try:
        return sum(int(r["slots"]) for r in resources["local"][0]["cpu"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def problems(tests, resources):
    out = []
    slots = cpu_slots(resources)
    if slots is None or slots <= 0:
        out.append("test_resources.json has no cpu slots")
    for t in tests:
        req = cpu_request(t)
        if req is None:
            out.append(f"{t['name']}: declares no CPU (edgeadmm_test_cpu or "
                       "edgeadmm_test_env)")
        elif slots and req > slots:
            out.append(f"{t['name']}: asks for cpu:{req}, the machine has {slots}")
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir")
    p.add_argument("--ctest", default="ctest")
    p.add_argument("--tests-json")
    p.add_argument("--resources-json")
    a = p.parse_args(argv)
    if a.build_dir:
        listing = subprocess.run(
            [a.ctest, "--test-dir", a.build_dir, "--show-only=json-v1"],
            check=True, capture_output=True, text=True).stdout
        tests = json.loads(listing)["tests"]
        resources_path = f"{a.build_dir}/test_resources.json"
    elif a.tests_json and a.resources_json:
        with open(a.tests_json) as f:
            tests = json.load(f)["tests"]
        resources_path = a.resources_json
    else:
        p.error("--build-dir, or --tests-json with --resources-json")
    try:
        with open(resources_path) as f:
            resources = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: {resources_path}: {e}")
        return 1
    found = problems(tests, resources)
    for line in found:
        print(f"FAIL: {line}")
    print(f"{len(tests)} tests, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
