"""The one launcher of edgeadmm-aggregatord for the Python harness.

`Daemon` writes the daemon's aggregatord.toml (database, 127.0.0.1, a port,
more [server] keys), starts it with its stderr in a log file, and waits for
its readiness line on stdout ("listening on port N", printed once its socket
is bound: it answers from then on) with a deadline, never a fixed sleep. A
daemon that exits or stays silent past the deadline is stopped and reported
(DaemonError with the log's tail). `stop()` sends SIGTERM, waits, then
SIGKILLs; `kill()` SIGKILLs on purpose (the crash tests). Used by
edgeadmm_stack.py and tests/target/network/run_with_daemon.py.
"""

from __future__ import annotations

import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import time
from typing import IO, Any, List, Mapping, Optional, Tuple

from edgeadmm_job_toml import toml_document

READY_RE = re.compile(r"listening on port (\d+)")


class DaemonError(RuntimeError):
    """The daemon did not start or did not stop; the message says how."""


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 that is free right now, below the kernel's
    ephemeral range (20000..32767): the daemon binds it a moment later and
    binds it again after a restart, and a port of the ephemeral range could
    be handed to another process's socket in between."""
    rng = random.Random()
    for _ in range(1000):
        port = rng.randrange(20000, 32768)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free UDP port in 20000..32767")


def stop_process(proc: Optional[subprocess.Popen], name: str,
                 timeout: float = 20.0) -> Tuple[Optional[int], bool]:
    """SIGTERM, wait; SIGKILL if it does not exit. Returns its exit code and
    whether the exit was clean (exit code 0 after SIGTERM)."""
    if proc is None:
        return None, True
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            print(f"{name}: did not exit {timeout:g} s after SIGTERM; killed",
                  file=sys.stderr)
            return proc.returncode, False
    return proc.returncode, proc.returncode == 0


def read_line_until(stream: IO[str], deadline: float) -> Optional[str]:
    """One line of a pipe, or None when `deadline` (time.monotonic()) passes
    first. An empty string: the writer closed the pipe."""
    fd = stream.fileno()
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1)  # byte by byte: nothing read past the line
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace")


class Daemon:
    """One edgeadmm-aggregatord process on 127.0.0.1 and its files in
    `state_dir`: aggregatord.toml, the log (its stderr) and daemon.pid."""

    def __init__(self, binary: str, db_path: str, state_dir: str,
                 port: Optional[int] = None,
                 server_options: Optional[Mapping[str, Any]] = None,
                 log_name: str = "daemon.log",
                 config_tables: Optional[Mapping[str, Mapping[str, Any]]]
                 = None) -> None:
        self.binary = binary
        self.db_path = os.path.abspath(db_path)
        self.state_dir = os.path.abspath(state_dir)
        self.port = port if port is not None else free_udp_port()
        self.server_options = dict(server_options or {})
        self.config_tables = dict(config_tables or {})
        self.config_path = os.path.join(self.state_dir, "aggregatord.toml")
        self.log_path = os.path.join(self.state_dir, log_name)
        self.pid_path = os.path.join(self.state_dir, "daemon.pid")
        self.proc: Optional[subprocess.Popen] = None

    def write_config(self) -> None:
        """aggregatord.toml: [store] database, [server] address, port and
        the extra server options (Python values), then the other tables
        given (e.g. [metrics])."""
        server = {"address": "127.0.0.1", "port": self.port}
        server.update(self.server_options)
        tables = {"store": {"database": self.db_path}, "server": server}
        tables.update(self.config_tables)
        with open(self.config_path, "w") as f:
            f.write(toml_document(tables))

    def start(self, ready_timeout: float = 30.0, append_log: bool = False,
              argv: Optional[List[str]] = None) -> "Daemon":
        """Starts the daemon and returns once it printed its readiness line.
        `argv` replaces the command (tests); `append_log` keeps the log of a
        previous start. Raises DaemonError (the process stopped) when it
        exits first or is not ready within `ready_timeout` seconds."""
        if self.running():
            raise DaemonError(f"daemon pid {self.proc.pid} is still running")
        os.makedirs(self.state_dir, exist_ok=True)
        self.write_config()
        # --db too: it beats an EDGEADMM_DB exported in the caller's shell,
        # which would otherwise beat the config's [store] database.
        command = argv or [self.binary, "--config", self.config_path,
                           "--db", self.db_path]
        with open(self.log_path, "a" if append_log else "w") as log:
            self.proc = subprocess.Popen(command, stdout=subprocess.PIPE,
                                         stderr=log, text=True)
        with open(self.pid_path, "w") as f:
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + ready_timeout
        while True:
            line = read_line_until(self.proc.stdout, deadline)
            if line and READY_RE.search(line):
                return self
            if line is None or line == "":
                why = (f"not ready within {ready_timeout:g} s" if line is None
                       else "exited before it was ready")
                self.stop(timeout=5.0)
                raise DaemonError(
                    f"the daemon {why} (exit {self.proc.returncode}); "
                    f"{self.log_path}: {self.log_tail()}")

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc is not None else None

    def stop(self, timeout: float = 20.0) -> Tuple[Optional[int], bool]:
        """SIGTERM, wait up to `timeout`, then SIGKILL. Returns (exit code,
        clean: exit code 0 after SIGTERM); (None, True) if never started."""
        result = stop_process(self.proc, "aggregatord", timeout)
        self._close_stdout()
        return result

    def kill(self) -> Optional[int]:
        """SIGKILL (a crash on purpose) and reap; the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self._close_stdout()
        return self.proc.returncode

    def _close_stdout(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def log_text(self) -> str:
        """The daemon's log (its stderr) so far."""
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def log_tail(self, lines: int = 10) -> str:
        tail = self.log_text().strip().splitlines()[-lines:]
        return " | ".join(tail) if tail else "(empty)"
