#!/usr/bin/env python3
"""The installed SDK package and operator files (issue 35), tested as a user
of the install would use them:

  check_install.py --build BUILD_DIR --source SOURCE_DIR --cxx CXX --cc CC

1. `cmake --install BUILD_DIR --prefix STAGE` into a fresh staging prefix
   (BUILD_DIR/tests/install/stage);
2. every public header of the SDK and of the ports it exports is there, and
   the generated edgeadmm.pb.h, the package files, the pkg-config file, the
   static libraries, the programs and their man pages, the systemd unit,
   the example config and job files, and the file the unit's
   Documentation= names;
3. tests/install/consumer (find_package(EdgeADMM ... COMPONENTS sdk
   platform_posix dtls)) is configured and built out of tree with
   CMAKE_PREFIX_PATH=STAGE and the build's own compilers, then run;
   then run again as a device (--device) in a 2-round job of this build's
   daemon, which must complete;
4. pkgconfig_main.cc is compiled with `pkg-config --cflags --libs
   edgeadmm-sdk` alone (PKG_CONFIG_PATH=STAGE/LIBDIR/pkgconfig) and run;
5. every installed program answers --version with the package version,
   edgeadmm-aggregatord --help names its options and the database order,
   and the installed example config starts the installed daemon.

Exit status 0 when all hold, 1 otherwise (each failure on a line).
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from install_checks import installed_headers, read_until, run, terminate

# Public header folders: (source folder, path under include/).
HEADER_TREES = [
    "sdk/include",
    "platform/posix/system/include",
    "platform/posix/coap/include",
    "platform/dtls/include",
]
LIBRARIES = ["edgeadmm_sdk", "edgeadmm_proto", "edgeadmm_posix_system",
             "edgeadmm_posix_coap", "edgeadmm_posix_hooks", "edgeadmm_dtls"]
PACKAGE_FILES = ["EdgeADMMConfig.cmake", "EdgeADMMConfigVersion.cmake",
                 "EdgeADMMSdkTargets.cmake",
                 "EdgeADMMPlatformPosixTargets.cmake",
                 "EdgeADMMDtlsTargets.cmake"]
OPERATOR_FILES = [
    "bin/edgeadmm", "bin/edgeadmm-device", "bin/edgeadmm-fleet",
    "sbin/edgeadmm-aggregatord", "share/man/man1/edgeadmm-fleet.1.gz",
    "lib/systemd/system/edgeadmm-aggregatord.service",
    "share/doc/edgeadmm/examples/aggregatord.toml",
    "share/edgeadmm/aggregatord.toml",
    "share/man/man1/edgeadmm.1.gz", "share/man/man1/edgeadmm-device.1.gz",
    "share/man/man8/edgeadmm-aggregatord.8.gz",
    "share/doc/edgeadmm/aggregator.md", "share/doc/edgeadmm/porting.md",
]


def expected_files(source: Path, libdir: str):
    """Paths (relative to STAGE) the install must hold."""
    files = installed_headers(source, HEADER_TREES)
    files.append("include/edgeadmm.pb.h")
    files += [f"{libdir}/cmake/EdgeADMM/{name}" for name in PACKAGE_FILES]
    files.append(f"{libdir}/pkgconfig/edgeadmm-sdk.pc")
    files += [f"{libdir}/lib{name}.a" for name in LIBRARIES]
    files += OPERATOR_FILES
    files += [f"share/doc/edgeadmm/examples/jobs/{p.name}"
              for p in sorted((source / "examples/jobs").glob("*.toml"))]
    return files


def run_against_daemon(build: Path, consumer: Path, work: Path):
    """Failures of a 2-round job served by this build's daemon to one device,
    the installed-package consumer in its --device mode."""
    import edgeadmm_stack as es  # tools/python (on PYTHONPATH)
    shutil.rmtree(work, ignore_errors=True)
    job = "install-consumer"
    stack = es.Stack(str(build), str(work / "stack"))
    failures = []
    try:
        (device,) = stack.enroll(1)
        stack.create_job(job, es.device_test_job(job, 2, m=1, m_min=1,
                                                 deadline_seconds=60))
        stack.start_daemon()
        state = work / "device-state"
        state.mkdir(mode=0o700, parents=True)
        done = subprocess.run(
            [str(consumer), "--device", "127.0.0.1", str(stack.port), device,
             str(Path(stack.psk_dir) / device), str(state)],
            capture_output=True, text=True, timeout=150)
        print(done.stdout.strip())
        if done.returncode != 0:
            failures.append(f"consumer --device: exit {done.returncode}\n"
                            f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        if stack.job_state(job) != "completed":
            failures.append(f"consumer's job: {stack.job_state(job)}, "
                            "expected completed")
    finally:
        stopped = stack.stop()
    if not stopped["daemon"][1]:
        failures.append(f"daemon shutdown {stopped['daemon']}")
    return failures


def start_with_config(daemon: Path, config: Path, work: Path):
    """Failures of starting `daemon --config config` (on a temporary database
    and any free port) up to its "listening" line, then SIGTERM: exit 0."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    proc = subprocess.Popen([str(daemon), "--config", str(config), "--db",
                             str(work / "aggregator.db"), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = b""
    try:
        output = read_until(proc, b"listening on", 30)
    finally:
        code = terminate(proc)
    if b"listening on" not in output or code != 0:
        return [f"daemon with the installed {config.name}: exit "
                f"{proc.returncode}\n{output.decode(errors='replace')[-2000:]}"]
    return []


