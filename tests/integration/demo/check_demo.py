"""Runs scripts/demo at a reduced size and checks what it promises.

The demo must exit 0, leave no daemon or fleet process behind (both exited
cleanly after SIGTERM or at the end of the job), leave a consistent database,
and write report.json with one row per committed round (round, participants,
accuracy, epsilon), non-decreasing epsilon within the budget, an exported
model, and two PNG plots that are more than a blank canvas. The released
(exported) model must be the committed model with the best validation
accuracy (the daemon's scores, which must equal the demo's own evaluation),
and clearly above the majority class. A second, short run with
`--early-stop 1` must end as completed by the early stop, right after the
first committed model that did not beat the best, with only the rounds
that ran charged.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

import edgeadmm_db  # tools/python (on PYTHONPATH)

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is not running (it only waits to be reaped).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def check_png(path):
    """The PNG exists, is not tiny, and has enough non-background pixels."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    check(os.path.isfile(path), f"{path} exists")
    if not os.path.isfile(path):
        return
    check(os.path.getsize(path) > 2000, f"{path} is larger than 2 kB")
    image = mpimg.imread(path)[..., :3]
    background = image[0, 0]
    different = np.any(np.abs(image - background) > 0.05, axis=-1)
    check(different.mean() > 0.01,
          f"{path} has non-background pixels ({different.mean():.4f})")
    check(image.shape[0] >= 200 and image.shape[1] >= 300,
          f"{path} is at least 300x200")


def check_released(report, rows):
    """The released model is the best validated one, above the majority."""
    for r in rows:
        check(r.get("validation_accuracy") is not None and
              abs(r["validation_accuracy"] - r["accuracy"]) < 1e-12,
              f"round {r['round']}: the daemon's validation accuracy "
              f"{r.get('validation_accuracy')} equals the demo's "
              f"{r['accuracy']}")
    released, last = report.get("released"), report.get("last")
    check(released is not None and last is not None,
          "report has the released and the last model")
    if released is None or last is None:
        return
    best = max(r["validation_accuracy"] or 0 for r in rows)
    first_best = next(r for r in rows if r["validation_accuracy"] == best)
    check(released["selection"] == "best",
          f"released by default: the best model ({released['selection']})")
    check(released["round"] == first_best["round"],
          f"released round {released['round']} is the first with the best "
          f"validation accuracy (round {first_best['round']}, {best:.4f})")
    check(abs(released["accuracy"] - best) < 1e-12,
          f"released accuracy {released['accuracy']:.4f} == best {best:.4f}")
    check(last["round"] == rows[-1]["round"],
          f"last model round {last['round']} == last row {rows[-1]['round']}")
    check(released["accuracy"] >= last["accuracy"],
          "released not worse than the last model")
    check(abs(released["epsilon"] - rows[-1]["epsilon"]) < 1e-9,
          f"released epsilon {released['epsilon']} is the job's whole "
          f"epsilon {rows[-1]['epsilon']} (selection saw every model)")
    baselines = report.get("baselines", {})
    majority = baselines.get("majority_class")
    check(majority is not None and 0.5 <= majority < 1,
          f"majority-class baseline reported ({majority})")
    if majority is not None:
        check(released["accuracy"] > majority + 0.02,
              f"released accuracy {released['accuracy']:.4f} > majority "
              f"class {majority:.4f} + 0.02")
    optimum = baselines.get("central_optimum")
    check(optimum is not None and optimum > majority,
          f"non-private central optimum reported ({optimum}) above the "
          "majority class")


