#!/usr/bin/env python3
"""Runs the flash persistence firmware (flash_persist_test.cc) several times
in one working directory, as successive power cycles of one board (the
QEMU board keeps its flash model in a file there, named by the board).

  run_flash_persist.py -- RUNNER... IMAGE

RUNNER ends with -kernel (EDGEADMM_BOARD_RUNNER); -append with the step is
inserted before it. In a fresh temporary directory:
  1. a new flash reads erased and holds no key; v1 and a second key written;
  2. a second run reads v1 back (state survives the end of QEMU);
  3. a write of v2 completes in K flash operations; the next run reads v2;
  4. for every N in 1..K, on a copy of that directory: a write of v3 loses power
     during its N-th flash operation (QEMU exits with status 3 in the middle
     of the erase, header, data or commit-word program); the next run must
     read v2 (the old state: the commit word is the last operation), and a
     write of v4 then succeeds and reads back;
  5. with the power cut one operation later than the write needs, v3
     is written and read back.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

QEMU_TIMEOUT_S = 60
POWER_CUT = 3


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    runner, image = argv[:-1], argv[-1]
    if not runner or runner[-1] != "-kernel":
        sys.exit("run_flash_persist.py: the runner must end with -kernel")
    failures = []
    runs = 0

    def run(path, *words, status=0, expect=()):
        nonlocal runs
        runs += 1
        command = runner[:-1] + ["-append", " ".join(words),
                                 "-kernel", image]
        done = subprocess.run(command, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=QEMU_TIMEOUT_S, cwd=path)
        tag = f"[{os.path.basename(path)} {' '.join(words)}] "
        print("".join(tag + line + "\n" for line in done.stdout.splitlines()),
              end="")
        if done.returncode != status:
            failures.append(f"{tag}exit status {done.returncode}, "
                            f"expected {status}")
        for text in expect:
            if text not in done.stdout:
                failures.append(f"{tag}expected '{text}'")
        return done.stdout

    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mcu-flash-") as state:
        flash = os.path.join(state, "board")
        os.mkdir(flash)
        run(flash, "fresh", expect=["bytes erased, no keys",
                                    "0 -> 1 program refused",
                                    "wrote client v1, ledger v100"])
        run(flash, "read", "1", expect=["client v1"])
        out = run(flash, "write", "2")
        match = re.search(r"wrote v2 in (\d+) flash operations", out)
        if not match:
            failures.append("the write of v2 did not report its operations")
            operations = 0
        else:
            operations = int(match.group(1))
        run(flash, "read", "2", expect=["client v2"])
        for n in range(1, operations + 1):
            cut = os.path.join(state, f"cut{n}")
            shutil.copytree(flash, cut)
            run(cut, "write", "3", str(n), status=POWER_CUT,
                expect=[f"power lost during operation {n}"])
            run(cut, "read", "2", expect=["client v2"])
            run(cut, "write", "4", expect=["wrote v4"])
            run(cut, "read", "4", expect=["client v4"])
        run(flash, "write", "3", str(operations + 1), expect=["wrote v3"])
        run(flash, "read", "3", expect=["client v3"])
    print(f"{runs} QEMU runs, power cut at each of the {operations} flash "
          f"operations of a commit, {time.monotonic() - start:.1f} s")
    if operations < 3:
        failures.append(f"a commit took {operations} flash operations (an "
                        "erase, programs and the commit word expected)")
    for failure in failures:
        print("FAILED: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
