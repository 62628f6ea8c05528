#!/usr/bin/python3
"""An admm-sharing round survives a SIGKILL of the real daemon
(docs/aggregator.md, "admm-sharing: a restart loses nothing").

Real stack on loopback: the `edgeadmm` CLI enrolls two devices and creates a
noiseless admm-sharing job (papers 000/003) over the first 1000 a9a records
(party 0 = dev-00000 = the first 66 columns, party 1 = dev-00001 = the
remaining 57; labels at the gateway), `edgeadmm-aggregatord` serves it over
CoAP/DTLS-PSK and each party is its own `edgeadmm-fleet connect --part I/2`
process with a state directory.

1. Uninterrupted: both parties run the job to the end (the reference).
2. Interrupted, on a fresh database: after a few committed rounds party 1's
   process is frozen (its state stays on disk); once party 0's share of
   the open round is accepted (its local ledger row is in the database,
   written before the receipt) the daemon is SIGKILLed, restarted on the
   same database and port, and party 1 SIGKILLed and restarted from its
   state directory.
   The job must complete with that round committed under its old id (no
   `lost` round), both shares in every round, party 0 not asked again
   (`resumed ... with 1 of 2 uploads` in the daemon's log; 2 of 2 in the
   rare run where party 1's last datagram was still queued when it exited,
   read from the dead daemon's database) and every stored model, (v, y)
   and (z, y), equal to the uninterrupted run's to 1e-12.

Every wait is for an event (database rows, process exits, the job state),
bounded in time. Before the fix this failed: the restarted daemon reopened
the round under a new id, party 0 refused an iteration it had already
computed, and the barrier failed the job.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

import edgeadmm_db  # tools/python (on PYTHONPATH)
import edgeadmm_stack as es

# The devices find a restarted daemon after twice its task heartbeat
# (docs/device.md, "Refresh interval"): 1 s, not the default 10 s.
SERVER = {"task_heartbeat_seconds": 1}
JOB = "share-restart"
RECORDS = 1000  # --records (the full a9a: 32561)
ROUNDS = 40     # --rounds; rounds take ms: party 1 stops long before the end
KILL_AFTER = 3  # committed rounds before party 1 stops
TIMEOUT = 120   # seconds for each wait
FINISHED = es.FINISHED_STATES + ("failed",)


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def job_toml(labels):
    # Deadline 20 s, one retry: enough for the devices to find the restarted
    # daemon (2 s task refresh), and an honest failure within 40 s if not.
    return es.sharing_job_toml(JOB, ROUNDS, [66, 57], RECORDS, 4e-4, 1e-2,
                               labels, deadline_seconds=20, noise="none",
                               barrier_retries=1)


class Parties:
    """One `edgeadmm-fleet connect --part I/2` process per party."""

    def __init__(self, stack, data):
        self.stack = stack
        self.data = data
        self.state_dir = os.path.join(stack.state_dir, "devices")
        self.procs = [None, None]
        self.frozen = None  # a SIGSTOPped process (not watched)

    def start(self, part):
        argv = [self.stack.fleet_bin, "connect", "--host", "127.0.0.1",
                "--port", str(self.stack.port), "--psk-dir",
                self.stack.psk_dir, "--data", self.data, "--dim", "123",
                "--column-blocks", "66,57", "--records", str(RECORDS),
                "--allow-unaccounted-steps", "--state-dir", self.state_dir,
                "--task-refresh-ms", "2000", "--silence-timeout-ms", "3000",
                "--part", f"{part}/2"]
        log = open(os.path.join(self.stack.state_dir, f"party{part}.log"),
                   "a")
        self.procs[part] = subprocess.Popen(argv, stdout=log,
                                            stderr=subprocess.STDOUT)
        log.close()

    def stop(self, part):
        code, _ = es.stop_process(self.procs[part], f"party {part}")
        self.procs[part] = None
        return code

    def freeze(self, part):
        """SIGSTOP: the party sends nothing more, at once."""
        self.frozen = self.procs[part]
        self.procs[part] = None
        self.frozen.send_signal(signal.SIGSTOP)

    def kill_frozen(self):
        """SIGKILL (a power cut); its state directory stays."""
        if self.frozen is not None:
            self.frozen.send_signal(signal.SIGKILL)
            self.frozen.wait()
            self.frozen = None

    def stop_all(self):
        self.kill_frozen()
        for part in (0, 1):
            if self.procs[part] is not None:
                self.stop(part)


def wait_for(what, predicate, stack, parties):
    """Polls `predicate` (database reads) until true; fails on a timeout or
    when a process died."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        value = predicate()
        if value:
            return value
        if stack.daemon is not None and stack.daemon.poll() is not None:
            fail(f"the daemon exited ({stack.daemon.returncode}) waiting for "
                 f"{what}")
        for part, proc in enumerate(parties.procs):
            if proc is not None and proc.poll() is not None:
                fail(f"party {part} exited ({proc.returncode}) waiting for "
                     f"{what}")
        if time.monotonic() > deadline:
            fail(f"no {what} within {TIMEOUT} s (job "
                 f"{stack.job_state(JOB)}: {stack.end_reason(JOB)})")
        time.sleep(0.05)


def models(stack):
    """Every stored model: iteration -> (z = (v, y), server state = (z, y))."""
    return {it: (np.frombuffer(z, dtype="<f8"),
                 np.frombuffer(s, dtype="<f8"))
            for it, z, s in edgeadmm_db.models(stack.db_path, JOB)}


def finish(stack, parties):
    """Follows the job to its end; returns its final state."""
    state = wait_for("end of the job",
                     lambda: stack.job_state(JOB) in FINISHED and
                     stack.job_state(JOB), stack, parties)
    for part in (0, 1):  # each fleet exits once its device saw the end
        proc = parties.procs[part]
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            fail(f"party {part} still running after the job ended")
        parties.procs[part] = None
    return state


