// Gaussian sampler: moments and tail frequencies over 100k draws within
// 5-sigma bounds, a Kolmogorov–Smirnov test against the normal CDF, AddNoise
// scaling and argument checks; the uniform's binade resolution, its DRBG
// consumption and floor on scripted byte streams (scripted_bytes.h), the
// tails beyond the old 8.57 cut, and golden bit patterns for a fixed seed
// (the same on the host and the MCU). Portable (static arrays only).
#include "edgeadmm/gaussian_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "gtest/gtest.h"
#include "scripted_bytes.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

double Draw(GaussianSampler& s) {
  Result<double> z = s.Standard();
  EXPECT_TRUE(z.ok());
  return z.ok() ? *z : 0.0;
}

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Kolmogorov–Smirnov statistic of the sorted sample against N(0, 1).
double KsStatistic(const double* sorted, size_t n) {
  double d = 0;
  for (size_t i = 0; i < n; ++i) {
    const double f = NormalCdf(sorted[i]);
    d = std::max(d, std::max(static_cast<double>(i + 1) / n - f,
                             f - static_cast<double>(i) / n));
  }
  return d;
}

TEST(GaussianSamplerTest, UniformsAreInsideTheOpenInterval) {
  SeededSampler s(1);
  constexpr int kN = 20000;
  double sum = 0;
  for (int i = 0; i < kN; ++i) {
    Result<double> u = s.sampler().Uniform01();
    ASSERT_TRUE(u.ok());
    ASSERT_GT(*u, 0.0);
    ASSERT_LT(*u, 1.0);
    sum += *u;
  }
  // Mean 1/2, std of the mean sqrt(1/12/N).
  EXPECT_NEAR(sum / kN, 0.5, 5 * std::sqrt(1.0 / 12 / kN));
}

TEST(GaussianSamplerTest, MomentsOf100kDrawsAreWithinFiveSigma) {
  SeededSampler s(2024);
  constexpr int kN = 100000;
  double sum = 0, sum2 = 0, sum4 = 0;
  int beyond2 = 0, beyond3 = 0;
  for (int i = 0; i < kN; ++i) {
    const double z = Draw(s.sampler());
    sum += z;
    sum2 += z * z;
    sum4 += z * z * z * z;
    beyond2 += std::fabs(z) > 2;
    beyond3 += std::fabs(z) > 3;
  }
  // Tail frequencies: P(|Z| > t) = erfc(t/√2), binomial standard error.
  for (const auto& [t, count] :
       {std::pair<double, int>{2, beyond2}, {3, beyond3}}) {
    const double p = std::erfc(t / std::sqrt(2.0));
    EXPECT_NEAR(double(count) / kN, p, 5 * std::sqrt(p * (1 - p) / kN)) << t;
  }
  const double mean = sum / kN;
  const double variance = sum2 / kN - mean * mean;
  // Standard errors: mean 1/sqrt(N); variance sqrt(2/N); E z^4 = 3 with
  // Var z^4 = 105 - 9 = 96.
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(double{kN}));
  EXPECT_NEAR(variance, 1.0, 5 * std::sqrt(2.0 / kN));
  EXPECT_NEAR(sum4 / kN, 3.0, 5 * std::sqrt(96.0 / kN));
}

TEST(GaussianSamplerTest, KolmogorovSmirnovAgainstNormalCdf) {
  constexpr size_t kN = 2048;
  static double sample[kN];
  SeededSampler s(77);
  for (double& z : sample) z = Draw(s.sampler());
  std::sort(sample, sample + kN);
  // Critical value at α = 0.001: K(0.999) / sqrt(n), K = 1.94947.
  const double critical = 1.94947 / std::sqrt(double{kN});
  EXPECT_LT(KsStatistic(sample, kN), critical);
  // The same test rejects a sample shifted by 0.2 (power check).
  for (double& z : sample) z += 0.2;
  EXPECT_GT(KsStatistic(sample, kN), critical);
}

