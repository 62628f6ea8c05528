#!/usr/bin/python3
"""Must-show: a device process killed between persisting and uploading
resends the same update (same bytes) after a restart, never a fresh one.

Real stack on loopback: the `edgeadmm` CLI enrolls three devices and creates
a paper 002 job, `edgeadmm-aggregatord` serves it over CoAP/DTLS-PSK, and
`edgeadmm-device` (examples/device_linux) runs one device:
1. with --halt-after-persist it computes its update, persists the record
   and exits 3 before sending anything (a power cut at that instant);
2. the record on disk holds that update (CRC-32 checked here);
3. restarted, it reports the persisted upload (same size and CRC-32),
   computes nothing (steps 0) and gets the aggregator's receipt.
"""

import os
import re
import struct
import subprocess
import sys
import zlib

import edgeadmm_stack as es  # tools/python (on PYTHONPATH)

JOB = "reboot-check"
TOML = es.device_test_job(JOB, 3, m=3, m_min=1, deadline_seconds=60, seed=7)

UPLOAD_LINE = re.compile(r"device: (persisted|resuming persisted) upload: "
                         r"(\d+) bytes, crc32 ([0-9a-f]{8})")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run_device(binary, stack, device, data, state_dir, extra):
    argv = [binary, "--host", "127.0.0.1", "--port", str(stack.port),
            "--identity", device, "--psk-file",
            os.path.join(stack.psk_dir, device), "--data", data, "--dim",
            "123", "--first", "0", "--count", "300", "--state-dir", state_dir,
            "--epsilon-budget", "1000", "--timeout-s", "60"] + extra
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done.returncode, done.stdout


def stored_upload(state_dir):
    """The pending upload inside the ClientRecord (sdk/.../client_record.h)."""
    with open(os.path.join(state_dir, "client"), "rb") as f:
        record = f.read()
    if record[:4] != b"EACR":
        fail("the record has no EACR magic")
    flags, = struct.unpack_from("<H", record, 6)
    state_size, upload_size = struct.unpack_from("<II", record, 24)
    if not flags & 1 or upload_size == 0:
        fail("the record holds no pending upload")
    start = 32 + state_size
    return record[start:start + upload_size]


def main():
    a, device_bin, stack = es.device_process_test()
    try:
        devices = stack.enroll(3)
        stack.create_job(JOB, TOML)
        stack.start_daemon()
        state_dir = os.path.join(a.work_dir, "device-state")

        code, out = run_device(device_bin, stack, devices[0], a.data,
                               state_dir, ["--halt-after-persist"])
        if code != 3:
            fail(f"first run exited {code}, expected 3 (halted after persist)")
        first = UPLOAD_LINE.search(out)
        if not first or first.group(1) != "persisted":
            fail("first run printed no persisted upload")
        # The device says which round it trained and what it spent.
        if not re.search(r"device: job \d+ round \d+: step done, local "
                         r"epsilon [0-9.]+(e[+-]\d+)? at delta 1e-05 \(own "
                         r"noise, replace-one, against the gateway\)", out):
            fail("the device printed no step line with its local epsilon")
        size, crc = int(first.group(2)), first.group(3)
        upload = stored_upload(state_dir)
        if len(upload) != size or f"{zlib.crc32(upload):08x}" != crc:
            fail("the stored record does not hold the persisted upload")

        code, out = run_device(device_bin, stack, devices[0], a.data,
                               state_dir, ["--max-uploads", "1"])
        if code != 0:
            fail(f"restart exited {code}, expected 0 (receipt received)")
        second = UPLOAD_LINE.search(out)
        if not second or second.group(1) != "resuming persisted":
            fail("restart did not resume the persisted upload")
        if int(second.group(2)) != size or second.group(3) != crc:
            fail("restart resent different bytes")
        if not re.search(r"steps 0, refused 0, uploads accepted 1, "
                         r"duplicate 0", out):
            fail("restart recomputed, or the upload was not accepted once")
        print(f"OK: the same {size}-byte update (crc32 {crc}) was resent "
              "after the restart and accepted once")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
