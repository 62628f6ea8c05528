#!/usr/bin/env python3
"""Runs a networked MPS2-AN386 firmware image against the real daemon.

With a host build of `edgeadmm` (CLI) and `edgeadmm-aggregatord` in
--host-bin (the cross build does not build them), in a fresh state
directory: enrols one device (identity + random PSK, `devices add`), creates
and starts a one-device prox-admm job (dimension 3; --algorithm dp-ftrl: a
dp-ftrl job instead), starts the daemon on
127.0.0.1 on a free port and waits for its "listening on port" line (it
answers from then on), runs QEMU with the board's NIC on user networking
(the firmware reaches the host's loopback as 10.0.2.2) and
"<port> <identity> <psk-hex> <job-id> [--arg WORD]..." on the semihosting
command line, checks the firmware's output and exit status, stops the
daemon by its pid, and checks the uploads in the database (--uploads N:
N, each (device, round) once, and the job completed; default none).

  run_with_daemon.py --host-bin DIR [--corrupt-psk] [--arg WORD]...
      [--expect TEXT]... [--expect-failure] [--uploads N] [--loss P]
      [--seed S] [--dimension P] [--algorithm prox-admm|dp-ftrl]
      [--reboot | --cut] -- RUNNER... IMAGE

--corrupt-psk hands the firmware a PSK with one bit flipped (the handshake
must fail). --dimension sets the job's (default 3). --loss P puts a relay between QEMU and the daemon that drops
each datagram with probability P both ways (seeded by --seed).
--reboot: the firmware persists in the board's flash ("persist" on its
command line); QEMU runs in the state directory, where the board's flash
model keeps its file. A first boot ("halt")
persists its first upload and ends before sending it (QEMU exits: the
power is cut); the second boot ("resume", the checked run) must send that
upload first: same round, size and CRC-32, no entropy drawn before it; and
the daemon must have stored that upload's values, once.
--cut: the same, but the first boot ("cut") sends its first upload and,
before the client takes the answer, prints it and waits: the harness
SIGKILLs QEMU on that line (a power cut in the middle of the exchange; the
daemon may already hold the upload). The second boot must resend the same
bytes, and the daemon hold them once.
--provision TOOL: the firmware reads identity, PSK and the daemon's address
from a provisioning blob instead of its command line (the reference
firmware, examples/cortex_m4_device): TOOL (make_provisioning_blob.py)
writes it as provision.bin in the state directory, QEMU runs there (the
flash model's files are relative to its working directory) and the command
line carries only the --arg words. --provision-arg WORD passes WORD to TOOL
(e.g. --dhcp, --corrupt). --silent-gateway-first: the blob's first gateway
is a host UDP port that never answers, the daemon its further gateway (the
firmware must fail over).
Exits 77 (ctest: skipped) when the host programs are missing.
"""
import argparse
import math
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

# The loopback relay, a free port pair, the report (same folder).
from run_with_coap_server import Relay, free_port_pair, report

# The harness library: tools/python of this source tree.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "python"))
import edgeadmm_db  # noqa: E402
from edgeadmm_daemon import Daemon  # noqa: E402
from edgeadmm_job_toml import fixed_cohort_job, job_toml as render  # noqa: E402

QEMU_TIMEOUT_S = 150
SKIP = 77
JOB = "mcu-dtls"


def job_toml(dimension, algorithm):
    """The one-device job the firmware trains (5 rounds): prox-admm, or
    dp-ftrl (the device runs dp-sgd's step without noise, the gateway adds
    the tree's; trusted-aggregator rounds last their deadline)."""
    if algorithm == "prox-admm":
        return fixed_cohort_job(JOB, dimension, 5, m=1, m_min=1,
                                deadline_seconds=60, seed=5)
    return render(
        job={"name": JOB, "algorithm": "dp-ftrl", "loss": "logistic",
             "dimension": dimension, "rounds": 5},
        regularizer={"kind": "l2", "l2": 0.001},
        step={"gamma": 0.5, "local_steps": 2},
        privacy={"policy": "trusted-aggregator", "clip": 0.5, "sigma": 1.0,
                 "delta": 1e-5, "central_budget": 1000.0,
                 "device_budget": math.inf},
        sampling={"scheme": "poisson", "q": 1.0, "m_min": 0,
                  "deadline_seconds": 8.0},
        dp_ftrl={"server_learning_rate": 1.0, "max_participations": 5})


def run_cli(cli, db, *args):
    argv = [cli, args[0], "--db", db] + list(args[1:])
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")
    return done.stdout


def programs(parser, args):
    """(runner, image, CLI, daemon) of the command line: the runner must end
    with -kernel; the programs are --host-bin's."""
    runner, image = args.command[:-1], args.command[-1]
    if not runner or runner[-1] != "-kernel":
        parser.error("the runner must end with -kernel")
    return (runner, image,
            os.path.join(args.host_bin, "aggregator", "cli", "edgeadmm"),
            os.path.join(args.host_bin, "aggregator", "daemon",
                         "edgeadmm-aggregatord"))


