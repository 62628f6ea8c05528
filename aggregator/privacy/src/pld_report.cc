#include "edgeadmm/privacy/pld_report.h"

#include <cstdio>

#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/pld_accountant.h"

namespace edgeadmm::privacy {

std::string PldReport::ToJson(const std::string& extra_fields) const {
  std::string json =
      "{\"epsilon\": " + FormatNumber(epsilon) +
      ", \"delta\": " + FormatNumber(delta) +
      ", \"accountant\": \"pld\", \"mechanism\": " + JsonString(mechanism) +
      ", \"neighbouring\": " + JsonString(neighbouring) +
      ", \"conversion\": \"pld-pessimistic\", \"conversion_reference\": " +
      JsonString(PldReference()) + ", \"pld_step\": " + FormatNumber(step) +
      ", \"compositions\": " + std::to_string(compositions);
  if (!extra_fields.empty()) json += ", " + extra_fields;
  return json + "}";
}

std::string PldReport::ToText() const {
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), "epsilon = %.6g at delta = %.3g",
                epsilon, delta);
  return std::string(buffer) + " (pld accountant, pld-pessimistic conversion: an upper bound [" +
         PldReference() + "]), mechanism " + mechanism + ", " + neighbouring +
         " neighbours, " + std::to_string(compositions) + " compositions";
}

}  // namespace edgeadmm::privacy
