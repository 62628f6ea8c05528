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
// The network ε of a random-walk-admm job ("central", "central:<id>"):
// paper 002 Thm 4 per visit (network_rdp.h), against the other devices.
LedgerMeaning NetworkLedgerMeaning();
// What `job export` of a random-walk-admm job reports: the largest local ε
// (the exported z is a function of the uploads the gateway saw; no
// amplification by iteration is claimed for it).
LedgerMeaning RandomWalkExportMeaning();
// A device's local ε ("local:<id>", and the device's own ledger): the same
// under every policy.
LedgerMeaning LocalLedgerMeaning();

// An EpsilonReport of `meaning` (order 0: not recorded).
EpsilonReport DescribeLedger(const LedgerMeaning& meaning, double epsilon,
                             double delta, double order,
                             Conversion conversion, const std::string& subject,
                             Policy policy, uint64_t compositions);

}  // namespace edgeadmm::privacy
