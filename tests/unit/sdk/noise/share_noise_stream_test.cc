// ShareNoiseStream on every target (the Cortex-M4F under QEMU included):
// row i's noise depends on the key and i only, so any block partition and
// any repeat gives the same bits; different keys give different noise; the
// draws are standard normals scaled by σ.
#include "edgeadmm/share_noise_stream.h"

#include <cmath>
#include <limits>

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

// Noise of rows [0, kRows) produced in blocks of `block` rows.
void Blocks(const Key& key, size_t block, Real* out) {
  for (size_t i = 0; i < kRows; ++i) out[i] = 0;
  for (size_t first = 0; first < kRows; first += block) {
    const size_t b = block < kRows - first ? block : kRows - first;
    ASSERT_TRUE(ShareNoiseStream::AddNoise(key.span(), 1.5, first,
                                           Span<Real>(out + first, b))
                    .ok());
  }
}

TEST(ShareNoiseStreamTest, EveryBlockPartitionGivesTheSameBits) {
  const Key key(7);
  static Real whole[kRows];
  static Real streamed[kRows];
  Blocks(key, kRows, whole);
  for (const size_t block : {size_t{1}, size_t{3}, size_t{63}, size_t{64},
                             size_t{65}, size_t{100}}) {
    Blocks(key, block, streamed);
    for (size_t i = 0; i < kRows; ++i) {
      ASSERT_EQ(streamed[i], whole[i]) << "block " << block << " row " << i;
    }
  }
  // Rows are not all equal (the stream moves on within a chunk and between
  // chunks).
  EXPECT_NE(whole[0], whole[1]);
  EXPECT_NE(whole[0], whole[ShareNoiseStream::kChunkRows]);
}

TEST(ShareNoiseStreamTest, AddsToTheValuesAndZeroSigmaDrawsNothing) {
  const Key key(7);
  Real base[5] = {1, 2, 3, 4, 5};
  Real noise[5] = {0, 0, 0, 0, 0};
  ASSERT_TRUE(
      ShareNoiseStream::AddNoise(key.span(), 0.5, 70, Span<Real>(base, 5))
          .ok());
  ASSERT_TRUE(
      ShareNoiseStream::AddNoise(key.span(), 0.5, 70, Span<Real>(noise, 5))
          .ok());
  // Each sum is rounded once to Real (exact in double at these values).
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(base[i], (i + 1) + noise[i],
                8 * double{std::numeric_limits<Real>::epsilon()});
  }
  Real same[2] = {1, 2};
  ASSERT_TRUE(
      ShareNoiseStream::AddNoise(key.span(), 0, 0, Span<Real>(same, 2)).ok());
  EXPECT_EQ(same[0], 1);
  EXPECT_EQ(same[1], 2);
}

TEST(ShareNoiseStreamTest, AnotherKeyGivesOtherNoise) {
  static Real a[kRows];
  static Real b[kRows];
  Blocks(Key(7), kRows, a);
  Blocks(Key(8), kRows, b);
  size_t equal = 0;
  for (size_t i = 0; i < kRows; ++i) equal += a[i] == b[i] ? 1 : 0;
  EXPECT_EQ(equal, 0u);
}

TEST(ShareNoiseStreamTest, DrawsAreStandardNormalsScaledBySigma) {
  // 4,096 rows at σ = 2: the mean within 5 standard errors of 0 and the
  // variance within 10% of σ² (both fail with negligible probability for
  // correct draws, and for σ or the scaling off by 10%).
  constexpr size_t kN = 4096;
  static Real v[kN];
  for (size_t i = 0; i < kN; ++i) v[i] = 0;
  const Key key(42);
  ASSERT_TRUE(
      ShareNoiseStream::AddNoise(key.span(), 2.0, 0, Span<Real>(v, kN)).ok());
  Real sum = 0;
  Real sum_sq = 0;
  for (size_t i = 0; i < kN; ++i) {
    sum += v[i];
    sum_sq += v[i] * v[i];
  }
  const Real mean = sum / kN;
  const Real var = sum_sq / kN - mean * mean;
  EXPECT_LT(std::fabs(mean), 5 * 2.0 / std::sqrt(Real(kN)));
  EXPECT_NEAR(var, 4.0, 0.4);
}

TEST(ShareNoiseStreamTest, RefusesBadArguments) {
  const Key key(1);
  Real v[2] = {0, 0};
  std::byte short_key[16] = {};
  EXPECT_EQ(ShareNoiseStream::AddNoise(ConstByteSpan(short_key, 16), 1, 0,
                                       Span<Real>(v, 2))
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ShareNoiseStream::AddNoise(key.span(), -1, 0, Span<Real>(v, 2)).code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ShareNoiseStream::AddNoise(key.span(), NAN, 0, Span<Real>(v, 2)).code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ShareNoiseStream::AddNoise(key.span(), 1, SIZE_MAX, Span<Real>(v, 2))
          .code(),
      StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm
