"""edgeadmm_daemon.Daemon against fake daemons (shell scripts): readiness is
the "listening on port" line, bounded by a deadline; an early exit and a
silent daemon are errors naming the log; stop() is SIGTERM then SIGKILL;
kill() is SIGKILL."""

from __future__ import annotations

import os
import signal
import stat
import tempfile
import time
import unittest

import edgeadmm_daemon as ed

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

READY = """#!/bin/sh
trap 'exit 0' TERM
echo "aggregatord: listening on port 23456"
while :; do sleep 0.05; done
"""
NEVER_READY = "#!/bin/sh\necho starting >&2\nexec sleep 60\n"
EXITS = "#!/bin/sh\necho 'cannot open the database' >&2\nexit 3\n"
DEAF = """#!/bin/sh
trap '' TERM
echo "listening on port 1"
while :; do sleep 0.05; done
"""


class DaemonTest(unittest.TestCase):

    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="edgeadmm-daemon-")
        self.addCleanup(self.dir.cleanup)
        self.started: list = []

    def tearDown(self) -> None:
        for daemon in self.started:
            daemon.kill()

    def fake(self, text: str) -> ed.Daemon:
        path = os.path.join(self.dir.name, "fake-aggregatord")
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, stat.S_IRWXU)
        daemon = ed.Daemon(path, os.path.join(self.dir.name, "a.db"),
                           os.path.join(self.dir.name, "state"), port=23456,
                           server_options={"non_confirmable_notifications":
                                           True})
        self.started.append(daemon)
        return daemon

    def test_ready_then_clean_stop(self) -> None:
        daemon = self.fake(READY).start(ready_timeout=10)
        self.assertTrue(daemon.running())
        with open(daemon.pid_path) as f:
            self.assertEqual(int(f.read()), daemon.pid)
        if tomllib is not None:
            with open(daemon.config_path, "rb") as f:
                config = tomllib.load(f)
            self.assertEqual(config["store"]["database"], daemon.db_path)
            self.assertEqual(config["server"], {
                "address": "127.0.0.1", "port": 23456,
                "non_confirmable_notifications": True})
        self.assertEqual(daemon.stop(timeout=5), (0, True))
        self.assertFalse(daemon.running())

    def test_never_ready_times_out(self) -> None:
        daemon = self.fake(NEVER_READY)
        started = time.monotonic()
        with self.assertRaisesRegex(ed.DaemonError,
                                    r"not ready within 1 s.*starting"):
            daemon.start(ready_timeout=1)
        self.assertLess(time.monotonic() - started, 8)
        self.assertFalse(daemon.running())  # stopped, not left behind

    def test_exit_before_ready(self) -> None:
        daemon = self.fake(EXITS)
        with self.assertRaisesRegex(
                ed.DaemonError,
                r"exited before it was ready \(exit 3\).*cannot open"):
            daemon.start(ready_timeout=10)

    def test_stop_kills_a_daemon_deaf_to_sigterm(self) -> None:
        daemon = self.fake(DEAF).start(ready_timeout=10)
        code, clean = daemon.stop(timeout=0.5)
        self.assertEqual(code, -signal.SIGKILL)
        self.assertFalse(clean)

    def test_kill_is_sigkill_and_restart_appends_the_log(self) -> None:
        daemon = self.fake(READY).start(ready_timeout=10)
        self.assertEqual(daemon.kill(), -signal.SIGKILL)
        with open(daemon.log_path, "w") as f:
            f.write("first run\n")
        daemon.start(ready_timeout=10, append_log=True)
        self.assertIn("first run", daemon.log_text())
        self.assertEqual(daemon.stop(timeout=5), (0, True))

    def test_second_start_while_running_refused(self) -> None:
        daemon = self.fake(READY).start(ready_timeout=10)
        with self.assertRaisesRegex(ed.DaemonError, "still running"):
            daemon.start(ready_timeout=10)
        daemon.stop(timeout=5)


if __name__ == "__main__":
    unittest.main()
