// AlgorithmKind: which private ADMM variant a job runs. The one algorithm
// enum of the project: the device SDK, the device state blob and the
// aggregator use it, and its values are the wire enum's
// (proto/edgeadmm.proto `Algorithm`; the wire code checks them at compile
// time), so a task's algorithm converts with a range check and nothing else.
#pragma once

#include <cstdint>

namespace edgeadmm {

enum class AlgorithmKind : uint8_t {
  kProxAdmm = 1,             // paper 002 Alg. 3, job "prox-admm"
  kLinearizedAdmm = 2,       // paper 004 DP-ADMM, job "dp-admm"
  kPenaltyPerturbation = 3,  // paper 001 M-ADMM, job "pp-admm"
  kDpSgd = 5,                // DP-SGD / DP-FedAvg baseline, job "dp-sgd"
  kAdmmSharing = 6,          // papers 000/003, job "admm-sharing"
  // Paper 002 Alg. 4, job "random-walk-admm": an aggregator-side job kind
  // only, not a wire value. Its tasks carry kProxAdmm (the device runs the
  // same prox step), so devices never see it; IsAlgorithmKind is false.
  kRandomWalkAdmm = 64,  // far from the wire values, which may grow
  // DP-FTRL with tree aggregation, job "dp-ftrl": aggregator-side too; its
  // tasks carry kDpSgd without noise.
  kDpFtrl = 65,
};

// True for the values above (e.g. a byte read from storage or the wire).
constexpr bool IsAlgorithmKind(uint32_t value) {
  return value == 1 || value == 2 || value == 3 || value == 5 || value == 6;
}

}  // namespace edgeadmm
