// The algorithms the aggregator serves: one registration line each in
// registry.cc.
#pragma once

#include <string_view>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"

namespace edgeadmm::algorithms {

// Every served algorithm, in registration order.
const std::vector<const Algorithm*>& All();
// nullptr for a kind or name that is not served.
const Algorithm* Find(AlgorithmKind kind);
const Algorithm* FindByName(std::string_view name);
// The unit of a kind that must be served (a validated JobConfig's).
const Algorithm& Get(AlgorithmKind kind);
// "prox-admm", ... ("?" if not served).
const char* NameOf(AlgorithmKind kind);
// "prox-admm, dp-admm, dp-sgd": for error messages.
std::string Names();

}  // namespace edgeadmm::algorithms
