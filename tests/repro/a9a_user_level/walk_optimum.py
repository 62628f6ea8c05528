"""Paper 002 Alg. 4 (`random-walk-admm`) with σ = 0 against the centralized
optimum of a9a logistic regression, on the real stack (issue 16: "with σ = 0
the walk reaches the centralized optimum within 1e-3 relative objective";
docs/results.md, "Paper 002 Alg. 4 through the gateway").

The daemon and one edgeadmm-fleet process (n DeviceClients, each its own
DTLS-PSK session) run one σ = 0 walk of K steps on a9a's training records
(all 32,561 by default), split contiguously over the n devices
(fleet::SplitRecords). Every committed step's z is in the daemon's database,
so one run gives the objective gap after every prefix of the walk.

F(z) = mean logistic loss over all records + (l2/2)||z||², the centralized
objective. F* = min F by Newton's method to a gradient norm <= 1e-12
(tools/python central_logistic_optimum). The walk's own fixed point
minimizes (1/n) Σ_i F_i with F_i the mean over device i's records: with
325/326 records per device this weights records unevenly by < 0.4%, so the
script also reports the floor (F(z_w) − F*)/F* of that weighted optimum z_w.

  scripts/repro a9a-walk --optimum --build-dir build/host-release --out DIR \\
      [--devices 100 --records 0 (all) --steps 4000 --check 1e-3]
Writes DIR/optimum.csv (the gap at every step) and DIR/optimum.md. With
--check TOL it exits 1 when the final gap exceeds TOL (the ctest).
"""

import argparse
import csv
import os
import shutil
import signal
import sys
import time

import numpy as np

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)
import walk  # the job TOML (this folder)

DIM = walk.DIM
HERE = os.path.dirname(os.path.abspath(__file__))


def objective(x, y, z, l2, weights=None):
    """Mean logistic loss (record weights `weights`, summing to 1) plus
    (l2/2)||z||²."""
    losses = np.logaddexp(0.0, -y * (x @ z))
    mean = losses.mean() if weights is None else float(weights @ losses)
    return float(mean + 0.5 * l2 * z @ z)


def gradient(x, y, z, l2, weights):
    sig = 0.5 * (1.0 - np.tanh(0.5 * y * (x @ z)))
    return -(x.T @ (weights * y * sig)) + l2 * z


def weighted_optimum(x, y, l2, weights, tolerance=1e-12):
    """argmin Σ_j w_j log(1 + exp(−y_j a_jᵀz)) + (l2/2)||z||² by Newton's
    method (strongly convex for l2 > 0), to ||∇|| <= tolerance."""
    z = np.zeros(x.shape[1])
    for _ in range(100):
        g = gradient(x, y, z, l2, weights)
        if np.linalg.norm(g) <= tolerance:
            break
        sig = 0.5 * (1.0 - np.tanh(0.5 * y * (x @ z)))
        hess = (x.T * (weights * sig * (1 - sig))) @ x + l2 * np.eye(len(z))
        z -= np.linalg.solve(hess, g)
    return z, float(np.linalg.norm(gradient(x, y, z, l2, weights)))


