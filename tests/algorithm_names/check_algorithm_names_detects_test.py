#!/usr/bin/env python3
"""check_algorithm_names.py must fail where it should: on a small tree of its
own, a generic file that names an algorithm is found, a listed file that
names more is found, one that names fewer is found, a listed file that is
gone is found, and an algorithm's own unit and a registration file pass."""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import source_checks  # noqa: E402
import check_algorithm_names as check  # noqa: E402

planted = source_checks.Planted()
expect = planted.expect
write = planted.write


def findings(root, known):
    return "\n".join(check.check(root, known))


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--root")  # unused: the test makes its own tree
    parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        write(root, "aggregator/rounds/src/engine.cc",
              ["// The round engine.", "int Step() { return 0; }"])
        write(root, "aggregator/algorithms/src/pp_admm.cc",
              ["// pp-admm's own unit: double pp_loss = 0;"])
        write(root, "sdk/src/client/all_client_algorithms.cc",
              ["Register(ProxAdmmStep); Register(DpSgdStep);"])
        expect(findings(root, {}) == "",
               "own units and registrations may name algorithms")

        write(root, "aggregator/rounds/src/engine.cc",
              ["int Step() {", "  if (algorithm == \"admm-sharing\") {}",
               "  return pp_loss; }"])
        found = findings(root, {})
        expect("aggregator/rounds/src/engine.cc:2: a generic file names an "
               "algorithm" in found and "engine.cc:3:" in found,
               "a generic file naming algorithms: %r" % found)
        write(root, "sdk/include/edgeadmm/wire/update.h",
              ["struct Update { float dp_sgd_lr; };"])
        expect("sdk/include/edgeadmm/wire/update.h:1:" in findings(root, {}),
               "a wire header naming an algorithm")

        known = {"aggregator/rounds/src/engine.cc": 2,
                 "sdk/include/edgeadmm/wire/update.h": 1}
        expect(findings(root, known) == "", "listed counts pass as they are")
        write(root, "aggregator/rounds/src/engine.cc",
              ["// random-walk-admm too", "admm-sharing", "pp_loss"])
        found = findings(root, known)
        expect("3 lines name an algorithm, more than its listed 2" in found,
               "a listed file that names more: %r" % found)
        write(root, "aggregator/rounds/src/engine.cc", ["pp_loss"])
        found = findings(root, known)
        expect("fewer than its listed 2" in found,
               "a listed file that names fewer: %r" % found)
        os.remove(os.path.join(root, "sdk/include/edgeadmm/wire/update.h"))
        found = findings(root, known)
        expect("FROZEN_HISTORY lists sdk/include/edgeadmm/wire/update.h" in found,
               "a listed file that is gone: %r" % found)
    return planted.status(
        "check_algorithm_names_detects: every planted case was found")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
