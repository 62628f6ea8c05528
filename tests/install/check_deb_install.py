#!/usr/bin/env python3
"""The Debian packages installed on this machine (issue 35), as an operator
would install, run and remove them:

  check_deb_install.py --build BUILD_DIR --version VERSION

1. refuses (exit 77, ctest: skipped) unless run as root on a machine with
   no edgeadmm package, no /etc/edgeadmm, no /var/lib/edgeadmm and no
   edgeadmm user: it would otherwise touch an operator's gateway;
2. `cpack -G DEB` (BUILD_DIR/tests/install/deb-install), `dpkg -i` of the
   four packages (`apt-get -f install` if a dependency is missing);
3. the postinst's work: the edgeadmm system user, /var/lib/edgeadmm (0700,
   the user's), /etc/edgeadmm/aggregatord.toml;
4. as the edgeadmm user: the packaged CLI enrols a device and creates and
   starts a 2-round job in the packaged config's database; the packaged
   daemon runs with the unit's ExecStart= command line (no systemd here)
   plus --port of a free port; the packaged edgeadmm-device trains the job
   to its end; the job is completed; SIGTERM stops the daemon (exit 0);
5. `dpkg -r`: the programs go, the config, the database and the user stay;
   `dpkg --purge edgeadmm`: the config goes, the database and user stay;
   `dpkg -i edgeadmm` again finds the enrolled device; then
   `EDGEADMM_PURGE_DATA=yes dpkg --purge edgeadmm`: database and user go.
Whatever fails, the packages it installed are purged with their data, the
daemon stopped, and the user and folders it created removed.

Exit status 0 when all hold, 1 otherwise (each failure on a line).
"""

import argparse
import fcntl
import os
import pwd
import grp
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from edgeadmm_job_toml import fixed_cohort_job  # tools/python (on PYTHONPATH)
from install_checks import read_until, terminate

PACKAGES = ["edgeadmm", "edgeadmm-device", "edgeadmm-fleet",
            "libedgeadmm-sdk-dev"]
SKIP = 77
USER = "edgeadmm"
CONFIG = Path("/etc/edgeadmm/aggregatord.toml")
STATE = Path("/var/lib/edgeadmm")
UNIT = Path("/usr/lib/systemd/system/edgeadmm-aggregatord.service")
JOB = "deb-install"
PURGE = dict(os.environ, EDGEADMM_PURGE_DATA="yes",
             DEBIAN_FRONTEND="noninteractive")


class Failed(Exception):
    pass


