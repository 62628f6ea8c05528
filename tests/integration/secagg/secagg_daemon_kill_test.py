#!/usr/bin/python3
"""A secure-aggregation round when the real daemon is SIGKILLed mid-phase
(issue 33; docs/aggregator.md, "Secure-aggregation rounds").

Real stack on loopback: the `edgeadmm` CLI enrolls six devices and creates
a prox-admm job under privacy.policy "secure-aggregation" (m = 6, floor 5,
20 s per phase, 2 rounds), `edgeadmm-aggregatord` serves it over
CoAP/DTLS-PSK and six `edgeadmm-device --secagg-neighbours 8
--secagg-devices 6` processes run it.

1. Before the charge: device 5 is SIGSTOPped at its start, so phase 1 waits
   for its deadline. Once the daemon logs "phases started" the daemon is
   SIGKILLed, restarted on the same database and port, and device 5
   continued. The killed round must be `lost` with no ledger row (nothing
   was unmasked or charged).
2. After the charge: the next round's phases run; when the daemon logs
   "survivors charged before unmasking" it is SIGKILLed again and
   restarted. That round holds its survivors' ledger rows whether the kill
   came before its commit (`lost`, no model) or after it (`committed`).
3. The job completes: every committed round has its ledger rows, the
   devices exit 0 and the database's checks pass.

Every wait is for an event (a log line, a row, a process exit), bounded.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

JOB = "secure-kill"
DEVICES = 6
TIMEOUT = 120  # seconds for each wait


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def job_toml():
    return es.job_toml(
        job={"name": JOB, "algorithm": "prox-admm", "loss": "logistic",
             "dimension": 123, "rounds": 2},
        regularizer={"kind": "l2", "l2": 0.001},
        step={"lambda": 0.5, "gamma": 1.0},
        privacy={"policy": "secure-aggregation", "clip": 1.0,
                 "target_epsilon": 8.0, "delta": 1e-5,
                 "central_budget": 1000.0, "device_budget": 1000.0},
        sampling={"scheme": "fixed", "m": DEVICES, "m_min": 5,
                  "deadline_seconds": 60, "seed": 7},
        secure_aggregation={"dropouts": 1, "phase_seconds": 20})


def start_device(binary, stack, a, name, i):
    argv = [binary, "--host", "127.0.0.1", "--port", str(stack.port),
            "--identity", name, "--psk-file",
            os.path.join(stack.psk_dir, name), "--data", a.data, "--dim",
            "123", "--first", str(300 * i), "--count", "300", "--state-dir",
            os.path.join(a.work_dir, f"device-{i}"), "--epsilon-budget",
            "1000", "--secagg-neighbours", "8", "--secagg-devices",
            str(DEVICES), "--refresh-ms", "1000", "--silence-timeout-ms",
            "3000", "--timeout-s", str(4 * TIMEOUT)]
    log = open(os.path.join(a.work_dir, f"device-{i}.log"), "w")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return proc


def query(db_path, sql, *args):
    db = sqlite3.connect(db_path, timeout=10)  # edgeadmm_db._read: not mode=ro
    try:
        db.execute("PRAGMA query_only = 1")
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def ledger_rows(db_path, round_id):
    return query(db_path, "SELECT count(*) FROM ledger WHERE round_id = ?",
                 round_id)[0][0]


def round_state(db_path, round_id):
    rows = query(db_path, "SELECT state FROM rounds WHERE round_id = ?",
                 round_id)
    return rows[0][0] if rows else None


def open_round(db_path):
    rows = query(db_path, "SELECT round_id FROM rounds WHERE state = 'open'")
    return rows[0][0] if len(rows) == 1 else None


def wait_for(what, predicate, stack, devices):
    deadline = time.monotonic() + TIMEOUT
    while True:
        value = predicate()
        if value:
            return value
        if stack.daemon is not None and stack.daemon.poll() is not None:
            fail(f"the daemon exited ({stack.daemon.returncode}) waiting for "
                 f"{what}")
        for i, proc in enumerate(devices):
            if proc.poll() is not None and proc.returncode != 0:
                fail(f"device {i} exited ({proc.returncode}) waiting for "
                     f"{what}")
        if time.monotonic() > deadline:
            fail(f"no {what} within {TIMEOUT} s")
        time.sleep(0.02)


def log_count(stack, text):
    """How often the daemon's log (all its starts) holds `text`."""
    with open(os.path.join(stack.state_dir, "daemon.log"),
              errors="replace") as f:
        return f.read().count(text)


