// ShareNoiseStream on every target (the Cortex-M4F under QEMU included):
// row i's integer depends on the key and i only, so any block partition and
// any repeat gives the same integers (golden values, the same on every
// target: the sampler is integer-only); different keys give different
// integers; the integers follow N_Z(0, 4^kNoiseGridBits) (chi-square).
#include "edgeadmm/share_noise_stream.h"

#include <cmath>
#include <cstdint>

#include "edgeadmm/grid_gaussian.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kRows = 3 * ShareNoiseStream::kChunkRows + 5;

struct Key {
  std::byte bytes[ShareNoiseStream::kKeyBytes];
  explicit Key(uint8_t seed) {
    for (size_t i = 0; i < sizeof(bytes); ++i) {
      bytes[i] = static_cast<std::byte>(seed + 31 * i);
    }
  }
  ConstByteSpan span() const { return ConstByteSpan(bytes, sizeof(bytes)); }
};

// Integers of rows [0, kRows) produced in blocks of `block` rows, each
// block from a stream opened at its first row.
void Blocks(const Key& key, size_t block, int64_t* out) {
  for (size_t first = 0; first < kRows; first += block) {
    const size_t b = block < kRows - first ? block : kRows - first;
    ShareNoiseStream stream;
    ASSERT_TRUE(stream.Open(key.span(), first).ok());
    for (size_t j = 0; j < b; ++j) {
      const Result<int64_t> k = stream.Next();
      ASSERT_TRUE(k.ok());
      out[first + j] = *k;
    }
  }
}

TEST(ShareNoiseStreamTest, EveryBlockPartitionGivesTheSameGoldenIntegers) {
  const Key key(7);
  static int64_t whole[kRows];
  static int64_t streamed[kRows];
  Blocks(key, kRows, whole);
  // Golden: rows 0..3 and 64..67 under Key(7) (host and Cortex-M4F alike).
  const int64_t golden_head[4] = {44, -337, -42, 559};
  const int64_t golden_chunk1[4] = {-1571, -519, -168, 564};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(whole[i], golden_head[i]) << i;
    EXPECT_EQ(whole[ShareNoiseStream::kChunkRows + i], golden_chunk1[i]) << i;
  }
  for (const size_t block : {size_t{1}, size_t{3}, size_t{63}, size_t{64},
                             size_t{65}, size_t{100}}) {
    Blocks(key, block, streamed);
    for (size_t i = 0; i < kRows; ++i) {
      ASSERT_EQ(streamed[i], whole[i]) << "block " << block << " row " << i;
    }
  }
}

TEST(ShareNoiseStreamTest, AResentBlockRepeatsItsIntegers) {
  const Key key(9);
  int64_t first[10];
  int64_t again[10];
  for (int64_t* out : {first, again}) {
    ShareNoiseStream stream;
    ASSERT_TRUE(stream.Open(key.span(), 70).ok());
    for (size_t j = 0; j < 10; ++j) {
      const Result<int64_t> k = stream.Next();
      ASSERT_TRUE(k.ok());
      out[j] = *k;
    }
  }
  for (size_t j = 0; j < 10; ++j) EXPECT_EQ(first[j], again[j]) << j;
  // The stream moves on within a chunk.
  EXPECT_NE(first[0], first[1]);
}

TEST(ShareNoiseStreamTest, AnotherKeyGivesOtherIntegers) {
  static int64_t a[kRows];
  static int64_t b[kRows];
  Blocks(Key(7), kRows, a);
  Blocks(Key(8), kRows, b);
  size_t equal = 0;
  for (size_t i = 0; i < kRows; ++i) equal += a[i] == b[i] ? 1 : 0;
  // σ = 1024: two independent draws agree with probability ~1/3600.
  EXPECT_LE(equal, 2u);
}

// χ² of bin counts of k/σ against the discrete Gaussian of std `sigma`
// (bins of width σ0/2 on [−2.5σ0, 2.5σ0] and two tails; σ0 = 1024).
double ChiSquare(const uint32_t (&counts)[12], uint32_t n, double sigma) {
  const double s0 = 1024;
  double mass[12] = {};
  double total = 0;
  for (int64_t k = -12 * 1024; k <= 12 * 1024; ++k) {
    const double p = std::exp(-double(k) * double(k) / (2 * sigma * sigma));
    const double z = double(k) / s0;
    int bin = z < -2.5 ? 0 : z >= 2.5 ? 11 : 1 + int(std::floor((z + 2.5) * 2));
    mass[bin] += p;
    total += p;
  }
  double chi2 = 0;
  for (int b = 0; b < 12; ++b) {
    const double expected = n * mass[b] / total;
    chi2 += (counts[b] - expected) * (counts[b] - expected) / expected;
  }
  return chi2;
}

TEST(ShareNoiseStreamTest, IntegersFollowTheDiscreteGaussian) {
  constexpr uint32_t kN = 8192;
  uint32_t counts[12] = {};
  ShareNoiseStream stream;
  ASSERT_TRUE(stream.Open(Key(42).span(), 0).ok());
  double sum = 0;
  for (uint32_t i = 0; i < kN; ++i) {
    const Result<int64_t> k = stream.Next();
    ASSERT_TRUE(k.ok());
    sum += double(*k);
    const double z = double(*k) / 1024;
    const int bin = z < -2.5   ? 0
                    : z >= 2.5 ? 11
                               : 1 + int(std::floor((z + 2.5) * 2));
    ++counts[bin];
  }
  // 11 degrees of freedom: P(χ² > 50) ≈ 6e-7 for the right law.
  const double right = ChiSquare(counts, kN, 1024);
  const double wide = ChiSquare(counts, kN, 1.1 * 1024);
  // Host: 10.07 and 127.67.
  EXPECT_LT(right, 50) << "wider law: " << wide;
  EXPECT_LT(std::fabs(sum / kN), 5 * 1024 / std::sqrt(double(kN)));
  // The test has power: the same counts against a law 10% wider fail it.
  EXPECT_GT(wide, 50) << "law: " << right;
}

TEST(ShareNoiseStreamTest, RefusesBadArguments) {
  std::byte short_key[16] = {};
  ShareNoiseStream stream;
  EXPECT_EQ(stream.Next().status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(stream.Open(ConstByteSpan(short_key, 16), 0).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(stream.Next().status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace edgeadmm
