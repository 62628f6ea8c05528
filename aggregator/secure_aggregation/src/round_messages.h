// Small helpers of the SecAgg+ round's phases (secagg_round.cc,
// secagg_unmasking_phase.cc): the device in messages, byte comparisons and
// copies of fixed-size fields, the budget and duplicate errors.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "edgeadmm/host/error.h"
#include "edgeadmm/span.h"

namespace edgeadmm::secure_aggregation::round_internal {

inline std::string Dev(uint32_t device) {
  return "device " + std::to_string(device);
}

template <size_t N>
inline bool Same(ConstByteSpan a, const std::array<std::byte, N>& b) {
  return a.size() == N && std::memcmp(a.data(), b.data(), N) == 0;
}

template <size_t N>
inline void Copy(ConstByteSpan from, std::array<std::byte, N>& to) {
  std::memcpy(to.data(), from.data(), N);
}

inline host::Error Exhausted(std::string message) {
  return host::Error(StatusCode::kResourceExhausted, std::move(message));
}

inline host::Error Exists(uint32_t device, const char* what) {
  return host::Error(StatusCode::kAlreadyExists,
                     Dev(device) + " already sent a different " + what +
                         " (one per device and round)");
}

}  // namespace edgeadmm::secure_aggregation::round_internal
