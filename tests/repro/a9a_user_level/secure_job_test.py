"""run.py's secure-aggregation option without a fleet (ctest
repro_a9a_secure_job_test, about a second, no data):
- `--algorithms` takes prox-admm-secure and dp-sgd-secure and refuses an
  unknown name; each maps to its algorithm under the secure policy;
- the secure job file: policy secure-aggregation with target_epsilon and no
  sigma, a fixed cohort of all devices with m_min = m - D, D = 5%, and a
  [secure_aggregation] table; the participation job file is unchanged;
- with --build-dir: `edgeadmm job create` accepts that file and prints a
  plan that secure_job.plan reads (k, n_h = m - D - t, predicted eps <=
  target), and refuses the same file with m_min one below m - D; the
  fleet flags carry k. secure_job.plan refuses text without a plan.
"""
import argparse
import contextlib
import io
import os
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edgeadmm_stack as es  # noqa: E402
import run  # noqa: E402
import secure_job  # noqa: E402

DEVICES = 40


def parse(*flags):
    return run.parse_args(["--full", "--build-dir", "b", "--out", "o",
                           "--devices", str(DEVICES), *flags])


def refused(*flags):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parse(*flags)
    except SystemExit as e:
        return e.code != 0
    return False


def check_files(a, problems):
    secure = tomllib.loads(run.job_toml("s", "prox-admm", a, 1,
                                        secure_job.SECURE))
    p, s = secure["privacy"], secure["sampling"]
    if (p["policy"], p["target_epsilon"], "sigma" in p) != (
            "secure-aggregation", 1, False):
        problems.append(f"secure privacy table: {p}")
    if (s["scheme"], s["m"], s["m_min"]) != ("fixed", DEVICES, DEVICES - 2):
        problems.append(f"secure sampling table: {s}")
    if secure.get("secure_aggregation", {}).get("dropouts") != 2:
        problems.append(f"[secure_aggregation]: {secure}")
    plain = tomllib.loads(run.job_toml("p", "prox-admm", a, 1,
                                       "participation"))
    if plain["sampling"]["scheme"] != "poisson" or "secure_aggregation" in \
            plain:
        problems.append(f"participation job changed: {plain}")


def check_cli(a, build_dir, problems):
    with tempfile.TemporaryDirectory() as tmp:
        stack = es.Stack(build_dir, tmp, log=lambda m: None)
        stack.enroll(DEVICES)
        text = run.job_toml("s", "prox-admm", a, 1, secure_job.SECURE)
        plan = secure_job.plan(stack.create_job("s", text, start=False))
        if (plan["cohort"], plan["dropouts"], plan["honest"]) != (
                DEVICES, 2, DEVICES - 2 - plan["colluders"]) or not (
                    0 < plan["predicted_epsilon"] <= 1 + 1e-9):
            problems.append(f"plan: {plan}")
        flags = secure_job.fleet_flags(a, plan)
        if flags[:2] != ["--secagg-neighbours", str(plan["neighbours"])]:
            problems.append(f"fleet flags: {flags}")
        bad = text.replace(f"m_min = {DEVICES - 2}", f"m_min = {DEVICES - 3}")
        try:
            stack.create_job("bad", bad.replace('"s"', '"bad"'), start=False)
            problems.append("job create took m_min != m - D")
        except es.StackError:
            pass


def main():
    build = argparse.ArgumentParser()
    build.add_argument("--build-dir")
    build_dir = build.parse_args().build_dir
    problems = []
    a = parse("--algorithms", "prox-admm,prox-admm-secure,dp-sgd-secure")
    if a.algorithms != ["prox-admm", "prox-admm-secure", "dp-sgd-secure"]:
        problems.append(f"--algorithms: {a.algorithms}")
    if not refused("--algorithms", "prox-admm,secure"):
        problems.append("--algorithms took an unknown name")
    check_files(a, problems)
    try:
        secure_job.plan("created job s (id 1, n = 40 devices)")
        problems.append("secure_job.plan read a plan from no plan")
    except es.StackError:
        pass
    if build_dir:
        check_cli(a, build_dir, problems)
    for p in problems:
        print(f"FAIL: {p}")
    print("ok" if not problems else f"{len(problems)} failure(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
