// LedgerMeaning: what the ε of one of the daemon's ledgers is an upper bound
// for: the mechanism charged per round, the neighbouring relation, and the
// observer it protects against (docs/privacy.md, "Threat model" and
// section 2). With the conversion and δ it completes every ε the daemon and
// the CLI print, store or send.
#pragma once

#include <string>

#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::privacy {

struct LedgerMeaning {
  const char* mechanism = "";
  const char* neighbouring = "";
  const char* observer = "";
};

// The job's central ε ("central" and "central:<id>" scopes) under `policy`.
LedgerMeaning CentralLedgerMeaning(Policy policy);
// The central ε of a random-walk-admm job ("central", "central:<id>"):
// each visit charged the device's local Gaussian, the only bound proven
// against the gateway and against a device's real view (step counts
// included); paper 002 Thm. 4's network bound is reported, not charged.
LedgerMeaning RandomWalkLedgerMeaning();
// A device's local ε ("local:<id>", and the device's own ledger): the same
// under every policy.
LedgerMeaning LocalLedgerMeaning();

// An EpsilonReport of `meaning` (order 0: not recorded).
EpsilonReport DescribeLedger(const LedgerMeaning& meaning, double epsilon,
                             double delta, double order,
                             Conversion conversion, const std::string& subject,
                             Policy policy, uint64_t compositions);

}  // namespace edgeadmm::privacy
