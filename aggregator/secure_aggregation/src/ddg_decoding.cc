#include "edgeadmm/secure_aggregation/ddg_decoding.h"

#include <string>

#include "edgeadmm/real.h"
#include "edgeadmm/secagg/ddg_encoding.h"

namespace edgeadmm::secure_aggregation {

host::ErrorOr<std::vector<double>> DecodeDdgSum(Span<const uint32_t> sum,
                                                const DdgRoundPlan& plan,
                                                ConstByteSpan seed,
                                                uint64_t round_id) {
  if (!ValidateDdgRoundPlan(plan).ok()) {
    return host::Error::InvalidArgument("DDG decoding: invalid round plan");
  }
  const size_t padded = DdgPaddedDimension(plan.dimension);
  if (sum.size() != padded) {
    return host::Error::InvalidArgument(
        "DDG decoding: the sum has " + std::to_string(sum.size()) +
        " words, the plan's padded dimension is " + std::to_string(padded));
  }
  if (seed.size() != 32) {
    return host::Error::InvalidArgument(
        "DDG decoding: the rotation seed must be 32 bytes");
  }
  std::vector<int64_t> centred(padded);
  EDGEADMM_HOST_TRY(CentreFromModulus(
      sum, plan.bits, Span<int64_t>(centred.data(), centred.size())));
  std::vector<Real> scaled(padded);
  for (size_t j = 0; j < padded; ++j) {
    scaled[j] = Real(double(centred[j]) * plan.gamma);
  }
  std::vector<uint32_t> signs(padded / 32 + 1);
  EDGEADMM_HOST_TRY(DdgUnrotate(seed, round_id,
                                Span<Real>(scaled.data(), scaled.size()),
                                Span<uint32_t>(signs.data(), signs.size())));
  return std::vector<double>(scaled.begin(), scaled.begin() + plan.dimension);
}

}  // namespace edgeadmm::secure_aggregation
