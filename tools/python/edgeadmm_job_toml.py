"""The one writer of job TOML files for the Python harness.

`job_toml(job={...}, step={...}, ...)` renders a job file from Python values:
one keyword per TOML table, tables and keys in the order given. It knows the
tables and keys the aggregator's job parser reads
(aggregator/jobs/src/job_config.cc) and the type of each; an unknown table
or key, a None, or a value of the wrong type raises JobTomlError naming the
key, so a misspelt option fails here and not as a silently ignored line in
the daemon. Whether the values make a valid job (required keys, ranges,
combinations) stays the parser's decision (`edgeadmm job create`).

`fixed_cohort_job` is the small paper 002 job most process tests run (a
prox-admm step, logistic loss, L2, a fixed cohort of m under the
participation policy). `toml_document` renders any tables without that check (the daemon's
aggregatord.toml, edgeadmm_daemon.py) with the same value quoting.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Dict, Mapping, Optional, Sequence

# Value kinds: a TOML string, a number (integer or float; +inf allowed: the
# parser refuses it where it must be finite), an integer, a boolean, an
# array of integers, an array of [i, j] integer pairs.
STRING, NUMBER, INTEGER, BOOLEAN, INTEGERS, EDGES = (
    "string", "number", "integer", "boolean", "integers", "edges")

# table -> key -> kind, as job_config.cc reads them.
JOB_SCHEMA: Dict[str, Dict[str, str]] = {
    "job": {"name": STRING, "algorithm": STRING, "loss": STRING,
            "dimension": INTEGER, "rounds": INTEGER,
            "device_prefix": STRING},
    "regularizer": {"kind": STRING, "l1": NUMBER, "l2": NUMBER},
    "step": {"lambda": NUMBER, "gamma": NUMBER, "rho": NUMBER,
             "local_steps": INTEGER},
    "dp_admm": {"schedule": STRING, "d_w": NUMBER, "s2": NUMBER,
                "s3": NUMBER, "s4": NUMBER, "step_epsilon": NUMBER,
                "step_delta": NUMBER, "max_records": INTEGER,
                "noise": BOOLEAN},
    "admm_sharing": {
        "parties": INTEGER, "columns": INTEGERS, "records": INTEGER,
        "rho": NUMBER, "lambda": NUMBER, "labels": STRING, "noise": STRING,
        "sigma": NUMBER, "sensitivity": NUMBER, "share_clip": NUMBER,
        "paper_c": NUMBER,
        "paper_b1": NUMBER, "paper_c1": NUMBER, "target_epsilon": NUMBER,
        "target_delta": NUMBER, "barrier_retries": INTEGER,
        "test_labels": STRING, "test_records": INTEGER,
        "score_noise": STRING, "score_sigma": NUMBER,
        "score_sensitivity": NUMBER, "score_clip": NUMBER},
    "pp_admm": {"graph": STRING, "nodes": INTEGER, "edges": EDGES,
                "theta": NUMBER, "loss_weight": NUMBER, "reg_weight": NUMBER,
                "min_samples": INTEGER, "mode": STRING, "noise": BOOLEAN,
                "barrier_retries": INTEGER},
    "dp_ftrl": {"server_learning_rate": NUMBER,
                "max_participations": INTEGER},
    "privacy": {"policy": STRING, "noise_in_state": BOOLEAN, "clip": NUMBER,
                "sigma": NUMBER, "target_epsilon": NUMBER, "delta": NUMBER,
                "max_colluders": INTEGER, "accountant": STRING,
                "central_budget": NUMBER, "device_budget": NUMBER,
                "audit": BOOLEAN},
    "sampling": {"scheme": STRING, "q": NUMBER, "m": INTEGER,
                 "m_min": INTEGER, "deadline_seconds": NUMBER,
                 "seed": INTEGER},
    "secure_aggregation": {"neighbours": INTEGER, "dropouts": INTEGER,
                           "max_bits": INTEGER, "log2_wrap": NUMBER,
                           "phase_seconds": NUMBER},
    "validation": {"data": STRING, "format": STRING, "normalize": STRING,
                   "held_by": STRING, "metric": STRING, "release": STRING,
                   "early_stop_rounds": INTEGER},
}


class JobTomlError(ValueError):
    """A table, key or value the job file cannot hold; the message names
    it (table.key)."""


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quotes, backslashes and control
    characters escaped."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _number(where: str, value: Any) -> str:
    if _is_integer(value):
        return str(int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        x = float(value)
        if math.isnan(x):
            raise JobTomlError(f"{where}: NaN is not a value")
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    raise JobTomlError(f"{where}: must be a number, not {value!r}")


def _integer(where: str, value: Any) -> str:
    if not _is_integer(value):
        raise JobTomlError(f"{where}: must be an integer, not {value!r}")
    return str(int(value))


def _integers(where: str, value: Any) -> str:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise JobTomlError(f"{where}: must be a list of integers")
    return "[" + ", ".join(_integer(where, v) for v in value) + "]"


def render_value(where: str, kind: str, value: Any) -> str:
    """One value of kind `kind` as TOML text; `where` names it in errors."""
    if value is None:
        raise JobTomlError(f"{where}: None (leave the key out instead)")
    if kind == STRING:
        if not isinstance(value, str):
            raise JobTomlError(f"{where}: must be a string, not {value!r}")
        return toml_string(value)
    if kind == NUMBER:
        return _number(where, value)
    if kind == INTEGER:
        return _integer(where, value)
    if kind == BOOLEAN:
        if not isinstance(value, bool):
            raise JobTomlError(f"{where}: must be True or False, not "
                               f"{value!r}")
        return "true" if value else "false"
    if kind == INTEGERS:
        return _integers(where, value)
    if kind == EDGES:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise JobTomlError(f"{where}: must be a list of [i, j] pairs")
        pairs = []
        for pair in value:
            if isinstance(pair, (str, bytes)) or len(pair) != 2:
                raise JobTomlError(f"{where}: {pair!r} is not an [i, j] pair")
            pairs.append(_integers(where, pair))
        return "[" + ", ".join(pairs) + "]"
    raise JobTomlError(f"{where}: unknown kind {kind!r}")


def guess_kind(value: Any) -> str:
    """The kind of a value of a table without a schema."""
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, str):
        return STRING
    if _is_integer(value):
        return INTEGER
    if isinstance(value, numbers.Real):
        return NUMBER
    if isinstance(value, (list, tuple)):
        return INTEGERS
    raise JobTomlError(f"no TOML kind for {value!r}")


def toml_document(tables: Mapping[str, Mapping[str, Any]],
                  schema: Mapping[str, Mapping[str, str]] | None = None
                  ) -> str:
    """`tables` as TOML text ([table] then `key = value` lines, in the
    given order). With `schema`, every table and key must be in it and each
    value of its kind; without, the kinds follow the Python types."""
    lines = []
    for table, keys in tables.items():
        if schema is not None and table not in schema:
            raise JobTomlError(f"[{table}]: unknown table (known: "
                               f"{', '.join(schema)})")
        if not isinstance(keys, Mapping):
            raise JobTomlError(f"[{table}]: must be a mapping of keys")
        lines.append(f"[{table}]")
        for key, value in keys.items():
            where = f"{table}.{key}"
            if schema is None:
                if value is None:
                    raise JobTomlError(f"{where}: None (leave the key out "
                                       "instead)")
                kind = guess_kind(value)
            elif key not in schema[table]:
                raise JobTomlError(f"{where}: unknown key (known in "
                                   f"[{table}]: "
                                   f"{', '.join(schema[table])})")
            else:
                kind = schema[table][key]
            lines.append(f"{key} = {render_value(where, kind, value)}")
    return "\n".join(lines) + "\n"


def job_toml(**tables: Mapping[str, Any]) -> str:
    """A job file: one keyword argument per table, e.g.
    job_toml(job={"name": "a", "algorithm": "prox-admm", ...},
    sampling={"scheme": "fixed", "m": 4, ...}). Raises JobTomlError on an
    unknown table or key, a None, or a value of the wrong type."""
    if "job" not in tables:
        raise JobTomlError("[job]: missing (name, algorithm, loss, "
                           "dimension, rounds)")
    return toml_document(tables, JOB_SCHEMA)


def fixed_cohort_job(name: str, dimension: int, rounds: int, m: int,
                     m_min: int, deadline_seconds: float, *,
                     l2: float = 0.001, lam: float = 1.0,
                     gamma: float = 10.0, clip: float = 0.5,
                     sigma: float = 0.5, delta: float = 1e-5,
                     central_budget: float = math.inf,
                     device_budget: float = math.inf,
                     seed: Optional[int] = None,
                     device_prefix: Optional[str] = None) -> str:
    """A prox-admm job (paper 002's local prox step, logistic loss, L2)
    with a fixed cohort of m devices per round under the participation
    policy; `seed` fixes the cohorts, `device_prefix` the enrolled devices
    (job.device_prefix). A test job: with the default
    central_budget = inf it is marked `audit = true` (the daemon refuses an
    uncapped job otherwise)."""
    sampling: Dict[str, Any] = {"scheme": "fixed", "m": m, "m_min": m_min,
                                "deadline_seconds": deadline_seconds}
    if seed is not None:
        sampling["seed"] = seed
    job: Dict[str, Any] = {"name": name, "algorithm": "prox-admm",
                           "loss": "logistic", "dimension": dimension,
                           "rounds": rounds}
    if device_prefix is not None:
        job["device_prefix"] = device_prefix
    return job_toml(
        job=job,
        regularizer={"kind": "l2", "l2": l2},
        step={"lambda": lam, "gamma": gamma},
        privacy={"policy": "participation", "clip": clip, "sigma": sigma,
                 "delta": delta, "central_budget": central_budget,
                 "device_budget": device_budget,
                 **({"audit": True} if math.isinf(central_budget) else {})},
        sampling=sampling)
