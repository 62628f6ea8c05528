// EpsilonReport: one reported (epsilon, delta) with everything needed to
// interpret it: the mechanism(s), the neighbouring relation, the conversion,
// delta and the minimising order.
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/privacy/conversion.h"

namespace edgeadmm::privacy {

struct EpsilonReport {
  double epsilon = 0.0;
  double delta = 0.0;
  double order = 0.0;  // Renyi order of the minimum (0: not recorded)
  Conversion conversion = Conversion::kImproved;
  std::string mechanism;      // e.g. "poisson_subsampled_gaussian"
  std::string neighbouring;   // e.g. "add/remove"
  std::string subject;        // "central" or a device id
  std::string policy;         // deployment policy, empty when none applies
  std::string observer;       // whom the bound protects against, if known
  uint64_t compositions = 0;  // mechanisms composed (rounds charged)

  // One JSON object, keys: epsilon, delta, order, mechanism, neighbouring,
  // conversion, conversion_reference, subject, policy, compositions,
  // observer (when known), then
  // `extra_fields` verbatim when not empty (e.g. "\"q\": 0.01").
  std::string ToJson(const std::string& extra_fields = "") const;
  // One human-readable line.
  std::string ToText() const;
};

// Formats a double for JSON / text with 17 significant digits ("inf" is
// written as a JSON string "inf").
std::string FormatNumber(double value);
// Escapes a string for a JSON string literal (quotes included).
std::string JsonString(const std::string& text);

}  // namespace edgeadmm::privacy
