// Several jobs at once (docs/aggregator.md, "Several jobs at once"): the
// JobRouter's query parsing and job choice, uploads routed by their job_id,
// and the lifetime budget across two jobs whose rounds are open together.
#include "edgeadmm/server/job_router.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/upload.h"
#include "edgeadmm/server/job_host.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/update.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

TEST(JobRouterQuery, ParsesOnlyAJobSelector) {
  auto none = JobRouter::ParseQuery("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto named = JobRouter::ParseQuery("job=hvac-1");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->value_or(""), "hvac-1");
  for (const char* bad : {"job=", "jobs=hvac", "hvac", "job=a&x=1",
                          "job=has space", "JOB=hvac", "job=a/b"}) {
    EXPECT_EQ(JobRouter::ParseQuery(bad).status(), Status::InvalidArgument())
        << bad;
  }
}

TEST(JobRouterPeek, ReadsTheJobIdOfAnUpdate) {
  const std::vector<uint8_t> body =
      testing::EncodeUpdateBody("dev-000", 77, 3, {0.5, -0.25, 0.125});
  EXPECT_EQ(PeekUpdateJobId(body.data(), body.size()), 77u);
  // Cut inside the job_id varint, and bytes of no protobuf.
  EXPECT_FALSE(PeekUpdateJobId(body.data(), 3).has_value());
  const std::vector<uint8_t> junk(40, 0xff);
  EXPECT_FALSE(PeekUpdateJobId(junk.data(), junk.size()).has_value());
  EXPECT_FALSE(PeekUpdateJobId(nullptr, 0).has_value());
}

// Two everyone jobs on four devices, served by one host.
class TwoJobsTest : public ::testing::Test {
 protected:
  void Start() {
    alpha_ = testing::StartEveryoneJob(t_.db(), "alpha",
                                       testing::DefaultPrivacyTable());
    beta_ = testing::StartEveryoneJob(t_.db(), "beta",
                                      testing::DefaultPrivacyTable());
    ASSERT_TRUE(host_.PickUpRunningJob(now_).ok());
    host_.Tick(now_);  // opens a round of each
    ASSERT_EQ(host_.engines().size(), 2u);
  }
  rounds::RoundEngine& Engine(int64_t job) {
    return *handler_.router().ByJobId(job);
  }
  // The job id of the task `device` is served (0 if not a task).
  uint64_t TaskJob(const std::string& device, const std::string& query = "") {
    const Response r = handler_.Task(device, now_, query);
    if (r.code != wire::kCoapContent) return 0;
    std::vector<Real> model(3);
    wire::DecodedRoundTask task{};
    const Status s = wire::DecodeRoundTask(
        ConstByteSpan(reinterpret_cast<const std::byte*>(r.body.data()),
                      r.body.size()),
        Span<Real>(model.data(), model.size()), Span<Real>(), task);
    return s.ok() ? task.header.job_id : 0;
  }
  Response Upload(const std::string& device, int64_t job) {
    const std::vector<uint8_t> body = testing::EncodeUpdateBody(
        device, static_cast<uint64_t>(job),
        static_cast<uint64_t>(Engine(job).round_id()), {0.125, -0.25, 0.5});
    return handler_.Update(device, wire::kUpdateFormat, body.data(),
                           body.size(), now_);
  }

  testing::TempDatabase t_;
  std::vector<std::string> devices_ = testing::EnrollDevices(t_.db(), 4);
  RequestHandler handler_{nullptr};
  JobHost host_{t_.db(), handler_};
  int64_t now_ = 1'000'000;
  int64_t alpha_ = 0;
  int64_t beta_ = 0;
};

TEST_F(TwoJobsTest, TasksFollowTheQueryElseTheRoundThatWaits) {
  Start();
  const std::string d = devices_[0];
  EXPECT_EQ(TaskJob(d, "job=beta"), static_cast<uint64_t>(beta_));
  EXPECT_EQ(TaskJob(d, "job=alpha"), static_cast<uint64_t>(alpha_));
  // Both rounds wait for it with the same deadline: the lower id first,
  // then, once that one has its upload, the other.
  EXPECT_EQ(TaskJob(d), static_cast<uint64_t>(alpha_));
  EXPECT_EQ(Upload(d, alpha_).code, wire::kCoapChanged);
  EXPECT_EQ(TaskJob(d), static_cast<uint64_t>(beta_));
  EXPECT_EQ(Upload(d, beta_).code, wire::kCoapChanged);
  EXPECT_EQ(TaskJob(d), static_cast<uint64_t>(alpha_));  // none waits
  // Each upload went to its own job only.
  EXPECT_EQ(Engine(alpha_).iteration(), 0);
  EXPECT_EQ(Engine(beta_).iteration(), 0);
  // Bad and unknown selectors.
  EXPECT_EQ(handler_.Task(d, now_, "job=bad name").code, wire::kCoapBadRequest);
  EXPECT_EQ(handler_.Task(d, now_, "job=gamma").code, wire::kCoapNotFound);
  EXPECT_EQ(handler_.Model(d, "x=1").code, wire::kCoapBadRequest);
  EXPECT_EQ(
      testing::DecodeStatusBodyOrZero(handler_.StatusOf(d, "job=beta").body)
          .job_id,
      static_cast<uint64_t>(beta_));
}

TEST_F(TwoJobsTest, UploadsGoToTheJobTheyNameAndUnknownJobsAreRefused) {
  Start();
  for (const std::string& d : devices_) {
    ASSERT_EQ(Upload(d, beta_).code, wire::kCoapChanged) << d;
  }
  host_.Tick(now_);  // beta's cohort is complete: it commits
  EXPECT_EQ(Engine(beta_).iteration(), 1);
  EXPECT_EQ(Engine(alpha_).iteration(), 0);
  // The metrics: a sample per job under one family.
  const std::string text = GatewayMetrics().Render(host_.AllGauges());
  EXPECT_NE(text.find("edgeadmm_job_iteration{job=\"alpha\"} 0\n"
                      "edgeadmm_job_iteration{job=\"beta\"} 1\n"),
            std::string::npos)
      << text;
  // A job no engine serves: refused as an upload for a stopped job.
  const std::vector<uint8_t> body =
      testing::EncodeUpdateBody(devices_[0], 999, 1, {0.0, 0.0, 0.0});
  const Response r = handler_.Update(devices_[0], wire::kUpdateFormat,
                                     body.data(), body.size(), now_);
  EXPECT_EQ(r.code, wire::kCoapPreconditionFailed);
  // Bytes whose job_id cannot be read.
  const std::vector<uint8_t> junk(16, 0xff);
  EXPECT_EQ(handler_
                .Update(devices_[0], wire::kUpdateFormat, junk.data(),
                        junk.size(), now_)
                .code,
            wire::kCoapBadRequest);
}

// dev-000's lifetime budget fits one round's local charge but not two. Both
// jobs open a round at once: only the first takes dev-000 (the second counts
// the first's reservation), and over the next rounds, with alpha's charge
// stored, neither takes it again.
TEST_F(TwoJobsTest, OpenRoundsDoNotOvercommitALifetimeBudget) {
  rounds::PrivacyRoundAccountant accountant;
  // One local charge: prox-admm replace-one, ν = σ/(4C) = 0.5.
  const std::vector<double> one = accountant.RoundRdp({0.5, 1.0});
  std::vector<double> two = one;
  rounds::ComposeRdp(two, one);
  const double budget =
      (accountant.Epsilon(one, 1e-5) + accountant.Epsilon(two, 1e-5)) / 2;
  registry::DeviceRegistry reg(t_.db());
  ASSERT_TRUE(
      reg.SetLifetimeBudget("dev-000", registry::LifetimeBudget{budget, 1e-5})
          .ok());
  Start();
  auto count = [&](int64_t job) {
    const auto cohort = Engine(job).CohortForTesting();
    return std::count(cohort.begin(), cohort.end(), "dev-000");
  };
  EXPECT_EQ(count(alpha_), 1);  // one round fits
  EXPECT_EQ(count(beta_), 0);   // alpha's open round holds the rest
  for (int round = 0; round < 2; ++round) {
    for (int64_t job : {alpha_, beta_}) {
      for (const std::string& d : Engine(job).CohortForTesting()) {
        ASSERT_EQ(Upload(d, job).code, wire::kCoapChanged);
      }
    }
    host_.Tick(now_);
    ASSERT_EQ(Engine(alpha_).iteration(), round + 1);
    ASSERT_EQ(Engine(beta_).iteration(), round + 1);
    EXPECT_EQ(count(alpha_) + count(beta_), 0) << round;
  }
}

}  // namespace
}  // namespace edgeadmm::server
