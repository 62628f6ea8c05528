// The device's secure-aggregation input, encoded once
// (sdk/src/client/secagg_input_record.cc): a device rebooted mid-round gets
// the SAME words back and draws no new noise, even though a fresh encoding
// with its new random stream would differ; another round encodes anew; a
// corrupt record, a record of this round with another length and a failed
// write are refused without a new encoding and leave the words zeroized.
// Portable (static arrays only).
#include "edgeadmm/secagg_input_record.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 50;
constexpr size_t kPadded = 64;
constexpr const char* kKey = "secagg-input";

// One device: its DRBG (seeded per boot), encoder scratch and record buffer.
struct Device {
  explicit Device(uint64_t boot_seed) : entropy(boot_seed) {
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  }
  DdgEncoderScratch scratch() {
    return {Span<Real>(real, kPadded), Span<int64_t>(ints, kPadded),
            Span<uint32_t>(signs, DdgSignWords(kPadded))};
  }
  Status Encode(const SecureAggregationTask& task, SecAggInputRound round,
                Storage& storage, bool& encoded) {
    return EncodeSecAggInputOnce(task, round, Span<const Real>(update, kDim),
                                 drbg, scratch(), storage, kKey,
                                 ByteSpan(record, sizeof(record)),
                                 Span<uint32_t>(words, kPadded), encoded);
  }
  TestEntropy entropy;
  Drbg drbg;
  Real update[kDim] = {};
  Real real[kPadded];
  int64_t ints[kPadded];
  uint32_t signs[DdgSignWords(kPadded)];
  std::byte record[SecAggInputRecordBytes(kPadded)];
  uint32_t words[kPadded] = {};
};

SecureAggregationTask Task() {
  SecureAggregationTask task;
  task.enabled = true;
  task.plan.bits = 12;
  task.plan.gamma = 1.0 / 64;
  task.plan.sigma2_num = 4;
  task.plan.sigma2_den = 1;
  task.plan.beta = std::exp(-0.5);
  task.plan.dimension = kDim;
  task.plan.clip = 1;
  for (size_t i = 0; i < 32; ++i) {
    task.rotation_seed[i] = static_cast<std::byte>(5 * i + 1);
  }
  return task;
}

void Fill(Real* update) {
  for (size_t i = 0; i < kDim; ++i) {
    update[i] = static_cast<Real>((i % 7) / 32.0 - 0.09);
  }
}

bool AllZero(const uint32_t* words) {
  for (size_t i = 0; i < kPadded; ++i) {
    if (words[i] != 0) return false;
  }
  return true;
}

class SecAggInputRecordTest : public ::testing::Test {
 protected:
  std::byte memory_[4 * 1024];
  MemoryStorage storage_{ByteSpan(memory_, sizeof(memory_))};
  const SecAggInputRound round_{7, 3};
};

TEST_F(SecAggInputRecordTest, RebootMidRoundGivesTheSameWords) {
  ASSERT_EQ(DdgPaddedDimension(kDim), kPadded);
  Device first(1);
  Fill(first.update);
  bool encoded = false;
  ASSERT_TRUE(first.Encode(Task(), round_, storage_, encoded).ok());
  EXPECT_TRUE(encoded);
  EXPECT_EQ(storage_.write_count(), 1u);

  // The reboot: a new DRBG stream. Encoding afresh would give other words
  // (the noise), so equality below shows the record was used.
  Device fresh(2);
  Fill(fresh.update);
  uint32_t other[kPadded];
  ASSERT_TRUE(DdgEncodeUpdate(Task().plan, Task().seed(), round_.round_id,
                              Span<const Real>(fresh.update, kDim), fresh.drbg,
                              fresh.scratch(), Span<uint32_t>(other, kPadded))
                  .ok());
  EXPECT_NE(std::memcmp(other, first.words, sizeof(other)), 0);

  Device rebooted(2);
  ASSERT_TRUE(rebooted.Encode(Task(), round_, storage_, encoded).ok());
  EXPECT_FALSE(encoded);
  EXPECT_EQ(std::memcmp(rebooted.words, first.words, sizeof(first.words)), 0);
  EXPECT_EQ(storage_.write_count(), 1u);  // nothing written again
}

