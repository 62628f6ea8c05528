// pp-admm's upload extra (Update.algorithm_extra): the device's (ε, δ)
// after the job's T iterations (paper 001's P_i plus the approximate-minima
// releases and the sampler's total variation, one sample:
// penalty_perturbation_accountant.h), sent with the job's last iteration
// only, as two little-endian IEEE-754 doubles ε then δ (16 bytes); a
// non-finite ε goes out as the largest finite double. Written by the
// device's task adapter (sdk/src/steps/penalty_perturbation_task.cc) and
// read by the aggregator's pp-admm unit (aggregator/algorithms/src/pp_admm.cc);
// the layers between copy the bytes without reading them.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgeadmm {

inline constexpr size_t kPpLossExtraBytes = 16;

namespace pp_extra_internal {
inline void Put(double value, uint8_t* out) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  for (size_t i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(bits >> (8 * i));
}
inline double Get(const uint8_t* bytes) {
  uint64_t bits = 0;
  for (size_t i = 0; i < 8; ++i) {
    bits |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  }
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
}  // namespace pp_extra_internal

// Writes (epsilon, delta) into out[0, 16): a NaN or +inf ε as DBL_MAX,
// never as 0 (which would read as nothing spent); δ outside [0, 1] or NaN
// as 1.
inline void EncodePpLossExtra(double epsilon, double delta, uint8_t* out) {
  pp_extra_internal::Put(std::isfinite(epsilon) ? epsilon : DBL_MAX, out);
  pp_extra_internal::Put(delta >= 0 && delta <= 1 ? delta : 1.0, out + 8);
}

// True, with *epsilon and *delta, when the bytes are 16 long and hold a
// finite ε >= 0 and a δ in [0, 1]; false for anything else.
inline bool DecodePpLossExtra(const uint8_t* bytes, size_t size,
                              double* epsilon, double* delta) {
  if (size != kPpLossExtraBytes) return false;
  const double e = pp_extra_internal::Get(bytes);
  const double d = pp_extra_internal::Get(bytes + 8);
  if (!std::isfinite(e) || !(e >= 0) || !(d >= 0 && d <= 1)) return false;
  *epsilon = e;
  *delta = d;
  return true;
}

}  // namespace edgeadmm
