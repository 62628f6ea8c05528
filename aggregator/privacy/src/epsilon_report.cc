#include "edgeadmm/privacy/epsilon_report.h"

#include <cmath>
#include <cstdio>

namespace edgeadmm::privacy {

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "\"nan\"";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string EpsilonReport::ToJson(const std::string& extra_fields) const {
  return "{\"epsilon\": " + FormatNumber(epsilon) +
         ", \"delta\": " + FormatNumber(delta) +
         ", \"order\": " + FormatNumber(order) +
         ", \"mechanism\": " + JsonString(mechanism) +
         ", \"neighbouring\": " + JsonString(neighbouring) +
         ", \"conversion\": " + JsonString(ConversionName(conversion)) +
         ", \"conversion_reference\": " +
         JsonString(ConversionReference(conversion)) +
         ", \"subject\": " + JsonString(subject) +
         ", \"policy\": " + JsonString(policy) +
         ", \"compositions\": " + std::to_string(compositions) +
         (observer.empty() ? "" : ", \"observer\": " + JsonString(observer)) +
         (extra_fields.empty() ? "" : ", " + extra_fields) + "}";
}

std::string EpsilonReport::ToText() const {
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), "epsilon = %.6g at delta = %.3g",
                epsilon, delta);
  std::string text = buffer;
  if (order > 0) {
    std::snprintf(buffer, sizeof(buffer), " (order %.4g, ", order);
    text += buffer;
  } else {
    text += " (";
  }
  text += std::string(ConversionName(conversion)) + " conversion [" +
          ConversionReference(conversion) + "]), mechanism " + mechanism +
          ", " + neighbouring + " neighbours, " + std::to_string(compositions) +
          " compositions";
  if (!subject.empty()) text += ", subject " + subject;
  if (!policy.empty()) text += ", policy " + policy;
  if (!observer.empty()) text += "; against " + observer;
  return text;
}

}  // namespace edgeadmm::privacy
