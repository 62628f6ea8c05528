"""edgeadmm_db against the store's real schema: the migrations of
aggregator/store/src/schema.cc applied in order to a fresh file, a few rows
of one job, and each accessor's answer checked. A column renamed in a new
migration fails here before it fails a stack test. (This fixture is the
only other place that opens the database with sqlite3: it writes the rows
the accessor reads.)"""

from __future__ import annotations

import os
import re
import sqlite3
import struct
import tempfile
import unittest

import edgeadmm_db as db

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "aggregator", "store", "src", "schema.cc")


def migrations() -> list:
    with open(SCHEMA) as f:
        return re.findall(r'R"sql\((.*?)\)sql"', f.read(), re.S)


def f64(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}d", *values)


def f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def build(path: str) -> None:
    """Job 1 "j": round 1 committed (2 uploads), round 2 lost, round 3
    open (1 upload); models of iterations 0 and 1; ledgers."""
    con = sqlite3.connect(path)
    # The store registers float64le() for its migrations (schema.cc).
    con.create_function("float64le", 1,
                        lambda v: None if v is None else f64(v),
                        deterministic=True)
    try:
        for sql in migrations():
            con.executescript(sql)
        con.executescript("""
INSERT INTO jobs (id, name, config, state, sigma, n, dimension, created_at,
                  end_reason) VALUES (1, 'j', '', 'running', 0.75, 2, 2, 0,
                  NULL);
INSERT INTO rounds (job_id, round_id, state, iteration, cohort_size,
                    participants, noise_multiplier, started_at, closed_at)
  VALUES (1, 1, 'committed', 1, 2, 2, 0.5, 1000, 3500),
         (1, 2, 'lost', NULL, 2, 0, NULL, 4000, NULL),
         (1, 3, 'open', NULL, 2, 0, NULL, 5000, NULL);
INSERT INTO ledger (job_id, scope, round_id, epsilon, rdp) VALUES
  (1, 'central', 1, 0.25, x''), (1, 'local:d1', 1, 0.5, x''),
  (1, 'local:d0', 3, 0.1, x'');
""")
        con.executemany(
            "INSERT INTO uploads (job_id, round_id, device_id, digest, "
            "payload, extra) VALUES (1, ?, ?, x'', ?, ?)",
            [(1, "d1", f32(1, 2), f64(0.125)), (1, "d0", f32(3, 4), None),
             (3, "d0", f32(5, 6), None)])
        con.executemany(
            "INSERT INTO models (job_id, iteration, round_id, z, "
            "server_state, validation_accuracy, test_records) "
            "VALUES (1, ?, ?, ?, ?, ?, ?)",
            [(0, 0, f64(0, 0), f64(0, 0), None, None),
             (1, 1, f64(1, 2), f64(2, 3), 0.875, 10)])
        con.commit()
    finally:
        con.close()


class DbTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.TemporaryDirectory(prefix="edgeadmm-db-")
        cls.path = os.path.join(cls.dir.name, "aggregator.db")
        build(cls.path)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.dir.cleanup()

    def test_schema_found(self) -> None:
        self.assertGreaterEqual(len(migrations()), 8)

    def test_job(self) -> None:
        self.assertEqual(db.job(self.path, "j"),
                         db.Job(1, "j", 2, "running", None))
        self.assertIsNone(db.job(self.path, "missing"))
        self.assertEqual(db.job_state(self.path, "j"), "running")
        self.assertEqual(db.job_sigma(self.path, "j"), 0.75)

    def test_committed_rounds(self) -> None:
        (r,) = db.committed_rounds(self.path, "j")
        self.assertEqual((r.round, r.iteration, r.participants, r.cohort,
                          r.epsilon, r.validation_accuracy),
                         (1, 1, 2, 2, 0.25, 0.875))
        self.assertEqual(r.z, f64(1, 2))
        self.assertEqual(r.closed_at - r.started_at, 2500)
        self.assertEqual(db.committed_round_ids(self.path, 1), [1])

    def test_counts(self) -> None:
        self.assertEqual(db.count_rounds(self.path, "open"), 1)
        self.assertEqual(db.count_rounds(self.path, "lost"), 1)
        self.assertEqual(db.count_ledger_rows(self.path, "central"), 1)
        self.assertEqual(db.upload_counts(self.path),
                         [("d0", 2), ("d1", 1)])
        self.assertEqual(db.upload_counts(self.path, "j", by_round=True),
                         [("d0", 1, 1), ("d0", 3, 1), ("d1", 1, 1)])

    def test_uploads(self) -> None:
        self.assertEqual([(u.round_id, u.device_id)
                          for u in db.uploads(self.path, 1)],
                         [(1, "d0"), (1, "d1"), (3, "d0")])
        self.assertEqual(db.committed_uploads(self.path, "j"),
                         [(1, "d0", f32(3, 4), None),
                          (1, "d1", f32(1, 2), f64(0.125))])

    def test_job_record(self) -> None:
        rec = db.job_record(self.path, "j")
        self.assertEqual(rec.round_states,
                         {"committed": 1, "lost": 1, "open": 1})
        self.assertEqual(rec.committed, [1])
        self.assertEqual(rec.closed_upload_rounds, [1])
        self.assertEqual(rec.duplicate_uploads, 0)
        self.assertEqual(rec.iterations, [0, 1])
        self.assertEqual(rec.central, [(1, 0.25)])
        self.assertEqual(rec.device_ledgers,
                         {"local:d1": [0.5], "local:d0": [0.1]})
        self.assertEqual(sorted(rec.committed_payloads),
                         sorted([f32(1, 2), f32(3, 4)]))
        self.assertEqual(rec.last_server_state, f64(2, 3))
        with self.assertRaises(LookupError):
            db.job_record(self.path, "missing")

    def test_sharing_reads(self) -> None:
        (it,) = db.sharing_iterations(self.path, "j")
        self.assertEqual((it.round, it.iteration, it.model),
                         (1, 1, f64(1, 2)))
        self.assertEqual([d for d, _ in it.uploads], ["d0", "d1"])
        self.assertEqual(db.last_test_scores(self.path, "j"),
                         (10, None, None))
        self.assertEqual(db.local_ledger_devices(self.path, "j", 3), ["d0"])
        self.assertEqual(db.round_states(self.path, "j"),
                         [(1, "committed", 2), (2, "lost", 0),
                          (3, "open", 0)])
        self.assertEqual([m[0] for m in db.models(self.path, "j")], [0, 1])

    def test_check_database(self) -> None:
        self.assertEqual(db.check_database(self.path), [])

    def test_reads_do_not_write(self) -> None:
        before = os.stat(self.path).st_mtime_ns
        db.job_record(self.path, "j")
        self.assertEqual(os.stat(self.path).st_mtime_ns, before)


if __name__ == "__main__":
    unittest.main()
