#!/usr/bin/env python3
"""Runs the step benchmark firmware (step_benchmark.cc) twice under QEMU with
-icount shift=0 and prints its instruction counts as a table.

  run_step_benchmark.py [--runs N] -- RUNNER... IMAGE

RUNNER is the board's QEMU command line (EDGEADMM_BOARD_RUNNER, ending in
-kernel); "-icount shift=0" is inserted before its -kernel. Fails unless every
run exits 0, the calibration loop counts what it executes (so the counts are
instructions), and all runs print identical counts (determinism).
"""
import argparse
import subprocess
import sys


def with_icount(command):
    """The runner command with "-icount shift=0" before its -kernel."""
    command = list(command)
    kernel = command.index("-kernel") if "-kernel" in command else len(command) - 1
    command[kernel:kernel] = ["-icount", "shift=0"]
    return command


def run_once(command, timeout=240):
    """Runs a benchmark image: its output and its "key count" lines as a
    dict; fails unless it exits 0 after printing "done"."""
    # Semihosting output (target=native) arrives on QEMU's stderr.
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=timeout)
    lines = [line.strip() for line in result.stdout.splitlines()]
    if result.returncode != 0 or "done" not in lines:
        sys.stderr.write(result.stdout)
        raise SystemExit(f"benchmark firmware failed (exit {result.returncode})")
    counts = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return result.stdout, counts


def run_calibrated(argv=None):
    """Parses [--runs N] -- RUNNER... IMAGE, runs the image N times under
    -icount shift=0 and returns (runs, counts) after checking that every run
    printed the same output and that the calibration loop counted what it
    executed (so the counts are instructions)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    command = with_icount(args.command)

    outputs = [run_once(command) for _ in range(args.runs)]
    text, counts = outputs[0]
    for i, (other, _) in enumerate(outputs[1:], start=2):
        if other != text:
            sys.stderr.write(text + "---- run %d ----\n" % i + other)
            raise SystemExit("FAIL: runs differ: the count is not deterministic")

    expected = counts["calibration_loop_instructions"]
    measured = counts["calibration_measured"]
    # The timer's resolution is 40 instructions; the loop's setup adds a few.
    if abs(measured - expected) > 80:
        raise SystemExit(f"FAIL: calibration loop of {expected} instructions "
                         f"measured {measured}: is -icount shift=0 in effect?")
    return args.runs, counts


def main():
    runs, counts = run_calibrated()
    expected = counts["calibration_loop_instructions"]
    measured = counts["calibration_measured"]
    if counts.get("replica_matches_sdk") != 1:
        raise SystemExit("FAIL: the phased replica differs from ProxAdmmStep::Run")

    print(f"QEMU -icount shift=0, {runs} runs with identical output; "
          f"calibration {measured} counted for {expected} executed "
          f"(resolution 40 instructions); DWT NOCYCCNT = "
          f"{counts.get('dwt_nocyccnt')}, CYCCNT delta = "
          f"{counts.get('dwt_cyccnt_delta')}")
    parts = ["newton_iterations", "step", "step_prox", "step_clip",
             "step_noise", "ledger_charge", "ledger_epsilon", "encode_upload",
             "round_compute"]
    print("step " + " ".join(f"{p:>15}" for p in parts))
    k = 0
    while f"step_{k}_step" in counts:
        print(f"{k:>4} " + " ".join(f"{counts[f'step_{k}_{p}']:>15,}"
                                     for p in parts))
        k += 1
    print(f"mean instructions per local step: {counts['mean_step']:,}")
    print(f"mean instructions per round's device compute (step, ledger, "
          f"epsilon, encode): {counts['mean_round_compute']:,}")
    comm = ["task_datagram_bytes", "task_record_decrypt",
            "task_coap_parse_decode", "upload_datagram_bytes",
            "upload_coap_build", "upload_record_encrypt", "communication",
            "round_total"]
    print("step " + " ".join(f"{p:>22}" for p in comm))
    for i in range(k):
        print(f"{i:>4} " + " ".join(f"{counts[f'step_{i}_{p}']:>22,}"
                                     for p in comm))
    print(f"mean instructions per round's messages (CoAP + DTLS record "
          f"protection of task and upload): {counts['mean_communication']:,}")
    print(f"mean instructions per round (compute + messages, no network "
          f"stack): {counts['mean_round_total']:,}")
    for mhz in (64, 120, 168):
        print(f"  at {mhz} MHz, 1 instruction per cycle (lower bound): "
              f"step >= {counts['mean_step'] / (mhz * 1e3):.1f} ms")
    print("benchmark: PASS")


if __name__ == "__main__":
    main()
