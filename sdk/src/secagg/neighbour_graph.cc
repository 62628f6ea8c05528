// The SecAgg+ neighbour graph: a Harary graph on Feistel-permuted devices
// (see neighbour_graph.h).
#include "edgeadmm/secagg/neighbour_graph.h"

#include "edgeadmm/result.h"

namespace edgeadmm {
namespace {

constexpr uint32_t kFeistelRounds = 4;
constexpr unsigned char kGraphLabel = 0x47;  // 'G': the PRF's domain

uint32_t CeilLog2(uint32_t n) {
  uint32_t bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) < n) {
    ++bits;
  }
  return bits;
}

}  // namespace

NeighbourGraph::NeighbourGraph() { mbedtls_aes_init(&aes_); }

NeighbourGraph::~NeighbourGraph() { mbedtls_aes_free(&aes_); }

Status NeighbourGraph::Init(ConstByteSpan seed, uint32_t devices,
                            uint32_t degree) {
  ready_ = false;
  const bool complete = uint64_t{degree} + 1 >= devices;
  if (seed.size() != kGraphSeedBytes || devices < 2 ||
      devices > (uint32_t{1} << 31) || degree == 0 ||
      (!complete && degree % 2 != 0) ||
      (complete ? devices - 1 : degree) > kSecAggMaxNeighbours) {
    return Status::InvalidArgument();
  }
  if (mbedtls_aes_setkey_enc(
          &aes_, reinterpret_cast<const unsigned char*>(seed.data()),
          8 * kGraphSeedBytes) != 0) {
    return Status::Internal();
  }
  devices_ = devices;
  degree_ = complete ? devices - 1 : degree;
  uint32_t bits = CeilLog2(devices);
  bits += bits % 2;
  half_bits_ = bits < 2 ? 1 : bits / 2;
  ready_ = true;
  return Status::Ok();
}

// F(round, half): the first 4 bytes of AES(seed, label || round || half),
// reduced to half_bits_ bits.
uint32_t NeighbourGraph::Round(uint32_t round, uint32_t half) const {
  unsigned char block[16] = {};
  block[0] = kGraphLabel;
  block[1] = static_cast<unsigned char>(round);
  for (int i = 0; i < 4; ++i) {
    block[2 + i] = static_cast<unsigned char>(half >> (24 - 8 * i));
  }
  unsigned char out[16];
  // A context set up by Init cannot fail to encrypt one block.
  mbedtls_aes_crypt_ecb(const_cast<mbedtls_aes_context*>(&aes_),
                        MBEDTLS_AES_ENCRYPT, block, out);
  const uint32_t word = uint32_t{out[0]} | (uint32_t{out[1]} << 8) |
                        (uint32_t{out[2]} << 16) | (uint32_t{out[3]} << 24);
  return word & ((uint32_t{1} << half_bits_) - 1);
}

uint32_t NeighbourGraph::Encrypt(uint32_t x) const {
  const uint32_t mask = (uint32_t{1} << half_bits_) - 1;
  uint32_t left = x >> half_bits_;
  uint32_t right = x & mask;
  for (uint32_t r = 0; r < kFeistelRounds; ++r) {
    const uint32_t next = left ^ Round(r, right);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint32_t NeighbourGraph::Decrypt(uint32_t x) const {
  const uint32_t mask = (uint32_t{1} << half_bits_) - 1;
  uint32_t left = x >> half_bits_;
  uint32_t right = x & mask;
  for (uint32_t r = kFeistelRounds; r-- > 0;) {
    const uint32_t previous = right ^ Round(r, left);
    right = left;
    left = previous;
  }
  return (left << half_bits_) | right;
}

// Cycle-walking: the domain has fewer than 4n points, so a walk ends after
// fewer than 4 steps on average.
uint32_t NeighbourGraph::Walk(uint32_t x, bool forward) const {
  do {
    x = forward ? Encrypt(x) : Decrypt(x);
  } while (x >= devices_);
  return x;
}

Status NeighbourGraph::Position(uint32_t device, uint32_t& position) const {
  if (!ready_ || device >= devices_) {
    return Status::InvalidArgument();
  }
  position = Walk(device, true);
  return Status::Ok();
}

Status NeighbourGraph::DeviceAt(uint32_t position, uint32_t& device) const {
  if (!ready_ || position >= devices_) {
    return Status::InvalidArgument();
  }
  device = Walk(position, false);
  return Status::Ok();
}

Status NeighbourGraph::Neighbours(uint32_t device, Span<uint32_t> out) const {
  if (!ready_ || device >= devices_ || out.size() < degree_) {
    return Status::InvalidArgument();
  }
  size_t count = 0;
  if (degree_ + 1 == devices_) {
    for (uint32_t j = 0; j < devices_; ++j) {
      if (j != device) out[count++] = j;
    }
    return Status::Ok();
  }
  uint32_t p = 0;
  EDGEADMM_TRY(Position(device, p));
  for (uint32_t d = 1; d <= degree_ / 2; ++d) {
    EDGEADMM_TRY(DeviceAt((p + d) % devices_, out[count++]));
    EDGEADMM_TRY(DeviceAt((p + devices_ - d) % devices_, out[count++]));
  }
  for (size_t i = 1; i < count; ++i) {  // insertion sort, k <= 254
    const uint32_t v = out[i];
    size_t j = i;
    for (; j > 0 && out[j - 1] > v; --j) {
      out[j] = out[j - 1];
    }
    out[j] = v;
  }
  return Status::Ok();
}

bool NeighbourGraph::Adjacent(uint32_t a, uint32_t b) const {
  uint32_t pa = 0;
  uint32_t pb = 0;
  if (a == b || !Position(a, pa).ok() || !Position(b, pb).ok()) {
    return false;
  }
  if (degree_ + 1 == devices_) {
    return true;
  }
  const uint32_t forward = (pb + devices_ - pa) % devices_;
  const uint32_t distance =
      forward < devices_ - forward ? forward : devices_ - forward;
  return distance <= degree_ / 2;
}

}  // namespace edgeadmm
