#include "edgeadmm/secure_aggregation/neighbour_table.h"

#include <algorithm>

#include "edgeadmm/result.h"

namespace edgeadmm::secure_aggregation {

Status NeighbourTable::Init(const NeighbourGraph& graph) {
  const uint32_t n = graph.devices();
  if (n < 2) return Status::InvalidArgument();
  position_.assign(n, 0);
  device_at_.assign(n, 0);
  for (uint32_t device = 0; device < n; ++device) {
    uint32_t p = 0;
    EDGEADMM_TRY(graph.Position(device, p));
    position_[device] = p;
    device_at_[p] = device;
  }
  degree_ = graph.degree();
  return Status::Ok();
}

std::vector<uint32_t> NeighbourTable::Neighbours(uint32_t device) const {
  const uint32_t n = devices();
  std::vector<uint32_t> out;
  if (device >= n) return out;
  out.reserve(degree_);
  if (degree_ + 1 == n) {  // complete graph
    for (uint32_t j = 0; j < n; ++j) {
      if (j != device) out.push_back(j);
    }
    return out;
  }
  const uint32_t p = position_[device];
  for (uint32_t d = 1; d <= degree_ / 2; ++d) {
    out.push_back(device_at_[(p + d) % n]);
    out.push_back(device_at_[(p + n - d) % n]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool NeighbourTable::Adjacent(uint32_t a, uint32_t b) const {
  const uint32_t n = devices();
  if (a == b || a >= n || b >= n) return false;
  if (degree_ + 1 == n) return true;
  const uint32_t forward = (position_[b] + n - position_[a]) % n;
  return std::min(forward, n - forward) <= degree_ / 2;
}

}  // namespace edgeadmm::secure_aggregation
