"""Runs EdgeADMM jobs on the real stack and reports them.

The real stack is: the `edgeadmm` CLI enrolls devices and creates the job in a
fresh SQLite database, `edgeadmm-aggregatord` serves it over CoAP/DTLS-PSK on
loopback, and the device fleet (`edgeadmm-fleet connect`) runs the
devices' DeviceClients against it. This module only starts those programs
(the daemon through edgeadmm_daemon.py), writes job files (through
edgeadmm_job_toml.py), reads the database read-only (through edgeadmm_db.py)
to follow the rounds, evaluates the committed models on held-out data, and
writes the report (JSON, CSV, PNG plots).

Used by scripts/demo, the paper reproductions in tests/repro/ (scripts/repro)
and the Python integration tests; they find it on PYTHONPATH (tools/python).
Run with Debian's /usr/bin/python3 (numpy and matplotlib from apt).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import shutil
import subprocess
import time
from typing import (Any, Callable, Dict, List, Mapping, Optional, Sequence,
                    Tuple)

import numpy as np

import edgeadmm_db
from edgeadmm_daemon import (  # noqa: F401 (re-exported)
    Daemon, DaemonError, free_udp_port, stop_process)
from edgeadmm_job_toml import (  # noqa: F401 (re-exported)
    JobTomlError, fixed_cohort_job, job_toml)

# Data sets, metrics, plots and JSON reports: callers use them as es.<name>.
from edgeadmm_data import (  # noqa: F401 (re-exported)
    accuracy, central_logistic_optimum, logistic_loss, majority_rate,
    open_text, plot_series, read_libsvm, write_json, write_synthetic_libsvm)

FINISHED_STATES = ("completed", "budget-exhausted", "stopped")


def device_test_job(name: str, rounds: int, m: int, m_min: int,
                    deadline_seconds: float, seed: Optional[int] = None,
                    device_prefix: Optional[str] = None) -> str:
    """A small paper 002 job for the device-process tests (a9a's 123
    features, logistic loss, every device of a fixed cohort of m): its TOML
    text. `seed` fixes the cohorts (participation only); `device_prefix`
    enrols only the devices whose id begins with it."""
    return fixed_cohort_job(name, 123, rounds, m, m_min, deadline_seconds,
                            lam=0.5, gamma=1.0, clip=1.0, sigma=5.0,
                            central_budget=1000, device_budget=1000,
                            seed=seed, device_prefix=device_prefix)


def sharing_job_toml(name: str, rounds: int, columns: Sequence[int],
                     records: int, rho: float, lam: float, labels: str,
                     deadline_seconds: float = 60,
                     dimension: Optional[int] = None,
                     **sharing: Any) -> str:
    """An admm-sharing job (papers 000/003): one party per column block of
    `columns`, the gateway's labels in `labels`. `sharing`: more
    [admm_sharing] keys as Python values (noise, sigma, test_labels, ...;
    noise = "none" unless given)."""
    table: Dict[str, Any] = {
        "parties": len(columns), "columns": list(columns),
        "records": records, "rho": rho, "lambda": lam, "labels": labels}
    table.update({"noise": "none"} if "noise" not in sharing else {})
    table.update(sharing)
    return job_toml(
        job={"name": name, "algorithm": "admm-sharing", "loss": "logistic",
             "dimension": dimension or sum(columns), "rounds": rounds},
        admm_sharing=table,
        sampling={"deadline_seconds": deadline_seconds})


class StackError(RuntimeError):
    """A step of the run failed; the message says which."""


# --------------------------------------------------------------------------
# Data


def sanitizer_scale(test: str, what: str, full: Any, reduced: Any) -> Any:
    """`reduced` in sanitizer builds (EDGEADMM_SANITIZED=1, set for every test
    by cmake/EdgeAdmmTesting.cmake), printed; `full` otherwise."""
    if os.environ.get("EDGEADMM_SANITIZED") != "1":
        return full
    print(f"{test}: sanitizer build, runs smaller: {what} {full} -> {reduced}",
          flush=True)
    return reduced


def device_process_test(description: Optional[str] = None
                        ) -> Tuple[argparse.Namespace, str, "Stack"]:
    """The setup the edgeadmm-device process tests share: their command line
    (--build-dir, --data, --work-dir), an emptied work directory, the
    edgeadmm-device binary and a Stack under the work directory. Returns
    (args, device_binary, stack)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--work-dir", required=True)
    a = p.parse_args()
    shutil.rmtree(a.work_dir, ignore_errors=True)
    device_bin = os.path.join(a.build_dir, "examples", "device_linux",
                              "edgeadmm-device")
    return a, device_bin, Stack(a.build_dir, os.path.join(a.work_dir, "stack"))


