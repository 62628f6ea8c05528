"""edgeadmm_metrics: a metrics file's samples by name and labels, {} before
the daemon's first write, and every malformed text refused (FormatError)."""

from __future__ import annotations

import os
import tempfile
import unittest

import edgeadmm_metrics as em

TEXT = ("# HELP edgeadmm_devices_connected devices\n"
        "# TYPE edgeadmm_devices_connected gauge\n"
        "edgeadmm_devices_connected 7\n"
        "# TYPE edgeadmm_dtls_session_events_total counter\n"
        'edgeadmm_dtls_session_events_total{event="closed"} 3\n'
        'edgeadmm_dtls_session_events_total{event="handshake_started"} 0\n'
        "# TYPE edgeadmm_round_commit_delay_seconds histogram\n"
        'edgeadmm_round_commit_delay_seconds_bucket{le="+Inf"} 2\n'
        "edgeadmm_round_commit_delay_seconds_count 2\n"
        "# TYPE edgeadmm_coap_responses_total counter\n"
        'edgeadmm_coap_responses_total{resource="v1/task",code="2.05"} 5\n'
        'edgeadmm_coap_responses_total{resource="v1/task",code="4.29"} 1\n'
        'edgeadmm_coap_responses_total{resource="v1/update",code="2.04"} 4\n')


class MetricsTest(unittest.TestCase):
    def test_samples_by_name_and_labels(self) -> None:
        samples = em.parse(TEXT)
        self.assertEqual(em.value(samples, "edgeadmm_devices_connected"), 7)
        self.assertEqual(em.value(samples, "edgeadmm_dtls_session_events_total",
                                  event="closed"), 3)
        self.assertIsNone(em.value(samples, "edgeadmm_dtls_sessions"))
        self.assertEqual(em.value(samples, "edgeadmm_dtls_sessions", 0.0), 0.0)
        self.assertEqual(
            em.by_label(samples, "edgeadmm_dtls_session_events_total", "event"),
            {"closed": 3.0, "handshake_started": 0.0})
        self.assertEqual(em.value(samples,
                                  "edgeadmm_round_commit_delay_seconds_count"),
                         2)
        # Summed over the other labels (here the code).
        self.assertEqual(
            em.by_label(samples, "edgeadmm_coap_responses_total", "resource"),
            {"v1/task": 6.0, "v1/update": 4.0})

    def test_read_before_the_first_write_and_after(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "metrics.prom")
            self.assertEqual(em.read(path), {})
            with open(path, "w") as f:
                f.write(TEXT)
            self.assertEqual(em.read(path), em.parse(TEXT))

    def test_malformed_texts_are_refused(self) -> None:
        em.parse("# TYPE a counter\na{x=\"1\"} 2\n")
        for bad in ("a 1\n",                                # no TYPE
                    "# TYPE a counter\na{x=1} 2\n",          # unquoted label
                    "# TYPE a counter\na{x=\"1\"} two\n",    # not a number
                    "# TYPE a counter\na 1",                 # no final newline
                    "# TYPE a counter\na 1\na 2\n",          # repeated
                    "# TYPE a kind\na 1\n"):                 # unknown type
            with self.assertRaises(em.FormatError, msg=repr(bad)):
                em.parse(bad)


if __name__ == "__main__":
    unittest.main()
