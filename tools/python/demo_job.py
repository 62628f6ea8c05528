"""The demo job on the real stack: private logistic regression on a9a.

Called by scripts/demo (which installs, builds and finds the data first):
enrolls the devices, creates the job in a fresh database, starts the
aggregator daemon and the device fleet, prints one line per committed round
(round, participants, validation accuracy, central epsilon spent), stops when
the job ends (budget, rounds or early stop), exports the released model (the
committed model with the best accuracy on the gateway-held validation data,
a9a.t: choosing it is post-processing and costs no privacy, docs/privacy.md)
and the last one, writes the report directory (report.json, rounds.csv,
accuracy.png with the majority-class rate, the non-private central optimum
and the released round, epsilon.png) and shuts everything down, checking
that both processes exited and the database is consistent. Exit code 0 only
if all of that succeeded.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from typing import Any, Dict, List, Optional

import edgeadmm_stack as es  # beside this file (tools/python)

JOB = "demo-a9a"


def job_toml(a: argparse.Namespace) -> str:
    """The demo job's TOML (edgeadmm_job_toml): paper 002's prox step under
    the participation policy, validated on the gateway's a9a.t."""
    return es.job_toml(
        job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
             "dimension": a.dim, "rounds": a.rounds},
        regularizer={"kind": "l2", "l2": a.l2},
        step={"lambda": a.lam, "gamma": a.gamma},
        privacy={"policy": "participation", "clip": a.clip,
                 "sigma": a.sigma, "delta": a.delta,
                 "central_budget": a.epsilon,
                 "device_budget": float(a.device_epsilon)},
        sampling={"scheme": "poisson", "q": a.q, "m_min": a.m_min,
                  "deadline_seconds": a.deadline,
                  **({"seed": a.unsafe_paired_seed}
                     if a.unsafe_paired_seed else {})},
        validation={"data": a.test, "held_by": "gateway",
                    "metric": "accuracy", "release": "best",
                    "early_stop_rounds": a.early_stop})


def mixed_fleet(a: argparse.Namespace, stack: Any) -> Dict[str, Any]:
    """start_fleet's options for --mixed-fleet-bin: the second half of the
    devices run by that binary (none without it)."""
    if not a.mixed_fleet_bin:
        return {}
    return {"parts": 2, "part_bins": [stack.fleet_bin, a.mixed_fleet_bin]}


def paired_seed_args(a: argparse.Namespace) -> List[str]:
    """The fleet's --unsafe-paired-seed for --unsafe-paired-seed N: the
    16-digit hex of N (none without it)."""
    if not a.unsafe_paired_seed:
        return []
    print(f"demo: WARNING: --unsafe-paired-seed {a.unsafe_paired_seed}: "
          "UNSAFE, NO PRIVACY: the cohorts and every device's noise follow "
          "from this number; benchmarks only", flush=True)
    return ["--unsafe-paired-seed", f"{a.unsafe_paired_seed:016x}"]