def uninterrupted(a):
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, "uninterrupted"))
    parties = Parties(stack, a.data)
    try:
        stack.enroll(2)
        stack.create_job(JOB, job_toml(os.path.abspath(a.data)))
        stack.start_daemon(server_options=SERVER)
        parties.start(0)
        parties.start(1)
        state = finish(stack, parties)
        if state != "completed":
            fail(f"uninterrupted run: job {state}: {stack.end_reason(JOB)}")
        print(f"uninterrupted: {ROUNDS} rounds of N = {RECORDS}, median "
              f"{round_milliseconds(stack):.0f} ms per round", flush=True)
        return models(stack)
    finally:
        parties.stop_all()
        stack.stop()


def interrupted(a):
    stack = es.Stack(a.build_dir, os.path.join(a.work_dir, "restarted"))
    parties = Parties(stack, a.data)
    try:
        devices = stack.enroll(2)
        stack.create_job(JOB, job_toml(os.path.abspath(a.data)))
        stack.start_daemon(server_options=SERVER)
        parties.start(0)
        parties.start(1)
        wait_for(f"{KILL_AFTER} committed rounds",
                 lambda: len(stack.rounds(JOB)) >= KILL_AFTER, stack, parties)
        parties.freeze(1)  # party 1 is down; party 0 keeps training
        if stack.job_state(JOB) != "running":
            fail("the job ended before party 1 was frozen")

        def party0_alone():
            """The open round once party 0's share is accepted and party
            1's is not (a round party 1 finished before it stopped commits
            when party 0's share arrives; the next one is then awaited)."""
            open_rounds = [r for r, state, _ in
                           edgeadmm_db.round_states(stack.db_path, JOB)
                           if state == "open"]
            if len(open_rounds) != 1:
                return None
            accepted = edgeadmm_db.local_ledger_devices(
                stack.db_path, JOB, open_rounds[0])
            if devices[1] in accepted or devices[0] not in accepted:
                return None
            return open_rounds[0]

        round_id = wait_for("party 0's share alone in the open round",
                            party0_alone, stack, parties)
        stack.kill_daemon()  # SIGKILL
        # What the dead daemon had accepted in that round (local ledger rows,
        # written with each accepted share). Party 1's share is there only
        # if its last datagram was still queued at the daemon when its
        # process exited: then the round is resumed complete.
        accepted = edgeadmm_db.local_ledger_devices(stack.db_path, JOB,
                                                    round_id)
        if devices[0] not in accepted:
            fail(f"round {round_id}: party 0's share is not stored")
        committed = len(stack.rounds(JOB))
        print(f"daemon SIGKILLed with round {round_id} open, shares of "
              f"{accepted} accepted, after {committed} committed rounds",
              flush=True)
        stack.start_daemon(server_options=SERVER, same_port=True)
        # Party 1 reboots from its state directory.
        parties.kill_frozen()
        parties.start(1)
        state = finish(stack, parties)
        if state != "completed":
            fail(f"after the restart: job {state}: {stack.end_reason(JOB)}")
        rounds = edgeadmm_db.round_states(stack.db_path, JOB)
        if [(r, s, p) for r, s, p in rounds] != [
                (i + 1, "committed", 2) for i in range(ROUNDS)]:
            fail(f"rounds are not 1..{ROUNDS} committed with both shares "
                 f"(nothing lost, no id reused): {rounds}")
        with open(os.path.join(stack.state_dir, "daemon.log")) as f:
            log = f.read()
        resumed = (f"round {round_id}: resumed after a restart with "
                   f"{len(accepted)} of 2 uploads from the store")
        if resumed not in log:
            fail(f"the daemon log does not say: {resumed}")
        uploads = edgeadmm_db.upload_counts(stack.db_path)
        if uploads != [(devices[0], ROUNDS), (devices[1], ROUNDS)]:
            fail(f"uploads per party: {uploads}")
        result = stack.stop()
        if not result["daemon"][1]:
            fail("the daemon did not stop cleanly")
        problems = stack.check_database()
        if problems:
            fail(f"database: {problems}")
        return round_id, models(stack)
    finally:
        parties.stop_all()
        stack.stop()


def round_milliseconds(stack):
    """Median open-to-commit time of the committed rounds."""
    spans = sorted(r["seconds"] * 1000 for r in stack.rounds(JOB))
    return spans[len(spans) // 2]


def main():
    global RECORDS, ROUNDS
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--records", type=int, default=RECORDS)
    p.add_argument("--rounds", type=int, default=ROUNDS)
    a = p.parse_args()
    RECORDS, ROUNDS = a.records, a.rounds
    shutil.rmtree(a.work_dir, ignore_errors=True)
    started = time.monotonic()
    reference = uninterrupted(a)
    round_id, restarted = interrupted(a)
    if sorted(reference) != list(range(ROUNDS + 1)) or \
            sorted(restarted) != sorted(reference):
        fail(f"models: {sorted(restarted)} vs {sorted(reference)}")
    worst = 0.0
    for it in reference:
        for got, want in zip(restarted[it], reference[it]):
            if got.shape != want.shape:
                fail(f"iteration {it}: {got.shape} vs {want.shape}")
            worst = max(worst, float(np.max(np.abs(got - want))))
    if worst > 1e-12:
        fail(f"the restarted run's models differ by {worst:.3g}")
    print(f"OK: round {round_id} survived a SIGKILL of the daemon: the job "
          f"completed {ROUNDS} rounds with both shares each, every (v, y) "
          f"and (z, y) within {worst:.3g} of the uninterrupted run "
          f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
