// CentralLedger: the aggregator's privacy ledger for one job, one Accountant
// per subject (one per device under participation / local-dp, the single
// subject "central" under trusted-aggregator), with the per-round API the
// daemon calls and a compact text form it persists (SQLite TEXT column).
//
// Per round, before starting it: BudgetCheck(round) -> would it exceed the
// budget? After committing it: Charge(round). Report() is the worst subject.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::privacy {

struct Budget {
  double epsilon = 1.0;
  double delta = 1e-5;
  Conversion conversion = Conversion::kImproved;
};

struct BudgetCheckResult {
  bool within_budget = false;  // projected.epsilon <= budget epsilon
  EpsilonReport projected;     // worst subject if the round were charged
};

class CentralLedger {
 public:
  // The subject charged under trusted-aggregator.
  static constexpr const char* kCentralSubject = "central";

  // An empty ledger. INVALID_ARGUMENT when the budget's epsilon is not
  // finite and > 0 or its delta is not in (0, 1).
  static host::ErrorOr<CentralLedger> Create(
      Policy policy, Budget budget, OrderGrid grid = OrderGrid::Default());

  // Would charging `round` keep every subject within budget? Does not change
  // the ledger. Before a round starts pass the planned cohort as
  // participants and m_min as accepted_uploads (fewest uploads = least
  // noise = the worst case). INVALID_ARGUMENT on an invalid round.
  host::ErrorOr<BudgetCheckResult> BudgetCheck(
      const RoundDescriptor& round) const;

  // Charges a committed round: participants are exactly the m_k devices
  // whose uploads were accepted. INVALID_ARGUMENT on an invalid round or when
  // their number differs from m_k,
  // FAILED_PRECONDITION when the round id is not larger than the last charged
  // one (a replayed or reordered charge). Charging past the budget is allowed
  // (the release already happened); BudgetCheck is the gate.
  host::Error Charge(const RoundDescriptor& round);

  // The worst subject's epsilon at the budget's delta and conversion (zero
  // with subject "" before any charge).
  host::ErrorOr<EpsilonReport> Report() const;
  // One subject's epsilon. NOT_FOUND when it was never charged.
  host::ErrorOr<EpsilonReport> ReportFor(const std::string& subject) const;
  // Subjects charged so far, sorted.
  std::vector<std::string> Subjects() const;

  Policy policy() const { return policy_; }
  const Budget& budget() const { return budget_; }
  const OrderGrid& grid() const { return grid_; }
  uint64_t rounds_charged() const { return rounds_charged_; }

  // Compact text form (hex floats, exact round trip).
  std::string Serialize() const;
  // Inverse of Serialize. DATA_LOSS when the text is malformed or truncated.
  static host::ErrorOr<CentralLedger> Deserialize(const std::string& text);

 private:
  CentralLedger(Policy policy, Budget budget, OrderGrid grid)
      : policy_(policy), budget_(budget), grid_(grid), cache_(grid) {}

  host::ErrorOr<EpsilonReport> Label(EpsilonReport report,
                                     const std::string& subject) const;
  // Subjects charged by `round` under the policy.
  std::vector<std::string> ChargedSubjects(const RoundDescriptor& round) const;

  Policy policy_;
  Budget budget_;
  OrderGrid grid_;
  std::map<std::string, Accountant> subjects_;
  uint64_t rounds_charged_ = 0;
  bool has_last_round_ = false;
  uint64_t last_round_ = 0;
  mutable CurveCache cache_;
};

}  // namespace edgeadmm::privacy
