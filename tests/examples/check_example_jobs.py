"""The example job files of examples/jobs/ stay valid (issue 35 item 5).

Each file is created with `edgeadmm job create` in a fresh database of its
own; the job must then exist in state `created`. The devices enrolled first
are the example's admm_sharing.parties or pp_admm.nodes when it has one
(those jobs' graph is the enrolled devices), else 100 (enough for every
cohort). The admm-sharing example names the
gateway's label file at an install path: the test writes a label file of
the example's record count and points the copy it creates at it.

  check_example_jobs.py --build-dir BUILD --work-dir DIR
"""

import argparse
import os
import re
import shutil
import sys

from edgeadmm_stack import Stack

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


def check(example: str, build_dir: str, work_dir: str) -> str:
    """An empty string if `example` creates a job, else what went wrong."""
    with open(os.path.join(EXAMPLES, example + ".toml")) as f:
        text = f.read()
    state_dir = os.path.join(work_dir, example)
    shutil.rmtree(state_dir, ignore_errors=True)
    stack = Stack(build_dir, state_dir, log=lambda line: None)
    devices = DEVICES_RE.search(text)
    stack.enroll(int(devices.group(1)) if devices else 100)
    name = NAME_RE.search(text)
    if name is None:
        return f"{example}: no job name"
    stack.create_job(name.group(1), with_local_labels(text, state_dir),
                     start=False)
    state = stack.job_state(name.group(1))
    if state != "created":
        return f"{example}: job state {state!r} after job create"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--work-dir", required=True)
    args = parser.parse_args()
    present = sorted(f[:-len(".toml")] for f in os.listdir(EXAMPLES)
                     if f.endswith(".toml"))
    failures = [f"missing example {e}.toml" for e in EXPECTED
                if e not in present]
    for example in present:
        try:
            failure = check(example, args.build_dir, args.work_dir)
        except Exception as error:  # the CLI's refusal, with its message
            failure = f"{example}: {error}"
        print(f"{example}: {failure or 'OK'}")
        if failure:
            failures.append(failure)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
