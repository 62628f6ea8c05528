// Paper 002 Alg. 3 run in process (no network) on an a9a subset, σ = 0 and no
// clipping: the server model z must reach the centralized regularized
// optimum, computed independently (full-batch Newton / FISTA on the pooled
// records), within 1e-4 relative objective.
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/regularizer.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 123;
constexpr size_t kDevices = 20;
constexpr size_t kPerDevice = 50;

using Vec = Eigen::VectorXd;
using Mat =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::string DataPath(const char* name) {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "../shared/data") +
         "/" + name;
}

// F(w) = mean logistic loss over the pooled records + r(w).
double Objective(const Mat& a, const Vec& b, const Regularizer& r,
                 const Vec& w) {
  const Vec t = a * w;
  double loss = 0;
  for (Eigen::Index j = 0; j < t.size(); ++j) {
    const double m = b[j] * t[j];
    loss += m > 0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m));
  }
  return loss / static_cast<double>(t.size()) +
         r.Value(Span<const Real>(w.data(), w.size()));
}

Vec LossGradient(const Mat& a, const Vec& b, const Vec& w) {
  const Vec t = a * w;
  Vec d(t.size());
  for (Eigen::Index j = 0; j < t.size(); ++j) {
    d[j] = -b[j] / (1 + std::exp(b[j] * t[j]));
  }
  return a.transpose() * d / static_cast<double>(t.size());
}

// Centralized optimum: Newton for a smooth r (L2), FISTA otherwise.
Vec CentralizedOptimum(const Mat& a, const Vec& b, const Regularizer& r) {
  Vec w = Vec::Zero(a.cols());
  if (r.l1 == 0) {
    for (int it = 0; it < 50; ++it) {
      const Vec g = LossGradient(a, b, w) + r.l2 * w;
      if (g.norm() < 1e-13) break;
      const Vec t = a * w;
      Vec d(t.size());
      for (Eigen::Index j = 0; j < t.size(); ++j) {
        const double s = 1 / (1 + std::exp(-t[j]));
        d[j] = s * (1 - s);
      }
      Mat h =
          a.transpose() * d.asDiagonal() * a / static_cast<double>(t.size());
      h.diagonal().array() += r.l2;
      w -= h.llt().solve(g);
    }
    return w;
  }
  // FISTA with step 1/L, L = max row norm² / 4 + l2.
  const double lip = a.rowwise().squaredNorm().maxCoeff() / 4 + r.l2;
  Vec y = w, w_prev = w;
  double tk = 1;
  for (int it = 0; it < 20000; ++it) {
    Vec v = y - LossGradient(a, b, y) / lip;
    r.Prox(Span<const Real>(v.data(), v.size()), 1 / lip,
           Span<Real>(w.data(), w.size()));
    const double tn = (1 + std::sqrt(1 + 4 * tk * tk)) / 2;
    y = w + ((tk - 1) / tn) * (w - w_prev);
    w_prev = w;
    tk = tn;
  }
  return w;
}

struct Federation {
  std::vector<DatasetView> shards;
  std::vector<std::vector<std::byte>> memory;
  std::vector<ProxAdmmStep> steps;
  std::vector<Vec> u;
  Vec s_hat = Vec::Zero(kDim);  // (1/n) Σ_i u_i over ALL devices (pitfall P3)
  Vec z = Vec::Zero(kDim);
};

// Runs Alg. 3 for `rounds` rounds with Poisson participation rate q (q = 1:
// every device every round) and returns z.
Vec RunAlgorithm3(const DenseDataset& data, const Regularizer& r,
                  const ProxAdmmParams& params, double q, int rounds) {
  Federation fed;
  Loss loss;
  const size_t bytes =
      ProxAdmmStep::WorkspaceBytes(LossKind::kLogistic, kPerDevice, kDim);
  fed.steps.resize(kDevices);
  for (size_t i = 0; i < kDevices; ++i) {
    fed.shards.push_back(data.Shard(i * kPerDevice, kPerDevice).value());
    fed.memory.emplace_back(bytes);
    Workspace ws(ByteSpan(fed.memory.back().data(), bytes));
    EXPECT_TRUE(fed.steps[i].Init(ws, fed.shards[i], loss).ok());
    fed.u.push_back(Vec::Zero(kDim));
  }
  TestEntropy entropy(1);
  Drbg drbg;
  EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  DiscreteGaussianSampler noise(drbg);
  testing::Lcg sampler(17);
  Vec delta(kDim);
  for (int k = 0; k < rounds; ++k) {
    // z_k = prox_{s r}(ŝ_k) (eq. 5), then the cohort's local steps.
    r.Prox(Span<const Real>(fed.s_hat.data(), kDim), params.step,
           Span<Real>(fed.z.data(), kDim));
    Vec sum = Vec::Zero(kDim);
    for (size_t i = 0; i < kDevices; ++i) {
      if (q < 1 && (sampler.Next() + 1) / 2 >= q) continue;
      auto report =
          fed.steps[i].Run(params, Span<const Real>(fed.z.data(), kDim),
                           Span<Real>(fed.u[i].data(), kDim), noise,
                           Span<Real>(delta.data(), kDim));
      if (!report.ok()) {
        ADD_FAILURE() << "local step failed: " << report.status().str();
        return fed.z;
      }
      EXPECT_TRUE(report->prox.converged) << report->prox.kkt_residual;
      sum += delta;
    }
    fed.s_hat += sum / static_cast<double>(kDevices);
  }
  r.Prox(Span<const Real>(fed.s_hat.data(), kDim), params.step,
         Span<Real>(fed.z.data(), kDim));
  return fed.z;
}

class FederatedAdmmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = ReadLibsvmFile(DataPath("a9a.xz"), kDim);
    ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
    data_ = std::move(loaded.value());
    data_.samples = kDevices * kPerDevice;
    data_.features.resize(data_.samples * kDim);
    data_.labels.resize(data_.samples);
    a_ = Eigen::Map<const Mat>(data_.features.data(), data_.samples, kDim);
    b_ = Eigen::Map<const Vec>(data_.labels.data(), data_.samples);
  }

  void ExpectConverges(const Regularizer& r, double q, int rounds) {
    const Vec w_star = CentralizedOptimum(a_, b_, r);
    const double f_star = Objective(a_, b_, r, w_star);
    ProxAdmmParams params;
    params.lambda = 0.5;
    params.step = 2.0;
    const Vec z = RunAlgorithm3(data_, r, params, q, rounds);
    const double gap = (Objective(a_, b_, r, z) - f_star) / std::abs(f_star);
    std::printf("F* = %.10f, relative objective gap after %d rounds: %.3e\n",
                f_star, rounds, gap);
    EXPECT_GE(gap, -1e-9);
    EXPECT_LT(gap, 1e-4) << "F* = " << f_star;
  }

  DenseDataset data_;
  Mat a_;
  Vec b_;
};

TEST_F(FederatedAdmmTest, FullParticipationReachesTheL2Optimum) {
  Regularizer r;
  r.kind = RegularizerKind::kL2;
  r.l2 = 1e-2;
  ExpectConverges(r, 1.0, 150);
}

TEST_F(FederatedAdmmTest, UserSamplingReachesTheElasticNetOptimum) {
  Regularizer r;
  r.kind = RegularizerKind::kElasticNet;
  r.l1 = 1e-3;
  r.l2 = 1e-2;
  ExpectConverges(r, 0.5, 400);
}

}  // namespace
}  // namespace edgeadmm