def describe_model(exported: Dict[str, Any], test_x: Any, test_y: Any
                   ) -> Dict[str, Any]:
    """What the report says of an exported model (its JSON)."""
    import numpy as np
    z = np.array(exported["z"])
    return {
        "selection": exported["selection"],
        "round": exported["round"],
        "iteration": exported["iteration"],
        "epsilon": exported["epsilon"],
        "accuracy": es.accuracy(test_x, test_y, z),
        "daemon_validation": exported.get("validation"),
    }


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin-dir", required=True, help="CMake build directory")
    p.add_argument("--train", required=True, help="LIBSVM training data")
    p.add_argument("--test", required=True, help="LIBSVM validation data")
    p.add_argument("--report", required=True, help="report directory")
    p.add_argument("--state", required=True, help="fresh state directory")
    p.add_argument("--dim", type=int, default=123)
    p.add_argument("--devices", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--device-epsilon", default="inf",
                   help="local (per-device, against the aggregator) budget")
    p.add_argument("--delta", type=float, default=1e-5)
    p.add_argument("--q", type=float, default=0.1)
    p.add_argument("--m-min", type=int, default=0,
                   help="smallest committed round (default 0.6 q n)")
    p.add_argument("--participations", type=int, default=12,
                   help="sigma is planned so that a device may join this "
                   "many rounds within the budget; the job stops at the "
                   "budget when the busiest device gets there")
    p.add_argument("--early-stop", type=int, default=0,
                   help="stop when validation accuracy has not improved for "
                   "this many committed rounds (0: off)")
    p.add_argument("--deadline", type=float, default=20.0)
    p.add_argument("--clip", type=float, default=0.5)
    p.add_argument("--l2", type=float, default=1e-3)
    p.add_argument("--lam", type=float, default=1.0)
    p.add_argument("--gamma", type=float, default=30.0)
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--data-note", default="", help="where the data came from")
    p.add_argument("--unsafe-paired-seed", type=int, default=0,
                   help="benchmarks only, UNSAFE (no privacy): the cohorts "
                   "(sampling.seed = N) and every device's noise (the "
                   "fleet's --unsafe-paired-seed) from N > 0, so two runs "
                   "with the same N are paired")
    p.add_argument("--mixed-fleet-bin", default="",
                   help="a second edgeadmm-fleet (e.g. an EDGEADMM_REAL=float "
                   "build) that runs the second half of the devices")
    return p.parse_args(argv)


def central_reference(a: argparse.Namespace, test_x: Any, test_y: Any
                      ) -> float:
    """Validation accuracy of the non-private central optimum."""
    print("demo: non-private reference: central optimum of the same objective "
          "(mean logistic loss + L2) on all training records", flush=True)
    train_x, train_y = es.read_libsvm(a.train, a.dim)
    optimum = es.central_logistic_optimum(train_x, train_y, a.l2)
    return es.accuracy(test_x, test_y, optimum)


def print_summary(released: Optional[Dict[str, Any]],
                  last: Optional[Dict[str, Any]],
                  baselines: Dict[str, float]) -> None:
    """The released and the last model against the baselines."""
    if not released:
        return
    print(f"demo: released model (best on the gateway's validation data): "
          f"round {released['round']}, accuracy "
          f"{100 * released['accuracy']:.2f}%, central epsilon "
          f"{released['epsilon']:.4f}; last round {last['round']}: "
          f"{100 * last['accuracy']:.2f}%; majority class "
          f"{100 * baselines['majority_class']:.2f}%, non-private central "
          f"optimum {100 * baselines['central_optimum']:.2f}%", flush=True)


