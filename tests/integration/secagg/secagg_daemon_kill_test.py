#!/usr/bin/python3
"""A secure-aggregation round when the real daemon is SIGKILLed mid-phase
(issue 33; docs/aggregator.md, "A restart resumes a secure round").

Real stack on loopback: the `edgeadmm` CLI enrolls six devices and creates
a prox-admm job under privacy.policy "secure-aggregation" (m = 6, floor 5,
20 s per phase, 2 rounds), `edgeadmm-aggregatord` serves it over
CoAP/DTLS-PSK and six `edgeadmm-device --secagg-neighbours 8`
processes run it. Device 5 is SIGSTOPped at its start,
so phase 1 of the first two rounds waits for it.

1. The safe abort: once the first round's phases started and its round log
   (beside the database) holds the other five advertisements, the daemon
   is SIGKILLed, the log deleted and the daemon restarted: the round cannot
   resume, it ends (`discarded` or `lost`) with no ledger row.
2. Resumed in phase 1: the next round's phases start (device 5 still
   stopped), its log holds five advertisements; device 4 is stopped, the
   daemon SIGKILLed and restarted, device 5 continued.
3. Resumed in phase 2 (share keys), the same round: device 4 (advertised,
   stopped) holds phase 2 open; once the log holds phase 1's close and the
   other five devices' share-keys messages, device 3 is stopped, the daemon
   SIGKILLed and restarted, device 4 continued.
4. Resumed late in phase 3 (masked inputs), the same round: device 3 holds
   phase 3 open; once the log holds the other five masked inputs (nobody
   charged yet), SIGKILL and restart.
5. Resumed after the charge, in phase 4 (unmasking), the same round:
   device 0 (its masked input logged, phase 3 still held open by device 3)
   is stopped and device 3 continued; phase 3 closes, the survivors are
   charged, and device 0 holds phase 4 open. Once the charge is in the
   store, SIGKILL, restart, device 0 continued. The round is resumed four
   times and committed with all six devices charged once (six local
   ledger rows, the rows stored before the last kill, one "charged before
   unmasking", one model).
6. The job completes: every committed round has its ledger rows, the
   devices exit 0, no round log is left and the database's checks pass.

A device stopped once its phase-k message is logged, while another stopped
device holds phase k open, cannot have phase k's answer: it holds phase
k + 1 open without a race.
Every wait is for an event (a log line, a row, a log record, a process
exit), bounded.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

# The devices find a restarted daemon after twice its task heartbeat
# (docs/device.md, "Refresh interval"): 1 s, not the default 10 s.
SERVER = {"task_heartbeat_seconds": 1}
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


def round_logs(db_path):
    """The daemon's SecAgg+ round logs beside the database."""
    folder = os.path.dirname(os.path.abspath(db_path))
    base = os.path.basename(db_path) + ".secagg-job-"
    return [os.path.join(folder, f) for f in os.listdir(folder)
            if f.startswith(base)]


