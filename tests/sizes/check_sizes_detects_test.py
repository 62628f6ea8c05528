#!/usr/bin/env python3
"""check_sizes.py must fail where it should: on a small tree of its own, a
file and a C++ and a Python function over their limits are each found, a
listed debt that grew is found, one that came under its limit is found, and
a tree within its limits (and its debts) passes."""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import source_checks  # noqa: E402
import check_sizes  # noqa: E402

planted = source_checks.Planted()
expect = planted.expect
write = planted.write


def c_function(name, body_lines):
    return (["int %s(int a,\n        int b) {" % name] +
            ["  a += b;"] * body_lines + ["  return a;", "}"])


def python_function(name, body_lines):
    return ["def %s():" % name] + ["    x = 1"] * body_lines + ["    return x"]


def findings(root, debt):
    return "\n".join(check_sizes.check(root, debt))


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--root")  # unused: the test makes its own tree
    parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        write(root, "sdk/src/small.cc", c_function("Small", 90))
        write(root, "tools/python/small.py", python_function("small", 90))
        expect(findings(root, {}) == "", "a tree within the limits passes")

        write(root, "aggregator/src/long.cc", c_function("Long", 120))
        found = findings(root, {})
        expect("aggregator/src/long.cc:1: Long: 124 lines, over the limit"
               in found, "a C++ function over 100 lines: %r" % found)

        write(root, "tools/python/long.py", python_function("long", 110))
        found = findings(root, {})
        expect("tools/python/long.py:1: long: 112 lines" in found,
               "a Python function over 100 lines: %r" % found)

        write(root, "platform/big.h", ["// line"] * 601)
        found = findings(root, {})
        expect("platform/big.h: 601 lines, over the limit of 600" in found,
               "a file over 600 lines: %r" % found)

        debt = {"platform/big.h": 601,
                ("aggregator/src/long.cc", "Long"): 124,
                ("tools/python/long.py", "long"): 112}
        expect(findings(root, debt) == "", "listed debts pass as they are")

        write(root, "platform/big.h", ["// line"] * 602)
        found = findings(root, debt)
        expect("platform/big.h: 602 lines, grew past its listed 601" in found,
               "a listed file that grew: %r" % found)

        write(root, "platform/big.h", ["// line"] * 10)
        found = findings(root, debt)
        expect("take it off KNOWN_DEBT" in found,
               "a listed file back under the limit: %r" % found)

        os.remove(os.path.join(root, "aggregator/src/long.cc"))
        found = findings(root, debt)
        expect("no longer there" in found, "a listed function gone: %r" % found)
    return planted.status("check_sizes finds every planted violation")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
