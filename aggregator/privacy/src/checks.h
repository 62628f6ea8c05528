// Input checks shared by the privacy library (internal header).
#pragma once

#include <cmath>
#include <string>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy::internal {

// "name must be ..., got value" for a refused argument.
inline std::string Describe(const char* name, const char* rule, double value) {
  return std::string(name) + " must be " + rule + ", got " +
         std::to_string(value);
}

// OK when 0 < value < +inf.
inline host::Error CheckPositive(const char* name, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    return host::Error::InvalidArgument(
        Describe(name, "finite and > 0", value));
  }
  return host::Error::Ok();
}

// OK when value is in (0, 1].
inline host::Error CheckRate(const char* name, double value) {
  if (!(value > 0.0 && value <= 1.0)) {
    return host::Error::InvalidArgument(Describe(name, "in (0, 1]", value));
  }
  return host::Error::Ok();
}

// OK when value is in (0, 1) (a delta).
inline host::Error CheckOpenUnit(const char* name, double value) {
  if (!(value > 0.0 && value < 1.0)) {
    return host::Error::InvalidArgument(Describe(name, "in (0, 1)", value));
  }
  return host::Error::Ok();
}

// OK when alpha is a finite Renyi order > 1.
inline host::Error CheckOrder(double alpha) {
  if (!(alpha > 1.0) || !std::isfinite(alpha)) {
    return host::Error::InvalidArgument(
        Describe("Renyi order", "finite and > 1", alpha));
  }
  return host::Error::Ok();
}

// log(exp(a) + exp(b)) without overflow.
inline double LogAddExp(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const double hi = a > b ? a : b;
  const double lo = a > b ? b : a;
  return hi + std::log1p(std::exp(lo - hi));
}

// log(expm1(t)) for t > 0, without overflow for large t.
inline double LogExpm1(double t) {
  return t > 40.0 ? t + std::log1p(-std::exp(-t)) : std::log(std::expm1(t));
}

// log(1 + exp(l)): turns log(A - 1) into log(A).
inline double Log1pExp(double l) {
  return l > 0.0 ? l + std::log1p(std::exp(-l)) : std::log1p(std::exp(l));
}

// log of the binomial coefficient C(n, k) for real n >= k >= 0.
inline double LogBinomial(double n, double k) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

}  // namespace edgeadmm::privacy::internal