TEST(GaussianSamplerTest, AddNoiseScalesByStddev) {
  SeededSampler a(5), b(5);
  constexpr size_t kN = 64;
  Real unit[kN] = {};
  Real scaled[kN];
  for (Real& x : scaled) x = 10.0;
  ASSERT_TRUE(a.sampler().AddNoise(1.0, Span<Real>(unit, kN)).ok());
  ASSERT_TRUE(b.sampler().AddNoise(2.5, Span<Real>(scaled, kN)).ok());
  int nonzero = 0;
  for (size_t i = 0; i < kN; ++i) {
    // Each value is rounded once to Real (a float build: ~1e-6 of 10).
    EXPECT_NEAR(scaled[i] - 10.0, 2.5 * unit[i],
                1e-12 + 64 * double{std::numeric_limits<Real>::epsilon()});
    nonzero += unit[i] != 0;
  }
  EXPECT_EQ(nonzero, static_cast<int>(kN));
}

TEST(GaussianSamplerTest, AddNoiseHasTheRequestedSpread) {
  SeededSampler s(6);
  constexpr size_t kN = 2048;
  static Real v[kN];
  for (Real& x : v) x = -1.0;
  ASSERT_TRUE(s.sampler().AddNoise(3.0, Span<Real>(v, kN)).ok());
  double sum = 0, sum2 = 0;
  for (const Real x : v) {
    sum += double{x} + 1.0;
    sum2 += (double{x} + 1.0) * (double{x} + 1.0);
  }
  EXPECT_NEAR(sum / kN, 0.0, 5 * 3.0 / std::sqrt(double{kN}));
  EXPECT_NEAR(sum2 / kN, 9.0, 5 * 9.0 * std::sqrt(2.0 / kN));
}

TEST(GaussianSamplerTest, AddNoiseRejectsBadStddevAndSkipsZero) {
  SeededSampler s(7);
  Real v[3] = {1.0, 2.0, 3.0};
  EXPECT_EQ(s.sampler().AddNoise(-1.0, v), Status::InvalidArgument());
  EXPECT_EQ(s.sampler().AddNoise(std::nan(""), v), Status::InvalidArgument());
  EXPECT_EQ(s.sampler().AddNoise(INFINITY, v), Status::InvalidArgument());
  EXPECT_TRUE(s.sampler().AddNoise(0.0, v).ok());
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], 2.0);
  EXPECT_EQ(v[2], 3.0);
}

TEST(GaussianSamplerTest, SameSeedSameNoise) {
  SeededSampler a(8), b(8), c(9);
  for (int i = 0; i < 100; ++i) {
    const double za = Draw(a.sampler());
    EXPECT_EQ(za, Draw(b.sampler()));
    EXPECT_NE(za, Draw(c.sampler()));
  }
}

// Exact IEEE-754 bits of a double (for golden values).
uint64_t Bits(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}

double Uniform(GaussianSampler& s) {
  Result<double> u = s.Uniform01();
  EXPECT_TRUE(u.ok());
  return u.ok() ? *u : -1.0;
}

// The old uniform was k·2^-53: every draw a multiple of 2^-53. Now a draw in
// [2^-(e+1), 2^-e) has ulp 2^-(53+e), so it is off that grid with
// probability Σ_{e≥1} 2^-(e+1)(1 − 2^-e) = 1/3.
TEST(GaussianSamplerTest, UniformsHaveFullResolutionInEveryBinade) {
  SeededSampler s(3);
  constexpr int kN = 20000;
  int off_grid = 0;
  for (int i = 0; i < kN; ++i) {
    const double u = Uniform(s.sampler());
    off_grid += std::ldexp(u, 53) != std::floor(std::ldexp(u, 53));
  }
  EXPECT_NEAR(double(off_grid) / kN, 1.0 / 3,
              5 * std::sqrt(1.0 / 3 * 2.0 / 3 / kN));
}

// Word consumption: a word with ≤ 11 leading zeros is one whole uniform
// (w·2^-64 truncated to 53 significant bits); with 12 to 63 leading zeros
// the mantissa is the top 52 bits of the next word; 0x8000... is 1/2.
TEST(GaussianSamplerTest, UniformTakesOneWordUnlessTwelveLeadingZeros) {
  static const uint64_t kWords[] = {
      0x0010000000000001u,  // clz 11: (2^52 + 1)·2^-64, exactly
      0x0008000000000000u,  // clz 12: 2^-13 · (1 + mantissa·2^-52) ...
      0xffffffffffffffffu,  // ... mantissa = 2^52 − 1 from this word
      0x8000000000000000u,  // 1/2
  };
  ScriptedBytes bytes(kWords);
  GaussianSampler s(bytes);
  EXPECT_EQ(Uniform(s), std::ldexp(double(0x10000000000001u), -64));
  EXPECT_EQ(Uniform(s), std::ldexp(2.0 - std::ldexp(1.0, -52), -13));
  EXPECT_EQ(Uniform(s), 0.5);
}

