#!/usr/bin/env python3
"""Algorithm-name check: the generic layers name no algorithm
(docs/architecture.md, "Algorithms as plug-ins").

The generic layers are the round engine and its store, the job records and
reports, the gateway's request path and daemon, the device client, the
local trainer, the device state and the wire codecs (GENERIC below). An
algorithm is named when a line of one of their files matches ALGORITHM (its
job name, its wire enum or its own fields such as pp-admm's P_i, pp_loss);
each algorithm's own unit, and the registration files that list them all
(REGISTRATIONS), may name it.

Frozen history is the one exception: FROZEN_HISTORY lists, per file, how
many lines name an algorithm because they are applied history that must not
change (a schema migration's SQL names the column it added and later
dropped), with the reason. The check fails when a listed file names
algorithms on more or on fewer lines than listed, and when a listed file is
gone, so the list never grows unnoticed.

Exit status 0 when nothing is found, 1 otherwise, 2 for a bad invocation.

  check_algorithm_names.py [--root DIR]
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
import source_checks  # noqa: E402

GENERIC = (
    "aggregator/rounds/", "aggregator/server/", "aggregator/jobs/",
    "aggregator/store/", "aggregator/daemon/", "aggregator/registry/",
    "sdk/src/client/", "sdk/src/wire/", "sdk/src/state/", "sdk/src/coap/",
    "sdk/include/edgeadmm/wire/", "sdk/include/edgeadmm/coap/",
    "sdk/include/edgeadmm/device_client.h",
    "sdk/include/edgeadmm/static_device_client.h",
    "sdk/include/edgeadmm/local_trainer.h",
    "sdk/include/edgeadmm/device_state.h",
    "sdk/include/edgeadmm/client_record.h",
)
# Where every algorithm is listed once, by design.
REGISTRATIONS = ("sdk/src/client/all_client_algorithms.cc",
                 "sdk/src/wire/task_params_shapes.cc")
SOURCE_ENDINGS = (".cc", ".c", ".h")

ALGORITHM = re.compile(
    r"prox[_ -]?admm|ProxAdmm|pp[_ -]?admm|PpAdmm|pp_loss|PpLoss|"
    r"admm[_ -]?sharing|AdmmSharing|random[_ -]?walk|RandomWalk|"
    r"dp[_ -]?sgd|DpSgd|dp[_ -]?admm|DpAdmm|linearized|Linearized|"
    r"penalty[_ -]?perturb|PenaltyPerturb|dp[_ -]?ftrl|DpFtrl|"
    r"FEDERATED_PRIVATE|SHARING|"
    r"\bsharing\b", re.IGNORECASE)

# path -> lines naming an algorithm that are applied history, with why.
FROZEN_HISTORY = {
    # Migrations 5 and 11 (SQL that existing databases have applied): the
    # column one algorithm's per-upload number had, added and later moved
    # into the opaque uploads.extra and dropped.
    "aggregator/store/src/schema.cc": 3,
}


def generic_sources(root):
    return [p for p in source_checks.tracked_files(root, ("aggregator", "sdk"))
            if p.endswith(SOURCE_ENDINGS) and p.startswith(GENERIC)
            and p not in REGISTRATIONS]


def naming_lines(path):
    """(line number, text) of each line of `path` that names an algorithm."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return [(i + 1, line.strip()) for i, line in enumerate(f)
                if ALGORITHM.search(line)]


def check(root, known):
    findings = []
    seen = set()
    for path in generic_sources(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue
        lines = naming_lines(full)
        allowed = known.get(path)
        if allowed is not None:
            seen.add(path)
        if allowed is None and lines:
            for number, text in lines:
                findings.append("%s:%d: a generic file names an algorithm: "
                                "%s" % (path, number, text[:100]))
        elif allowed is not None and len(lines) > allowed:
            findings.append("%s: %d lines name an algorithm, more than its "
                            "listed %d (first: line %d)" %
                            (path, len(lines), allowed, lines[0][0]))
        elif allowed is not None and len(lines) < allowed:
            findings.append("%s: %d lines name an algorithm, fewer than its "
                            "listed %d: lower FROZEN_HISTORY (or take it off "
                            "at 0)" % (path, len(lines), allowed))
    for path in known:
        if path not in seen:
            findings.append("FROZEN_HISTORY lists %s, which is no longer a "
                            "generic file: take it off" % path)
    return findings


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "sdk")):
        print("check_algorithm_names: %s has no sdk/" % root)
        return 2
    return source_checks.report(
        check(root, FROZEN_HISTORY),
        "check_algorithm_names: no generic file names an algorithm (%d file "
        "of frozen history)" % len(FROZEN_HISTORY),
        "algorithm-name findings above")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
