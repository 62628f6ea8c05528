#include "edgeadmm/store/blob.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace edgeadmm::store {
namespace {

// The memcpy paths copy the host's representation: it must be IEEE-754 of
// the sizes the BLOBs use (and little-endian, kHostIsLittleEndian).
static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8,
              "BLOBs hold IEEE-754 binary64");
static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "BLOBs hold IEEE-754 binary32");

template <typename Bits>
void StoreLittleEndian(Bits bits, uint8_t* out) {
  for (size_t i = 0; i < sizeof(Bits); ++i) {
    out[i] = static_cast<uint8_t>(bits >> (8 * i));
  }
}

template <typename Bits>
Bits LoadLittleEndian(const uint8_t* in) {
  if constexpr (kHostIsLittleEndian) {
    Bits bits;
    std::memcpy(&bits, in, sizeof(bits));
    return bits;
  }
  Bits bits = 0;
  for (size_t i = 0; i < sizeof(Bits); ++i) {
    bits |= static_cast<Bits>(static_cast<Bits>(in[i]) << (8 * i));
  }
  return bits;
}

}  // namespace

namespace internal {

std::vector<uint8_t> EncodeDoublesBytewise(const std::vector<double>& values) {
  std::vector<uint8_t> out(values.size() * 8);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits;
    std::memcpy(&bits, &values[i], sizeof(bits));
    StoreLittleEndian(bits, &out[8 * i]);
  }
  return out;
}

std::vector<uint8_t> EncodeFloatsBytewise(const std::vector<double>& values) {
  std::vector<uint8_t> out(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    StoreLittleEndian(bits, &out[4 * i]);
  }
  return out;
}

}  // namespace internal

std::vector<uint8_t> EncodeDoubles(const std::vector<double>& values) {
  if constexpr (!kHostIsLittleEndian) {
    return internal::EncodeDoublesBytewise(values);
  }
  // One copy instead of a push_back per byte (12 % of the round commit's
  // instructions with 201 ledger curves per round).
  std::vector<uint8_t> out(values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Result<std::vector<double>> DecodeDoubles(const std::vector<uint8_t>& bytes) {
  if (bytes.size() % 8 != 0) return Status::DataLoss();
  std::vector<double> values(bytes.size() / 8);
  if constexpr (kHostIsLittleEndian) {
    if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = LoadLittleEndian<uint64_t>(&bytes[8 * i]);
    std::memcpy(&values[i], &bits, sizeof(bits));
  }
  return values;
}

std::vector<uint8_t> EncodeFloats(const std::vector<double>& values) {
  if constexpr (!kHostIsLittleEndian) {
    return internal::EncodeFloatsBytewise(values);
  }
  std::vector<uint8_t> out(values.size() * sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    std::memcpy(&out[4 * i], &f, sizeof(f));
  }
  return out;
}

Result<std::vector<double>> DecodeFloats(const std::vector<uint8_t>& bytes) {
  if (bytes.size() % 4 != 0) return Status::DataLoss();
  std::vector<double> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = LoadLittleEndian<uint32_t>(&bytes[4 * i]);
    float f;
    std::memcpy(&f, &bits, sizeof(bits));
    if (!std::isfinite(f)) return Status::DataLoss();
    values[i] = f;
  }
  return values;
}

}  // namespace edgeadmm::store
