"""The example job files of examples/jobs/ stay valid (issue 35 item 5).

Each file is created with `edgeadmm job create` in a fresh database of its
own; the job must then exist in state `created`. The devices enrolled first
are the example's admm_sharing.parties or pp_admm.nodes when it has one
(those jobs' graph is the enrolled devices), else 100 (enough for every
cohort). The admm-sharing example names the
gateway's label file at an install path: the test writes a label file of
the example's record count and points the copy it creates at it.

  check_example_jobs.py --cli PATH_TO_EDGEADMM

Only the admin CLI runs; the databases live in a temporary folder.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import edgeadmm_db

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "examples", "jobs")
# One example per algorithm the aggregator serves.
EXPECTED = ("admm-sharing", "dp-admm", "dp-sgd", "pp-admm", "prox-admm",
            "random-walk-admm")
LABELS_RE = re.compile(r'^labels = "[^"]*"', re.MULTILINE)
RECORDS_RE = re.compile(r"^records = (\d+)", re.MULTILINE)
NAME_RE = re.compile(r'^name = "([^"]+)"', re.MULTILINE)
DEVICES_RE = re.compile(r"^(?:parties|nodes) = (\d+)", re.MULTILINE)


def with_local_labels(text: str, state_dir: str) -> str:
    """`text` with its labels file replaced by one written in `state_dir`
    (one LIBSVM record, label +1, per admm_sharing.records)."""
    match = RECORDS_RE.search(text)
    if not LABELS_RE.search(text) or match is None:
        return text
    path = os.path.join(state_dir, "labels.libsvm")
    with open(path, "w") as f:
        f.write("+1 1:1\n" * int(match.group(1)))
    return LABELS_RE.sub(f'labels = "{path}"', text)


def run_cli(cli: str, db: str, *args: str) -> str:
    """`edgeadmm ARGS --db DB`: "" on exit 0, else the exit and stderr."""
    done = subprocess.run([cli, *args, "--db", db], capture_output=True,
                          text=True, timeout=60)
    if done.returncode == 0:
        return ""
    return f"{' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}"


def check(example: str, cli: str, work_dir: str) -> str:
    """An empty string if `example` creates a job, else what went wrong."""
    with open(os.path.join(EXAMPLES, example + ".toml")) as f:
        text = f.read()
    name = NAME_RE.search(text)
    if name is None:
        return f"{example}: no job name"
    state_dir = os.path.join(work_dir, example)
    os.makedirs(state_dir)
    db = os.path.join(state_dir, "aggregator.db")
    devices = DEVICES_RE.search(text)
    job_file = os.path.join(state_dir, "job.toml")
    with open(job_file, "w") as f:
        f.write(with_local_labels(text, state_dir))
    failure = (run_cli(cli, db, "devices", "add", "--count",
                       devices.group(1) if devices else "100",
                       "--psk-dir", os.path.join(state_dir, "psk"))
               or run_cli(cli, db, "job", "create", job_file))
    if failure:
        return f"{example}: {failure}"
    state = edgeadmm_db.job_state(db, name.group(1))
    if state != "created":
        return f"{example}: job state {state!r} after job create"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, help="the edgeadmm binary")
    args = parser.parse_args()
    present = sorted(f[:-len(".toml")] for f in os.listdir(EXAMPLES)
                     if f.endswith(".toml"))
    failures = [f"missing example {e}.toml" for e in EXPECTED
                if e not in present]
    with tempfile.TemporaryDirectory(prefix="example-jobs-") as work_dir:
        for example in present:
            failure = check(example, args.cli, work_dir)
            print(f"{example}: {failure or 'OK'}")
            if failure:
                failures.append(failure)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
