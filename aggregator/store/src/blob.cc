#include "edgeadmm/store/blob.h"

#include <cmath>
#include <cstring>

namespace edgeadmm::store {
namespace {

template <typename Bits>
void AppendLittleEndian(Bits bits, std::vector<uint8_t>& out) {
  for (size_t i = 0; i < sizeof(Bits); ++i) {
    out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  }
}

template <typename Bits>
Bits ReadLittleEndian(const uint8_t* in) {
  Bits bits = 0;
  for (size_t i = 0; i < sizeof(Bits); ++i) {
    bits |= static_cast<Bits>(static_cast<Bits>(in[i]) << (8 * i));
  }
  return bits;
}

}  // namespace

std::vector<uint8_t> EncodeDoubles(const std::vector<double>& values) {
  std::vector<uint8_t> out;
  out.reserve(values.size() * 8);
  for (double v : values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    AppendLittleEndian(bits, out);
  }
  return out;
}

Result<std::vector<double>> DecodeDoubles(const std::vector<uint8_t>& bytes) {
  if (bytes.size() % 8 != 0) return Status::DataLoss();
  std::vector<double> values(bytes.size() / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = ReadLittleEndian<uint64_t>(&bytes[8 * i]);
    std::memcpy(&values[i], &bits, sizeof(bits));
  }
  return values;
}

std::vector<uint8_t> EncodeFloats(const std::vector<double>& values) {
  std::vector<uint8_t> out;
  out.reserve(values.size() * 4);
  for (double v : values) {
    const float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    AppendLittleEndian(bits, out);
  }
  return out;
}

Result<std::vector<double>> DecodeFloats(const std::vector<uint8_t>& bytes) {
  if (bytes.size() % 4 != 0) return Status::DataLoss();
  std::vector<double> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = ReadLittleEndian<uint32_t>(&bytes[4 * i]);
    float f;
    std::memcpy(&f, &bits, sizeof(bits));
    if (!std::isfinite(f)) return Status::DataLoss();
    values[i] = f;
  }
  return values;
}

}  // namespace edgeadmm::store