def log_records(db_path):
    """The round log's (type, phase, device) records after its start record
    (SecAggRoundLog: type 1 a message, 2 a phase close; each record is
    type, phase, device, length, bytes); [] without a log."""
    logs = round_logs(db_path)
    if len(logs) != 1:
        return []
    try:
        with open(logs[0], "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    at, records = 0, []
    while at + 10 <= len(data):
        size = int.from_bytes(data[at + 6:at + 10], "little")
        if at + 10 + size > len(data):
            break
        records.append((data[at], data[at + 1],
                        int.from_bytes(data[at + 2:at + 6], "little")))
        at += 10 + size
    return records[1:]


def senders(db_path, phase):
    """The devices whose message of `phase` the round log holds."""
    return {d for t, p, d in log_records(db_path) if t == 1 and p == phase}


def advertisements(db_path):
    return len(senders(db_path, 1))


def start_device(binary, stack, a, name, i):
    argv = [binary, "--host", "127.0.0.1", "--port", str(stack.port),
            "--identity", name, "--psk-file",
            os.path.join(stack.psk_dir, name), "--data", a.data, "--dim",
            "123", "--first", str(300 * i), "--count", "300", "--state-dir",
            os.path.join(a.work_dir, f"device-{i}"), "--epsilon-budget",
            "1000", "--secagg-neighbours", "8", "--refresh-ms", "1000",
            "--silence-timeout-ms",
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


def restart(stack, db_path, round_id, where):
    """SIGKILLs the daemon and restarts it; the round must still be open."""
    stack.kill_daemon()
    if round_state(db_path, round_id) != "open":
        fail(f"round {round_id} {round_state(db_path, round_id)} when the "
             f"daemon was killed in {where}")
    stack.start_daemon(server_options=SERVER, same_port=True)


def wait_committed(db_path, round_id, stack, devices):
    """Waits until the round is committed; fails once it ends otherwise."""
    ended = ("committed", "discarded", "lost")
    state = wait_for(f"the end of round {round_id}",
                     lambda: (round_state(db_path, round_id) in ended and
                              round_state(db_path, round_id)), stack, devices)
    if state != "committed":
        fail(f"round {round_id} {state}, not committed")


def main():
    a, device_bin, stack = es.device_process_test(__doc__)
    os.makedirs(a.work_dir, exist_ok=True)
    devices = []
    try:
        names = stack.enroll(DEVICES)
        stack.create_job(JOB, job_toml())
        stack.start_daemon(server_options=SERVER)
        db = stack.db_path
        devices = [start_device(device_bin, stack, a, n, i)
                   for i, n in enumerate(names)]
        devices[5].send_signal(signal.SIGSTOP)

        # 1. No round log after the kill: the round ends, uncharged.
        wait_for("five advertisements in the first round's log",
                 lambda: advertisements(db) >= 5, stack, devices)
        first = open_round(db)
        if first is None:
            fail("no open round while the phases run")
        stack.kill_daemon()
        for path in round_logs(db):
            os.remove(path)
        stack.start_daemon(server_options=SERVER, same_port=True)
        wait_for(f"the end of round {first}",
                 lambda: round_state(db, first) in ("discarded", "lost"),
                 stack, devices)
        if ledger_rows(db, first) != 0:
            fail(f"round {first}, killed before unmasking, is charged")
        if not log_count(stack, "cannot resume"):
            fail("the daemon did not say why the round was not resumed")
        print(f"round {first}: killed in phase 1 without its log, "
              f"{round_state(db, first)}, no ledger row", flush=True)

        # 2-4. One round killed in phase 1, in phase 2 and late in phase 3.
        # Each phase is held open by a stopped device that has sent the
        # previous phase's message (the log holds it), so it waits for that
        # phase to close and cannot have sent the held phase's message.
        wait_for("the next round",
                 lambda: (open_round(db) or 0) > first, stack, devices)
        second = open_round(db)
        resumed = log_count(stack, "phases resumed from the round log")
        charged = log_count(stack, "charged before unmasking")

        # 2. Phase 1: device 5 (stopped since its start) holds it open.
        wait_for(f"five advertisements in round {second}'s log",
                 lambda: advertisements(db) >= 5, stack, devices)
        devices[4].send_signal(signal.SIGSTOP)  # advertised, holds phase 2
        restart(stack, db, second, "phase 1")
        devices[5].send_signal(signal.SIGCONT)

        # 3. Phase 2 (share keys): device 4 holds it open.
        wait_for(f"five share-keys messages in round {second}'s log",
                 lambda: senders(db, 2) == {0, 1, 2, 3, 5}, stack, devices)
        if (2, 1, 0) not in log_records(db):
            fail(f"round {second} in phase 2 without phase 1's close logged")
        devices[3].send_signal(signal.SIGSTOP)  # shared keys, holds phase 3
        restart(stack, db, second, "phase 2")
        devices[4].send_signal(signal.SIGCONT)

        # 4. Late in phase 3 (masked inputs), before the charge: device 3
        # holds it open.
        wait_for(f"five masked inputs in round {second}'s log",
                 lambda: senders(db, 3) == {0, 1, 2, 4, 5}, stack, devices)
        if ledger_rows(db, second) != 0 or \
                log_count(stack, "charged before unmasking") != charged:
            fail(f"round {second} charged (phase 3 closed) while device 3, "
                 "whose share keys were logged, held phase 3 open")
        restart(stack, db, second, "phase 3")

        # 5. After the charge, in phase 4 (unmasking): device 0, whose
        # masked input is logged, is stopped while device 3 still holds
        # phase 3 open, so it cannot reveal; device 3 continues, phase 3
        # closes and the survivors are charged, and device 0 holds phase 4
        # open. The kill comes once the charge is in the store.
        devices[0].send_signal(signal.SIGSTOP)
        devices[3].send_signal(signal.SIGCONT)
        wait_for(f"round {second}'s charge in the store",
                 lambda: ledger_rows(db, second) > 0, stack, devices)
        rows = ledger_rows(db, second)
        restart(stack, db, second, "phase 4")
        devices[0].send_signal(signal.SIGCONT)

        wait_committed(db, second, stack, devices)
        if log_count(stack, "phases resumed from the round log") != \
                resumed + 4:
            fail(f"round {second} was not resumed from its log four times")
        locals_ = query(db, "SELECT count(*) FROM ledger WHERE round_id = ? "
                        "AND scope LIKE 'local:%'", second)[0][0]
        participants = query(db, "SELECT participants FROM rounds WHERE "
                             "round_id = ?", second)[0][0]
        if participants != DEVICES or locals_ != DEVICES:
            fail(f"round {second}: {participants} participants, {locals_} "
                 "local ledger rows (want 6 and 6)")
        if ledger_rows(db, second) != rows:
            fail(f"round {second}: {ledger_rows(db, second)} ledger rows, "
                 f"{rows} stored before the kill in phase 4 (charged twice?)")
        if log_count(stack, "charged before unmasking") != charged + 1:
            fail(f"round {second}: its survivors were charged "
                 f"{log_count(stack, 'charged before unmasking') - charged}"
                 " times")
        models = query(db, "SELECT count(*) FROM models WHERE round_id = ?",
                       second)[0][0]
        if models != 1:
            fail(f"round {second} is committed with {models} models")
        print(f"round {second}: killed in phases 1, 2, 3 (five masked "
              f"inputs, uncharged) and 4 (charged), resumed each time, "
              f"committed with {participants} devices charged once, "
              f"{rows} ledger rows", flush=True)

        # 6. The job completes.
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
        if round_logs(db):
            fail(f"round logs left: {round_logs(db)}")
        problems = stack.check_database()
        if problems:
            fail(f"database: {problems}")
        print("OK: a secure round killed mid-phase resumes from its log "
              "(phases 1, 2, late 3 and after the charge: committed, "
              "charged once); "
              "without its log it ends uncharged; the job completed",
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
