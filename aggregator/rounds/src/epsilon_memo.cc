#include "edgeadmm/rounds/epsilon_memo.h"

#include <functional>
#include <string_view>

namespace edgeadmm::rounds {
namespace {

std::string_view Bytes(const std::vector<double>& v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()),
                          v.size() * sizeof(double));
}

}  // namespace

size_t EpsilonMemo::CurveBytes::operator()(const std::vector<double>& v) const {
  return std::hash<std::string_view>()(Bytes(v));
}

bool EpsilonMemo::CurveBytes::operator()(const std::vector<double>& a,
                                         const std::vector<double>& b) const {
  return Bytes(a) == Bytes(b);
}

double EpsilonMemo::Epsilon(const std::vector<double>& rdp) {
  auto it = epsilon_.find(rdp);
  if (it != epsilon_.end()) return it->second;
  const double epsilon = accountant_->Epsilon(rdp, delta_);
  ++conversions_;
  if (epsilon_.size() >= kMaxCurves) epsilon_.clear();
  epsilon_.emplace(rdp, epsilon);
  return epsilon;
}

}  // namespace edgeadmm::rounds