def main():
    a, device_bin, stack = es.device_process_test(__doc__)
    os.makedirs(a.work_dir, exist_ok=True)
    devices = []
    try:
        names = stack.enroll(DEVICES)
        stack.create_job(JOB, job_toml())
        stack.start_daemon()
        db = stack.db_path
        devices = [start_device(device_bin, stack, a, n, i)
                   for i, n in enumerate(names)]
        devices[5].send_signal(signal.SIGSTOP)

        # 1. Killed in phase 1 (device 5 holds it open): before the charge.
        wait_for("the phases of the first round",
                 lambda: log_count(stack, "phases started") >= 1, stack,
                 devices)
        first = open_round(db)
        if first is None:
            fail("no open round while the phases run")
        stack.kill_daemon()
        if log_count(stack, "charged before unmasking"):
            fail("the first round was charged before the kill")
        stack.start_daemon(same_port=True)
        devices[5].send_signal(signal.SIGCONT)
        if round_state(db, first) != "lost":
            fail(f"round {first} is {round_state(db, first)}, not lost")
        if ledger_rows(db, first) != 0:
            fail(f"round {first}, killed before unmasking, is charged")
        print(f"round {first}: killed in phase 1, lost, no ledger row",
              flush=True)

        # 2. Killed once the survivors are charged.
        charged = log_count(stack, "charged before unmasking")
        wait_for("the survivors' charge",
                 lambda: log_count(stack, "charged before unmasking") >
                 charged, stack, devices)
        stack.kill_daemon()
        second = query(db, "SELECT max(round_id) FROM ledger")[0][0]
        rows = ledger_rows(db, second)
        if rows < 5:
            fail(f"round {second}: {rows} ledger rows after its charge")
        stack.start_daemon(same_port=True)
        state = round_state(db, second)
        if state not in ("lost", "committed"):
            fail(f"round {second} is {state}")
        models = query(db, "SELECT count(*) FROM models WHERE round_id = ?",
                       second)[0][0]
        if (state == "committed") != (models == 1):
            fail(f"round {second} is {state} with {models} models")
        if ledger_rows(db, second) != rows:
            fail(f"round {second}: its ledger rows changed at the restart")
        print(f"round {second}: killed after its charge, {state}, {rows} "
              "ledger rows", flush=True)

        # 3. The job completes.
        wait_for("the end of the job",
                 lambda: stack.job_state(JOB) in es.FINISHED_STATES, stack,
                 devices)
        if stack.job_state(JOB) != "completed":
            fail(f"job {stack.job_state(JOB)}: {stack.end_reason(JOB)}")
        for i, proc in enumerate(devices):
            try:
                code = proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                fail(f"device {i} still running after the job ended")
            if code != 0:
                fail(f"device {i} exited {code}")
        for round_id, st, _ in edgeadmm_db.round_states(db, JOB):
            if st == "committed" and ledger_rows(db, round_id) < 5:
                fail(f"committed round {round_id} without its charges")
        problems = stack.check_database()
        if problems:
            fail(f"database: {problems}")
        print("OK: a secure round killed mid-phase is lost uncharged before "
              "its charge and keeps its charge after it; the job completed",
              flush=True)
    finally:
        for proc in devices:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait()
        stack.stop()


if __name__ == "__main__":
    main()
