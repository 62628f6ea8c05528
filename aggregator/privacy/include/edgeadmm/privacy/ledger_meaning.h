// LedgerMeaning: what the ε of one of the daemon's ledgers is an upper bound
// for: the mechanism charged per round, the neighbouring relation, and the
// observer it protects against (docs/privacy.md, "Threat model" and
// section 2). With the conversion and δ it completes every ε the daemon and
// the CLI print, store or send.
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::privacy {

struct LedgerMeaning {
  std::string mechanism;
  std::string neighbouring;
  std::string observer;
};

// The job's central ε ("central" and "central:<id>" scopes) under `policy`;
// `max_colluders` (t) is named where the policy splits noise among devices.
LedgerMeaning CentralLedgerMeaning(Policy policy, int64_t max_colluders);
// The central ε of a random-walk-admm job ("central", "central:<id>"):
// each visit charged the device's local Gaussian, the only bound proven
// against the gateway and against a device's real view (step counts
// included); paper 002 Thm. 4's network bound is reported, not charged.
LedgerMeaning RandomWalkLedgerMeaning();
// A device's local ε ("local:<id>", and the device's own ledger): the
// device's own noise against the gateway; under trusted-aggregator the
// uploads carry none and the ledger is +inf; under secure-aggregation the
// gateway sees only the round's sum, and the ledger is the round's
// distributed discrete Gaussian (t = max_colluders, < 0: not named).
LedgerMeaning LocalLedgerMeaning(Policy policy, int64_t max_colluders = -1);

// An EpsilonReport of `meaning` (order 0: not recorded).
EpsilonReport DescribeLedger(const LedgerMeaning& meaning, double epsilon,
                             double delta, double order, Conversion conversion,
                             const std::string& subject, Policy policy,
                             uint64_t compositions);

}  // namespace edgeadmm::privacy
