"""edgeadmm_stack without a build: the job files it composes (through
edgeadmm_job_toml) and a Stack refusing a build directory without the
programs."""

from __future__ import annotations

import os
import tempfile
import unittest

import edgeadmm_stack as es

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None


@unittest.skipIf(tomllib is None, "tomllib needs Python >= 3.11")
class JobFilesTest(unittest.TestCase):

    def test_device_test_job(self) -> None:
        job = tomllib.loads(es.device_test_job("t", 3, m=4, m_min=2,
                                               deadline_seconds=60))
        self.assertEqual(job["job"]["rounds"], 3)
        self.assertEqual(job["sampling"], {"scheme": "fixed", "m": 4,
                                           "m_min": 2,
                                           "deadline_seconds": 60})
        seeded = tomllib.loads(es.device_test_job("t", 3, 4, 2, 60, seed=7))
        self.assertEqual(seeded["sampling"]["seed"], 7)
        self.assertNotIn("device_prefix", job["job"])
        some = tomllib.loads(es.device_test_job("t", 3, 4, 2, 60,
                                                device_prefix="a-"))
        self.assertEqual(some["job"]["device_prefix"], "a-")

    def test_sharing_job(self) -> None:
        job = tomllib.loads(es.sharing_job_toml(
            "s", 5, [66, 57], 100, 4e-4, 1e-2, "/d/a9a.xz",
            deadline_seconds=20, barrier_retries=1))
        self.assertEqual(job["job"]["dimension"], 123)
        self.assertEqual(job["admm_sharing"]["parties"], 2)
        self.assertEqual(job["admm_sharing"]["columns"], [66, 57])
        self.assertEqual(job["admm_sharing"]["noise"], "none")
        self.assertEqual(job["admm_sharing"]["barrier_retries"], 1)
        self.assertEqual(job["sampling"], {"deadline_seconds": 20})
        noisy = tomllib.loads(es.sharing_job_toml(
            "s", 5, [3, 2], 10, 1.0, 1.0, "l", noise="rigorous", sigma=0.5,
            dimension=9))
        self.assertEqual(noisy["admm_sharing"]["noise"], "rigorous")
        self.assertEqual(noisy["job"]["dimension"], 9)

    def test_sharing_job_refuses_unknown_keys(self) -> None:
        with self.assertRaisesRegex(es.JobTomlError,
                                    r"admm_sharing\.sigmaa: unknown key"):
            es.sharing_job_toml("s", 5, [1], 1, 1.0, 1.0, "l", sigmaa=1.0)


class StackTest(unittest.TestCase):

    def test_unbuilt_programs_refused(self) -> None:
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaisesRegex(es.StackError, "is not built"):
                es.Stack(empty, empty)

    def test_mixed_fleet_runs_each_part_with_its_binary(self) -> None:
        # Stand-in programs: each fleet writes its name and arguments.
        with tempfile.TemporaryDirectory() as root:
            programs = {"cli": "aggregator/cli/edgeadmm",
                        "daemon": "aggregator/daemon/edgeadmm-aggregatord",
                        "fleet": "tools/fleet/edgeadmm-fleet",
                        "float": "float/edgeadmm-fleet"}
            for name, path in programs.items():
                full = os.path.join(root, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as f:
                    f.write(f'#!/bin/sh\necho "{name} $*" > "$0.ran"\n')
                os.chmod(full, 0o755)
            stack = es.Stack(root, os.path.join(root, "state"), log=lambda _: 0)
            float_bin = os.path.join(root, programs["float"])
            with self.assertRaises(ValueError):
                stack.start_fleet([], parts=2, part_bins=[float_bin])
            stack.start_fleet(["--dim", "3"], parts=2,
                              part_bins=[stack.fleet_bin, float_bin])
            for proc in stack.fleets:
                self.assertEqual(proc.wait(timeout=30), 0)
            ran = {}
            for binary in (stack.fleet_bin, float_bin):
                with open(binary + ".ran") as f:
                    ran[binary] = f.read().split()
            self.assertEqual(ran[stack.fleet_bin][0], "fleet")
            self.assertIn("0/2", ran[stack.fleet_bin])
            self.assertEqual(ran[float_bin][0], "float")
            self.assertIn("1/2", ran[float_bin])

    def test_start_daemon_waits_as_long_as_asked(self) -> None:
        # A daemon that never prints its readiness line: start_daemon gives
        # up after the ready_timeout it was given (the default is 30 s).
        with tempfile.TemporaryDirectory() as root:
            for path, text in (
                    ("aggregator/cli/edgeadmm", "#!/bin/sh\n"),
                    ("aggregator/daemon/edgeadmm-aggregatord",
                     "#!/bin/sh\necho loading >&2\nexec sleep 60\n"),
                    ("tools/fleet/edgeadmm-fleet", "#!/bin/sh\n")):
                full = os.path.join(root, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as f:
                    f.write(text)
                os.chmod(full, 0o755)
            stack = es.Stack(root, os.path.join(root, "state"), log=lambda _: 0)
            with self.assertRaisesRegex(es.StackError,
                                        r"not ready within 1 s.*loading"):
                stack.start_daemon(ready_timeout=1)
            self.assertIsNone(stack.daemon)


if __name__ == "__main__":
    unittest.main()
