#!/usr/bin/env python3
"""The C header export on a real model (issue 35).

Runs a small prox-admm job on a9a (20 devices, a fixed cohort of all 20, 3
rounds, the gateway validating on a9a.t) on the real daemon and fleet,
exports the released model as JSON and as C headers (float32 and
--quantize int8), compiles a C99 program with each header (cc -std=c99
-pedantic -Wall -Werror) that predicts every a9a.t record from a raw float32
file, and checks:
  float: the C labels equal sign(w.x) of the JSON model computed in float64,
         except where |w.x| is within the float32 rounding bound of 0;
         its accuracy is the gateway's validation accuracy of that model;
  int8:  the reported max weight error is at most s/2, and the accuracy is
         within 2 points of the float model's.
Prints both accuracies. Exit 0 on success, 1 on a failed check.
"""

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

import edgeadmm_data
import edgeadmm_job_toml
import edgeadmm_stack as es

JOB = "a9a-export"
PREFIX = "a9a_export"  # CModelPrefix(JOB)
DIM = 123
DEVICES = 20
ROUNDS = 3

PROGRAM = r"""#include <stdio.h>
#include "model.h"

/* argv[1]: records of PREFIX_FEATURES float32 each; prints label, score */
int main(int argc, char **argv)
{
    float x[PREFIX_FEATURES];
    FILE *in;
    if (argc != 2 || (in = fopen(argv[1], "rb")) == NULL) {
        return 2;
    }
    while (fread(x, sizeof x[0], PREFIX_FEATURES, in) == PREFIX_FEATURES) {
        printf("%d %.9g\n", prefix_predict(x), (double)prefix_score(x));
    }
    fclose(in);
    return 0;
}
"""


def job_file(test_path):
    return edgeadmm_job_toml.job_toml(
        job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
             "dimension": DIM, "rounds": ROUNDS},
        regularizer={"kind": "l2", "l2": 0.001},
        step={"lambda": 1.0, "gamma": 10.0},
        privacy={"policy": "participation", "clip": 0.5, "sigma": 0.5,
                 "delta": 1e-5, "central_budget": math.inf,
                 "device_budget": math.inf, "audit": True},
        sampling={"scheme": "fixed", "m": DEVICES, "m_min": DEVICES,
                  "deadline_seconds": 60},
        validation={"data": test_path, "format": "libsvm",
                    "normalize": "none", "release": "best"})


def train(stack, data_dir):
    stack.enroll(DEVICES)
    stack.create_job(JOB, job_file(os.path.join(data_dir, "a9a.t.xz")))
    try:
        stack.start_daemon()
        stack.start_fleet(["--data", os.path.join(data_dir, "a9a.xz"),
                           "--dim", str(DIM), "--epsilon-budget", "1e9",
                           "--task-refresh-ms", "60000"])
        state = stack.follow(JOB, lambda row: print(
            f"  round {row['round']}: validation accuracy "
            f"{row['validation_accuracy']}", flush=True), 60)
    finally:
        stack.stop()
    if state != "completed":
        raise es.StackError(f"job {state}: {stack.end_reason(JOB)}")


def export_header(stack, work, quantize):
    path = os.path.join(work, f"model-{quantize}.h")
    argv = [stack.cli, "job", "--db", stack.db_path, "export", JOB,
            "--format", "header", "--quantize", quantize, "--output", path]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    with open(path) as f:
        long_lines = [l for l in f.read().splitlines() if len(l) > 100]
    if long_lines:
        raise AssertionError(f"{path}: lines over 100 characters: "
                             f"{long_lines[:2]}")
    return path, done.stderr


def run_program(cc, work, header, records):
    """Compiles PROGRAM with `header` as model.h; returns (labels, scores)."""
    build = os.path.join(work, os.path.basename(header)[:-2])
    os.makedirs(build, exist_ok=True)
    shutil.copy(header, os.path.join(build, "model.h"))
    source = os.path.join(build, "predict.c")
    with open(source, "w") as f:
        f.write(PROGRAM.replace("PREFIX_FEATURES", PREFIX.upper() +
                                "_FEATURES").replace("prefix_", PREFIX + "_"))
    binary = os.path.join(build, "predict")
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Werror", "-O2",
                    "-o", binary, source], check=True)
    out = subprocess.run([binary, records], capture_output=True, text=True,
                         check=True).stdout.split()
    return (np.array([int(v) for v in out[0::2]]),
            np.array([float(v) for v in out[1::2]]))


