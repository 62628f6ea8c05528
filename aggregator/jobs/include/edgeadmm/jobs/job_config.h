// A job's TOML parsed into a JobConfig (edgeadmm/job_types/job_config.h)
// and validated: the jobs unit, above the algorithms, whose registry it asks
// for each algorithm's checks.
//
// Example (every table and key is documented in docs/aggregator.md):
// clang-format off
//   [job]
//   name = "a9a-lasso"
//   algorithm = "<name>"           # one of algorithms/registry.h
//   loss = "logistic"              # logistic | squared
//   dimension = 123
//   rounds = 100
//   device_prefix = "hvac-"        # optional: enrol only the enabled
//                                  # devices whose id begins with it
//   [regularizer]
//   kind = "l1"                    # none | l1 | l2 | elastic-net
//   l1 = 1e-3
//   [step]
//   lambda = 0.5                   # relaxation λ in (0, 1]
//   gamma = 1.0                    # step γ    } as the algorithm's
//   rho = 1.0                      # penalty ρ } RequiredStepKeys ask
//   local_steps = 1                # E: local steps, if its step takes them
//   [<algorithm's table>]          # read by the algorithm's unit:
//                                  # algorithms/<name>.h, ReadTable
//   [privacy]
//   policy = "participation"       # participation | participation-own-noise
//                                  # | trusted-aggregator
//   noise_in_state = false         # devices keep their noise out of u_i
//   clip = 1.0                     # C
//   sigma = 1.0                    # or target_epsilon = 4.0
//   delta = 1e-5
//   max_colluders = 1              # t: cohort devices pooling their noise
//   accountant = "pld"             # pld | rdp: ε of the central ledgers
//   central_budget = 8.0           # ε cap of the central ledger (inf
//                                  # only with audit = true)
//   audit = false                  # a measurement: no central cap needed
//   device_budget = 8.0            # ε cap per device
//   [sampling]
//   scheme = "poisson"             # poisson (q) | fixed (m)
//   q = 0.1
//   m_min = 5
//   deadline_seconds = 30
//   [validation]                   # optional
//   data = "/var/lib/edgeadmm/a9a.t.xz"
//   format = "libsvm"              # libsvm | adult-csv (105 features)
//   normalize = "none"             # none | unit | max (as the devices')
//   held_by = "gateway"            # gateway (operator data) | devices
//   metric = "accuracy"            # accuracy | loss | objective
//   release = "best"               # best (gateway only) | last
//   early_stop_rounds = 0          # K > 0: stop after K rounds without
//                                  # improvement (gateway only)
// clang-format on
#pragma once

#include <string_view>

#include "edgeadmm/host/error.h"
#include "edgeadmm/job_types/job_config.h"
#include "edgeadmm/regularizer.h"

namespace edgeadmm::jobs {

// What ParseJobConfig does with a table or key it does not read: refuse it
// (a new job: `job create`), or ignore it (a stored job, accepted by the
// build that created it).
enum class UnknownKeys { kRefuse, kIgnore };

// Parses and validates a job. On failure INVALID_ARGUMENT with one line
// naming the key and the problem; an unknown table or key (kRefuse) with
// the nearest valid name: "unknown key step.rhoo; did you mean step.rho?".
host::ErrorOr<JobConfig> ParseJobConfig(
    std::string_view toml_text,
    UnknownKeys unknown_keys = UnknownKeys::kRefuse);

// The rule for the name of a new job: 1..64 characters of [A-Za-z0-9._-]
// (`job create` and CreateJob refuse others; names stored before the rule
// still load, and the exporters escape them).
bool IsValidJobName(std::string_view name);
inline constexpr const char* kJobNameRule =
    "job.name: must be 1..64 characters of [A-Za-z0-9._-]";

// Validates a config built in code (the checks ParseJobConfig applies).
// INVALID_ARGUMENT naming the first problem.
host::Error ValidateJobConfig(const JobConfig& config);

// Names used in TOML and logs ("l1", ...); an algorithm's name is its
// unit's (algorithms::NameOf).
const char* RegularizerName(RegularizerKind r);
const char* SelectionMetricName(SelectionMetric m);
const char* ValidationHolderName(ValidationHolder h);

}  // namespace edgeadmm::jobs
