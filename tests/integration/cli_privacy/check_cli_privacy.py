#!/usr/bin/python3
"""Runs `edgeadmm privacy report|plan|paper-004` and checks its JSON and its errors.

Usage: check_cli_privacy.py PATH/TO/edgeadmm. Exits non-zero on failure.
The plain-Gaussian epsilon is recomputed here independently (classic
conversion over the documented default order grid).
"""
import json
import math
import subprocess
import sys

EDGEADMM = sys.argv[1]
failures = []


def check(condition, what):
  if not condition:
    failures.append(what)
    print("FAIL: " + what)


def run(*args):
  return subprocess.run([EDGEADMM, "privacy", *args], capture_output=True,
                        text=True, timeout=120)


def report(*args):
  result = run("report", *args, "--json")
  check(result.returncode == 0, "report %s exits 0 (%s)" % (args, result.stderr))
  return json.loads(result.stdout) if result.returncode == 0 else {}


# The example.
poisson = report("--sampling", "poisson", "--q", "0.01", "--noise-multiplier",
                 "1.0", "--rounds", "1000", "--delta", "1e-5", "--conversion",
                 "improved")
for key in ("epsilon", "order", "mechanism", "neighbouring", "conversion",
            "delta"):
  check(key in poisson, "report JSON has '%s'" % key)
check(poisson.get("mechanism") == "poisson_subsampled_gaussian", "mechanism")
check(poisson.get("neighbouring") == "add/remove", "neighbouring")
check(poisson.get("conversion") == "improved", "conversion")
check(poisson.get("delta") == 1e-5, "delta echoed")
check(0.0 < poisson.get("epsilon", -1) < 10.0, "epsilon in a sane range")
classic = report("--sampling", "poisson", "--q", "0.01", "--noise-multiplier",
                 "1.0", "--rounds", "1000", "--delta", "1e-5", "--conversion",
                 "classic")
check(classic.get("epsilon", 0) >= poisson.get("epsilon", 1),
      "classic conversion is never below improved")
print("poisson q=0.01 z=1 T=1000 delta=1e-5: improved %.6f (order %s), "
      "classic %.6f (order %s)" % (poisson.get("epsilon", math.nan),
                                   poisson.get("order"),
                                   classic.get("epsilon", math.nan),
                                   classic.get("order")))

# Plain Gaussian, classic conversion, against an independent computation.
orders = [t / 10 for t in range(11, 110)] + list(range(11, 64)) + [
    128, 256, 512, 1024]
expected = min(10 * a / (2 * 2.0**2) + math.log(1 / 1e-5) / (a - 1)
               for a in orders)
gaussian = report("--sampling", "none", "--noise-multiplier", "2",
                  "--rounds", "10", "--delta", "1e-5", "--conversion",
                  "classic")
check(gaussian.get("mechanism") == "gaussian", "plain Gaussian mechanism")
check(abs(gaussian.get("epsilon", 0) - expected) < 1e-9 * expected,
      "plain Gaussian epsilon %s == %s" % (gaussian.get("epsilon"), expected))

# Delta for an epsilon: at the reported epsilon it is at most the delta asked.
both = report("--sampling", "poisson", "--q", "0.01", "--noise-multiplier",
              "1.0", "--rounds", "1000", "--delta", "1e-5",
              "--delta-at-epsilon", repr(poisson.get("epsilon", 1.0)))
inverse = both.get("delta_at_epsilon", {})
check(0.5e-5 < inverse.get("delta", 1) <= 1e-5 * (1 + 1e-9),
      "delta at the reported epsilon is <= 1e-5: %s" % inverse)
neg = run("report", "--sampling", "none", "--noise-multiplier", "1",
          "--rounds", "1", "--delta-at-epsilon", "-1")
check(neg.returncode != 0 and "epsilon" in neg.stderr,
      "negative epsilon refused: %r" % neg.stderr)

# Plan then report: the planned noise meets the target.
plan = run("plan", "--sampling", "poisson", "--q", "0.01", "--rounds", "1000",
           "--epsilon", "2", "--delta", "1e-5", "--json", "--policy",
           "trusted-aggregator", "--clip", "0.5")
check(plan.returncode == 0, "plan exits 0 (%s)" % plan.stderr)
if plan.returncode == 0:
  planned = json.loads(plan.stdout)
  z = planned["noise_multiplier"]
  check(planned["epsilon"] <= 2.0, "planned epsilon within target")
  check(abs(planned["policy_sigma"] - 2 * 0.5 * z) < 1e-12 * z,
        "trusted-aggregator sigma = 2 C z")
  again = report("--sampling", "poisson", "--q", "0.01", "--noise-multiplier",
                 repr(z), "--rounds", "1000", "--delta", "1e-5")
  check(again.get("epsilon", 99) <= 2.0, "report at the planned noise")
  print("plan: noise multiplier %.6f for epsilon 2" % z)