def split_weights(samples, devices):
    """Record weights of (1/n) Σ_i F_i under fleet::SplitRecords (the first
    samples % n devices hold one record more)."""
    base, extra = divmod(samples, devices)
    counts = [base + (1 if i < extra else 0) for i in range(devices)]
    return np.concatenate([np.full(c, 1.0 / (devices * c)) for c in counts])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    walk.add_common_args(p)
    p.add_argument("--records", type=int, default=0,
                   help="the first N training records (0: all 32,561)")
    p.add_argument("--steps", type=int, default=4000, help="walk steps K")
    p.add_argument("--check", type=float, default=None,
                   help="exit 1 unless the gap after K steps is <= this")
    p.add_argument("--timeout", type=float, default=900)
    a = p.parse_args(argv)
    # SIGTERM (ctest's timeout) unwinds, so run_to_end stops what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    a.data = a.data or os.path.join(HERE, "..", "..", "..", "..", "shared",
                                    "data")
    if not os.path.exists(os.path.join(a.data, "a9a.xz")):
        print(f"walk_optimum.py: a9a.xz not in {a.data} (set $EDGEADMM_DATA)",
              file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    x, y = es.read_libsvm(os.path.join(a.data, "a9a.xz"), DIM)
    if a.records:
        x, y = x[:a.records], y[:a.records]
    train = os.path.join(a.out, "train.libsvm")
    with es.open_text(os.path.join(a.data, "a9a.xz")) as f, \
            open(train, "w") as out:
        for k, line in enumerate(f):
            if k >= len(y):
                break
            out.write(line)
    uniform = np.full(len(y), 1.0 / len(y))
    z_star, g_star = weighted_optimum(x, y, a.l2, uniform)
    f_star = objective(x, y, z_star, a.l2)
    z_w, g_w = weighted_optimum(x, y, a.l2, split_weights(len(y), a.devices))
    floor = (objective(x, y, z_w, a.l2) - f_star) / f_star
    f_zero = objective(x, y, np.zeros(DIM), a.l2)
    print(f"a9a: {len(y)} records over {a.devices} devices, l2 {a.l2:g}: "
          f"F* = {f_star:.10f} (||grad F(z*)|| = {g_star:.1e}), "
          f"F(0) = {f_zero:.6f}; the walk's own optimum (per-device means, "
          f"||grad|| = {g_w:.1e}) sits {floor:.2g} above F*", flush=True)
    state = os.path.join(a.out, "stack")
    shutil.rmtree(state, ignore_errors=True)
    stack = es.Stack(a.build_dir, state, log=lambda *_: None)
    stack.enroll(a.devices)
    start = time.time()
    error = stack.run_to_end(
        "walk-optimum",
        walk.job_toml("walk-optimum", "random-walk-admm", a.steps, 1, 0.0,
                      1000.0, a.lam, a.gamma, a.l2),
        ["--data", train, "--dim", str(DIM), "--allow-unaccounted-steps"],
        a.timeout, server_options={"non_confirmable_notifications": True})
    seconds = time.time() - start
    rows = stack.rounds("walk-optimum")
    if error or len(rows) != a.steps:
        print(f"walk failed after {len(rows)} of {a.steps} steps: {error}",
              file=sys.stderr)
        return 1
    results = []
    for row in rows:
        f = objective(x, y, row["z"], a.l2)
        results.append({"step": row["iteration"], "objective": f,
                        "gap": (f - f_star) / f_star})
    with open(os.path.join(a.out, "optimum.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["step", "objective", "gap"],
                           lineterminator="\n")
        w.writeheader()
        for r in results:
            w.writerow({"step": r["step"],
                        "objective": f"{r['objective']:.12g}",
                        "gap": f"{r['gap']:.6g}"})
    lines = ["| steps K | ≈ visits per device | F(z_K) | (F(z_K) − F*)/F* |",
             "|---|---|---|---|"]
    marks = sorted({k for k in (100, 200, 500, 1000, 2000, 4000, 8000)
                    if k <= a.steps} | {a.steps})
    for k in marks:
        r = results[k - 1]
        lines.append(f"| {k:,} | {k / a.devices:g} | {r['objective']:.8f} | "
                     f"{r['gap']:.2g} |")
    first = next((r["step"] for r in results if r["gap"] <= 1e-3), None)
    lines.append(
        f"\n{len(y):,} records over {a.devices} devices, λ = {a.lam:g}, "
        f"γ = {a.gamma:g}, l2 = {a.l2:g}, σ = 0, C = 1000; F* = "
        f"{f_star:.8f} (Newton, ||∇F(z*)|| = {g_star:.1e}), F(0) = "
        f"{f_zero:.6f}; the per-device-mean optimum's floor {floor:.2g}; "
        f"first step within 1e-3: {first}; {seconds:.0f} s on the stack")
    walk.write_lines(os.path.join(a.out, "optimum.md"), lines)
    final = results[-1]["gap"]
    if final < -1e-9:
        print(f"FAIL: F(z_K) below F* ({final:.3g}): F* is wrong",
              file=sys.stderr)
        return 1
    if a.check is not None and not final <= a.check:
        print(f"FAIL: gap {final:.3g} after {a.steps} steps > {a.check:g}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
