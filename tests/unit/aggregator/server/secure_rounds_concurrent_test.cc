// SecureRoundDriver over SecAggRounds with two slots and three
// secure-aggregation jobs whose cohorts are the same six devices: the two
// lowest jobs' rounds run at once, the third waits for a free slot (the
// cap) and takes the next one before a round opened after it. Every device is
// in both running rounds: phase 0 without a job is refused (4.00), with it each
// job's round answers; the phases of both rounds go through SecAggRounds
// (routed by the frames' round ids), interleaved. Each round's charges land in
// its own job's ledger before its sum is unmasked, and each job commits
// ApplySum of its own decoded sum. No network.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/sampling_rng.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/secure_aggregation/ddg_decoding.h"
#include "edgeadmm/server/secure_round_driver.h"
#include "edgeadmm/wire/coap_code.h"
#include "secagg_session_devices.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

using secure_aggregation::SecAggPhase;
using Devices = testing::SecAggSessionDevices<8, 16, 6>;

class SecureRoundsConcurrentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::EnrollDevices(t_.db(), 6);
    for (const char* name : {"first", "second", "third"}) {
      testing::SecureJob job;
      job.name = name;
      job.m = 6;
      job.m_min = 5;
      job.dropouts = 1;
      job.phase_seconds = 5;
      const int64_t id =
          testing::CreateJobOrDie(t_.db(), testing::SecureJobToml(job));
      ASSERT_TRUE(
          jobs::SetJobState(t_.db(), id, jobs::JobState::kRunning).ok());
      auto engine = rounds::RoundEngine::Open(t_.db(), id, accountant_);
      ASSERT_TRUE(engine.ok());
      engines_.push_back(std::move(engine).value());
      ASSERT_TRUE(engines_.back()->Advance(now_).ok());
      ASSERT_NE(engines_.back()->open_secure_round(), nullptr);
    }
  }

  std::vector<rounds::RoundEngine*> Engines() const {
    return {engines_[0].get(), engines_[1].get(), engines_[2].get()};
  }
  // The SecAgg+ round id of job `job`'s open round.
  uint64_t RoundId(size_t job) const {
    return SecAggRoundId(
        uint64_t(engines_[job]->job().id),
        uint64_t(engines_[job]->open_secure_round()->round_id));
  }
  // The cohort of job `job`'s round joins it through phase 0 naming the
  // round; device i's input word 0 is base + i.
  void Join(size_t job, Devices& devices, uint32_t base) {
    const rounds::SecureRound& round = *engines_[job]->open_secure_round();
    for (uint32_t i = 0; i < round.cohort.size(); ++i) {
      std::vector<uint32_t> x(round.plan.mask_length, 0);
      x[0] = base + i;
      x[1] = 2 * i;
      devices.JoinFrom(rounds_.Round(round.cohort[i], RoundId(job)),
                       round.cohort[i], std::move(x), 100 * base + i);
    }
  }
  int64_t LedgerRows(size_t job, const std::string& where) {
    auto stmt = t_.db().Prepare("SELECT count(*) FROM ledger WHERE job_id = " +
                                std::to_string(engines_[job]->job().id) +
                                " AND " + where);
    EXPECT_TRUE(stmt.ok());
    EXPECT_TRUE(stmt->StepRow().ok());
    return stmt->ColumnInt(0);
  }
  // ApplySum of the decoded sum of slot `slot`'s round on `before`.
  algorithms::ServerModel Expected(size_t job, size_t slot,
                                   const rounds::SecureRound& round,
                                   const algorithms::ServerModel& before) {
    const std::vector<uint32_t>& words = *rounds_.slot(slot).sum();
    const auto sum = secure_aggregation::DecodeDdgSum(
        Span<const uint32_t>(words.data(), words.size()), round.plan.round,
        ConstByteSpan(round.rotation_seed.data(), round.rotation_seed.size()),
        uint64_t(round.round_id));
    EXPECT_TRUE(sum.ok());
    algorithms::ServerModel model = before;
    auto noise = rounds::SamplingRng::Create(1);
    const jobs::JobRecord& j = engines_[job]->job();
    EXPECT_TRUE(algorithms::Get(j.config.algorithm)
                    .sum_rounds()
                    ->ApplySum(j.config, j.n, *sum, 6, **noise, model)
                    .ok());
    return model;
  }

  testing::TempDatabase t_;
  rounds::PrivacyRoundAccountant accountant_;
  std::vector<std::unique_ptr<rounds::RoundEngine>> engines_;
  SecAggRounds rounds_{2};
  SecureRoundDriver driver_{rounds_};
  int64_t now_ = 1000;
};

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double s = 0;
  for (size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s);
}

