#!/usr/bin/python3
"""Churn with no lost or doubled upload (issue 36).

Real stack on loopback: 40 enrolled devices, a prox-admm job of 4 rounds
whose fixed cohort is all 40 (a round closes on its 40th upload), the
daemon, and one `edgeadmm-fleet connect` whose devices come from 8 loopback
source addresses (`--local-addresses 8`) and of which a quarter switch off
right after their first accepted upload (session dropped without a word),
so that round 2 waits for them, and come back 2 s later restarted from
their persisted records (`--churn 0.25 --churn-after-uploads 1`). Checked:
the job completes, the fleet reports 10 churned devices and more handshakes
than devices (the returning ones handshake again), and the database holds
exactly one accepted upload per (device, round), for every round.
"""

import os
import re
import sys

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

JOB = "churn-check"
ROUNDS = 4
DEVICES = 40


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    a, _, stack = es.device_process_test(__doc__.split("\n")[0])
    try:
        devices = stack.enroll(DEVICES)
        stack.create_job(JOB, es.device_test_job(JOB, ROUNDS, m=DEVICES,
                                                 m_min=DEVICES,
                                                 deadline_seconds=120,
                                                 seed=3))
        stack.start_daemon()
        stack.start_fleet([
            "--data", a.data, "--dim", "123", "--epsilon-budget", "1000",
            "--local-address", "127.4.0.1", "--local-addresses", "8",
            "--churn", "0.25", "--churn-after-uploads", "1",
            "--churn-away-ms", "2000", "--task-refresh-ms", "3000", "--progress-ms", "1000",
            "--watch-pid", str(stack.daemon.pid)])
        final = stack.follow(JOB, lambda row: None, 240)
        if final != "completed":
            fail(f"job {final}: {stack.end_reason(JOB)}")
        stack.fleet.wait(timeout=60)
        with open(stack.fleet_file(0, "log")) as f:
            log = f.read()
        m = re.search(r"fleet: (\d+) handshakes, (\d+) devices churned", log)
        if not m:
            fail("no churn summary in the fleet log")
        handshakes, churned = map(int, m.groups())
        print(f"fleet: {handshakes} handshakes, {churned} devices churned")
        if churned != DEVICES // 4 or handshakes <= DEVICES:
            fail(f"{churned} churned, {handshakes} handshakes")
        if "server_rss_kib=" not in log:
            fail("no daemon memory in the progress lines")
        rows = edgeadmm_db.upload_counts(stack.db_path, JOB, by_round=True)
        per_device = {d: 0 for d in devices}
        for device, _round, count in rows:
            if count != 1:
                fail(f"{device} has {count} uploads in one round")
            per_device[device] += 1
        if any(n != ROUNDS for n in per_device.values()):
            fail(f"uploads per device {per_device}")
        print(f"OK: {ROUNDS} rounds x {DEVICES} devices with churn, every "
              "upload accepted exactly once")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
