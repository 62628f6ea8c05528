// random-walk-admm (paper 002 Alg. 4 through the gateway): its server step
// is prox-admm's with the holder's one upload, its task is prox-admm's with
// the noise kept in u_i, it keeps z from the other devices, and `job create`
// refuses configurations its network guarantee does not cover.
#include "edgeadmm/algorithms/random_walk_admm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/privacy/network_rdp.h"
#include "test_database.h"

namespace edgeadmm::algorithms {
namespace {

class NoNoise final : public RoundNoise {
 public:
  Status AddNoise(double, std::vector<double>&) override {
    ++calls;
    return Status::Ok();
  }
  int calls = 0;
};

const char kSampling[] =
    "[sampling]\nscheme = \"fixed\"\nm = 1\nm_min = 1\ndeadline_seconds = 10\n";

std::string Privacy(const std::string& extra = "") {
  return "[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
         "sigma = 10.0\ndelta = 1e-5\ncentral_budget = 100.0\n"
         "device_budget = 100.0\n" +
         extra;
}

host::ErrorOr<jobs::JobConfig> Parse(const std::string& privacy,
                                     const std::string& sampling) {
  return jobs::ParseJobConfig(
      testing::JobToml("rw", "random-walk-admm", privacy, sampling));
}

TEST(RandomWalkAdmmTest, ParsesWithAlgorithm4sSettings) {
  auto c = Parse(Privacy(), kSampling);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->algorithm, AlgorithmKind::kRandomWalkAdmm);
  EXPECT_TRUE(c->noise_in_state);  // Alg. 4 as printed
  EXPECT_EQ(c->accountant, jobs::CentralAccountant::kRdp);
  // Even when the job asks for pld: the network curve is no Gaussian
  // schedule.
  auto pld = Parse(Privacy("accountant = \"pld\"\n"), kSampling);
  ASSERT_TRUE(pld.ok()) << pld.error().message();
  EXPECT_EQ(pld->accountant, jobs::CentralAccountant::kRdp);
}

TEST(RandomWalkAdmmTest, JobCreateRefusesWhatTheGuaranteeDoesNotCover) {
  struct Case {
    std::string privacy, sampling, key;
  };
  const std::string participation =
      "[privacy]\npolicy = \"participation\"\nclip = 1.0\nsigma = 10.0\n"
      "delta = 1e-5\ncentral_budget = 100.0\ndevice_budget = 100.0\n";
  const Case cases[] = {
      {participation, kSampling, "privacy.policy"},
      {Privacy(),
       "[sampling]\nscheme = \"poisson\"\nq = 0.1\nm_min = 1\n"
       "deadline_seconds = 10\n",
       "sampling"},
      {Privacy(),
       "[sampling]\nscheme = \"fixed\"\nm = 2\nm_min = 1\n"
       "deadline_seconds = 10\n",
       "sampling"},
      {Privacy(), std::string(kSampling) + "seed = 3\n", "sampling.seed"},
      // σ/C = 1.5: at α = 1.1 the condition needs σ/C ≥ 2√2·√0.11 ≈ 0.938,
      // so 1.5 passes; σ/C = 0.9 meets it at no order of the grid.
      {"[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
       "sigma = 0.9\ndelta = 1e-5\ncentral_budget = 100.0\n"
       "device_budget = 100.0\n",
       kSampling, "privacy.sigma"},
      {"[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
       "target_epsilon = 2.0\ndelta = 1e-5\ncentral_budget = 100.0\n"
       "device_budget = 100.0\n",
       kSampling, "privacy.target_epsilon"},
  };
  for (const Case& c : cases) {
    auto parsed = Parse(c.privacy, c.sampling);
    ASSERT_FALSE(parsed.ok()) << c.key;
    EXPECT_EQ(parsed.error().message().rfind(c.key + ":", 0), 0u)
        << parsed.error().message();
  }
  auto ok = Parse(
      "[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
      "sigma = 1.5\ndelta = 1e-5\ncentral_budget = 100.0\n"
      "device_budget = 100.0\n",
      kSampling);
  EXPECT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_FALSE(privacy::NetworkConditionHolds(1.1, 0.9));
  EXPECT_TRUE(privacy::NetworkConditionHolds(1.1, 1.5));
}

TEST(RandomWalkAdmmTest, ServerStepIsProxAdmmsWithTheHoldersUpload) {
  auto c = Parse(Privacy(), kSampling);
  ASSERT_TRUE(c.ok());
  const Algorithm& walk = Get(AlgorithmKind::kRandomWalkAdmm);
  const Algorithm& prox = Get(AlgorithmKind::kProxAdmm);
  ServerModel a{{0, 0, 0}, {0.3, -0.2, 0.001}, {}};
  ServerModel b = a;
  NoNoise noise;
  const std::vector<std::vector<double>> one = {{0.5, 1.0, -0.25}};
  ASSERT_EQ(walk.ApplyRound(*c, 4, one, noise, a), Status::Ok());
  ASSERT_EQ(prox.ApplyRound(*c, 4, one, noise, b), Status::Ok());
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.z, b.z);
  EXPECT_EQ(noise.calls, 0);  // own-noise policy: no server noise
  // ŝ += Δu/n, z = prox_{γ·l1}(ŝ) = soft threshold at γκ = 2·0.01.
  EXPECT_DOUBLE_EQ(a.state[0], 0.3 + 0.5 / 4);
  EXPECT_DOUBLE_EQ(a.z[0], 0.3 + 0.125 - 0.02);
  EXPECT_DOUBLE_EQ(a.z[2], 0.001 - 0.0625 + 0.02);
  // One step is exactly one holder's upload.
  const std::vector<std::vector<double>> two = {{1, 1, 1}, {1, 1, 1}};
  EXPECT_EQ(walk.ApplyRound(*c, 4, two, noise, a), Status::InvalidArgument());
}

