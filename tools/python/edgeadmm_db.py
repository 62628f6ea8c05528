"""The one reader of the aggregator's SQLite database for the Python harness.

The `edgeadmm` CLI prints JSON only for exported models (`job export
--format json`) and privacy plans (`privacy plan --json`); what the tests
also check (round states, stored uploads, ledger rows, server states) has no
CLI output to parse. Those reads live here, as typed functions over the
schema of aggregator/store, so that a schema change is fixed in one file:
no other harness script imports sqlite3. Every function opens the database
read-only (`mode=ro`, `PRAGMA query_only`; safe while the daemon runs, WAL)
for one call and closes it. Blobs come back as bytes: float64 LE for
models and server states, float32 LE for uploaded payloads.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple


@contextlib.contextmanager
def _read(db_path: str, timeout: float = 10.0
          ) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True,
                         timeout=timeout)
    try:
        db.execute("PRAGMA query_only = 1")
        yield db
    finally:
        db.close()


def read_only(db_path: str) -> "contextlib.AbstractContextManager[sqlite3.Connection]":
    """A read-only connection for the scripts that still run their own
    queries (to be moved into functions of this module); closed on exit."""
    return _read(db_path)


@dataclass
class Job:
    """A row of `jobs`: id, the number of enrolled devices n, state, and
    why it ended (None while running or when not said)."""
    id: int
    name: str
    n: int
    state: str
    end_reason: Optional[str]


@dataclass
class CommittedRound:
    """A committed round with its model (the iteration it produced), the
    central epsilon after it and the daemon's validation scores."""
    round: int
    iteration: int
    participants: int
    cohort: int
    noise_multiplier: Optional[float]
    epsilon: Optional[float]
    z: Optional[bytes]
    started_at: Optional[int]
    closed_at: Optional[int]
    validation_loss: Optional[float]
    validation_accuracy: Optional[float]


@dataclass
class Upload:
    round_id: int
    device_id: str
    payload: bytes


@dataclass
class JobRecord:
    """Everything the crash tests check of one job after a kill."""
    job: Job
    round_states: Dict[str, int]
    committed: List[int]
    closed_upload_rounds: List[int]
    duplicate_uploads: int
    iterations: List[int]
    central: List[Tuple[int, float]]
    device_ledgers: Dict[str, List[float]]
    committed_payloads: List[bytes]
    last_server_state: Optional[bytes]


@dataclass
class SharingIteration:
    """An admm-sharing iteration: its model blob (v, y, ...) and every
    party's upload of that round, by device id."""
    round: int
    iteration: int
    model: bytes
    uploads: List[Tuple[str, bytes]] = field(default_factory=list)


def job(db_path: str, name: str) -> Optional[Job]:
    """The job called `name`, or None."""
    with _read(db_path) as db:
        row = db.execute("SELECT id, name, n, state, end_reason FROM jobs "
                         "WHERE name = ?", (name,)).fetchone()
    return Job(*row) if row else None


def job_state(db_path: str, name: str) -> Optional[str]:
    found = job(db_path, name)
    return found.state if found else None


def end_reason(db_path: str, name: str) -> Optional[str]:
    found = job(db_path, name)
    return found.end_reason if found else None


def committed_rounds(db_path: str, name: str) -> List[CommittedRound]:
    """The job's committed rounds in order (see CommittedRound)."""
    with _read(db_path) as db:
        rows = db.execute(
            "SELECT r.round_id, r.iteration, r.participants, "
            "r.cohort_size, r.noise_multiplier, l.epsilon, m.z, "
            "r.started_at, r.closed_at, m.validation_loss, "
            "m.validation_accuracy FROM rounds r JOIN jobs j ON j.id = "
            "r.job_id LEFT JOIN ledger l ON l.job_id = r.job_id "
            "AND l.scope = 'central' AND l.round_id = r.round_id "
            "LEFT JOIN models m ON m.job_id = r.job_id "
            "AND m.iteration = r.iteration "
            "WHERE j.name = ? AND r.state = 'committed' "
            "ORDER BY r.round_id", (name,)).fetchall()
    return [CommittedRound(*row) for row in rows]


def committed_round_ids(db_path: str, job_id: int) -> List[int]:
    with _read(db_path) as db:
        return [r for (r,) in db.execute(
            "SELECT round_id FROM rounds WHERE job_id = ? AND state = "
            "'committed' ORDER BY round_id", (job_id,))]


def count_rounds(db_path: str, state: str) -> int:
    """Rounds of every job in `state` (open, committed, lost, ...)."""
    with _read(db_path) as db:
        return db.execute("SELECT count(*) FROM rounds WHERE state = ?",
                          (state,)).fetchone()[0]


def count_ledger_rows(db_path: str, scope: str) -> int:
    """Ledger rows of every job with `scope` ('central', 'local:<id>')."""
    with _read(db_path) as db:
        return db.execute("SELECT count(*) FROM ledger WHERE scope = ?",
                          (scope,)).fetchone()[0]


