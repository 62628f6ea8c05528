"""Devices waiting for an open round hear the daemon's task heartbeat and do
not re-register on new DTLS sessions (docs/aggregator.md, "Task
heartbeat").

A job of N + 1 devices with a fixed cohort of all of them, and a fleet of
only N: round 1 stays open, waiting for the missing device, while the N
devices have uploaded and hear nothing about the round. Each device
re-registers its Observe on a new DTLS session when it hears nothing for
its refresh interval (`--task-refresh-ms 3000`, doubled by every quiet
refresh; docs/device.md, "Refresh interval"). The run is made twice for
`--seconds`: with `server.task_heartbeat_seconds = 1` the fleet must make
exactly one handshake per device (its first); with 0 (no heartbeat) more
than two per device, which proves that the count sees the refreshes.
"""

import argparse
import os
import shutil
import sys
import time

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)


# Three heartbeats per refresh interval: a device hears one long before it
# would refresh, also on a loaded machine. Without the heartbeat it refreshes
# after about 3, 9 (+6) s ... (each wait doubled, plus up to 25%).
REFRESH_MS = 3000


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def handshakes(a, heartbeat_seconds):
    """Runs the fleet against an open round; returns its handshakes and
    accepted uploads."""
    work = os.path.join(a.work_dir, f"heartbeat-{heartbeat_seconds}")
    shutil.rmtree(work, ignore_errors=True)
    stack = es.Stack(a.build_dir, work)
    # The run- devices run; the off- device, also in the cohort, never does.
    stack.enroll(a.devices, prefix="run-")
    stack.enroll(1, prefix="off-")
    stack.create_job("waits", es.device_test_job(
        "waits", 3, m=a.devices + 1, m_min=a.devices + 1,
        deadline_seconds=600, seed=11), start=False)
    try:
        stack.start_daemon(
            server_options={"task_heartbeat_seconds": heartbeat_seconds})
        stack.start_job("waits")
        stack.start_fleet(["--data", a.data, "--dim", "123",
                           "--epsilon-budget", "1000", "--task-refresh-ms",
                           str(REFRESH_MS), "--device-prefix", "run-"])
        time.sleep(a.seconds)
    finally:
        stack.stop()
    totals = es.fleet_totals(work)
    if totals is None:
        fail(f"no fleet summary in {work}")
    return totals["handshakes"], totals["accepted"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--devices", type=int, default=8)
    p.add_argument("--seconds", type=float, default=14)
    a = p.parse_args()
    with_beat, accepted = handshakes(a, 1)
    print(f"heartbeat 1 s: {with_beat} handshakes, {accepted} uploads "
          f"accepted, {a.devices} devices, {a.seconds:.0f} s", flush=True)
    if accepted != a.devices:
        fail(f"{accepted} uploads accepted for round 1, {a.devices} expected")
    if with_beat != a.devices:
        fail(f"{with_beat} handshakes with the heartbeat, {a.devices} "
             "expected (one per device)")
    without, _ = handshakes(a, 0)
    print(f"no heartbeat: {without} handshakes", flush=True)
    if without <= 2 * a.devices:
        fail(f"only {without} handshakes without the heartbeat: the test "
             "does not see the refreshes")
    print(f"OK: {a.devices} devices waiting for an open round, "
          f"{with_beat} handshakes with the heartbeat, {without} without")


if __name__ == "__main__":
    main()