def write_outputs(a: argparse.Namespace, report: Dict[str, Any]) -> None:
    """report.json, rounds.csv and the accuracy and epsilon plots."""
    rows = report["rounds"]
    released = report["released"]
    baselines = report["baselines"]
    es.write_json(os.path.join(a.report, "report.json"), report)
    with open(os.path.join(a.report, "rounds.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["round", "participants", "accuracy", "loss", "epsilon"])
        for r in rows:
            w.writerow([r["round"], r["participants"], r["accuracy"],
                        r["loss"], r["epsilon"]])
    if rows:
        x = [r["round"] for r in rows]
        marks = []
        if released:
            marks.append((f"released (best validated, round "
                          f"{released['round']})", released["round"],
                          100 * released["accuracy"]))
        es.plot_series(
            os.path.join(a.report, "accuracy.png"), x,
            [("private ADMM (each committed model)",
              [100 * r["accuracy"] for r in rows])],
            "round", "validation accuracy (%)",
            f"a9a, {a.devices} devices, eps <= {a.epsilon}",
            hlines=[("non-private central optimum",
                     100 * baselines["central_optimum"]),
                    ("majority class", 100 * baselines["majority_class"])],
            marks=marks)
        es.plot_series(os.path.join(a.report, "epsilon.png"), x,
                       [("central", [r["epsilon"] for r in rows])], "round",
                       f"epsilon spent (delta = {a.delta:g})",
                       "central privacy ledger")


def main(argv: List[str]) -> int:
    a = parse_args(argv)
    if a.m_min <= 0:
        a.m_min = max(1, int(0.6 * a.q * a.devices))
    os.makedirs(a.report, exist_ok=True)
    started = time.time()
    print(f"demo: loading validation data {a.test}", flush=True)
    test_x, test_y = es.read_libsvm(a.test, a.dim)
    baselines = {"majority_class": es.majority_rate(test_y)}

    stack = es.Stack(a.bin_dir, a.state)
    rows = []
    shutdown = {}
    state = None
    end_reason = None
    released = last = None
    error = None
    try:
        print(f"demo: enrolling {a.devices} devices (PSKs in {stack.psk_dir})",
              flush=True)
        stack.enroll(a.devices)
        a.sigma = stack.plan_sigma(a.participations, a.epsilon, a.delta,
                                   a.m_min, a.clip)
        print(f"demo: sigma {a.sigma:.4g}: a device may join "
              f"{a.participations} rounds with at least {a.m_min} uploads "
              f"each within (eps, delta) = ({a.epsilon:g}, {a.delta:g})",
              flush=True)
        for line in stack.create_job(JOB, job_toml(a)).splitlines():
            print(f"demo: {line}", flush=True)
        stack.start_daemon()
        stack.start_fleet([
            "--data", a.train, "--dim", str(a.dim), "--epsilon-budget",
            "1e9" if a.device_epsilon == "inf" else a.device_epsilon, "--delta", str(a.delta), "--state-dir",
            os.path.join(a.state, "devices")
        ] + paired_seed_args(a), **mixed_fleet(a, stack))
        print(f"{'round':>5} {'participants':>12} {'val. accuracy':>13} "
              f"{'central eps':>11}", flush=True)

        def on_round(row: Dict[str, Any]) -> None:
            z = row.pop("z")
            row["accuracy"] = es.accuracy(test_x, test_y, z)
            row["loss"] = es.logistic_loss(test_x, test_y, z)
            rows.append(row)
            print(f"{row['round']:>5} {row['participants']:>12} "
                  f"{100 * row['accuracy']:>12.2f}% {row['epsilon']:>11.4f}",
                  flush=True)

        state = stack.follow(JOB, on_round, a.timeout)
        end_reason = stack.end_reason(JOB)
        print(f"demo: job {JOB} {state} after {len(rows)} rounds"
              f"{' (' + end_reason + ')' if end_reason else ''}", flush=True)
        released = describe_model(
            stack.export_model(JOB, os.path.join(a.report, "model.json")),
            test_x, test_y)
        last = describe_model(
            stack.export_model(JOB, os.path.join(a.report, "model-last.json"),
                               "last"), test_x, test_y)
    except (es.StackError, OSError) as e:
        error = str(e)
        print(f"demo: ERROR: {error}", file=sys.stderr, flush=True)
    finally:
        stopped = stack.stop()
        shutdown = {
            name: {"exit_code": code, "clean": clean}
            for name, (code, clean) in stopped.items()
        }
    problems = stack.check_database()
    clean = all(s["clean"] for s in shutdown.values())
    print(f"demo: shutdown: daemon exit {shutdown['daemon']['exit_code']}, "
          f"fleet exit {shutdown['fleet']['exit_code']}; database "
          f"{'consistent' if not problems else 'PROBLEMS: ' + '; '.join(problems)}",
          flush=True)

    baselines["central_optimum"] = central_reference(a, test_x, test_y)
    print_summary(released, last, baselines)

    report = {
        "job": JOB,
        "final_state": state,
        "end_reason": end_reason,
        "released": released,
        "last": last,
        "baselines": baselines,
        "error": error,
        "data": {"train": a.train, "test": a.test, "note": a.data_note},
        "config": {k: v for k, v in vars(a).items()
                   if k not in ("bin_dir", "report", "state")},
        "rounds": rows,
        "final": rows[-1] if rows else None,
        "shutdown": shutdown,
        "database_problems": problems,
        "fleet_summary": es.parse_fleet_log(
            os.path.join(a.state, "fleet.log")),
        "seconds": time.time() - started,
        "state_dir": os.path.abspath(a.state),
    }
    write_outputs(a, report)
    print(f"demo: report in {os.path.abspath(a.report)}", flush=True)
    ok = error is None and clean and not problems and rows
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
