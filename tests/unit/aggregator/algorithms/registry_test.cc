// The registry serves exactly the job algorithms, each unit answers for its
// own kind and name, and the job parser goes through it.
#include "edgeadmm/algorithms/registry.h"

#include <set>
#include <string>

#include "edgeadmm/jobs/job_config.h"
#include "gtest/gtest.h"

namespace edgeadmm::algorithms {
namespace {

TEST(AlgorithmRegistryTest, ServesExactlyTheJobAlgorithms) {
  std::set<std::string> names;
  for (const Algorithm* a : All()) {
    names.insert(a->name());
    EXPECT_EQ(Find(a->kind()), a) << a->name();
    EXPECT_EQ(FindByName(a->name()), a) << a->name();
    EXPECT_STREQ(NameOf(a->kind()), a->name());
  }
  EXPECT_EQ(names, (std::set<std::string>{"prox-admm", "dp-admm", "dp-sgd",
                                          "random-walk-admm", "pp-admm",
                                          "admm-sharing", "dp-ftrl"}));
  EXPECT_EQ(Find(AlgorithmKind::kProxAdmm)->kind(), AlgorithmKind::kProxAdmm);
  EXPECT_EQ(Find(AlgorithmKind::kLinearizedAdmm)->name(),
            std::string("dp-admm"));
  EXPECT_EQ(Find(AlgorithmKind::kDpSgd)->name(), std::string("dp-sgd"));
  EXPECT_STREQ(NameOf(AlgorithmKind::kPenaltyPerturbation), "pp-admm");
  EXPECT_STREQ(NameOf(AlgorithmKind::kAdmmSharing), "admm-sharing");
  EXPECT_EQ(FindByName("admm-sharing-v0"), nullptr);
  EXPECT_EQ(Names(),
            "prox-admm, dp-admm, dp-sgd, random-walk-admm, pp-admm, "
            "admm-sharing, dp-ftrl");
}

TEST(AlgorithmRegistryTest, UpdateKindsAndTaskParamsAreTheUnits) {
  jobs::JobConfig c;
  c.dimension = 3;
  c.clip = 1;
  c.sigma = 2;
  for (const Algorithm* a : All()) {
    c.algorithm = a->kind();
    edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
    a->FillTask(c, /*n=*/10, /*iteration=*/4, task);
    // Job kinds only: random-walk-admm's tasks are prox-admm's, dp-ftrl's
    // dp-sgd's.
    const AlgorithmKind wire = a->kind() == AlgorithmKind::kRandomWalkAdmm
                                   ? AlgorithmKind::kProxAdmm
                               : a->kind() == AlgorithmKind::kDpFtrl
                                   ? AlgorithmKind::kDpSgd
                                   : a->kind();
    EXPECT_EQ(static_cast<int>(task.algorithm), static_cast<int>(wire))
        << a->name();
    EXPECT_NE(task.which_params, 0) << a->name();
  }
  EXPECT_EQ(Get(AlgorithmKind::kLinearizedAdmm).update_kind(),
            edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL);
  EXPECT_EQ(Get(AlgorithmKind::kProxAdmm).update_kind(),
            edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U);
}

TEST(AlgorithmRegistryTest, JobParserRefusesAnUnservedName) {
  const auto parsed = jobs::ParseJobConfig(
      "[job]\nname = \"j\"\nalgorithm = \"admm-sharing-v0\"\nloss = "
      "\"logistic\"\ndimension = 3\nrounds = 1\n");
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message(),
            "job.algorithm: unknown value \"admm-sharing-v0\" (one of: "
            "prox-admm, dp-admm, dp-sgd, random-walk-admm, pp-admm, "
            "admm-sharing, dp-ftrl)");
}

}  // namespace
}  // namespace edgeadmm::algorithms
