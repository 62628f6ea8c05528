// PldReport: one (epsilon, delta) from the PLD accountant with its labels
// (accountant, mechanism, neighbouring relation, conversion, delta, grid),
// printed like EpsilonReport (epsilon_report.h) so both accountants' output
// reads the same way.
#pragma once

#include <cstdint>
#include <string>

namespace edgeadmm::privacy {

struct PldReport {
  double epsilon = 0.0;
  double delta = 0.0;
  std::string mechanism;                    // PldAccountant::MechanismLabel
  std::string neighbouring = "add/remove";  // the only relation supported
  double step = 0.0;  // the loss grid spacing that gave the answer
  uint64_t compositions = 0;

  // One JSON object: epsilon, delta, accountant ("pld"), mechanism,
  // neighbouring, conversion ("pld-pessimistic": eps(delta) read off the
  // composed PLD discretised pessimistically, an upper bound, no RDP
  // conversion), conversion_reference, pld_step, compositions,
  // then `extra_fields` verbatim when not empty.
  std::string ToJson(const std::string& extra_fields = "") const;
  // One human-readable line.
  std::string ToText() const;
};

}  // namespace edgeadmm::privacy
