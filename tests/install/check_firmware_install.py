#!/usr/bin/env python3
"""The installed bare-metal SDK package (issue 35), tested as a firmware
engineer would use it:

  check_firmware_install.py --build BUILD_DIR --source SOURCE_DIR
      --toolchain FILE --host-bin HOST_BUILD_DIR --libdir LIBDIR
      -- RUNNER... -kernel

1. `cmake --install BUILD_DIR --prefix STAGE` (a cortex-m4f build) into a
   fresh staging prefix (BUILD_DIR/tests/install/stage);
2. every public header of the SDK and of the bare-metal ports is there, and
   the generated edgeadmm.pb.h, the third-party headers the SDK's headers
   include (Mbed TLS with its config, nanopb, lwIP), their copyright files,
   the package files, the static libraries and the board's linker script;
3. tests/install/firmware (find_package(EdgeADMM ... COMPONENTS sdk
   platform_baremetal dtls lwip board), the reference firmware's sources
   compiled in place) is configured out of tree with the same toolchain
   file and EdgeADMM_DIR=STAGE/LIBDIR/cmake/EdgeADMM, and built; its map
   shows the SDK link-time optimized (GCC's ltrans objects), and a second
   build with FIRMWARE_SDK_NO_LTO=ON (the SDK's machine code) shows none;
4. that image runs under the board's runner against the host build's daemon
   (tests/target/network/run_with_daemon.py, as mcu_reference_device_test
   runs the in-tree image): provisioned from a blob, it must train the
   job's 5 rounds, each upload stored once, the job completed.

Exit status 0 when all hold, 77 (skipped) when the host daemon is not built,
1 otherwise (each failure on a line).
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from install_checks import installed_headers, run

HEADER_TREES = [
    "sdk/include",
    "platform/baremetal/include",
    "platform/boards/interface/include",
    "platform/dtls/include",
    "platform/lwip/include",
    "platform/seeded_entropy/include",
]
LIBRARIES = ["sdk", "proto", "mbedcrypto", "nanopb", "baremetal", "dtls",
             "lwip_port", "lwip_port_static", "lwip", "lwip_static",
             "seeded_entropy", "board_ethernet"]
PACKAGE_FILES = ["EdgeADMMConfig.cmake", "EdgeADMMConfigVersion.cmake",
                 "EdgeADMMSdkTargets.cmake",
                 "EdgeADMMPlatformBaremetalTargets.cmake",
                 "EdgeADMMDtlsTargets.cmake", "EdgeADMMLwipTargets.cmake",
                 "EdgeADMMBoardTargets.cmake"]
THIRD_PARTY = [
    "include/edgeadmm/third_party/mbedtls/mbedtls/ssl.h",
    "include/edgeadmm/third_party/mbedtls/mbedtls_config.h",
    "include/edgeadmm/third_party/nanopb/pb_encode.h",
    "include/edgeadmm/third_party/lwip/lwip/udp.h",
    "include/edgeadmm/third_party/lwip/lwipopts.h",
    "include/edgeadmm/third_party/eigen/eigen_device_config.h",
    "share/doc/edgeadmm/third_party/mbedtls/copyright",
    "share/doc/edgeadmm/third_party/nanopb/copyright",
    "share/doc/edgeadmm/third_party/lwip/copyright",
    "share/edgeadmm/boards/mps2_an386/mps2_an386.ld",
]
SKIP = 77


def expected_files(source: Path, libdir: str):
    """Paths (relative to STAGE) the install must hold."""
    files = installed_headers(source, HEADER_TREES)
    files.append("include/edgeadmm.pb.h")
    files += [f"{libdir}/cmake/EdgeADMM/{name}" for name in PACKAGE_FILES]
    files += [f"{libdir}/libedgeadmm_{name}.a" for name in LIBRARIES]
    return files + THIRD_PARTY


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--source", required=True, type=Path)
    parser.add_argument("--toolchain", required=True)
    parser.add_argument("--host-bin", required=True)
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("runner", nargs="+",
                        help="the board's runner, ending with -kernel")
    args = parser.parse_args()
    args.build, args.source = args.build.resolve(), args.source.resolve()
    work = args.build / "tests/install"
    stage = work / "stage"
    firmware_build = work / "firmware-build"
    plain_build = work / "firmware-build-no-lto"
    for folder in (stage, firmware_build, plain_build):
        shutil.rmtree(folder, ignore_errors=True)
    failures = []

    if run(["cmake", "--install", str(args.build), "--prefix", str(stage)],
           failures, "cmake --install", timeout=300) is None:
        print("\n".join(failures), file=sys.stderr)
        return 1
    missing = [f for f in expected_files(args.source, args.libdir)
               if not (stage / f).is_file()]
    if missing:
        failures.append("not installed:\n  " + "\n  ".join(missing))

    def build_firmware(build, label, options=()):
        configure = ["cmake", "-S", str(args.source / "tests/install/firmware"),
                     "-B", str(build), "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=MinSizeRel",
                     f"-DCMAKE_TOOLCHAIN_FILE={args.toolchain}",
                     f"-DEdgeADMM_DIR={stage / args.libdir / 'cmake/EdgeADMM'}",
                     "-DFIRMWARE_SOURCES="
                     f"{args.source / 'examples/cortex_m4_device'}",
                     *options]
        return (run(configure, failures, f"{label}: configure") is not None
                and run(["cmake", "--build", str(build), "-j2"], failures,
                        f"{label}: build", timeout=300) is not None)

    # The package links the SDK link-time optimized (GCC's ltrans objects in
    # the map), and a firmware that opts out links its machine code.
    image = firmware_build / "edgeadmm_firmware.elf"
    if (not build_firmware(firmware_build, "firmware")
            or not build_firmware(plain_build, "firmware without LTO",
                                  ["-DFIRMWARE_SDK_NO_LTO=ON"])):
        print("\n".join(failures), file=sys.stderr)
        return 1
    for build, optimized in ((firmware_build, True), (plain_build, False)):
        linked = (build / "edgeadmm_firmware.map").read_text()
        if (".ltrans.o" in linked) != optimized:
            failures.append(f"{build.name}: the SDK is "
                            f"{'not ' if optimized else ''}link-time "
                            "optimized")

    # The image against the real daemon, as mcu_reference_device_test runs
    # the in-tree one (it skips with 77 when the daemon is not built).
    network = args.source / "tests/target/network"
    done = subprocess.run(
        [sys.executable, str(network / "run_with_daemon.py"),
         "--host-bin", args.host_bin, "--provision",
         str(args.source / "examples/cortex_m4_device/"
             "make_provisioning_blob.py"),
         "--uploads", "5", "--expect", "network up (static): 10.0.2.15",
         "--expect", "job done 1: steps 5, uploads accepted 5",
         "--"] + args.runner + [str(image)],
        capture_output=True, text=True, timeout=200)
    print(done.stdout[-4000:])
    if done.returncode == SKIP and not failures:
        return SKIP
    if done.returncode != 0:
        failures.append(f"firmware against the daemon: exit "
                        f"{done.returncode}\n{done.stderr[-3000:]}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print(f"install: {len(expected_files(args.source, args.libdir))} files "
          f"checked under {stage}; the out-of-tree firmware "
          f"({image.stat().st_size} bytes of ELF) built from the package "
          "completed a 5-round job of the daemon under QEMU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