def check(a):
    started = time.monotonic()
    cc = shutil.which("cc")
    if cc is None:
        print("no cc on PATH: skipped")
        return 77
    work = a.work_dir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    stack = es.Stack(a.build_dir, os.path.join(work, "stack"),
                     log=lambda m: print(f"  {m}", flush=True))
    train(stack, a.data)
    model = stack.export_model(JOB, os.path.join(work, "model.json"))
    x, y = edgeadmm_data.read_libsvm(os.path.join(a.data, "a9a.t.xz"), DIM)
    records = os.path.join(work, "a9a.t.f32")
    x.astype("<f4").tofile(records)

    failures = []
    float_h, _ = export_header(stack, work, "none")
    labels = run_program(cc, work, float_h, records)[0]
    float_accuracy = check_float(model, x, y, labels, failures)
    check_int8(stack, cc, work, records, y, labels, float_accuracy, failures)
    print(f"{time.monotonic() - started:.1f} s")
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


def check_float(model, x, y, labels, failures):
    """The float32 header's labels against sign(w.x) of the JSON model in
    float64, and its accuracy against the gateway's. Returns the accuracy."""
    z = np.array(model["z"])
    score = x @ z
    reference = np.where(score > 0, 1, -1)
    # float32 weights (u = 2^-24 each) and a float32 dot product of p terms
    # (gamma_p, Higham Thm. 3.1): |error| < (p + 2) u sum_j |w_j x_j|, plus
    # 1e-6 absolute for a tie itself.
    bound = (DIM + 2) * 2.0 ** -24 * (np.abs(x) @ np.abs(z)) + 1e-6
    differ = labels != reference
    ties = int(np.sum(np.abs(score) <= bound))
    if np.any(differ & (np.abs(score) > bound)):
        failures.append(f"float header: {int(np.sum(differ))} labels differ "
                        f"from the JSON model beyond the rounding bound")
    accuracy = float(np.mean(labels == y))
    gateway = model.get("validation", {}).get("accuracy")
    print(f"float32 header: accuracy {accuracy:.4f} on {len(y)} a9a.t "
          f"records (JSON model in float64: {np.mean(reference == y):.4f}; "
          f"gateway validation: {gateway}); {int(np.sum(differ))} labels "
          f"differ, {ties} records within the tie bound")
    slack = (ties + 0.5) / len(y)
    if gateway is None or abs(accuracy - gateway) > slack:
        failures.append(f"float accuracy {accuracy} is not the "
                        f"gateway's {gateway}")
    return accuracy


def check_int8(stack, cc, work, records, y, float_labels, float_accuracy,
               failures):
    """The int8 export's reported weight error (at most s/2) and its
    header's accuracy (within 2 points of the float32 header's)."""
    int8_h, summary = export_header(stack, work, "int8")
    found = re.search(r"scale s = (\S+), max weight error \|w - s q\| = "
                      r"(\S+) over", summary)
    if not found:
        failures.append(f"int8 export: no max weight error in {summary!r}")
    else:
        s, err = float(found.group(1)), float(found.group(2))
        print(f"int8 header: scale {s:.6g}, max weight error {err:.6g}")
        if not err <= s / 2 * (1 + 1e-6):
            failures.append(f"int8 max weight error {err} above s/2 = {s / 2}")
    labels = run_program(cc, work, int8_h, records)[0]
    accuracy = float(np.mean(labels == y))
    print(f"int8 header: accuracy {accuracy:.4f} "
          f"({accuracy - float_accuracy:+.4f} against float32), "
          f"{int(np.sum(labels != float_labels))} labels differ")
    if abs(accuracy - float_accuracy) > 0.02:
        failures.append(f"int8 accuracy {accuracy} is more than 2 points "
                        f"from float's {float_accuracy}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--data", required=True,
                   help="folder with a9a.xz and a9a.t.xz")
    p.add_argument("--work-dir", required=True)
    return check(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