class Stack:
    """One aggregator database, its daemon and its fleet."""

    def __init__(self, bin_dir: str, state_dir: str,
                 log: Callable[[str], Any] = print) -> None:
        self.cli = os.path.join(bin_dir, "aggregator", "cli", "edgeadmm")
        self.daemon_bin = os.path.join(bin_dir, "aggregator", "daemon",
                                       "edgeadmm-aggregatord")
        self.fleet_bin = os.path.join(bin_dir, "tools", "fleet",
                                      "edgeadmm-fleet")
        for program in (self.cli, self.daemon_bin, self.fleet_bin):
            if not os.access(program, os.X_OK):
                raise StackError(f"{program} is not built")
        self.state_dir = os.path.abspath(state_dir)
        os.makedirs(self.state_dir, exist_ok=True)
        self.db_path = os.path.join(self.state_dir, "aggregator.db")
        self.psk_dir = os.path.join(self.state_dir, "psk")
        self.log = log
        self.daemon_launcher: Optional[Daemon] = None
        self.fleet: Optional[subprocess.Popen] = None  # the first one
        self.fleets: List[subprocess.Popen] = []  # start_fleet(parts=K)
        self.port: Optional[int] = None

    @property
    def daemon(self) -> Optional[subprocess.Popen]:
        """The daemon's process (None when not started or killed)."""
        launcher = self.daemon_launcher
        return launcher.proc if launcher is not None else None

    # -- CLI -----------------------------------------------------------------

    def run_cli(self, *args: str, check: bool = True) -> str:
        """Runs `edgeadmm ... --db DB`; returns stdout."""
        argv = [self.cli] + list(args[:1]) + ["--db", self.db_path] + list(
            args[1:])
        done = subprocess.run(argv, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise StackError(f"{' '.join(argv)} failed ({done.returncode}): "
                             f"{done.stderr.strip()}")
        return done.stdout

    def enroll(self, count: int, prefix: str = "dev-") -> List[str]:
        """Enrolls `count` devices in one transaction (`devices add --count`);
        their PSKs go to psk/<id> (mode 0600). Returns the device ids."""
        self.run_cli("devices", "add", "--count", str(count), "--prefix",
                     prefix, "--psk-dir", self.psk_dir)
        width = max(5, len(str(count - 1)))
        return [f"{prefix}{i:0{width}d}" for i in range(count)]

    def create_job(self, name: str, toml_text: str, start: bool = True
                   ) -> str:
        """Writes the job TOML, creates the job and (unless start is False)
        starts it."""
        path = os.path.join(self.state_dir, f"{name}.toml")
        with open(path, "w") as f:
            f.write(toml_text)
        out = self.run_cli("job", "create", path)
        if start:
            self.start_job(name)
        return out

    def start_job(self, name: str) -> None:
        """`edgeadmm job start`: a running daemon picks the job up within a
        second (docs/aggregator.md)."""
        self.run_cli("job", "start", name)

    def fleet_file(self, part: int, extension: str) -> str:
        """fleet.log / fleet.pid of part 0, fleet-I.* of part I."""
        suffix = f"-{part}" if part else ""
        return os.path.join(self.state_dir, f"fleet{suffix}.{extension}")

    def fleet_connected(self) -> int:
        """Devices of all fleet processes that have completed a handshake,
        from each fleet log's last progress line ("..., N connected, ...",
        printed every 10 s)."""
        total = 0
        for part in range(len(self.fleets)):
            try:
                with open(self.fleet_file(part, "log")) as f:
                    counts = re.findall(r"(\d+) connected,", f.read())
            except OSError:
                counts = []
            total += int(counts[-1]) if counts else 0
        return total

    def wait_connected(self, count: int, timeout_seconds: float,
                       progress: Optional[Callable[[str], Any]] = None
                       ) -> int:
        """Waits until `count` devices of the fleet have connected (see
        fleet_connected) while every process keeps running; raises
        StackError on a timeout or an exited process."""
        deadline = time.monotonic() + timeout_seconds
        last = -1
        while True:
            connected = self.fleet_connected()
            if connected >= count:
                return connected
            for proc in [self.daemon] + self.fleets:
                if proc is not None and proc.poll() is not None:
                    raise StackError(f"process {proc.pid} exited with "
                                     f"{proc.returncode} while the fleet "
                                     f"connected ({connected}/{count})")
            if time.monotonic() > deadline:
                raise StackError(f"only {connected}/{count} devices connected "
                                 f"in {timeout_seconds:.0f} s")
            if progress is not None and connected != last:
                progress(f"{connected}/{count} devices connected")
                last = connected
            time.sleep(1.0)

    def plan_sigma(self, participations: int, epsilon: float, delta: float,
                   m_min: int, clip: float) -> float:
        """The participation policy's sigma for a device that joins
        `participations` rounds of at least `m_min` uploads within
        (epsilon, delta), with the PLD accountant the daemon's central
        ledgers use by default (docs/privacy.md, "The job's accountant")."""
        out = subprocess.run(
            [self.cli, "privacy", "plan", "--rounds", str(participations),
             "--epsilon", str(epsilon), "--delta", str(delta), "--accountant",
             "pld", "--policy", "participation", "--cohort", str(m_min),
             "--clip", str(clip), "--json"], capture_output=True, text=True)
        if out.returncode != 0:
            raise StackError(f"privacy plan failed: {out.stderr.strip()}")
        return json.loads(out.stdout)["policy_sigma"]

    def export_model(self, name: str, path: str,
                     round_choice: Optional[str] = None) -> Dict[str, Any]:
        """`edgeadmm job export --format json`: the job's released model
        (its best validated one by default), or `round_choice` (last, best
        or a round id). Returns the parsed JSON."""
        extra = ["--round", str(round_choice)] if round_choice else []
        self.run_cli("job", "export", name, "--format", "json", "--output",
                     path, *extra)
        with open(path) as f:
            return json.load(f)

    # -- daemon and fleet ----------------------------------------------------

    def start_daemon(self, server_options: Optional[Mapping[str, Any]] = None,
                     same_port: bool = False,
                     config_tables: Optional[Mapping[str, Mapping[str, Any]]]
                     = None, ready_timeout: float = 30.0) -> None:
        """Starts the daemon on 127.0.0.1 and waits up to `ready_timeout`
        seconds until it is ready (edgeadmm_daemon.Daemon). `server_options`: more [server] keys of
        aggregatord.toml as Python values, e.g.
        {"non_confirmable_notifications": True}; `same_port` restarts it on
        the port of the previous start (the devices keep their aggregator
        address) and appends to its log; `config_tables`: more tables of
        aggregatord.toml, e.g. {"metrics": {"file": path}}."""
        if not (same_port and self.port):
            self.port = free_udp_port()
        self.daemon_launcher = Daemon(self.daemon_bin, self.db_path,
                                      self.state_dir, port=self.port,
                                      server_options=server_options,
                                      config_tables=config_tables)
        try:
            self.daemon_launcher.start(ready_timeout=ready_timeout,
                                       append_log=same_port)
        except DaemonError as e:
            self.stop()
            raise StackError(str(e)) from e
        self.log(f"aggregator: listening on 127.0.0.1:{self.port} "
                 f"(pid {self.daemon_launcher.pid}, database {self.db_path})")

    def kill_daemon(self) -> None:
        """SIGKILLs the daemon (a crash on purpose) and forgets it;
        start_daemon(same_port=True) restarts it."""
        if self.daemon_launcher is not None:
            self.daemon_launcher.kill()
        self.daemon_launcher = None

    def start_fleet(self, fleet_args: Sequence[str], parts: int = 1,
                    local_addresses: bool = False, nice: int = 0,
                    part_bins: Optional[Sequence[str]] = None,
                    fleet_bin: Optional[str] = None,
                    psk_dir: Optional[str] = None) -> None:
        """Starts `edgeadmm-fleet connect` against the daemon. `fleet_args` are
        the data and algorithm options. With parts = K > 1, K processes
        (`--part I/K`) share the devices (libcoap walks all sessions of a
        context per datagram, so one process per few thousand devices);
        their logs are fleet.log, fleet-1.log, ... With local_addresses,
        part I's devices connect from 127.0.0.(2+I) (`--local-address`):
        every device has its own UDP socket, and one source address has only
        the ephemeral port range (28,232 ports) towards the daemon. `nice`
        lowers the fleets' CPU priority: on a shared machine the one daemon
        (the system under test) would otherwise get 1/(K+1) of the CPU the
        simulated devices leave, while real devices bring their own.
        `part_bins` (one per part) runs part I with another `edgeadmm-fleet`
        binary, e.g. one built with EDGEADMM_REAL=float (a mixed fleet).
        `fleet_bin` and `psk_dir` override the stack's for these processes
        (a second call adds fleets of other devices, or of another build,
        to the same job; logs continue the numbering)."""
        if part_bins is not None and len(part_bins) != parts:
            raise ValueError("part_bins needs one binary per part")
        for part in range(parts):
            index = len(self.fleets)
            binary = part_bins[part] if part_bins else (fleet_bin
                                                        or self.fleet_bin)
            argv = [binary, "connect", "--host", "127.0.0.1", "--port",
                    str(self.port), "--psk-dir", psk_dir or self.psk_dir
                    ] + list(fleet_args)
            if local_addresses:
                argv += ["--local-address", f"127.0.0.{2 + part}"]
            if parts > 1:
                argv += ["--part", f"{part}/{parts}"]
            log = open(self.fleet_file(index, "log"), "w")
            proc = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=(lambda: os.nice(nice)) if nice else None)
            log.close()
            with open(self.fleet_file(index, "pid"), "w") as f:
                f.write(f"{proc.pid}\n")
            self.fleets.append(proc)
            self.log(f"fleet: {' '.join(argv[1:])} (pid {proc.pid})")
        self.fleet = self.fleets[0]

    def stop(self) -> Dict[str, Tuple[Optional[int], bool]]:
        """Stops the fleet and the daemon (SIGTERM, then verify they exited).
        Returns {"fleet": (code, clean), "daemon": (code, clean)}."""
        fleets = [stop_process(p, "fleet") for p in self.fleets]
        result = {
            "fleet": (fleets[0][0] if fleets else None,
                      all(clean for _, clean in fleets)),
            "daemon": (self.daemon_launcher.stop()
                       if self.daemon_launcher is not None else (None, True)),
        }
        self.fleet = None
        self.fleets = []
        self.daemon_launcher = None
        return result

    def run_to_end(self, name: str, toml_text: str, fleet_args: Sequence[str],
                   timeout_seconds: float,
                   server_options: Optional[Mapping[str, Any]] = None
                   ) -> Optional[str]:
        """Creates and starts the job, runs the daemon and one fleet until
        the job finishes, then stops both. Returns None when the job
        completed, else what went wrong (a StackError's message or the
        job's final state and reason)."""
        error = None
        try:
            self.create_job(name, toml_text)
            self.start_daemon(server_options=server_options)
            self.start_fleet(fleet_args)
            final = self.follow(name, lambda row: None, timeout_seconds)
            if final != "completed":
                error = f"job {final}: {self.end_reason(name)}"
        except StackError as e:
            error = str(e)
        finally:
            self.stop()
        return error

    # -- database ------------------------------------------------------------

    def job_state(self, name: str) -> Optional[str]:
        return edgeadmm_db.job_state(self.db_path, name)

    def end_reason(self, name: str) -> Optional[str]:
        """Why the finished job ended (None if it has not, or not said)."""
        return edgeadmm_db.end_reason(self.db_path, name)

    def rounds(self, name: str) -> List[Dict[str, Any]]:
        """Committed rounds in order: dicts with round, iteration,
        participants, cohort, epsilon (central, after the round), z, and
        the daemon's validation scores of the model (validation_loss,
        validation_accuracy; None when the job has no validation data)."""
        return [{
            "round": r.round,
            "iteration": r.iteration,
            "participants": r.participants,
            "cohort": r.cohort,
            "noise_multiplier": r.noise_multiplier,
            "epsilon": r.epsilon,
            "z": np.frombuffer(r.z, dtype="<f8").copy() if r.z else None,
            "seconds": (r.closed_at - r.started_at) / 1000.0
                       if r.closed_at is not None else None,
            "validation_loss": r.validation_loss,
            "validation_accuracy": r.validation_accuracy,
        } for r in edgeadmm_db.committed_rounds(self.db_path, name)]

    def check_database(self) -> List[str]:
        """PRAGMA integrity_check and foreign_key_check on the stopped
        database; returns a list of problems (empty when consistent)."""
        return edgeadmm_db.check_database(self.db_path)

    def follow(self, name: str, on_round: Callable[[Dict[str, Any]], Any],
               timeout_seconds: float, poll_seconds: float = 0.5
               ) -> Optional[str]:
        """Calls on_round(row) for each newly committed round until the job
        finishes, a process exits, or the timeout. Returns the final state."""
        seen = 0
        deadline = time.monotonic() + timeout_seconds
        while True:
            # The state first: a round that commits between the two reads
            # (the last one, say) is then still delivered below.
            state = self.job_state(name)
            rows = self.rounds(name)
            for row in rows[seen:]:
                on_round(row)
            seen = len(rows)
            if state in FINISHED_STATES:
                return state
            if self.daemon is not None and self.daemon.poll() is not None:
                raise StackError(f"the daemon exited ({self.daemon.returncode})"
                                 "; see daemon.log")
            exited = [f for f in self.fleets if f.poll() is not None]
            if exited:
                # A fleet stops when it sees the job finished, which may
                # have happened after `state` was read: read it again.
                if self.job_state(name) in FINISHED_STATES:
                    continue
                raise StackError(f"a fleet process exited "
                                 f"({exited[0].returncode}) with the job "
                                 f"{state}; see fleet*.log")
            if time.monotonic() > deadline:
                raise StackError(f"job {name} still {state} after "
                                 f"{timeout_seconds} s")
            time.sleep(poll_seconds)


