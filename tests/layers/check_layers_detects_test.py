#!/usr/bin/env python3
"""The layer check fails where it must: on a copy of the tree (the folders
check_layers.py reads) with one back arrow planted at a time, it exits 1 and
names the arrow; on the unchanged copy it exits 0.

  check_layers_detects_test.py [--root DIR]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_layers.py")
sys.path.insert(0, HERE)
from check_layers import BOARD_NEUTRAL, SCANNED  # noqa: E402

# Each case: a name, the file to change (relative to the copy), the text to
# append to it, and a piece of the finding expected.
CASES = [
    ("state uses steps", "sdk/src/state/device_state.cc",
     '#include "edgeadmm/local_trainer.h"\n',
     "sdk/state -> sdk/steps runs up the order"),
    ("steps uses client", "sdk/src/steps/algorithm_tasks.cc",
     '#include "client/streaming_party.h"\n',
     "sdk/steps -> sdk/client runs up the order"),
    ("a board uses a test double",
     "platform/boards/mps2_an386/board.cc",
     '#include "edgeadmm/fake/test_entropy.h"\n',
     "production unit platform/boards uses testing/"),
    ("the algorithms reach into jobs by path",
     "aggregator/algorithms/CMakeLists.txt",
     'target_include_directories(edgeadmm_algorithms PUBLIC\n'
     '  "${PROJECT_SOURCE_DIR}/aggregator/jobs/include")\n'
     'target_link_libraries(edgeadmm_algorithms PUBLIC edgeadmm::jobs)\n',
     "circle of units: aggregator/algorithms -> aggregator/jobs"),
    ("two aggregator areas in a circle", "aggregator/store/src/database.cc",
     '#include "edgeadmm/registry/device_registry.h"\n',
     "circle of units: aggregator/registry -> aggregator/store"),
    ("a tool uses an aggregator internal", "tools/fleet/main.cc",
     '#include "../../aggregator/privacy/src/checks.h"\n',
     "tools/fleet uses a private header of aggregator/privacy"),
    ("the fleet uses the aggregator's registry", "tools/fleet/main.cc",
     '#include "edgeadmm/registry/device_registry.h"\n',
     "tools/fleet uses the aggregator unit aggregator/registry"),
    ("the firmware calls semihosting", "examples/cortex_m4_device/main.cc",
     'void Log(const char* t) { edgeadmm::baremetal::SemihostingWrite(t); }\n',
     "SemihostingWrite: firmware and target tests reach the board"),
    ("a target test uses one board's header", "tests/target/board_test.cc",
     '#include "edgeadmm/board/lan9118.h"\n',
     "a header of one board's folder"),
    ("a unit outside the order", "sdk/src/core/status.cc",
     '#include "edgeadmm/newunit/thing.h"\n',
     "unit aggregator/newunit is not placed in the order"),
]
# The last case needs its header.
EXTRA_FILES = {
    "a unit outside the order":
        ("aggregator/newunit/include/edgeadmm/newunit/thing.h",
         "#pragma once\n"),
}


def copy_tree(root, dest):
    for top in SCANNED + tuple(t for t in BOARD_NEUTRAL if t not in SCANNED):
        source = os.path.join(root, top)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(dest, top),
                            ignore=shutil.ignore_patterns("build", ".*"))


def run_check(root):
    done = subprocess.run([sys.executable, CHECK, "--root", root],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)
    return done.returncode, done.stdout


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(HERE, "..", ".."))
    args = parser.parse_args(argv)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="layers-") as scratch:
        clean = os.path.join(scratch, "clean")
        copy_tree(os.path.abspath(args.root), clean)
        code, output = run_check(clean)
        if code != 0:
            print("FAIL the unchanged copy: exit %d\n%s" % (code, output))
            failures += 1
        for name, path, text, expected in CASES:
            tree = os.path.join(scratch, "case")
            shutil.rmtree(tree, ignore_errors=True)
            shutil.copytree(clean, tree)
            with open(os.path.join(tree, path), "a", encoding="utf-8") as f:
                f.write(text)
            if name in EXTRA_FILES:
                extra, content = EXTRA_FILES[name]
                os.makedirs(os.path.dirname(os.path.join(tree, extra)),
                            exist_ok=True)
                with open(os.path.join(tree, extra), "w",
                          encoding="utf-8") as f:
                    f.write(content)
            code, output = run_check(tree)
            if code != 1 or expected not in output:
                print("FAIL %s: exit %d, expected 1 and \"%s\"\n%s" %
                      (name, code, expected, output))
                failures += 1
            else:
                print("ok   %s: exit 1, \"%s\"" % (name, expected))
    if failures:
        print("%d case(s) failed" % failures)
        return 1
    print("the layer check found every planted arrow")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