def sh(cmd, env=None, timeout=120, check=True):
    done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=timeout)
    if check and done.returncode != 0:
        raise Failed(f"{' '.join(cmd)}: exit {done.returncode}\n"
                     f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done


def installed(package):
    done = sh(["dpkg-query", "-W", "-f=${Status}", package], check=False)
    return done.returncode == 0 and "not-installed" not in done.stdout


def user_exists():
    try:
        pwd.getpwnam(USER)
        return True
    except KeyError:
        return False


def group_exists():
    try:
        grp.getgrnam(USER)
        return True
    except KeyError:
        return False


def refusal():
    """Why this machine is not one to install on, or None."""
    if os.geteuid() != 0:
        return "not root"
    for tool in ("dpkg", "cpack", "runuser"):
        if shutil.which(tool) is None:
            return f"no {tool}"
    found = [p for p in PACKAGES if installed(p)]
    if found:
        return f"already installed here: {', '.join(found)}"
    for path in (CONFIG.parent, STATE):
        if path.exists():
            return f"{path} exists (an operator's gateway?)"
    if user_exists() or group_exists():
        return f"a user or group {USER} exists"
    return None


def as_user(cmd):
    return ["runuser", "-u", USER, "--"] + cmd


def free_port():
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
        s.bind(("::", 0))
        return s.getsockname()[1]


def exec_start():
    """The unit's ExecStart= command line."""
    for line in UNIT.read_text().splitlines():
        if line.startswith("ExecStart="):
            return line[len("ExecStart="):].split()
    raise Failed(f"{UNIT}: no ExecStart=")


def config_database():
    for line in CONFIG.read_text().splitlines():
        if line.strip().startswith("database"):
            return line.split("=", 1)[1].split("#")[0].strip().strip('"')
    raise Failed(f"{CONFIG}: no database key")


def start_daemon(port):
    """The packaged daemon as the edgeadmm user (its own process, so that
    SIGTERM reaches it as from systemd), up to its listening line."""
    proc = subprocess.Popen(exec_start() + ["--port", str(port)],
                            user=USER, group=USER, extra_groups=[],
                            cwd="/", stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    output = read_until(proc, b"listening on", 30)
    if b"listening on" not in output:
        proc.kill()
        proc.wait()
        raise Failed("daemon did not start:\n" + output.decode()[-2000:])
    return proc


def check(condition, what, failures):
    if not condition:
        failures.append(what)


def after_install(failures):
    check(user_exists(), "postinst: no edgeadmm user", failures)
    if STATE.is_dir():
        st = STATE.stat()
        check(st.st_mode & 0o777 == 0o700 and
              st.st_uid == pwd.getpwnam(USER).pw_uid,
              f"{STATE}: mode {oct(st.st_mode & 0o777)}, uid {st.st_uid}",
              failures)
    else:
        failures.append(f"postinst: no {STATE}")
    check(CONFIG.is_file(), f"postinst: no {CONFIG}", failures)


def run_job(work, failures):
    """Enrols a device, runs a 2-round job on the packaged programs."""
    db = config_database()
    keys = work / "keys"
    keys.mkdir(mode=0o700)
    os.chown(keys, pwd.getpwnam(USER).pw_uid, -1)
    os.chown(work, pwd.getpwnam(USER).pw_uid, -1)
    sh(as_user(["edgeadmm", "devices", "--db", db, "add", "--count", "1",
                "--prefix", "deb-", "--psk-dir", str(keys)]))
    (device,) = os.listdir(keys)
    toml = work / "job.toml"
    toml.write_text(fixed_cohort_job(JOB, 3, 2, m=1, m_min=1,
                                     deadline_seconds=60, sigma=5.0,
                                     central_budget=1000, device_budget=1000,
                                     seed=5))
    sh(as_user(["edgeadmm", "job", "--db", db, "create", str(toml)]))
    sh(as_user(["edgeadmm", "job", "--db", db, "start", JOB]))
    data = work / "data.libsvm"
    data.write_text("".join(
        f"{1 if i % 2 else -1} 1:{0.1 * (i % 5):.1f} 2:{0.2 * (i % 3):.1f} "
        f"3:{(-1) ** i * 0.3:.1f}\n" for i in range(16)))
    state = work / "device-state"
    state.mkdir(mode=0o700)
    port = free_port()
    daemon = start_daemon(port)
    try:
        done = sh(["edgeadmm-device", "--identity", device, "--psk-file",
                   str(keys / device), "--data", str(data), "--state-dir",
                   str(state), "--host", "127.0.0.1", "--port", str(port),
                   "--dim", "3", "--epsilon-budget", "1000",
                   "--timeout-s", "30"], check=False,
                  timeout=90)
        print(done.stdout[-1500:])
        check(done.returncode == 0, f"edgeadmm-device: exit "
              f"{done.returncode}\n{done.stderr[-2000:]}", failures)
    finally:
        code = terminate(daemon)
    check(code == 0, f"daemon: exit {code} on SIGTERM", failures)
    # Read as the daemon's user (a root reader could leave root-owned WAL
    # files beside the database).
    status = sh(as_user(["edgeadmm", "job", "--db", db, "status", JOB])).stdout
    check("completed" in status, f"job not completed:\n{status}", failures)
    return db, device


def remove_and_purge(debs, db, device, failures):
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    sh(["dpkg", "-r"] + PACKAGES, env=env)
    for gone in ("/usr/sbin/edgeadmm-aggregatord", "/usr/bin/edgeadmm",
                 "/usr/bin/edgeadmm-device", "/usr/bin/edgeadmm-fleet",
                 str(UNIT), "/usr/include/edgeadmm/device_client.h"):
        check(not os.path.exists(gone), f"dpkg -r left {gone}", failures)
    check(CONFIG.is_file(), f"dpkg -r removed {CONFIG}", failures)
    check(Path(db).is_file(), f"dpkg -r removed {db}", failures)
    check(user_exists(), "dpkg -r removed the user", failures)
    sh(["dpkg", "--purge"] + PACKAGES, env=env)
    check(not CONFIG.parent.exists(), f"purge left {CONFIG.parent}", failures)
    check(Path(db).is_file(), f"purge (data kept) removed {db}", failures)
    check(user_exists(), "purge (data kept) removed the user", failures)
    # Installed again, the gateway finds its devices; then purged with data.
    sh(["dpkg", "-i", str(debs["edgeadmm"])], env=env)
    listed = sh(as_user(["edgeadmm", "devices", "--db", db, "list"])).stdout
    check(device in listed, f"reinstalled: {device} not in devices list",
          failures)
    sh(["dpkg", "--purge", "edgeadmm"], env=PURGE)
    check(not STATE.exists(), f"purge with data left {STATE}", failures)
    check(not user_exists(), "purge with data left the user", failures)
    check(not group_exists(), "purge with data left the group", failures)


def clean_up(we_installed):
    """Leaves the machine as found: purges, then whatever is left over."""
    if not we_installed:
        return
    left = [p for p in PACKAGES if installed(p)]
    if left:
        sh(["dpkg", "--purge"] + left, env=PURGE, check=False)
    for path in (CONFIG.parent, STATE):
        shutil.rmtree(path, ignore_errors=True)
    if user_exists():
        sh(["deluser", "--system", "--quiet", USER], check=False)
    if group_exists():
        sh(["delgroup", "--system", "--quiet", USER], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--version", required=True)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("SKIPPED: not installing the packages: not root")
        return SKIP
    # One installing run per machine (another build tree's run would see
    # this one's packages half installed).
    lock = open("/run/lock/edgeadmm-deb-install.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("SKIPPED: another deb_install_test is running on this machine")
        return SKIP
    why = refusal()
    if why:
        print(f"SKIPPED: not installing the packages: {why}")
        return SKIP
    out_dir = args.build.resolve() / "tests/install/deb-install"
    shutil.rmtree(out_dir, ignore_errors=True)
    failures = []
    we_installed = False
    work = Path(tempfile.mkdtemp(prefix="edgeadmm-deb-"))
    try:
        sh(["cpack", "-G", "DEB", "--config",
            str(args.build / "CPackConfig.cmake"), "-B", str(out_dir)],
           timeout=300)
        debs = {p: out_dir / f"{p}_{args.version}_amd64.deb"
                for p in PACKAGES}
        we_installed = True
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        dpkg_i = sh(["dpkg", "-i"] + [str(d) for d in debs.values()],
                    env=env, check=False)
        if dpkg_i.returncode != 0:  # a dependency missing: apt completes it
            print(f"dpkg -i: exit {dpkg_i.returncode}\n{dpkg_i.stderr}")
            sh(["apt-get", "install", "-f", "-y", "-q"], env=env, timeout=600)
        missing = [p for p in PACKAGES if not installed(p)]
        if missing:
            raise Failed(f"not installed: {missing}")
        after_install(failures)
        db, device = run_job(work, failures)
        remove_and_purge(debs, db, device, failures)
    except (Failed, subprocess.TimeoutExpired) as e:
        failures.append(str(e))
    finally:
        clean_up(we_installed)
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print("installed the four packages, ran a 2-round job on the packaged "
          "daemon, CLI and device, removed and purged them (data kept, then "
          "purged with EDGEADMM_PURGE_DATA=yes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
