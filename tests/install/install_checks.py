"""Helpers the install tests share (check_install.py,
check_firmware_install.py, check_deb_install.py): a command whose failure
is recorded, the headers a source tree must install, a daemon's output read
up to its listening line, a process stopped."""

import os
import select
import subprocess
import time
from pathlib import Path


def run(cmd, failures, what, env=None, timeout=120):
    """Runs `cmd`; on failure appends `what` and the output to failures
    and returns None, else its stdout."""
    result = subprocess.run(cmd, capture_output=True, text=True, env=env,
                            timeout=timeout)
    if result.returncode != 0:
        failures.append(f"{what}: exit {result.returncode}\n"
                        f"{result.stdout[-3000:]}{result.stderr[-3000:]}")
        return None
    return result.stdout


def installed_headers(source: Path, trees):
    """include/<path> of every .h under each public header tree of
    `source` (tree: its include folder, relative to source)."""
    return [f"include/{p.relative_to(source / tree)}"
            for tree in trees for p in sorted((source / tree).rglob("*.h"))]


def read_until(proc, marker: bytes, seconds: float) -> bytes:
    """`proc`'s stdout up to `marker` (or its exit, or `seconds`). Raw
    reads: a buffered readline could keep the line it waits for in its
    buffer while select() sees an empty pipe."""
    output = b""
    deadline = time.monotonic() + seconds
    while marker not in output and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break  # the process exited
            output += chunk
    return output


def terminate(proc):
    """SIGTERM (as `systemctl stop` sends), SIGKILL if it is not gone in
    20 s; its exit status."""
    proc.terminate()
    try:
        code = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    return code
