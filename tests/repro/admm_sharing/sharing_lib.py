"""Shared pieces of the admm-sharing reproductions (papers 000/003, Hu et al.,
"Learning Privately over Distributed Features: An ADMM Sharing Approach"):
run.py (a9a, 2 parties) and wide.py (synthetic, 3 parties) use them.

- the job TOML of an admm-sharing job (docs/aggregator.md, [admm_sharing]);
- one run on the real stack: `edgeadmm` CLI + `edgeadmm-aggregatord` + one
  `edgeadmm-fleet connect --column-blocks ...` process whose devices are the
  parties (DTLS-PSK on loopback), with `--history` so that every party's
  persisted x̃_m and device-ledger ε are read back after every round;
- the numpy reference: the centralized optimum of the same objective
  F(x) = (1/N) Σ_i log(1 + exp(−b_i a_iᵀx)) + (λ/2)||x||² (digest A1: the
  1/N factor kept, R_m = ½||x_m||²) by Newton's method, and the scores.

The stack helpers themselves (Stack, plots, JSON) are tools/python's
edgeadmm_stack; this module only adds what is particular to admm-sharing.
"""

import math
import os

import numpy as np

import edgeadmm_stack as es


# --------------------------------------------------------------------------
# Objective and reference (numpy)


def objective(features, labels, x, lam):
    """F(x) = (1/N) Σ log(1 + e^{−b aᵀx}) + (λ/2)||x||² (the job's objective:
    loss weight c = 1/N, docs/results.md "admm-sharing")."""
    return es.logistic_loss(features, labels, x) + 0.5 * lam * float(x @ x)


def test_scores(features, labels, x):
    """(mean log loss, accuracy) of the linear model x on a test set."""
    return (es.logistic_loss(features, labels, x),
            es.accuracy(features, labels, x))


def centralized_optimum(features, labels, lam):
    """argmin F by Newton's method (edgeadmm_stack.central_logistic_optimum:
    mean logistic loss + (λ/2)||x||²), the reference every run is compared
    with."""
    return es.central_logistic_optimum(features, labels, lam, iterations=100)


# --------------------------------------------------------------------------
# The job and the stack


def sharing_toml(name, rounds, columns, records, rho, lam, labels_path,
                 noise=None, deadline_seconds=60, dimension=None):
    """An admm-sharing job's TOML (edgeadmm_stack.sharing_job_toml).
    `noise`: None (no noise), or a dict of more [admm_sharing] keys as
    Python values, e.g. {"noise": "rigorous", "sigma": 1e-2,
    "sensitivity": 1e-3, "target_delta": 1e-5}."""
    return es.sharing_job_toml(name, rounds, columns, records, rho, lam,
                               labels_path, deadline_seconds, dimension,
                               **(noise or {}))


def write_libsvm(path, features, labels):
    """Writes dense rows as LIBSVM (the gateway's label file and the parties'
    data are the same records in the same order: the record id is the line)."""
    with open(path, "w") as f:
        for row, y in zip(features, labels):
            items = " ".join(f"{j + 1}:{row[j]:.17g}"
                             for j in np.flatnonzero(row))
            f.write(f"{'+1' if y > 0 else '-1'} {items}\n")


def read_history(path):
    """A party's `edgeadmm-fleet --history` file: a list of (round_id,
    epsilon, sent_epsilon, x̃_m) per local step, in order: the persisted
    device ledger's ε, the ε its pending upload reports on the wire (nan if
    none was pending) and the persisted model."""
    out = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            out.append((int(parts[0]), float(parts[2]), float(parts[3]),
                        np.array([float(v) for v in parts[4:]])))
    return out


def run_sharing_job(build_dir, state_dir, name, toml_text, data_path, dim,
                    columns, records, timeout_seconds=1800, delta=1e-5,
                    log=print, nice=10, extra_fleet_args=()):
    """Runs one admm-sharing job to its end on the real stack: enrolls one
    device per party (dev-00000 = party 1, ...), starts the daemon and one
    fleet process with `--column-blocks` and `--history`. Returns a dict:
    error (None when the job completed), seconds, rounds (the daemon's
    committed rows), history (per party: read_history's list), totals
    (the fleet's upload counters)."""
    import time
    stack = es.Stack(os.path.join(build_dir, ""), state_dir, log=log)
    stack.enroll(len(columns))
    history_dir = os.path.join(stack.state_dir, "history")
    fleet_args = ["--data", data_path, "--dim", str(dim), "--column-blocks",
                  ",".join(str(c) for c in columns), "--records",
                  str(records), "--history", history_dir, "--delta",
                  str(delta), "--state-dir",
                  os.path.join(stack.state_dir, "devices")]
    fleet_args += list(extra_fleet_args)
    start = time.monotonic()
    error = None
    rounds = []
    try:
        stack.create_job(name, toml_text)
        stack.start_daemon()
        stack.start_fleet(fleet_args, nice=nice)
        final = stack.follow(name, rounds.append, timeout_seconds)
        if final != "completed":
            error = f"job {final}: {stack.end_reason(name)}"
    except es.StackError as e:
        error = str(e)
    finally:
        stopped = stack.stop()
    seconds = time.monotonic() - start
    ids = sorted(f for f in os.listdir(stack.psk_dir))
    history = []
    for device in ids:
        path = os.path.join(history_dir, f"{device}.tsv")
        history.append(read_history(path) if os.path.exists(path) else [])
    return {"error": error, "seconds": seconds, "rounds": rounds,
            "history": history, "stopped": stopped,
            "totals": es.fleet_totals(stack.state_dir), "stack": stack}


def per_round_models(history, columns):
    """The concatenated x̃ = (x̃_1, ..., x̃_M) after each round, from the
    parties' histories (one line per party and round; a recomputed step of
    the same round replaces the earlier line). Returns a list of
    (round_id, x, [ε_m], [sent ε_m]) for the rounds every party stepped
    in."""
    by_round = []
    for m, steps in enumerate(history):
        last = {}
        for round_id, eps, sent, x in steps:
            if len(x) != columns[m]:
                raise ValueError(f"party {m}: x̃ of {len(x)} values, "
                                 f"not {columns[m]}")
            last[round_id] = (eps, sent, x)
        by_round.append(last)
    common = sorted(set.intersection(*(set(d) for d in by_round)))
    return [(r, np.concatenate([d[r][2] for d in by_round]),
             [d[r][0] for d in by_round], [d[r][1] for d in by_round])
            for r in common]


def finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None