def uploads(db_path: str, job_id: Optional[int] = None) -> List[Upload]:
    """Stored uploads (of one job, or all), by round then device."""
    sql = "SELECT round_id, device_id, payload FROM uploads"
    args: Tuple[int, ...] = ()
    if job_id is not None:
        sql += " WHERE job_id = ?"
        args = (job_id,)
    with _read(db_path) as db:
        rows = db.execute(sql + " ORDER BY round_id, device_id",
                          args).fetchall()
    return [Upload(r, d, bytes(p)) for r, d, p in rows]


def _job_id(db: sqlite3.Connection, name: str) -> int:
    row = db.execute("SELECT id FROM jobs WHERE name = ?",
                     (name,)).fetchone()
    if row is None:
        raise LookupError(f"no job {name!r} in the database")
    return row[0]


def job_record(db_path: str, name: str) -> JobRecord:
    """The job's rounds, uploads, models and ledgers (see JobRecord)."""
    found = job(db_path, name)
    if found is None:
        raise LookupError(f"no job {name!r} in the database")
    jid = found.id
    with _read(db_path) as db:
        states = dict(db.execute(
            "SELECT state, count(*) FROM rounds WHERE job_id = ? "
            "GROUP BY state", (jid,)).fetchall())
        committed = [r for (r,) in db.execute(
            "SELECT round_id FROM rounds WHERE job_id = ? AND state = "
            "'committed' ORDER BY round_id", (jid,))]
        closed_upload_rounds = [r for (r,) in db.execute(
            "SELECT DISTINCT u.round_id FROM uploads u JOIN rounds r "
            "USING (job_id, round_id) WHERE u.job_id = ? AND r.state != "
            "'open'", (jid,))]
        duplicates = db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM uploads WHERE job_id = ? "
            "GROUP BY round_id, device_id HAVING count(*) > 1)",
            (jid,)).fetchone()[0]
        iterations = [i for (i,) in db.execute(
            "SELECT iteration FROM models WHERE job_id = ? "
            "ORDER BY iteration", (jid,))]
        central = [(r, e) for r, e in db.execute(
            "SELECT round_id, epsilon FROM ledger WHERE job_id = ? AND "
            "scope = 'central' ORDER BY round_id", (jid,))]
        device_ledgers: Dict[str, List[float]] = {}
        for scope, eps in db.execute(
                "SELECT scope, epsilon FROM ledger WHERE job_id = ? AND "
                "scope != 'central' ORDER BY round_id", (jid,)):
            device_ledgers.setdefault(scope, []).append(eps)
        payloads = [bytes(p) for (p,) in db.execute(
            "SELECT u.payload FROM uploads u JOIN rounds r USING "
            "(job_id, round_id) WHERE u.job_id = ? AND r.state = "
            "'committed'", (jid,))]
        row = db.execute(
            "SELECT server_state FROM models WHERE job_id = ? "
            "ORDER BY iteration DESC LIMIT 1", (jid,)).fetchone()
    return JobRecord(found, states, committed, closed_upload_rounds,
                     duplicates, iterations, central, device_ledgers,
                     payloads, bytes(row[0]) if row and row[0] else None)


def sharing_iterations(db_path: str, name: str) -> List[SharingIteration]:
    """An admm-sharing job's committed iterations in order, each with its
    model blob and its uploads (by device id)."""
    with _read(db_path) as db:
        jid = _job_id(db, name)
        rounds = db.execute(
            "SELECT r.round_id, r.iteration, m.z FROM rounds r JOIN models m "
            "ON m.job_id = r.job_id AND m.iteration = r.iteration WHERE "
            "r.job_id = ? AND r.state = 'committed' ORDER BY r.iteration",
            (jid,)).fetchall()
        out = []
        for round_id, iteration, model in rounds:
            ups = db.execute(
                "SELECT device_id, payload FROM uploads WHERE job_id = ? AND "
                "round_id = ? ORDER BY device_id", (jid, round_id)).fetchall()
            out.append(SharingIteration(round_id, iteration, bytes(model),
                                        [(d, bytes(p)) for d, p in ups]))
    return out


def last_test_scores(db_path: str, name: str
                     ) -> Optional[Tuple[Optional[int], Optional[float],
                                         Optional[float]]]:
    """(test_records, test_log_loss, test_accuracy) of the job's last
    model (admm-sharing's scoring phase), or None without models."""
    with _read(db_path) as db:
        row = db.execute(
            "SELECT test_records, test_log_loss, test_accuracy FROM models "
            "WHERE job_id = ? ORDER BY iteration DESC LIMIT 1",
            (_job_id(db, name),)).fetchone()
    return tuple(row) if row else None


def check_database(db_path: str) -> List[str]:
    """PRAGMA integrity_check and foreign_key_check, and no open round in
    a finished job; the problems found (empty when consistent)."""
    with _read(db_path) as db:
        problems = [r[0] for r in db.execute("PRAGMA integrity_check")
                    if r[0] != "ok"]
        problems += [f"foreign key: {r}"
                     for r in db.execute("PRAGMA foreign_key_check")]
        open_rounds = db.execute(
            "SELECT count(*) FROM rounds r JOIN jobs j ON j.id = r.job_id "
            "WHERE r.state = 'open' AND j.state != 'running'").fetchone()[0]
    if open_rounds:
        problems.append(f"{open_rounds} open rounds of finished jobs")
    return problems