TEST(RandomWalkAdmmTest, TaskIsTheProxStepWithNoiseInStateAndZIsNotPublished) {
  auto c = Parse(Privacy(), kSampling);
  ASSERT_TRUE(c.ok());
  const Algorithm& walk = Get(AlgorithmKind::kRandomWalkAdmm);
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  walk.FillTask(*c, 4, 0, task);
  EXPECT_EQ(task.algorithm,
            edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM);
  EXPECT_EQ(task.which_params, edgeadmm_wire_RoundTask_federated_tag);
  EXPECT_TRUE(task.params.federated.noise_in_state);
  EXPECT_DOUBLE_EQ(task.params.federated.sigma, 10.0);
  EXPECT_FALSE(walk.ReleasesModelToDevices());
  EXPECT_TRUE(Get(AlgorithmKind::kProxAdmm).ReleasesModelToDevices());
  // The central ledgers charge the local curve; the network curve is only
  // reported (UnchargedNetworkRdp).
  EXPECT_TRUE(walk.ChargesLocalAsCentral());
  EXPECT_FALSE(Get(AlgorithmKind::kProxAdmm).ChargesLocalAsCentral());
  const std::vector<double> orders = {2, 4, 4.1};
  const std::vector<double> curve = walk.UnchargedNetworkRdp(*c, 50, orders);
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_DOUBLE_EQ(curve[0], privacy::RandomWalkVisitRdp(2, 10, 50));
  // Where the condition fails: the local Gaussian 8α/(σ/C)², not +inf.
  EXPECT_TRUE(std::isinf(privacy::RandomWalkVisitRdp(4.1, 10, 50)));
  EXPECT_DOUBLE_EQ(curve[2], 8 * 4.1 / 100);
  EXPECT_TRUE(Get(AlgorithmKind::kProxAdmm)
                  .UnchargedNetworkRdp(*c, 50, orders)
                  .empty());
  EXPECT_EQ(c->accountant, jobs::CentralAccountant::kRdp);
  // The charged ε is described as the local guarantee, against the gateway.
  EXPECT_NE(std::string(walk.CentralMeaning(*c).observer).find("gateway"),
            std::string::npos);
  EXPECT_NE(std::string(walk.CentralMeaning(*c).mechanism).find("local"),
            std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::algorithms