def check_early_stop(a):
    """scripts/demo --early-stop 1: the job completes after the first
    committed model that is not better than the best so far."""
    work = a.work_dir + "-early-stop"
    shutil.rmtree(work, ignore_errors=True)
    argv = [
        os.path.join(a.source_dir, "scripts", "demo"), "--skip-setup",
        "--skip-build", "--build-dir", a.build_dir, "--out", work,
        "--devices", a.devices, "--rounds", "30", "--epsilon", a.epsilon,
        "--q", "0.2", "--early-stop", "1", "--timeout", "600"
    ]
    print(" ".join(argv), flush=True)
    done = subprocess.run(argv, text=True, capture_output=True)
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    check(done.returncode == 0, f"early-stop demo exit code {done.returncode}")
    path = os.path.join(work, "report", "report.json")
    if not os.path.isfile(path):
        check(False, "early-stop report.json exists")
        return
    report = json.load(open(path))
    rows = report["rounds"]
    check(report["final_state"] == "completed" and
          (report.get("end_reason") or "").startswith("early stop"),
          f"early stop ends the job as completed ({report['final_state']}, "
          f"{report.get('end_reason')})")
    check(2 <= len(rows) < 30, f"stopped before 30 rounds ({len(rows)})")
    if len(rows) >= 2:
        scores = [r["validation_accuracy"] for r in rows]
        check(all(scores[i] > max(scores[:i]) for i in range(1, len(rows) - 1))
              and scores[-1] <= max(scores[:-1]),
              f"every round but the last improved, the last did not ({scores})")
    check(report["released"] is not None and rows and
          report["released"]["round"] == rows[-2]["round"],
          "the released model is the one before the stop")
    db_path = os.path.join(work, "state", "aggregator.db")
    charged = edgeadmm_db.count_ledger_rows(db_path, "central")
    still_open = edgeadmm_db.count_rounds(db_path, "open")
    check(charged == len(rows),
          f"central ledger rows {charged} == committed rounds {len(rows)}")
    check(still_open == 0, f"no round left open ({still_open})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source-dir", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--devices", default="200")
    p.add_argument("--rounds", default="8")
    p.add_argument("--epsilon", default="8")
    a = p.parse_args()
    shutil.rmtree(a.work_dir, ignore_errors=True)
    epsilon = float(a.epsilon)
    argv = [
        os.path.join(a.source_dir, "scripts", "demo"), "--skip-setup",
        "--skip-build", "--build-dir", a.build_dir, "--out", a.work_dir, "--devices",
        a.devices, "--rounds", a.rounds, "--epsilon", a.epsilon, "--q", "0.2",
        "--timeout", "600"
    ]
    print(" ".join(argv), flush=True)
    done = subprocess.run(argv, text=True, capture_output=True)
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    check(done.returncode == 0, f"demo exit code {done.returncode} == 0")
    check("report in" in done.stdout, "the demo prints where the report is")

    state = os.path.join(a.work_dir, "state")
    for name in ("daemon.pid", "fleet.pid"):
        path = os.path.join(state, name)
        check(os.path.isfile(path), f"{name} written")
        if os.path.isfile(path):
            pid = int(open(path).read())
            check(not alive(pid), f"{name} process {pid} has exited")

    report_dir = os.path.join(a.work_dir, "report")
    report_path = os.path.join(report_dir, "report.json")
    check(os.path.isfile(report_path), "report.json exists")
    if os.path.isfile(report_path):
        report = json.load(open(report_path))
        check(report["error"] is None, f"no error ({report['error']})")
        check(report["final_state"] in ("completed", "budget-exhausted"),
              f"job finished ({report['final_state']})")
        check(bool(report.get("end_reason")),
              f"the end reason is reported ({report.get('end_reason')})")
        for who in ("daemon", "fleet"):
            s = report["shutdown"][who]
            check(s["clean"] and s["exit_code"] == 0,
                  f"{who} shut down cleanly ({s})")
        check(report["database_problems"] == [],
              f"database consistent ({report['database_problems']})")
        rows = report["rounds"]
        check(1 <= len(rows) <= int(a.rounds),
              f"1..{a.rounds} round rows ({len(rows)})")
        previous = 0.0
        for r in rows:
            check(r["participants"] >= 1, f"round {r['round']} participants")
            check(0.0 <= r["accuracy"] <= 1.0, f"round {r['round']} accuracy")
            check(r["epsilon"] is not None and
                  previous <= r["epsilon"] <= epsilon + 1e-9,
                  f"round {r['round']} epsilon {r['epsilon']} in "
                  f"[{previous}, {epsilon}]")
            previous = r["epsilon"] or previous
        if rows:
            # Private training must learn: a9a's majority class is 76.4%.
            check(rows[-1]["accuracy"] > 0.70,
                  f"final accuracy {rows[-1]['accuracy']:.4f} > 0.70")
            check_released(report, rows)
    model = os.path.join(report_dir, "model.json")
    check(os.path.isfile(model) and os.path.getsize(model) > 100,
          "model.json exported")
    for plot in ("accuracy.png", "epsilon.png"):
        check_png(os.path.join(report_dir, plot))
    check_early_stop(a)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        return 1
    print("demo_script_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