// Reference: the specification read bit by bit (most significant bit of
// each little-endian word first) on the same DRBG bytes: count zero bits e
// up to the first one (restart from the next word at 1022), then 52 bits m
// from the rest of that word, or from the top of the next word if fewer
// than 52 remain; the next uniform starts at a fresh word.
class BitByBitUniform {
 public:
  explicit BitByBitUniform(Drbg& drbg) : drbg_(drbg) {}

  double Next() {
    while (true) {
      NextWord();
      int e = 0;
      while (e < 1022 && TakeBit() == 0) {
        if (left_ == 0) NextWord();
        ++e;
      }
      if (e == 1022) continue;  // the rest of this word is dropped
      if (left_ < 52) NextWord();
      uint64_t m = 0;
      for (int i = 0; i < 52; ++i) m = (m << 1) | TakeBit();
      return std::ldexp(1.0 + std::ldexp(double(m), -52), -(e + 1));
    }
  }

 private:
  void NextWord() {
    if (used_ == sizeof(block_)) {
      EXPECT_TRUE(drbg_.Generate(ByteSpan(block_, sizeof(block_))).ok());
      used_ = 0;
    }
    word_ = 0;
    for (int i = 0; i < 8; ++i) {
      word_ |= uint64_t(static_cast<uint8_t>(block_[used_ + i])) << (8 * i);
    }
    used_ += 8;
    left_ = 64;
  }
  uint64_t TakeBit() { return (word_ >> --left_) & 1; }

  Drbg& drbg_;
  std::byte block_[GaussianSampler::kBufferBytes];
  size_t used_ = sizeof(block_);
  uint64_t word_ = 0;
  int left_ = 0;
};

TEST(GaussianSamplerTest, UniformsMatchABitByBitReference) {
  TestEntropy entropy(11);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  BitByBitUniform reference(drbg);
  SeededSampler s(11);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(Bits(Uniform(s.sampler())), Bits(reference.Next())) << i;
  }
}

// A uniform with 60 leading zero bits: before the fix it was redrawn (its
// top 53 bits are 0) and |Z| never exceeded sqrt(2·53·ln 2) ≈ 8.5717.
TEST(GaussianSamplerTest, SixtyLeadingZerosGiveANormalBeyondTheOldCut) {
  static const uint64_t kWords[] = {
      0x8u, 0,  // U1 = 2^-61 (clz 60; mantissa word 0)
      0x1u, 0,  // U2 = 2^-64: angle 2π·2^-64, cos = 1
  };
  {
    ScriptedBytes bytes(kWords);
    GaussianSampler s(bytes);
    EXPECT_EQ(Uniform(s), std::ldexp(1.0, -61));
    EXPECT_EQ(Uniform(s), std::ldexp(1.0, -64));
  }
  ScriptedBytes bytes(kWords);
  GaussianSampler s(bytes);
  const double z = Draw(s);
  const double spare = Draw(s);
  EXPECT_GT(z, 8.5717);
  EXPECT_NEAR(z, std::sqrt(2 * 61 * std::log(2.0)), 1e-12);  // 9.1952
  EXPECT_GE(spare, 0.0);
  EXPECT_LT(spare, 1e-17);
}

// The smallest uniform: 1021 zero bits (15 zero words, then 0x4 with 61
// leading zeros), mantissa 0 — U = 2^-1022, the smallest normal double. Its
// radius is R_max, finite, and bounded by kMaxRadius.
TEST(GaussianSamplerTest, SmallestUniformGivesTheLargestRadius) {
  static uint64_t words[15 + 4];
  words[15] = 0x4u;  // clz 61: e = 15·64 + 61 = 1021
  words[16] = 0;     // mantissa
  words[17] = 0x1u;  // U2 = 2^-64
  words[18] = 0;
  {
    ScriptedBytes bytes(words);
    GaussianSampler s(bytes);
    EXPECT_EQ(Uniform(s), std::numeric_limits<double>::min());
  }
  ScriptedBytes bytes(words);
  GaussianSampler s(bytes);
  const double z = Draw(s);
  const double spare = Draw(s);
  EXPECT_TRUE(std::isfinite(z));
  EXPECT_GT(z, 37.64);
  EXPECT_LE(z, GaussianSampler::kMaxRadius);
  EXPECT_TRUE(std::isfinite(spare));
  EXPECT_LE(std::hypot(z, spare), GaussianSampler::kMaxRadius);
  // kMaxRadius is sqrt(2·1022·ln 2) rounded to nearest, which is above it.
  EXPECT_NEAR(GaussianSampler::kMaxRadius, std::sqrt(2 * 1022 * std::log(2.0)),
              1e-13);
  EXPECT_GE(GaussianSampler::kMaxRadius,
            std::sqrt(-2 * std::log(std::numeric_limits<double>::min())));
}