TEST_F(SecAggInputRecordTest, AnotherRoundEncodesAnew) {
  Device device(1);
  Fill(device.update);
  bool encoded = false;
  ASSERT_TRUE(device.Encode(Task(), round_, storage_, encoded).ok());
  uint32_t before[kPadded];
  std::memcpy(before, device.words, sizeof(before));
  ASSERT_TRUE(device.Encode(Task(), {7, 4}, storage_, encoded).ok());
  EXPECT_TRUE(encoded);
  EXPECT_NE(std::memcmp(before, device.words, sizeof(before)), 0);
  // The record now belongs to round 4: round 3's words are gone.
  uint32_t words[kPadded];
  std::byte buffer[SecAggInputRecordBytes(kPadded)];
  EXPECT_EQ(
      LoadSecAggInput(storage_, kKey, round_, ByteSpan(buffer, sizeof(buffer)),
                      Span<uint32_t>(words, kPadded)),
      Status::NotFound());
}

TEST_F(SecAggInputRecordTest, CorruptRecordIsRefusedNotReplaced) {
  Device device(1);
  Fill(device.update);
  bool encoded = false;
  ASSERT_TRUE(device.Encode(Task(), round_, storage_, encoded).ok());
  std::byte stored[SecAggInputRecordBytes(kPadded)];
  const StatusWithSize read =
      storage_.Read(kKey, ByteSpan(stored, sizeof(stored)));
  ASSERT_TRUE(read.ok());
  stored[40] ^= std::byte{1};  // one word's bit: the CRC no longer matches
  ASSERT_TRUE(storage_.Write(kKey, ConstByteSpan(stored, read.size())).ok());

  Device rebooted(2);
  EXPECT_EQ(rebooted.Encode(Task(), round_, storage_, encoded),
            Status::DataLoss());
  EXPECT_FALSE(encoded);
  EXPECT_TRUE(AllZero(rebooted.words));
  std::byte after[SecAggInputRecordBytes(kPadded)];
  ASSERT_TRUE(storage_.Read(kKey, ByteSpan(after, sizeof(after))).ok());
  EXPECT_EQ(std::memcmp(after, stored, read.size()), 0);  // kept as it was
}

TEST_F(SecAggInputRecordTest, ThisRoundWithAnotherLengthIsRefused) {
  uint32_t short_words[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::byte buffer[SecAggInputRecordBytes(kPadded)];
  ASSERT_TRUE(StoreSecAggInput(storage_, kKey, round_,
                               ByteSpan(buffer, sizeof(buffer)),
                               Span<const uint32_t>(short_words, 8))
                  .ok());
  Device device(1);
  Fill(device.update);
  bool encoded = true;
  EXPECT_EQ(device.Encode(Task(), round_, storage_, encoded),
            Status::FailedPrecondition());
  EXPECT_FALSE(encoded);
  EXPECT_TRUE(AllZero(device.words));
  // The short record still reads back as itself.
  uint32_t back[8] = {};
  ASSERT_TRUE(LoadSecAggInput(storage_, kKey, round_,
                              ByteSpan(buffer, sizeof(buffer)),
                              Span<uint32_t>(back, 8))
                  .ok());
  EXPECT_EQ(std::memcmp(back, short_words, sizeof(back)), 0);
}

TEST_F(SecAggInputRecordTest, FailedWriteZeroizesAndNextCallEncodes) {
  Device device(1);
  Fill(device.update);
  storage_.FailWrites(1, Status::Unavailable());
  bool encoded = true;
  EXPECT_EQ(device.Encode(Task(), round_, storage_, encoded),
            Status::Unavailable());
  EXPECT_FALSE(encoded);
  EXPECT_TRUE(AllZero(device.words));
  ASSERT_TRUE(device.Encode(Task(), round_, storage_, encoded).ok());
  EXPECT_TRUE(encoded);
  EXPECT_FALSE(AllZero(device.words));
}

TEST_F(SecAggInputRecordTest, TaskWithoutPlanIsRefused) {
  Device device(1);
  Fill(device.update);
  bool encoded = true;
  EXPECT_EQ(device.Encode(SecureAggregationTask(), round_, storage_, encoded),
            Status::InvalidArgument());
  EXPECT_EQ(storage_.write_count(), 0u);
}

TEST(SecAggEncodeBytes, CountsTheFourBuffers) {
  EXPECT_EQ(SecAggEncodeBytes(64), 64 * sizeof(Real) + 64 * 8 + 2 * 4 + 64 * 4);
  EXPECT_EQ(SecAggInputRecordBytes(64), 36u + 256u);
}

}  // namespace
}  // namespace edgeadmm
