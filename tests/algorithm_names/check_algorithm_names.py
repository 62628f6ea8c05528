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

The seam is being moved: KNOWN_NAMES lists, per file, how many lines named
an algorithm when the check came in. The check fails when a listed file
names algorithms on more lines than listed, when any other generic file
names one, and when a listed file names fewer (lower its count, or take it
off when it reaches 0), so the list only shrinks.

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
REGISTRATIONS = ("sdk/src/client/all_client_algorithms.cc",)
SOURCE_ENDINGS = (".cc", ".c", ".h")

ALGORITHM = re.compile(
    r"prox[_ -]?admm|ProxAdmm|pp[_ -]?admm|PpAdmm|pp_loss|PpLoss|"
    r"admm[_ -]?sharing|AdmmSharing|random[_ -]?walk|RandomWalk|"
    r"dp[_ -]?sgd|DpSgd|dp[_ -]?admm|DpAdmm|linearized|Linearized|"
    r"penalty[_ -]?perturb|PenaltyPerturb|FEDERATED_PRIVATE|SHARING|"
    r"\bsharing\b", re.IGNORECASE)

# path -> lines naming an algorithm, as they stood when the check came in
# (issue 30 §1).
KNOWN_NAMES = {
    # 11 before each algorithm's unit read its own table: the example.
    "aggregator/jobs/include/edgeadmm/jobs/job_config.h": 4,
    "aggregator/jobs/include/edgeadmm/jobs/job_report.h": 8,
    "aggregator/jobs/include/edgeadmm/jobs/party_ledger_report.h": 3,
    "aggregator/jobs/src/job_report.cc": 8,
    "aggregator/jobs/src/job_store.cc": 1,
    "aggregator/jobs/src/party_ledger_report.cc": 4,
    "aggregator/rounds/include/edgeadmm/rounds/ledger_book.h": 1,
    "aggregator/rounds/include/edgeadmm/rounds/noise_planner.h": 2,
    "aggregator/rounds/include/edgeadmm/rounds/party_ledger.h": 2,
    "aggregator/rounds/include/edgeadmm/rounds/round_engine.h": 2,
    "aggregator/rounds/include/edgeadmm/rounds/server_update.h": 1,
    "aggregator/rounds/src/ledger_book.cc": 3,
    "aggregator/rounds/src/round_engine.cc": 1,
    "aggregator/rounds/src/round_store.cc": 1,
    "aggregator/server/include/edgeadmm/server/request_handler.h": 1,
    "aggregator/server/src/request_handler.cc": 5,
    "aggregator/store/include/edgeadmm/store/schema.h": 1,
    # Two more than when the check came in: migration 10 names the column
    # it converts and drops (uploads.pp_loss, now uploads.extra).
    "aggregator/store/src/schema.cc": 7,
    "sdk/include/edgeadmm/client_record.h": 1,
    "sdk/include/edgeadmm/device_state.h": 4,
    "sdk/include/edgeadmm/wire/protocol.h": 8,
    "sdk/include/edgeadmm/wire/released_model.h": 1,
    "sdk/include/edgeadmm/wire/round_task.h": 2,
    "sdk/include/edgeadmm/wire/round_task_stream.h": 2,
    "sdk/include/edgeadmm/wire/update.h": 1,
    "sdk/src/client/device_client_round.cc": 2,
    "sdk/src/client/streaming_party.h": 1,
    "sdk/src/state/device_state.cc": 2,
    "sdk/src/wire/round_task.cc": 5,
    "sdk/src/wire/round_task_stream.cc": 1,
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
                            "listed %d: lower KNOWN_NAMES (or take it off "
                            "at 0)" % (path, len(lines), allowed))
    for path in known:
        if path not in seen:
            findings.append("KNOWN_NAMES lists %s, which is no longer a "
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
        check(root, KNOWN_NAMES),
        "check_algorithm_names: no generic file names an algorithm beyond "
        "the %d listed" % len(KNOWN_NAMES),
        "algorithm-name findings above")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