# A policy whose charge has no sampling refuses a sampled plan; with
# --sampling none it plans the Gaussian under its own relation.
mismatch = run("plan", "--sampling", "poisson", "--q", "0.01", "--rounds",
               "100", "--epsilon", "2", "--policy", "participation",
               "--cohort", "10")
check(mismatch.returncode != 0 and "sampling" in mismatch.stderr,
      "participation refuses a Poisson plan: %r" % mismatch.stderr)
local = run("plan", "--sampling", "none", "--rounds", "100", "--epsilon", "2",
            "--policy", "local-dp", "--clip", "1", "--json")
check(local.returncode == 0, "local-dp plan exits 0 (%s)" % local.stderr)
if local.returncode == 0:
  local_plan = json.loads(local.stdout)
  check(local_plan["neighbouring"] == "replace-one", "local-dp is replace-one")
  check(abs(local_plan["policy_sigma"] - 4 * local_plan["noise_multiplier"])
        < 1e-9, "local-dp sigma = 4 C z")

# Bad input: a clear message and a non-zero exit code.
base = ["--rounds", "10"]
for args, word in (
    (["--sampling", "poisson", "--q", "1.5", "--noise-multiplier", "1"], "q"),
    (["--sampling", "poisson", "--q", "0", "--noise-multiplier", "1"], "q"),
    (["--sampling", "poisson", "--q", "nan", "--noise-multiplier", "1"], "q"),
    (["--sampling", "none", "--noise-multiplier", "-1"], "noise"),
    (["--sampling", "none", "--noise-multiplier", "nan"], "noise"),
    (["--sampling", "none", "--noise-multiplier", "1", "--delta", "nan"],
     "delta"),
    (["--sampling", "none", "--noise-multiplier", "1", "--delta", "1"],
     "delta"),
    (["--sampling", "none", "--noise-multiplier", "1", "--delta", "0"],
     "delta"),
    (["--sampling", "bogus", "--noise-multiplier", "1"], "sampling"),
    (["--sampling", "none", "--noise-multiplier", "1", "--rounds", "0"],
     "rounds"),
    (["--sampling", "none", "--noise-multiplier", "1", "--conversion", "x"],
     "conversion"),
    (["--sampling", "none", "--noise-multiplier", "1", "--accountant", "x"],
     "accountant"),
    (["--sampling", "fixed", "--q", "0.1", "--noise-multiplier", "1",
      "--accountant", "pld"], "pld"),
    (["--sampling", "poisson", "--q", "2", "--noise-multiplier", "1",
      "--accountant", "pld"], "q"),
):
  result = run("report", *(args if "--rounds" in args else base + args))
  check(result.returncode != 0, "%s is refused" % args)
  check(word in result.stderr, "%s: message names %s: %r" %
        (args, word, result.stderr))

# --accountant pld: labelled, below the RDP number of the same schedule, and
# for the plain Gaussian within 0.1% above the analytic epsilon (Balle & Wang
# 2018): delta(eps) = Phi(1/(2z) - eps z) - e^eps Phi(-1/(2z) - eps z).
pld = report("--sampling", "poisson", "--q", "0.01", "--noise-multiplier",
             "1", "--rounds", "1000", "--delta", "1e-5", "--accountant",
             "pld", "--delta-at-epsilon", "1")
for key, value in (("accountant", "pld"), ("conversion", "pld-pessimistic"),
                   ("neighbouring", "add/remove"),
                   ("mechanism", "poisson_subsampled_gaussian"),
                   ("delta", 1e-5), ("compositions", 1000)):
  check(pld.get(key) == value, "pld report %s = %r: %r" % (key, value,
                                                          pld.get(key)))
check("Koskela" in pld.get("conversion_reference", ""), "pld reference")
# The grid reported is the one that gave the answer: 1e-3 here, and at
# q = 0.001, T = 10^4 the refined grid (eps / (50 sqrt(T))) gives the smaller
# bound, and is the one reported.
check(pld.get("pld_step") == 1e-3, "pld_step: %r" % pld.get("pld_step"))
# Above 600 the deployed samplers' tails void the bound: labelled.
huge = report("--sampling", "none", "--noise-multiplier", "0.01",
              "--rounds", "10", "--delta", "1e-5")
check(huge.get("epsilon", 0) > 600 and huge.get("beyond_sampler_range") is True,
      "epsilon above 600 labelled: %r" % huge)
