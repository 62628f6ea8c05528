// The fleet's paired-seed noise (paired_seed.h): the entropy stream is
// HMAC-SHA-256(seed, label 0 id 0 round counter) (a known answer computed
// with Python's hmac), a function of (seed, device, round) only, restarted
// at each round; unavailable before the first task; the transport decorator
// begins the round of each task it delivers, fetched or observed.
#include "edgeadmm/fleet/paired_seed.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"

namespace edgeadmm::fleet {
namespace {

const std::vector<uint8_t> kSeed = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
                                    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
                                    0xcc, 0xdd, 0xee, 0xff};

std::vector<uint8_t> ReadBytes(PairedSeedEntropy& e, size_t n) {
  std::vector<uint8_t> out(n);
  EXPECT_TRUE(
      e.Read(ByteSpan(reinterpret_cast<std::byte*>(out.data()), n)).ok());
  return out;
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

TEST(PairedSeedEntropyTest, KnownAnswerAcrossTwoBlocks) {
  PairedSeedEntropy e(kSeed, "dev-007");
  e.BeginRound(3);
  // Blocks 0 and 1 of round 3: Python's hmac.new(seed, b"edgeadmm-paired-
  // seed\0dev-007\0" + (3).to_bytes(8, "big") + k.to_bytes(4, "big"),
  // hashlib.sha256), k = 0, 1; read in pieces that cross the block edge.
  const std::string first = Hex(ReadBytes(e, 20));
  const std::string rest = Hex(ReadBytes(e, 20));
  EXPECT_EQ(first + rest,
            "0923d9eda61ccc19e348770f42a21d8b7934e86b9e136d8d54eeda4fc9e579c9"
            "21af7442d3afdf75");
}

TEST(PairedSeedEntropyTest, AFunctionOfSeedDeviceAndRoundOnly) {
  PairedSeedEntropy e(kSeed, "dev-007");
  e.BeginRound(5);
  const std::vector<uint8_t> round5 = ReadBytes(e, 48);
  ReadBytes(e, 100);  // a reseed's worth more, then the round again
  e.BeginRound(5);
  EXPECT_EQ(ReadBytes(e, 48), round5);
  e.BeginRound(6);
  EXPECT_NE(ReadBytes(e, 48), round5);
  PairedSeedEntropy other_device(kSeed, "dev-008");
  other_device.BeginRound(5);
  EXPECT_NE(ReadBytes(other_device, 48), round5);
  std::vector<uint8_t> seed = kSeed;
  seed[0] ^= 1;
  PairedSeedEntropy other_seed(seed, "dev-007");
  other_seed.BeginRound(5);
  EXPECT_NE(ReadBytes(other_seed, 48), round5);
  EXPECT_EQ(e.rounds_begun(), 3u);
}

TEST(PairedSeedEntropyTest, UnavailableBeforeTheFirstRound) {
  PairedSeedEntropy e(kSeed, "dev-007");
  std::byte out[8];
  EXPECT_EQ(e.Read(ByteSpan(out, sizeof(out))), Status::Unavailable());
}

// A transport that answers every fetch and observation with `body`.
class CannedTransport final : public Transport {
 public:
  std::vector<uint8_t> body;
  Status StartRequest(const TransportRequest&, ByteSpan buffer) override {
    pending_ = buffer;
    return Status::Ok();
  }
  bool TakeResult(TransportResult& result) override {
    if (pending_.empty()) return false;
    Answer(pending_, result);
    pending_ = ByteSpan();
    return true;
  }
  void Cancel() override { pending_ = ByteSpan(); }
  Status StartObserve(const char*, ByteSpan buffer) override {
    observed_ = buffer;
    notify_ = true;
    return Status::Ok();
  }
  bool TakeNotification(TransportResult& result) override {
    if (!notify_) return false;
    Answer(observed_, result);
    notify_ = false;
    return true;
  }
  void StopObserve() override {}
  StatusWithSize Poll(uint32_t) override { return StatusWithSize(0); }

 private:
  void Answer(ByteSpan buffer, TransportResult& result) {
    std::memcpy(buffer.data(), body.data(), body.size());
    result.status = Status::Ok();
    result.code = wire::kCoapContent;
    result.payload_size = body.size();
  }
  ByteSpan pending_, observed_;
  bool notify_ = false;
};

std::vector<uint8_t> IdleTask(uint64_t round) {
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  task.job_id = 1;
  task.round_id = round;
  task.role = edgeadmm_wire_Role_ROLE_IDLE;
  std::vector<uint8_t> out(wire::MaxRoundTaskBytes(1));
  const StatusWithSize n = wire::EncodeRoundTask(
      task, Span<const Real>(), Span<const Real>(),
      ByteSpan(reinterpret_cast<std::byte*>(out.data()), out.size()));
  EXPECT_TRUE(n.ok());
  out.resize(n.size());
  return out;
}

TEST(PairedSeedTransportTest, EachDeliveredTaskBeginsItsRound) {
  PairedSeedEntropy expected(kSeed, "dev-001");
  expected.BeginRound(9);
  const std::vector<uint8_t> round9 = ReadBytes(expected, 48);
  expected.BeginRound(10);
  const std::vector<uint8_t> round10 = ReadBytes(expected, 48);

  CannedTransport inner;
  PairedSeedEntropy entropy(kSeed, "dev-001");
  PairedSeedTransport transport(inner, entropy);
  std::vector<std::byte> buffer(256);
  ByteSpan span(buffer.data(), buffer.size());
  TransportResult result;

  inner.body = IdleTask(9);  // observed
  ASSERT_TRUE(transport.StartObserve(wire::kTaskPath, span).ok());
  ASSERT_TRUE(transport.TakeNotification(result));
  EXPECT_EQ(ReadBytes(entropy, 48), round9);

  inner.body = IdleTask(10);  // fetched
  TransportRequest fetch;
  fetch.path = wire::kTaskPath;
  ASSERT_TRUE(transport.StartRequest(fetch, span).ok());
  ASSERT_TRUE(transport.TakeResult(result));
  EXPECT_EQ(ReadBytes(entropy, 48), round10);

  inner.body = {0x01, 0x02, 0x03};  // not a task: the stream goes on
  ASSERT_TRUE(transport.StartRequest(fetch, span).ok());
  ASSERT_TRUE(transport.TakeResult(result));
  EXPECT_NE(ReadBytes(entropy, 48), round10);
  EXPECT_EQ(entropy.rounds_begun(), 2u);
}

}  // namespace
}  // namespace edgeadmm::fleet
