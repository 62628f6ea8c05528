"""The one reader of the aggregator's SQLite database for the Python harness.

The `edgeadmm` CLI prints JSON only for exported models (`job export
--format json`) and privacy plans (`privacy plan --json`); what the tests
also check (round states, stored uploads, ledger rows, server states) has no
CLI output to parse. Those reads live here, as typed functions over the
schema of aggregator/store, so that a schema change is fixed in one file:
no other harness script imports sqlite3. Every function opens the database
for one call with `PRAGMA query_only` (it never writes; safe while the
daemon runs, WAL) and closes it, except `back_to_schema_8`, the one write (a
measurement against an older daemon). Blobs come back as bytes: float64 LE for
models and server states, float32 LE for uploaded payloads.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple


@contextlib.contextmanager
def _read(db_path: str, timeout: float = 10.0
          ) -> Iterator[sqlite3.Connection]:
    # Not `mode=ro`: a read-only connection cannot create the -wal or -shm
    # file, so one that opens while the last other connection is closing
    # (and removing them) can fail with "unable to open database file"
    # (seen once as a test followed a job across a daemon restart). This
    # connection may create them; query_only keeps it from writing data.
    db = sqlite3.connect(db_path, timeout=timeout)
    try:
        db.execute("PRAGMA query_only = 1")
        yield db
    finally:
        db.close()


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


def last_test_scores(db_path: str, name: str, scored_only: bool = False
                     ) -> Optional[Tuple[Optional[int], Optional[float],
                                         Optional[float]]]:
    """(test_records, test_log_loss, test_accuracy) of the job's last model
    (admm-sharing's scoring phase), or of its last scored one with
    `scored_only`; None without such a model."""
    scored = " AND test_records IS NOT NULL" if scored_only else ""
    with _read(db_path) as db:
        row = db.execute(
            "SELECT test_records, test_log_loss, test_accuracy FROM models "
            f"WHERE job_id = ?{scored} ORDER BY iteration DESC LIMIT 1",
            (_job_id(db, name),)).fetchone()
    return (row[0], row[1], row[2]) if row else None


def job_sigma(db_path: str, name: str) -> Optional[float]:
    """The job's resolved noise multiplier sigma (jobs.sigma)."""
    with _read(db_path) as db:
        row = db.execute("SELECT sigma FROM jobs WHERE name = ?",
                         (name,)).fetchone()
    return row[0] if row else None


def models(db_path: str, name: str) -> List[Tuple[int, bytes, bytes]]:
    """Every stored model of the job: (iteration, z, server_state)."""
    with _read(db_path) as db:
        rows = db.execute(
            "SELECT m.iteration, m.z, m.server_state FROM models m "
            "JOIN jobs j ON j.id = m.job_id WHERE j.name = ? "
            "ORDER BY m.iteration", (name,)).fetchall()
    return [(i, bytes(z), bytes(s)) for i, z, s in rows]


def round_states(db_path: str, name: str) -> List[Tuple[int, str, int]]:
    """Every round of the job: (round_id, state, participants), by id."""
    with _read(db_path) as db:
        return [tuple(r) for r in db.execute(
            "SELECT r.round_id, r.state, r.participants FROM rounds r "
            "JOIN jobs j ON j.id = r.job_id WHERE j.name = ? "
            "ORDER BY r.round_id", (name,))]


def local_ledger_devices(db_path: str, name: str, round_id: int
                         ) -> List[str]:
    """Devices with a local ledger row ('local:<id>') in the job's round:
    the shares the daemon accepted there (written with each receipt)."""
    with _read(db_path) as db:
        return [d for (d,) in db.execute(
            "SELECT substr(l.scope, 7) FROM ledger l JOIN jobs j ON "
            "j.id = l.job_id WHERE j.name = ? AND l.round_id = ? AND "
            "l.scope LIKE 'local:%' ORDER BY l.scope", (name, round_id))]


def upload_counts(db_path: str, name: Optional[str] = None,
                  by_round: bool = False) -> List[Tuple[Any, ...]]:
    """Stored uploads counted per device: (device_id, count), or per
    (device, round) with `by_round`: (device_id, round_id, count); of one
    job or of all."""
    group = "u.device_id, u.round_id" if by_round else "u.device_id"
    where = " WHERE j.name = ?" if name is not None else ""
    with _read(db_path) as db:
        return [tuple(r) for r in db.execute(
            f"SELECT {group}, count(*) FROM uploads u JOIN jobs j ON "
            f"j.id = u.job_id{where} GROUP BY {group} ORDER BY {group}",
            (name,) if name is not None else ())]


def committed_uploads(db_path: str, name: str
                      ) -> List[Tuple[int, str, bytes, Optional[bytes]]]:
    """Uploads of the job's committed rounds: (round_id, device_id,
    payload, extra), by round then device; extra is the algorithm's own
    bytes stored with the upload (None: none), which only its unit reads."""
    with _read(db_path) as db:
        return [(r, d, bytes(p), None if x is None else bytes(x))
                for r, d, p, x in db.execute(
            "SELECT u.round_id, u.device_id, u.payload, u.extra FROM "
            "uploads u JOIN rounds r ON r.job_id = u.job_id AND "
            "r.round_id = u.round_id JOIN jobs j ON j.id = u.job_id "
            "WHERE j.name = ? AND r.state = 'committed' "
            "ORDER BY u.round_id, u.device_id", (name,))]


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


def back_to_schema_8(db_path: str) -> None:
    """Takes a fresh database (no uploads) of the current schema (version
    11) back to version 8 (versions 9 and 10 added the upload_sums table
    and two nullable device columns; version 11 replaced the REAL column
    uploads.pp_loss by the BLOB uploads.extra), so that a daemon built
    before version 9 opens it: the steering measurement's baseline
    (tests/repro/steering). The daemon must not be running."""
    db = sqlite3.connect(db_path)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != 11:
            raise ValueError(f"{db_path}: schema version {version}, not 11")
        db.executescript(
            "ALTER TABLE uploads DROP COLUMN extra; "
            "ALTER TABLE uploads ADD COLUMN pp_loss REAL; "
            "ALTER TABLE devices DROP COLUMN central_epsilon; "
            "ALTER TABLE devices DROP COLUMN central_delta; "
            "DROP TABLE upload_sums; PRAGMA user_version = 8;")
    finally:
        db.close()
