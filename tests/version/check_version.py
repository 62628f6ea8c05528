#!/usr/bin/env python3
"""--version on every host binary (issue 35 item 2): each BINARY run with
--version alone exits 0 and prints one line, "<its name> VERSION".

  check_version.py VERSION BINARY...

Exit status 0 when every binary does, 1 otherwise (each failure on a line).
"""

import os
import subprocess
import sys


def check(binary: str, version: str) -> str:
    """An empty string if `binary --version` is right, else what is wrong."""
    name = os.path.basename(binary)
    run = subprocess.run([binary, "--version"], capture_output=True,
                         text=True, timeout=30)
    expected = f"{name} {version}\n"
    if run.returncode != 0:
        return f"{name}: exit {run.returncode}: {run.stderr.strip()}"
    if run.stdout != expected:
        return f"{name}: printed {run.stdout!r}, expected {expected!r}"
    return ""


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    version = sys.argv[1]
    failures = [f for f in (check(b, version) for b in sys.argv[2:]) if f]
    for failure in failures:
        print(failure)
    if not failures:
        print(f"{len(sys.argv) - 2} binaries print {version}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