TEST_F(SecureRoundsConcurrentTest, TwoRoundsAtOnceTheThirdWaits) {
  driver_.Tick(Engines(), now_);
  EXPECT_EQ(driver_.running(), 2u);
  EXPECT_EQ(driver_.driven_job(0), engines_[0]->job().id);
  EXPECT_EQ(driver_.driven_job(1), engines_[1]->job().id);
  // Both in their phases at one tick, each on its own job's round.
  EXPECT_EQ(rounds_.slot(0).phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(rounds_.slot(1).phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(rounds_.slot(0).round_id(), RoundId(0));
  EXPECT_EQ(rounds_.slot(1).round_id(), RoundId(1));
  // The third job's round waits, open, not served.
  const uint64_t third = RoundId(2);
  for (int k = 0; k < 3; ++k) driver_.Tick(Engines(), ++now_);
  EXPECT_EQ(driver_.running(), 2u);
  ASSERT_NE(engines_[2]->open_secure_round(), nullptr);
  EXPECT_EQ(RoundId(2), third);
  const std::string& device = engines_[2]->open_secure_round()->cohort[0];
  EXPECT_EQ(rounds_.Round(device, third).code, wire::kCoapNotFound);
  // The first job stops: its slot takes the third job's round.
  ASSERT_TRUE(jobs::SetJobState(t_.db(), engines_[0]->job().id,
                                jobs::JobState::kStopped)
                  .ok());
  ASSERT_TRUE(engines_[0]->Advance(++now_).ok());
  driver_.Tick(Engines(), ++now_);
  EXPECT_EQ(driver_.running(), 2u);
  EXPECT_EQ(driver_.driven_job(0), engines_[2]->job().id);
  EXPECT_EQ(rounds_.slot(0).round_id(), third);
  EXPECT_EQ(rounds_.Round(device, third).code, wire::kCoapContent);
}

// The first job's round ends and it opens its next one at once: the third
// job, which waited longer, takes the free slot (job-id order would give
// it back to the first job, round after round).
TEST_F(SecureRoundsConcurrentTest, TheLongestWaitingRoundStartsFirst) {
  driver_.Tick(Engines(), now_);
  driver_.Tick(Engines(), ++now_);  // the third job waits since now
  const int64_t ended = engines_[0]->open_secure_round()->round_id;
  ASSERT_TRUE(engines_[0]->AbortSecureRound(ended, "test", ++now_).ok());
  ASSERT_TRUE(engines_[0]->Advance(++now_).ok());
  ASSERT_NE(engines_[0]->open_secure_round(), nullptr);
  ASSERT_NE(engines_[0]->open_secure_round()->round_id, ended);
  driver_.Tick(Engines(), ++now_);
  EXPECT_EQ(driver_.running(), 2u);
  EXPECT_EQ(driver_.driven_job(0), engines_[2]->job().id);
  EXPECT_EQ(driver_.driven_job(1), engines_[1]->job().id);
  // The first job's new round now waits its turn, and a device still on
  // the ended round's task is not let into another round.
  const std::string& device = engines_[0]->open_secure_round()->cohort[0];
  EXPECT_EQ(rounds_.Round(device, RoundId(0)).code, wire::kCoapNotFound);
  EXPECT_EQ(rounds_
                .Round(device, SecAggRoundId(uint64_t(engines_[0]->job().id),
                                             uint64_t(ended)))
                .code,
            wire::kCoapNotFound);
}

// A device in both running cohorts: phase 0 without a round is ambiguous
// (4.00); naming a round gives that round's parameters, whichever slot
// serves it; a round no slot serves is 4.04.
TEST_F(SecureRoundsConcurrentTest, PhaseZeroNamesTheRoundInTwoCohorts) {
  driver_.Tick(Engines(), now_);
  const rounds::SecureRound& a = *engines_[0]->open_secure_round();
  const std::string& device = a.cohort[0];
  EXPECT_EQ(rounds_.Round(device, 0).code, wire::kCoapBadRequest);
  for (size_t job : {0, 1}) {
    const Response r = rounds_.Round(device, RoundId(job));
    ASSERT_EQ(r.code, wire::kCoapContent);
    SecAggSessionParams params;
    ASSERT_TRUE(
        DecodeSecAggRound(
            ConstByteSpan(reinterpret_cast<const std::byte*>(r.body.data()),
                          r.body.size()),
            params)
            .ok());
    EXPECT_EQ(params.round_id, RoundId(job));
  }
  EXPECT_EQ(rounds_.Round(device, RoundId(2)).code, wire::kCoapNotFound);
  EXPECT_EQ(rounds_.Round("stranger", 0).code, wire::kCoapForbidden);
  EXPECT_EQ(rounds_.Round("stranger", RoundId(0)).code, wire::kCoapForbidden);
  // Same round number in both jobs, different ids on the wire.
  EXPECT_EQ(engines_[0]->open_secure_round()->round_id,
            engines_[1]->open_secure_round()->round_id);
  EXPECT_NE(RoundId(0), RoundId(1));
}

TEST_F(SecureRoundsConcurrentTest, BothRoundsCommitTheirOwnSums) {
  driver_.Tick(Engines(), now_);
  const rounds::SecureRound a = *engines_[0]->open_secure_round();
  const rounds::SecureRound b = *engines_[1]->open_secure_round();
  const algorithms::ServerModel before_a = engines_[0]->model();
  const algorithms::ServerModel before_b = engines_[1]->model();
  Devices in_a, in_b;
  Join(0, in_a, 1);
  Join(1, in_b, 40);
  const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5};
  for (int phase = 1; phase <= 3; ++phase) {
    in_a.Phase(rounds_, phase, all, now_);
    in_b.Phase(rounds_, phase, all, now_);
  }
  // Each round's survivors charged to its own job, before any reveal.
  EXPECT_EQ(LedgerRows(0, "scope LIKE 'local:%' AND round_id = " +
                              std::to_string(a.round_id)),
            6);
  EXPECT_EQ(LedgerRows(1, "scope LIKE 'local:%' AND round_id = " +
                              std::to_string(b.round_id)),
            6);
  EXPECT_EQ(LedgerRows(2, "1"), 0);
  in_b.Phase(rounds_, 4, all, now_);
  in_a.Phase(rounds_, 4, all, now_);
  ASSERT_TRUE(rounds_.slot(0).sum().has_value());
  ASSERT_TRUE(rounds_.slot(1).sum().has_value());
  EXPECT_NE(*rounds_.slot(0).sum(), *rounds_.slot(1).sum());
  const algorithms::ServerModel want_a = Expected(0, 0, a, before_a);
  const algorithms::ServerModel want_b = Expected(1, 1, b, before_b);
  EXPECT_GT(Distance(want_a.z, want_b.z), 1e-6);
  driver_.Tick(Engines(), ++now_);
  EXPECT_EQ(engines_[0]->released_round_id(), a.round_id);
  EXPECT_EQ(engines_[1]->released_round_id(), b.round_id);
  EXPECT_LE(Distance(engines_[0]->model().z, want_a.z), 1e-6);
  EXPECT_LE(Distance(engines_[1]->model().z, want_b.z), 1e-6);
  // The freed slots took the next waiting rounds (the third job's first).
  EXPECT_EQ(driver_.driven_job(0), engines_[2]->job().id);
}

}  // namespace
}  // namespace edgeadmm::server