check("beyond_sampler_range" not in pld, "no label below 600: %r" % pld)
fine = report("--sampling", "poisson", "--q", "0.001", "--noise-multiplier",
              "0.8", "--rounds", "10000", "--delta", "1e-5", "--accountant",
              "pld")
check(0 < fine.get("pld_step", 1) < 1e-3,
      "pld_step is the refined grid: %r" % fine.get("pld_step"))
check(0.0 < pld.get("epsilon", 99) < poisson.get("epsilon", 0),
      "pld epsilon %r below rdp %r" % (pld.get("epsilon"),
                                       poisson.get("epsilon")))
check(0 < pld.get("delta_at_epsilon", {}).get("delta", 0) < 1,
      "pld delta_at_epsilon")
gauss_pld = report("--sampling", "none", "--noise-multiplier", "2",
                   "--rounds", "10", "--delta", "1e-5", "--accountant", "pld")
z = 2 / math.sqrt(10)
phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
gdelta = lambda e: phi(0.5 / z - e * z) - math.exp(e) * phi(-0.5 / z - e * z)
lo, hi = 0.0, 50.0
for _ in range(200):
  mid = (lo + hi) / 2
  lo, hi = (mid, hi) if gdelta(mid) > 1e-5 else (lo, mid)
check(hi <= gauss_pld.get("epsilon", 0) <= hi * 1.001,
      "pld Gaussian epsilon %r vs analytic %r" % (gauss_pld.get("epsilon"), hi))

# plan --accountant pld: less noise than RDP for the same target, and the
# PLD report at that noise meets it.
plan_pld = run("plan", "--sampling", "poisson", "--q", "0.01", "--rounds",
               "1000", "--epsilon", "2", "--delta", "1e-5", "--accountant",
               "pld", "--policy", "trusted-aggregator", "--json")
check(plan_pld.returncode == 0, "pld plan exits 0 (%s)" % plan_pld.stderr)
if plan_pld.returncode == 0:
  pp = json.loads(plan_pld.stdout)
  check(pp["accountant"] == "pld" and pp["epsilon"] <= 2.0,
        "pld plan labelled and within target: %r" % pp)
  check(pp["noise_multiplier"] < pp["rdp_noise_multiplier"],
        "pld plan needs less noise than rdp: %r" % pp)
  check(abs(pp["policy_sigma"] - 2 * pp["noise_multiplier"]) < 1e-9,
        "pld plan sigma = 2 C z (trusted-aggregator)")
  again = report("--sampling", "poisson", "--q", "0.01", "--noise-multiplier",
                 repr(pp["noise_multiplier"]), "--rounds", "1000", "--delta",
                 "1e-5", "--accountant", "pld")
  check(again.get("epsilon", 99) <= 2.0, "pld report at the planned noise")

# paper-004: the paper's own eps-bar (0.5009 at tau 28 and 1.0193 at tau
# 14 for delta 1e-3, T = 100) and, below it, the RDP epsilon of the same
# per-record Gaussian (z0 = sqrt(2 ln(1.25/delta))/eps, replace-one).
for eps, bar, tau in ((0.05, 0.5009, 28), (0.1, 1.0193, 14)):
  result = run("paper-004", "--step-epsilon", str(eps), "--step-delta",
               "1e-3", "--rounds", "100", "--json")
  check(result.returncode == 0, "paper-004 exits 0 (%s)" % result.stderr)
  if result.returncode == 0:
    p = json.loads(result.stdout)
    check(abs(p["paper_epsilon_bar"] - bar) < 5e-5 and p["paper_tau"] == tau,
          "paper-004 eps %g: eps-bar %r tau %r" % (eps, p["paper_epsilon_bar"],
                                                  p["paper_tau"]))
    check(p["rdp"]["neighbouring"] == "replace-one" and
          p["rdp"]["mechanism"] == "gaussian" and
          0 < p["rdp"]["epsilon"] < p["paper_epsilon_bar"],
          "paper-004 eps %g: RDP %r below the paper's" % (eps, p["rdp"]))
    z0 = math.sqrt(2 * math.log(1.25e3)) / eps
    check(abs(p["rdp"]["noise_multiplier"] - z0) < 1e-9 * z0,
          "paper-004 noise multiplier %r" % p["rdp"]["noise_multiplier"])
result = run("paper-004", "--step-epsilon", "0", "--rounds", "100")
check(result.returncode != 0 and "paper-004" in result.stderr,
      "paper-004 refuses eps 0: %r" % result.stderr)

if failures:
  print("%d failures" % len(failures))
  sys.exit(1)
print("all CLI privacy checks passed")
