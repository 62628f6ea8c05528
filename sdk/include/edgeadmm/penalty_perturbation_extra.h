// pp-admm's upload extra (Update.algorithm_extra): the device's paper 001
// loss P_i(T) (pure DP, one sample, Thm. 4.1), sent with the job's last
// iteration only, as the 8 bytes of a little-endian IEEE-754 double; +inf
// goes out as the largest finite double. Written by the device's task
// adapter (sdk/src/steps/penalty_perturbation_task.cc) and read by the
// aggregator's pp-admm unit (aggregator/algorithms/src/pp_admm.cc); the
// layers between copy the bytes without reading them.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgeadmm {

inline constexpr size_t kPpLossExtraBytes = 8;

// Writes `loss` into out[0, 8): a NaN or +inf as DBL_MAX, never as 0
// (which would read as nothing spent).
inline void EncodePpLossExtra(double loss, uint8_t* out) {
  const double value = std::isfinite(loss) ? loss : DBL_MAX;
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  for (size_t i = 0; i < kPpLossExtraBytes; ++i) {
    out[i] = static_cast<uint8_t>(bits >> (8 * i));
  }
}

// True, with *loss, when the bytes are 8 long and hold a finite value
// >= 0; false for anything else.
inline bool DecodePpLossExtra(const uint8_t* bytes, size_t size, double* loss) {
  if (size != kPpLossExtraBytes) return false;
  uint64_t bits = 0;
  for (size_t i = 0; i < kPpLossExtraBytes; ++i) {
    bits |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  }
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  if (!std::isfinite(value) || !(value >= 0)) return false;
  *loss = value;
  return true;
}

}  // namespace edgeadmm