def documentation_file(stage: Path) -> str:
    """The path the unit's Documentation= names, under STAGE instead of /usr."""
    unit = stage / "lib/systemd/system/edgeadmm-aggregatord.service"
    for line in unit.read_text().splitlines():
        if line.startswith("Documentation=file:/usr/"):
            return line[len("Documentation=file:/usr/"):]
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--source", required=True, type=Path)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--cc", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--libdir", default="lib",
                        help="CMAKE_INSTALL_LIBDIR of the build")
    parser.add_argument("--flags", default="",
                        help="compile and link flags the build's libraries "
                        "need (the sanitizer presets' -fsanitize=...)")
    args = parser.parse_args()
    work = args.build / "tests/install"
    stage = work / "stage"
    consumer_build = work / "consumer-build"
    for folder in (stage, consumer_build):
        shutil.rmtree(folder, ignore_errors=True)
    failures = []

    if run(["cmake", "--install", str(args.build), "--prefix", str(stage)],
           failures, "cmake --install") is None:
        print("\n".join(failures), file=sys.stderr)
        return 1

    missing = [f for f in expected_files(args.source, args.libdir)
               if not (stage / f).is_file()]
    doc = documentation_file(stage)
    if not doc or not (stage / doc).is_file():
        missing.append(f"the unit's Documentation= file ({doc or 'none'})")
    if missing:
        failures.append("not installed:\n  " + "\n  ".join(missing))

    # The out-of-tree consumer, from the staging prefix only.
    configure = ["cmake", "-S", str(args.source / "tests/install/consumer"),
                 "-B", str(consumer_build), "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_PREFIX_PATH={stage}",
                 f"-DCMAKE_CXX_COMPILER={args.cxx}",
                 f"-DCMAKE_C_COMPILER={args.cc}",
                 f"-DCMAKE_CXX_FLAGS={args.flags}",
                 f"-DCMAKE_EXE_LINKER_FLAGS={args.flags}"]
    if (run(configure, failures, "consumer: configure") is not None
            and run(["cmake", "--build", str(consumer_build), "-j2"],
                    failures, "consumer: build") is not None):
        out = run([str(consumer_build / "edgeadmm_consumer")], failures,
                  "consumer: run", timeout=30)
        if out is not None:
            print(out.strip())

    # The consumer as a device of the real daemon, to the job's end.
    if (consumer_build / "edgeadmm_consumer").is_file():
        failures += run_against_daemon(args.build,
                                       consumer_build / "edgeadmm_consumer",
                                       work / "e2e")

    # pkg-config alone.
    env = dict(os.environ, PKG_CONFIG_PATH=str(stage / args.libdir / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "edgeadmm-sdk"],
                failures, "pkg-config edgeadmm-sdk", env=env)
    if flags is not None:
        program = work / "pkgconfig_main"
        compile_cmd = [args.cxx, "-std=c++17", "-o", str(program),
                       str(args.source / "tests/install/pkgconfig_main.cc")]
        compile_cmd += flags.split() + args.flags.split()
        if run(compile_cmd, failures, "pkg-config: compile") is not None:
            out = run([str(program)], failures, "pkg-config: run", timeout=30)
            if out is not None:
                print(out.strip())

    # --version on the installed programs, one version for all.
    for binary in ["bin/edgeadmm", "bin/edgeadmm-device", "bin/edgeadmm-fleet",
                   "sbin/edgeadmm-aggregatord"]:
        if not (stage / binary).is_file():
            continue
        out = run([str(stage / binary), "--version"], failures,
                  f"{binary} --version", timeout=30)
        expected = f"{Path(binary).name} {args.version}\n"
        if out is not None and out != expected:
            failures.append(f"{binary} --version printed {out!r}, "
                            f"expected {expected!r}")

    daemon = stage / "sbin/edgeadmm-aggregatord"
    # The installed example config starts the installed daemon.
    config = stage / "share/edgeadmm/aggregatord.toml"
    if daemon.is_file() and config.is_file():
        failures += start_with_config(daemon, config, work / "config-db")

    # The daemon's --help names every option and the database order.
    if daemon.is_file():
        out = run([str(daemon), "--help"], failures,
                  "edgeadmm-aggregatord --help", timeout=30)
        for word in ("--config", "--db", "--port", "--version", "EDGEADMM_DB",
                     "5684", "aggregator.db"):
            if out is not None and word not in out:
                failures.append(f"edgeadmm-aggregatord --help lacks {word}")

    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print(f"install: {len(expected_files(args.source, args.libdir))} files checked "
          f"under {stage}; consumer and pkg-config programs built and ran, "
          "the consumer completed a job of the daemon as a device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
