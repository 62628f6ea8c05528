"""edgeadmm_job_toml: the job files it writes parse back to the values given
(tomllib, Python >= 3.11; a line check otherwise), strings are escaped, and
unknown tables or keys, None and wrongly typed values are refused."""

from __future__ import annotations

import math
import unittest

import edgeadmm_job_toml as jt

try:
    import tomllib
except ImportError:  # Python < 3.11: the line checks below still run
    tomllib = None

TRICKY = 'a "quoted" \\ back\tslash\nline\x01 é'


def full_job() -> dict:
    return {
        "job": {"name": "j-1", "algorithm": "prox-admm", "loss": "logistic",
                "dimension": 123, "rounds": 7},
        "regularizer": {"kind": "l2", "l2": 1e-3},
        "step": {"lambda": 0.5, "gamma": 10},
        "privacy": {"policy": "participation", "clip": 0.5, "sigma": 0.25,
                    "delta": 1e-5, "central_budget": math.inf,
                    "device_budget": 2.0},
        "sampling": {"scheme": "fixed", "m": 4, "m_min": 2,
                     "deadline_seconds": 2.5, "seed": 9},
        "pp_admm": {"edges": [[0, 1], (1, 2)], "noise": False},
        "admm_sharing": {"columns": [66, 57], "labels": TRICKY},
        "validation": {"data": "/tmp/x y/a9a.t", "release": "best"},
    }


class JobTomlTest(unittest.TestCase):

    def test_round_trip(self) -> None:
        tables = full_job()
        text = jt.job_toml(**tables)
        if tomllib is None:
            self.assertIn("rounds = 7\n", text)
            self.assertIn("central_budget = inf\n", text)
            return
        parsed = tomllib.loads(text)
        expected = {t: dict(keys) for t, keys in tables.items()}
        expected["pp_admm"]["edges"] = [[0, 1], [1, 2]]
        self.assertEqual(parsed, expected)
        self.assertIsInstance(parsed["job"]["rounds"], int)
        self.assertIsInstance(parsed["sampling"]["deadline_seconds"], float)
        self.assertEqual(parsed["admm_sharing"]["labels"], TRICKY)

    def test_tables_and_keys_in_the_given_order(self) -> None:
        text = jt.job_toml(job={"rounds": 1, "name": "n"},
                           sampling={"deadline_seconds": 1})
        self.assertEqual(text, '[job]\nrounds = 1\nname = "n"\n'
                               '[sampling]\ndeadline_seconds = 1\n')

    def test_string_escapes(self) -> None:
        self.assertEqual(jt.toml_string('say "hi"\\'), '"say \\"hi\\"\\\\"')
        self.assertEqual(jt.toml_string("a\nb\x7f"), '"a\\nb\\u007F"')

    def test_unknown_key_refused(self) -> None:
        with self.assertRaisesRegex(jt.JobTomlError, r"step\.lamda: unknown"):
            jt.job_toml(job={"name": "x"}, step={"lamda": 1.0})

    def test_unknown_table_refused(self) -> None:
        with self.assertRaisesRegex(jt.JobTomlError, r"\[steps\]: unknown"):
            jt.job_toml(job={"name": "x"}, steps={"lambda": 1.0})

    def test_none_refused(self) -> None:
        with self.assertRaisesRegex(jt.JobTomlError, r"sampling\.seed: None"):
            jt.job_toml(job={"name": "x"}, sampling={"seed": None})

    def test_wrong_types_refused(self) -> None:
        cases = [({"job": {"rounds": 2.0}}, r"job\.rounds: must be an int"),
                 ({"job": {"rounds": True}}, r"job\.rounds: must be an int"),
                 ({"job": {"name": 5}}, r"job\.name: must be a string"),
                 ({"job": {"name": "x"}, "step": {"gamma": "1"}},
                  r"step\.gamma: must be a number"),
                 ({"job": {"name": "x"}, "dp_admm": {"noise": "true"}},
                  r"dp_admm\.noise: must be True or False"),
                 ({"job": {"name": "x"}, "privacy": {"sigma": math.nan}},
                  r"privacy\.sigma: NaN"),
                 ({"job": {"name": "x"}, "pp_admm": {"edges": [[1, 2, 3]]}},
                  r"pp_admm\.edges: .* is not an \[i, j\] pair")]
        for tables, message in cases:
            with self.subTest(tables=tables):
                with self.assertRaisesRegex(jt.JobTomlError, message):
                    jt.job_toml(**tables)

    def test_job_table_required(self) -> None:
        with self.assertRaisesRegex(jt.JobTomlError, r"\[job\]: missing"):
            jt.job_toml(step={"lambda": 1.0})

    def test_schema_matches_the_parser(self) -> None:
        """Every key the parser reads (its r.<Kind>("table.key", ...) calls:
        the common tables in aggregator/jobs/src/job_config.cc, each
        algorithm's own in aggregator/algorithms/src) is in the schema, and
        no more: a key added there must be added here."""
        import glob
        import os
        import re
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..", "aggregator")
        sources = [os.path.join(root, "jobs", "src", "job_config.cc")]
        sources += glob.glob(os.path.join(root, "algorithms", "src", "*.cc"))
        read = set()
        for source in sources:
            with open(source) as f:
                read |= set(re.findall(r'r\.\w+\("(\w+)\.(\w+)"',
                                       f.read()))
        schema = {(t, k) for t, keys in jt.JOB_SCHEMA.items() for k in keys}
        self.assertEqual(read, schema)

    def test_document_without_schema(self) -> None:
        text = jt.toml_document({"store": {"database": "/a b/c.db"},
                                 "server": {"port": 5684, "flag": True}})
        self.assertEqual(text, '[store]\ndatabase = "/a b/c.db"\n[server]\n'
                               'port = 5684\nflag = true\n')


if __name__ == "__main__":
    unittest.main()
