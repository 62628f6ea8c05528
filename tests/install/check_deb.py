#!/usr/bin/env python3
"""The Debian packages CPack builds (issue 35), inspected with dpkg-deb:

  check_deb.py --build BUILD_DIR --version VERSION

Runs `cpack -G DEB` with the build's CPackConfig.cmake into
BUILD_DIR/tests/install/deb, then checks that each package (edgeadmm,
edgeadmm-device, edgeadmm-fleet, libedgeadmm-sdk-dev) exists, holds its files
(`dpkg-deb -c`) and declares its dependencies (`dpkg-deb -f ... Depends`),
and that the gateway's maintainer scripts are there and parse (`sh -n`);
with --lintian, that lintian reports no error and no warning on the four
packages (--fail-on error,warning; the overrides the packages ship, each
justified in aggregator/debian/lintian-overrides, are honoured).

Exit status 0 when all hold, 1 otherwise (each failure on a line).
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

# Package -> (files it must hold, under /; dependencies it must declare).
PACKAGES = {
    "edgeadmm": (
        ["usr/sbin/edgeadmm-aggregatord", "usr/bin/edgeadmm",
         "usr/lib/systemd/system/edgeadmm-aggregatord.service",
         "usr/share/doc/edgeadmm/aggregator.md",
         "usr/share/doc/edgeadmm/examples/aggregatord.toml",
         "usr/share/doc/edgeadmm/examples/jobs/prox-admm.toml",
         "usr/share/edgeadmm/aggregatord.toml",
         "usr/share/man/man1/edgeadmm.1.gz",
         "usr/share/man/man8/edgeadmm-aggregatord.8.gz"],
        ["adduser", "libc6", "libsqlite3-0", "libcoap3", "libssl3", "libmbedcrypto7",
         "libtomlplusplus3"]),
    "edgeadmm-device": (
        ["usr/bin/edgeadmm-device", "usr/share/man/man1/edgeadmm-device.1.gz"],
        ["libc6", "libcoap3", "libmbedcrypto7"]),
    "edgeadmm-fleet": (
        ["usr/bin/edgeadmm-fleet", "usr/share/man/man1/edgeadmm-fleet.1.gz"],
        ["libc6", "libcoap3"]),
    "libedgeadmm-sdk-dev": (
        ["usr/include/edgeadmm/device_client.h", "usr/include/edgeadmm.pb.h",
         "usr/include/edgeadmm/posix/getrandom_entropy.h",
         "usr/include/edgeadmm/dtls/dtls_psk_link.h",
         "usr/lib/libedgeadmm_sdk.a", "usr/lib/libedgeadmm_dtls.a",
         "usr/lib/cmake/EdgeADMM/EdgeADMMConfig.cmake",
         "usr/lib/cmake/EdgeADMM/EdgeADMMConfigVersion.cmake",
         "usr/lib/pkgconfig/edgeadmm-sdk.pc"],
        ["libeigen3-dev", "libnanopb-dev", "libmbedtls-dev", "libcoap3-dev"]),
}


# Maintainer scripts a package must carry -> a word each must contain.
SCRIPTS = {
    "edgeadmm": {"postinst": "adduser", "prerm": "deb-systemd-invoke stop",
                 "postrm": "EDGEADMM_PURGE_DATA"},
}


def check_script(deb: Path, script: str, must_name: str):
    """Failures of one maintainer script: absent, not sh, lacking a word."""
    text = subprocess.run(["dpkg-deb", "-I", str(deb), script],
                          capture_output=True, text=True, timeout=60)
    if text.returncode != 0 or not text.stdout.startswith("#!/bin/sh"):
        return [f"{deb.name}: no {script} script"]
    syntax = subprocess.run(["sh", "-n"], input=text.stdout,
                            capture_output=True, text=True, timeout=60)
    failures = []
    if syntax.returncode != 0:
        failures.append(f"{deb.name}: {script}: {syntax.stderr.strip()}")
    if must_name not in text.stdout:
        failures.append(f"{deb.name}: {script} lacks {must_name!r}")
    return failures


def output(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True,
                          timeout=300).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--version", required=True)
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("--lintian", help="lintian to run on the packages")
    args = parser.parse_args()
    out_dir = args.build / "tests/install/deb"
    shutil.rmtree(out_dir, ignore_errors=True)
    run = subprocess.run(["cpack", "-G", "DEB", "--config",
                          str(args.build / "CPackConfig.cmake"),
                          "-B", str(out_dir)],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        print(f"cpack: exit {run.returncode}\n{run.stdout}{run.stderr}",
              file=sys.stderr)
        return 1
    failures = []
    for name, (files, depends) in PACKAGES.items():
        deb = out_dir / f"{name}_{args.version}_amd64.deb"
        if not deb.is_file():
            failures.append(f"{deb.name} not built")
            continue
        held = {line.split()[-1].lstrip("./")
                for line in output(["dpkg-deb", "-c", str(deb)]).splitlines()}
        for f in files:
            f = f.replace("usr/lib/", f"usr/{args.libdir}/", 1) \
                if f.startswith("usr/lib/lib") or "/cmake/" in f \
                or "/pkgconfig/" in f else f
            if f not in held:
                failures.append(f"{deb.name}: lacks /{f}")
        declared = output(["dpkg-deb", "-f", str(deb), "Depends"])
        names = {d.strip().split()[0] for d in declared.split(",") if d.strip()}
        for dep in depends:
            if dep not in names:
                failures.append(f"{deb.name}: Depends lacks {dep} "
                                f"({declared.strip()})")
        print(f"{deb.name}: {len(held)} entries; Depends: {declared.strip()}")
        for script, must_name in SCRIPTS.get(name, {}).items():
            failures += check_script(deb, script, must_name)
    if args.lintian:
        debs = sorted(str(d) for d in out_dir.glob("*.deb"))
        lint = subprocess.run([args.lintian, "--no-cfg", "--fail-on",
                               "error,warning", "--tag-display-limit", "0"]
                              + debs, capture_output=True, text=True,
                              timeout=300)
        print(f"lintian: exit {lint.returncode}\n{lint.stdout}")
        if lint.returncode != 0:
            failures.append(f"lintian: exit {lint.returncode}\n{lint.stdout}"
                            f"{lint.stderr[-2000:]}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