def fleet_part_sources(part: int, addresses: int, start_rate: int,
                       max_starting: int,
                       first_address: str = "127.1.0.1") -> List[str]:
    """edgeadmm-fleet connect options that give fleet process `part` its
    own `addresses` consecutive loopback source addresses (two processes
    never share one: each picks its ports on its own) and pace its starts."""
    first = ipaddress.IPv4Address(first_address) + part * addresses
    return ["--local-address", str(first), "--local-addresses",
            str(addresses), "--start-rate", str(start_rate),
            "--max-starting", str(max_starting)]


def parse_fleet_log(path: str) -> List[str]:
    """The fleet's final summary lines ("fleet: ..."; not progress lines)."""
    try:
        with open(path) as f:
            return [l.rstrip() for l in f
                    if l.startswith("fleet:") and "devices done" not in l]
    except OSError:
        return []


def fleet_totals(state_dir: str) -> Optional[Dict[str, int]]:
    """Sums the final summaries of every fleet*.log of a run: devices, done,
    steps, accepted, transport errors, DTLS handshakes (None for a process
    that printed none)."""
    keys = ("devices", "done", "steps", "refused", "accepted", "duplicate",
            "stale", "rejected", "transport_errors", "handshakes")
    totals = dict.fromkeys(keys, 0)
    for name in sorted(os.listdir(state_dir)):
        if not (name.startswith("fleet") and name.endswith(".log")):
            continue
        text = " ".join(parse_fleet_log(os.path.join(state_dir, name)))
        m = re.search(r"(\d+) devices, (\d+) saw.*?(\d+) steps computed, "
                      r"(\d+) refused; uploads (\d+) accepted, (\d+) "
                      r"duplicate, (\d+) stale, (\d+) rejected; (\d+) "
                      r"transport.*?(\d+) handshakes", text)
        if not m:
            return None
        for key, value in zip(keys, m.groups()):
            totals[key] += int(value)
    return totals

