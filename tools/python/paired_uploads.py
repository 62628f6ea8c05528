#!/usr/bin/python3
"""Per-round upload differences of two paired demo runs.

Two runs of scripts/demo with the same --unsafe-paired-seed draw the same
cohorts and give every (device, round) the same noise, so their uploads
differ only by what else changed (e.g. --mixed-fleet-bin: the second fleet
process, part 1 of 2 = the odd devices in sorted id order, computing in
float32). For every round both runs committed and every device that
uploaded in both, prints the largest and the root-mean-square coordinate
difference of the uploads of each part, over the noise's standard
deviation lambda*sigma (prox-admm: Delta u = 2 lambda Clip(x - z, C) +
lambda eta, eta ~ N(0, sigma^2 I)), and the released models' accuracies.

  paired_uploads.py RUN_A RUN_B [--json OUT]   (RUN: a demo --out directory)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Dict, List

import numpy as np

import edgeadmm_db  # beside this file (tools/python)

JOB = "demo-a9a"


def load(run: str) -> Dict[str, Any]:
    """A run's report, its job's sigma and its uploads by (round, device)."""
    db = os.path.join(run, "state", "aggregator.db")
    with open(os.path.join(run, "report", "report.json")) as f:
        report = json.load(f)
    job = edgeadmm_db.job(db, JOB)
    if job is None:
        raise SystemExit(f"{run}: no job {JOB}")
    uploads = {(u.round_id, u.device_id): np.frombuffer(u.payload, "<f4")
               for u in edgeadmm_db.uploads(db, job.id)}
    # The fleet's device order: its PSK files sorted by name.
    devices = sorted(os.listdir(os.path.join(run, "state", "psk")))
    return {"report": report, "sigma": edgeadmm_db.job_sigma(db, JOB),
            "devices": devices,
            "uploads": uploads,
            "committed": edgeadmm_db.committed_round_ids(db, job.id)}


def compare(a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
    """Per committed round of both runs: per part, the paired uploads, the
    max and RMS |difference| / (lambda sigma), and the uploads of one run
    only."""
    lam = a["report"]["config"]["lam"]
    if a["sigma"] != b["sigma"] or lam != b["report"]["config"]["lam"]:
        raise SystemExit("the runs have different sigma or lambda")
    std = lam * a["sigma"]
    if a["devices"] != b["devices"]:
        raise SystemExit("the runs have different devices")
    part = {d: i % 2 for i, d in enumerate(a["devices"])}
    rounds = []
    for r in sorted(set(a["committed"]) & set(b["committed"])):
        ka = {d for rr, d in a["uploads"] if rr == r}
        kb = {d for rr, d in b["uploads"] if rr == r}
        row: Dict[str, Any] = {"round": r, "unpaired": len(ka ^ kb)}
        for p in (0, 1):
            diffs = [a["uploads"][(r, d)].astype(np.float64) -
                     b["uploads"][(r, d)] for d in sorted(ka & kb)
                     if part[d] == p]
            flat = np.concatenate(diffs) if diffs else np.zeros(0)
            # A coordinate at least half a grid step g = lambda sigma / 2^10
            # apart landed on a neighbouring grid point (docs/privacy.md,
            # "Discrete Gaussian: exact noise on a grid").
            steps = np.abs(flat) >= 0.5 * std / 1024
            row[f"part{p}"] = {
                "paired": len(diffs),
                "uploads_off_by_a_grid_step": sum(
                    bool(np.any(np.abs(d) >= 0.5 * std / 1024)) for d in diffs),
                "coordinates_off_by_a_grid_step": int(np.sum(steps)),
                "max_within_grid_point_over_std": float(
                    np.max(np.abs(flat[~steps])) / std)
                if np.any(~steps) else 0.0,
                "max_over_std": float(np.max(np.abs(flat)) / std)
                if flat.size else 0.0,
                "rms_over_std": float(math.sqrt(np.mean(flat ** 2)) / std)
                if flat.size else 0.0}
        rounds.append(row)
    return {"noise_std": std, "rounds": rounds}


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.add_argument("--json", help="write the comparison here")
    a = p.parse_args(argv)
    runs = [load(a.run_a), load(a.run_b)]
    result = compare(*runs)
    result["released"] = [100 * r["report"]["released"]["accuracy"]
                          for r in runs]
    result["last"] = [100 * r["report"]["last"]["accuracy"] for r in runs]
    # The exported models (model.json: released, model-last.json: last).
    for key, name in (("released", "model.json"), ("last", "model-last.json")):
        z = []
        for run in (a.run_a, a.run_b):
            with open(os.path.join(run, "report", name)) as f:
                z.append(np.array(json.load(f)["z"]))
        result[f"{key}_max_dz"] = float(np.max(np.abs(z[0] - z[1])))
    print(f"noise std lambda*sigma = {result['noise_std']:.4g}")
    print(f"{'round':>5} {'unpaired':>8}  part 0: {'n':>4} {'max/std':>9} "
          f"{'rms/std':>9}  part 1: {'n':>4} {'max/std':>9} {'rms/std':>9}")
    for row in result["rounds"]:
        cells = "  ".join(
            f"part {q}: {row[f'part{q}']['paired']:>4} "
            f"{row[f'part{q}']['max_over_std']:>9.3g} "
            f"{row[f'part{q}']['rms_over_std']:>9.3g}" for q in (0, 1))
        print(f"{row['round']:>5} {row['unpaired']:>8}  {cells}")
    print("released accuracy: " + " vs ".join(
        f"{v:.3f}%" for v in result["released"]) +
        f" (difference {result['released'][1] - result['released'][0]:+.3f}"
        " point); last round: " + " vs ".join(
            f"{v:.3f}%" for v in result["last"]))
    print(f"max |z_a - z_b|: released {result['released_max_dz']:.3g}, last "
          f"{result['last_max_dz']:.3g}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