// 1022 leading zero bits would leave the normal range: the draw restarts
// from the next word (15 zero words, then 0x2 with 62 leading zeros), so the
// uniform's law is the ideal one conditioned on U ≥ 2^-1022.
TEST(GaussianSamplerTest, ZeroBitsUpToTheFloorRestartTheDraw) {
  static uint64_t words[15 + 2];
  words[15] = 0x2u;                 // e would be 1022: restart
  words[16] = 0xc000000000000000u;  // 3/4
  ScriptedBytes bytes(words);
  GaussianSampler s(bytes);
  EXPECT_EQ(Uniform(s), 0.75);
  // Sixteen zero words restart too (the filler then gives the draw).
  static uint64_t zeros[16];
  ScriptedBytes zero_bytes(zeros, 0xc000000000000000u);
  GaussianSampler t(zero_bytes);
  EXPECT_EQ(Uniform(t), 0.75);
}

// The largest uniform, 1 − 2^-53, gives a tiny positive radius.
TEST(GaussianSamplerTest, LargestUniformGivesAPositiveRadius) {
  static const uint64_t kWords[] = {~uint64_t{0}, 0x8000000000000000u};
  {
    ScriptedBytes bytes(kWords);
    GaussianSampler s(bytes);
    EXPECT_EQ(Uniform(s), 1.0 - std::ldexp(1.0, -53));
  }
  ScriptedBytes bytes(kWords);
  GaussianSampler s(bytes);
  const double z = Draw(s);  // angle π: z = −R
  EXPECT_LT(z, 0.0);
  EXPECT_GT(z, -2e-8);
}

// Golden bit patterns for TestEntropy(20261122). The uniforms are built
// with integer operations (here each is its DRBG word w·2^-64 truncated to
// 53 significant bits) and must match on every target; the normals also
// go through libm (log, sqrt, sin, cos) and are pinned on every target this
// test runs on (host, aarch64, armhf, Cortex-M4F).
TEST(GaussianSamplerTest, GoldenDrawsForAFixedSeed) {
  {
    SeededSampler s(20261122);
    static const uint64_t kUniforms[] = {
        0x3fe6b39eb59c356du, 0x3fe2fc20d63fcbc1u, 0x3fe7787c8df59424u,
        0x3fe80ccf067b5cdbu, 0x3fee31ddab16c3f9u, 0x3fd9fb7b58a58cbcu,
        0x3fc318992fd9f713u,  // 2 leading zeros: ends in 3, not 0 as before
        0x3fed30fe8c83f466u};
    for (const uint64_t bits : kUniforms) {
      EXPECT_EQ(Bits(Uniform(s.sampler())), bits);
    }
  }
  SeededSampler s(20261122);
  static const uint64_t kNormals[] = {
      0xbfe6172de4a23271u,   // -0.690329500722852
      0xbfdd54da8964bcceu,   // -0.458304056332918
      0x3f7faef9dbc4e35cu,   // 0.00773522950140023
      0xbfe931ebf7757ea6u,   // -0.787343962972916
      0xbfd21d09938148d9u,   // -0.283022302673215
      0x3fc84c0255d45e26u,   // 0.189819614323583
      0x3ffa957519e3e695u,   // 1.66148862946867
      0xbff05a3e14b3ff2fu};  // -1.02203186118272
  for (const uint64_t bits : kNormals) {
    EXPECT_EQ(Bits(Draw(s.sampler())), bits);
  }
}

TEST(GaussianSamplerTest, UninitialisedDrbgIsReported) {
  Drbg drbg;
  GaussianSampler sampler(drbg);
  EXPECT_EQ(sampler.Standard().status(), Status::FailedPrecondition());
  Real v[2] = {};
  EXPECT_EQ(sampler.AddNoise(1.0, v), Status::FailedPrecondition());
}

}  // namespace
}  // namespace edgeadmm
