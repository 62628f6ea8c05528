// CurveBytes: hash and equality of RDP curves by their bytes, for the tables
// that keep one entry per distinct curve (EpsilonMemo, SharedCurves). Equal
// means equal bit for bit: -0.0 and 0.0 differ, which costs those tables
// only a second entry.
#pragma once

#include <cstddef>
#include <vector>

namespace edgeadmm::rounds {

struct CurveBytes {
  size_t operator()(const std::vector<double>& curve) const;
  bool operator()(const std::vector<double>& a,
                  const std::vector<double>& b) const;
};

}  // namespace edgeadmm::rounds