def create_job(cli, db, state, name, toml_text):
    """Writes the job's TOML in `state`, creates and starts the job; its id."""
    toml = os.path.join(state, "job.toml")
    with open(toml, "w") as f:
        f.write(toml_text)
    run_cli(cli, db, "job", "create", toml)
    run_cli(cli, db, "job", "start", name)
    return edgeadmm_db.job(db, name).id


def start_daemon(daemon_bin, db, state):
    """Starts the daemon on a free 127.0.0.1 port (its log in `state`) and
    waits until it is ready (edgeadmm_daemon.Daemon: its "listening on
    port" line; it answers from then on). Returns the Daemon."""
    return Daemon(daemon_bin, db, state, port=free_port_pair()).start()


def run_until_cut(command, cwd):
    """Runs QEMU until the firmware prints its in-flight upload (its hex
    line comes last), then SIGKILLs it: a power cut in the middle of the
    exchange. Returns a CompletedProcess with the output up to the cut."""
    qemu = subprocess.Popen(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=cwd)
    lines = []
    deadline = time.monotonic() + QEMU_TIMEOUT_S
    for line in qemu.stdout:
        lines.append(line)
        if line.startswith("persisted upload hex: "):
            qemu.send_signal(signal.SIGKILL)
            break
        if time.monotonic() > deadline:
            qemu.kill()
            break
    qemu.stdout.close()
    qemu.wait()
    return subprocess.CompletedProcess(command, qemu.returncode,
                                       "".join(lines))


