"""The a9a reproduction's jobs under privacy.policy = "secure-aggregation"
(SecAgg+ with the distributed discrete Gaussian, docs/privacy.md,
"secure-aggregation"): the job's sampling and [secure_aggregation] tables,
the plan `job create` prints, and the flags a secure device needs."""

import re

import edgeadmm_stack as es

SECURE = "secure-aggregation"
# `job create`'s plan of a secure job (jobs/secure_aggregation_report.cc).
PLAN = re.compile(
    r"m = (?P<cohort>\d+), D = (?P<dropouts>\d+) dropouts, "
    r"t = (?P<colluders>\d+) colluders.*?"
    r"k = (?P<neighbours>\d+) neighbours, threshold s = (?P<threshold>\d+)"
    r".*?b = (?P<bits>\d+) bits, gamma = (?P<gamma>\S+), "
    r"sigma = (?P<sigma>\S+) per device \((?P<sigma_grid>\S+) on the grid\)"
    r", n_h = (?P<honest>\d+).*?over \d+ rounds: (?P<predicted_epsilon>\S+)"
    r".*?P\(wrap\) <= 2\^(?P<log2_wrap>\S+)", re.S)


def add_arguments(p):
    """run.py's options of the secure jobs."""
    p.add_argument("--secure-deadline", type=float, default=1800.0,
                   help="round deadline of the secure-aggregation jobs (s)")
    p.add_argument("--secure-dropouts", type=float, default=0.05,
                   help="secure-aggregation jobs: D = this fraction of the "
                   "cohort may drop, m_min = m - D")
    p.add_argument("--phase-seconds", type=float, default=600.0,
                   help="secure_aggregation.phase_seconds: each SecAgg+ "
                   "phase's deadline (s)")
    p.add_argument("--daemon-ready-seconds", type=float, default=300.0,
                   help="secure jobs: how long the daemon may take to load "
                   "the job (it plans the noise again: under a second at "
                   "4,000 devices, 2-3 s of CPU at 32,561)")
    p.add_argument("--secagg-poll-ms", type=int, default=4000,
                   help="edgeadmm-fleet connect --secagg-poll-ms of the "
                   "secure devices (resend interval of an open phase)")


def plan(created):
    """The secure plan printed by `job create`, as numbers."""
    m = PLAN.search(created)
    if not m:
        raise es.StackError(f"no secure aggregation plan in: {created}")
    return {k: (int(v) if v.isdigit() else float(v))
            for k, v in m.groupdict().items()}


def cohort(a):
    """(m, D): a fixed cohort of m = q * devices, of which D =
    --secure-dropouts * m may drop (k, the masking graph's degree, grows
    with D / m: 26 at m = 4,000 and D = 5%, 88 at D = 20%)."""
    m = max(2, int(round(a.q * a.devices)))
    return m, max(1, int(a.secure_dropouts * m))


def sampling(a):
    """A fixed cohort (SecAgg+ masks over a graph made for its m devices)
    whose floor must be m - D (ValidateJobConfig)."""
    m, dropouts = cohort(a)
    return {"scheme": "fixed", "m": m, "m_min": m - dropouts,
            "deadline_seconds": a.secure_deadline, "seed": 1}


def table(a):
    """The [secure_aggregation] table; the plan picks k, b, gamma, sigma."""
    return {"dropouts": cohort(a)[1], "phase_seconds": a.phase_seconds}


def fleet_flags(a, secure_plan):
    """`edgeadmm-fleet connect` flags of the secure devices."""
    return ["--secagg-neighbours", str(secure_plan["neighbours"]),
            "--secagg-poll-ms", str(a.secagg_poll_ms)]
