// JobHost's release hold (docs/privacy.md, "Release timing"): under
// trusted-aggregator the end of a round is held to its deadline + the
// release delay, whatever the close cost; other policies are never held.
// And its count of a complete round's commit delay (docs/aggregator.md,
// "Metrics").
#include "edgeadmm/server/job_host.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "edgeadmm/rounds/upload.h"
#include "edgeadmm/store/blob.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

class JobHostReleaseTest : public ::testing::Test {
 protected:
  // Starts an everyone job under `policy` and a host with a fake clock
  // whose sleeps are recorded (and move the clock).
  void Start(const std::string& policy) {
    testing::EnrollDevices(t_.db(), 4);
    testing::StartEveryoneJob(t_.db(), "held",
                              testing::PrivacyTableWithPolicy(policy));
    host_.set_metrics(&metrics_);
    host_.set_release_delay_ms(300);
    host_.set_clock({[this] { return now_; },
                     [this](int64_t ms) {
                       sleeps_.push_back(ms);
                       now_ += ms;
                     }});
    ASSERT_TRUE(host_.PickUpRunningJob(now_).ok());
    host_.Tick(now_);  // opens the first round
    ASSERT_NE(host_.engine(), nullptr);
    ASSERT_TRUE(host_.engine()->round_open());
  }

  // Every cohort member uploads, the clock moving `step_ms` after each.
  void UploadAll(int64_t step_ms) {
    rounds::RoundEngine& e = *host_.engine();
    for (const std::string& d : e.CohortForTesting()) {
      rounds::Upload u{d,
                       e.job().id,
                       e.round_id(),
                       store::EncodeFloats({0.125, -0.25, 0.5}),
                       {}};
      ASSERT_TRUE(rounds::IsSuccess(e.Submit(d, u, now_)));
      now_ += step_ms;
    }
  }

  // Every cohort member uploads; then the clock moves to `after_deadline`
  // ms past the round's deadline and the host ticks (the round closes).
  void FinishRoundAt(int64_t after_deadline) {
    rounds::RoundEngine& e = *host_.engine();
    UploadAll(0);
    const int64_t iteration = e.iteration();
    now_ = e.deadline_ms() + after_deadline;
    host_.Tick(now_);
    ASSERT_EQ(e.iteration(), iteration + 1);
  }

  testing::TempDatabase t_;
  RequestHandler handler_{nullptr};
  JobHost host_{t_.db(), handler_};
  GatewayMetrics metrics_;
  int64_t now_ = 1'000'000;
  std::vector<int64_t> sleeps_;
};

TEST_F(JobHostReleaseTest, TrustedAggregatorReleaseIsHeldToDeadlinePlusDelay) {
  Start("trusted-aggregator");
  FinishRoundAt(40);
  EXPECT_EQ(sleeps_, (std::vector<int64_t>{260}));
  FinishRoundAt(5);
  EXPECT_EQ(sleeps_, (std::vector<int64_t>{260, 295}));
  // A close that ran past the delay is not held (nothing to pad) and is
  // counted as an overrun.
  FinishRoundAt(450);
  EXPECT_EQ(sleeps_.size(), 2u);
  const std::string text = metrics_.Render(host_.Gauges());
  EXPECT_NE(text.find("edgeadmm_release_holds_total{outcome=\"held\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("edgeadmm_release_holds_total{outcome=\"overrun\"} 1"),
            std::string::npos)
      << text;
}

TEST_F(JobHostReleaseTest, ParticipationIsNeverHeld) {
  Start("participation");
  FinishRoundAt(40);
  FinishRoundAt(5);
  EXPECT_TRUE(sleeps_.empty());
}

// A round whose cohort all uploaded commits at the next tick; its delay is
// counted from the last upload's Submit to CountCommitDelays. A round that
// ends at its deadline (trusted-aggregator never closes early) is not.
TEST_F(JobHostReleaseTest, ACompleteRoundsCommitDelayIsCounted) {
  Start("participation");
  rounds::RoundEngine& e = *host_.engine();
  UploadAll(10);
  const int64_t iteration = e.iteration();
  const int64_t last_upload_ms = now_ - 10;
  now_ += 60;
  host_.Tick(now_);
  ASSERT_EQ(e.iteration(), iteration + 1);
  host_.CountCommitDelays(now_ + 5);    // 75 ms after the last upload
  host_.CountCommitDelays(now_ + 500);  // nothing new: nothing counted
  const std::string text = metrics_.Render(host_.Gauges());
  EXPECT_EQ(now_ + 5 - last_upload_ms, 75);
  for (const char* sample :
       {"edgeadmm_round_commit_delay_seconds_bucket{le=\"0.05\"} 0",
        "edgeadmm_round_commit_delay_seconds_bucket{le=\"0.1\"} 1",
        "edgeadmm_round_commit_delay_seconds_count 1",
        "edgeadmm_round_commit_delay_seconds_sum 0.075",
        "edgeadmm_round_commit_delay_seconds_max 0.075"}) {
    EXPECT_NE(text.find(sample), std::string::npos) << sample << "\n" << text;
  }
}

TEST_F(JobHostReleaseTest, ARoundClosedAtItsDeadlineHasNoCommitDelay) {
  Start("trusted-aggregator");
  FinishRoundAt(40);
  host_.CountCommitDelays(now_);
  EXPECT_NE(metrics_.Render(host_.Gauges())
                .find("edgeadmm_round_commit_delay_seconds_count 0"),
            std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::server