def stored_rounds(db):
    """The rounds whose uploads the daemon has stored (it commits each)."""
    return sorted(u.round_id for u in edgeadmm_db.uploads(db))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host-bin", required=True)
    parser.add_argument("--corrupt-psk", action="store_true")
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--expect-failure", action="store_true")
    parser.add_argument("--loss", type=float, default=0.0,
                        help="a loopback relay drops this fraction of the "
                        "datagrams in each direction")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dimension", type=int, default=3)
    parser.add_argument("--algorithm", choices=["prox-admm", "dp-ftrl"],
                        default="prox-admm")
    parser.add_argument("--reboot", action="store_true",
                        help="persist in a flash file; halt after the first "
                        "persisted upload, then boot again and resume")
    parser.add_argument("--cut", action="store_true",
                        help="as --reboot, but QEMU is SIGKILLed after the "
                        "first upload went out, before its answer was taken")
    parser.add_argument("--uploads", type=int, default=0,
                        help="uploads the job must hold, each (device, "
                        "round) once; with N > 0 the job must be completed")
    parser.add_argument("--provision", help="the provisioning blob tool")
    parser.add_argument("--provision-arg", action="append", default=[])
    parser.add_argument("--silent-gateway-first", action="store_true",
                        help="with --provision: the blob's first gateway is "
                        "a UDP port that takes datagrams and never answers, "
                        "the daemon the further one")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    runner, image, cli, daemon_bin = programs(parser, args)
    for program in (cli, daemon_bin):
        if not os.access(program, os.X_OK):
            print(f"SKIPPED: {program} is not built: build the host daemon "
                  "and CLI first (cmake --build --preset host-release --target "
                  "edgeadmm-aggregatord edgeadmm), or set "
                  "EDGEADMM_HOST_BUILD_DIR; scripts/test-targets does this")
            return SKIP

    with tempfile.TemporaryDirectory(prefix="mcu-dtls-") as state:
        db = os.path.join(state, "aggregator.db")
        psk_dir = os.path.join(state, "psk")
        run_cli(cli, db, "devices", "add", "--count", "1", "--prefix", "mcu-",
                "--psk-dir", psk_dir)
        identity = os.listdir(psk_dir)[0]
        with open(os.path.join(psk_dir, identity)) as f:
            psk = f.read().strip()
        if args.corrupt_psk:
            psk = "%02x" % (int(psk[:2], 16) ^ 0x80) + psk[2:]
        job_id = create_job(cli, db, state, JOB, job_toml(args.dimension, args.algorithm))
        daemon = start_daemon(daemon_bin, db, state)
        port = daemon.port
        relay = None
        try:
            firmware_port = port
            if args.loss > 0:
                relay = Relay(port, 0, args.loss, args.seed)
                relay.start()
                firmware_port = relay.port
            words = [str(firmware_port), identity, psk, str(job_id)] + args.arg
            cwd = None
            if args.provision:
                gateways = ["--port", str(firmware_port)]
                if args.silent_gateway_first:
                    # Bound for the whole run and never read: no answer,
                    # no ICMP unreachable (a gateway that went silent).
                    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    silent.bind(("127.0.0.1", 0))
                    gateways = ["--port", str(silent.getsockname()[1]),
                                "--also", f"10.0.2.2:{firmware_port}"]
                subprocess.run([sys.executable, args.provision, "--identity",
                                identity, "--psk", psk] + gateways
                               + args.provision_arg
                               + [os.path.join(state, "provision.bin")],
                               check=True)
                words, cwd = args.arg, state
            boots = [[]]
            if args.reboot or args.cut:
                flash, cwd = state, state
                words.append("persist")
                boots = [["cut" if args.cut else "halt"], ["resume"]]
            for boot in boots:
                command = (runner[:-1]
                           + ["-nic", "user,model=lan9118",
                              "-append", " ".join(words + boot) or "-",
                              "-kernel", image])
                print(f"daemon pid {daemon.pid} on 127.0.0.1:{port}; job "
                      f"{job_id}; device {identity}\n{' '.join(command)}")
                sys.stdout.flush()
                if boot == ["cut"]:
                    run = run_until_cut(command, cwd)
                else:
                    run = subprocess.run(command, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True,
                                         timeout=QEMU_TIMEOUT_S, cwd=cwd)
                if boot in (["halt"], ["cut"]):
                    halted = run
                    print(halted.stdout)
                    print(f"first boot ({boot[0]}) exit status "
                          f"{halted.returncode}; booting again in {flash}")
                    if boot == ["cut"]:
                        held_before = stored_rounds(db)
                        print(f"the daemon held rounds {held_before} at the "
                              "cut")
        finally:
            if relay is not None:
                relay.stop()
                print(f"relay: dropped {relay.dropped} datagrams from the "
                      f"firmware, {relay.dropped_back} to it")
            exit_code, clean = daemon.stop()  # exit 0 on SIGTERM
        print(run.stdout)
        daemon_log = daemon.log_text()
        rows = edgeadmm_db.uploads(db)
        stored = {u.round_id: u.payload for u in rows}
        uploads = len(rows)
        distinct = len({(u.device_id, u.round_id) for u in rows})
        job_state = edgeadmm_db.job(db, JOB).state
        print(f"database: {uploads} uploads ({distinct} distinct device/"
              f"round), job {job_state}")

    failures = []
    for text in args.expect:
        if text not in run.stdout:
            failures.append(f"expected '{text}' in the output")
    if args.expect_failure and run.returncode == 0:
        failures.append("expected a non-zero exit status, got 0")
    if not args.expect_failure and run.returncode != 0:
        failures.append(f"expected exit status 0, got {run.returncode}")
    if uploads != args.uploads or distinct != uploads:
        failures.append(f"{uploads} uploads stored ({distinct} distinct), "
                        f"expected {args.uploads} each once")
    if args.uploads > 0 and job_state != "completed":
        failures.append(f"the job is {job_state}, not completed")
    if args.cut and halted.returncode != -signal.SIGKILL:
        failures.append("the first boot was not killed at the cut (exit "
                        f"status {halted.returncode})")
    if args.reboot or args.cut:
        persisted = re.search(r"(?:halted after persisting|in flight at the "
                              r"cut): upload round (\d+), "
                              r"(\d+) bytes, crc ([0-9a-f]+)", halted.stdout)
        sent = re.search(r"first upload sent: round (\d+), (\d+) bytes, "
                         r"crc ([0-9a-f]+)", run.stdout)
        if (halted.returncode != 0 and not args.cut) or not persisted:
            failures.append("the first boot did not halt after persisting "
                            f"an upload (exit status {halted.returncode})")
        elif not sent or sent.groups() != persisted.groups():
            failures.append("the second boot did not first resend the "
                            f"persisted upload {persisted.groups()}: "
                            f"{sent.groups() if sent else 'none sent'}")
        else:
            # The daemon stores the update's values (float32 LE), which the
            # encoded Update the firmware persisted carries verbatim.
            round_id = int(persisted.group(1))
            hex_line = re.search(r"persisted upload hex: ([0-9a-f]+)",
                                 halted.stdout)
            persisted_bytes = bytes.fromhex(hex_line.group(1)) if hex_line \
                else b""
            values = stored.get(round_id)
            if (len(persisted_bytes) != int(persisted.group(2)) or not values
                    or bytes(values) not in persisted_bytes):
                failures.append(f"the daemon's values of round {round_id} "
                                f"({bytes(values or b'').hex()}) are not "
                                "those of the persisted upload "
                                f"({persisted_bytes.hex()})")
            else:
                print(f"reboot: round {round_id} persisted before the reset, "
                      f"resent after it ({persisted.group(2)} bytes, crc "
                      f"{persisted.group(3)}); the daemon stored its values "
                      f"{bytes(values).hex()} once")
        if "entropy reads before the first upload: 0;" not in run.stdout:
            failures.append("the second boot drew entropy before resending")
    if not clean:
        failures.append(f"the daemon did not stop cleanly ({exit_code})")
    return report(failures, "daemon", daemon_log)


if __name__ == "__main__":
    sys.exit(main())
