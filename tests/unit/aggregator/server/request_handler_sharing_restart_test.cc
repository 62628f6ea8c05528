// admm-sharing's open round survives a restart (docs/aggregator.md,
// "admm-sharing: a restart loses nothing"): through the request handler and
// the round engine over one database (no sockets), a party's share is
// accepted, the engine and handler are destroyed and the database reopened
// (what a crash and restart leave), and a new engine resumes the round under
// its id with the stored share: the party is not asked again, its resend is
// a duplicate receipt, the other party's share completes the round, and every
// (z, y) equals the uninterrupted run's bit for bit, the last round's
// share + partial scores included. A missed deadline's retry survives the
// restart too (the barrier still fails the job honestly), and a round
// discarded by the barrier leaves no upload behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

constexpr auto kShare = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
constexpr auto kScores = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES;
constexpr int kRounds = 3;

// 2 parties, N = 4 records, T = 3 rounds, the last with K = 3 exact scores.
std::string SharingToml() {
  return "[job]\nname = \"sr\"\nalgorithm = \"admm-sharing\"\nloss = "
         "\"logistic\"\ndimension = 5\nrounds = " +
         std::to_string(kRounds) +
         "\n[admm_sharing]\nparties = 2\ncolumns = [3, 2]\nrecords = 4\n"
         "rho = 0.1\nlambda = 0.01\nbarrier_retries = 1\nlabels = \"" +
         testing::WriteTestFile("sr_train.libsvm",
                                "+1 1:1\n-1 2:1\n-1 5:0.5\n+1 3:1\n") +
         "\"\nnoise = \"none\"\ntest_labels = \"" +
         testing::WriteTestFile("sr_test.libsvm", "-1 1:1\n+1 2:1\n+1 4:1\n") +
         "\"\ntest_records = 3\nscore_noise = \"exact\"\n"
         "[sampling]\ndeadline_seconds = 10\n";
}

// Party m's upload of iteration `it` (0-based): its share (N = 4), then in
// the last round its K = 3 partial scores; float32-exact values.
std::vector<double> UploadOf(int m, int it) {
  std::vector<double> v = {0.25 * (m + 1) - 0.125 * it, -0.5 + 0.0625 * it,
                           0.375 * m, 0.125 * (it + 1) - 0.25 * m};
  if (it + 1 == kRounds) {
    v.insert(v.end(), {-1.0 + m, 0.5 * (m + 1), 1.5 - m});
  }
  return v;
}

// The engine and handler of one daemon life over the test's database.
struct Daemon {
  rounds::PrivacyRoundAccountant accountant;
  std::unique_ptr<rounds::RoundEngine> engine;
  std::unique_ptr<RequestHandler> handler;
};

std::unique_ptr<Daemon> Start(testing::TempDatabase& t, int64_t job,
                              int64_t now) {
  auto d = std::make_unique<Daemon>();
  auto engine = rounds::RoundEngine::Open(t.db(), job, d->accountant);
  EXPECT_TRUE(engine.ok());
  if (!engine.ok()) return nullptr;
  d->engine = std::move(engine).value();
  d->handler = std::make_unique<RequestHandler>(d->engine.get());
  EXPECT_TRUE(d->engine->Advance(now).ok());
  return d;
}

// Every stored model (z = (v, y), server state = (z, y)) and the last
// model's test score, as text: equal text = bit-identical doubles.
std::string Models(store::Database& db) {
  auto stmt = db.Prepare(
      "SELECT iteration, round_id, hex(z), hex(server_state), test_records, "
      "test_log_loss, test_accuracy FROM models ORDER BY iteration");
  EXPECT_TRUE(stmt.ok());
  std::string out;
  for (;;) {
    auto row = stmt->Step();
    EXPECT_TRUE(row.ok());
    if (!row.ok() || !*row) break;
    for (int c = 0; c < 7; ++c) out += stmt->ColumnText(c) + "|";
    out += "\n";
  }
  return out;
}

struct SharingJob {
  testing::TempDatabase t;
  std::vector<std::string> ids;
  int64_t job = 0;
  SharingJob() {
    ids = testing::EnrollDevices(t.db(), 2);
    job = testing::CreateJobOrDie(t.db(), SharingToml());
    EXPECT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  }
  std::vector<uint8_t> Body(const Daemon& d, int m, int it,
                            std::vector<double> v = {}) const {
    if (v.empty()) v = UploadOf(m, it);
    return testing::EncodeUpdateBody(ids[static_cast<size_t>(m)], job,
                                     d.engine->round_id(), v, 0,
                                     it + 1 == kRounds ? kScores : kShare);
  }
  Response Post(Daemon& d, int m, const std::vector<uint8_t>& body,
                int64_t now) const {
    return d.handler->Update(ids[static_cast<size_t>(m)], wire::kUpdateFormat,
                             body.data(), body.size(), now);
  }
};

// Runs the job; with `restart`, every round restarts the daemon between
// party 0's accepted share and party 1's.
std::string RunJob(bool restart) {
  SharingJob r;
  int64_t now = 1000;
  std::unique_ptr<Daemon> d = Start(r.t, r.job, now);
  EXPECT_NE(d, nullptr);
  if (d == nullptr) return "";
  for (int it = 0; it < kRounds; ++it) {
    const int64_t round = d->engine->round_id();
    const std::vector<uint8_t> first = r.Body(*d, 0, it);
    EXPECT_EQ(r.Post(*d, 0, first, now).code, wire::kCoapChanged) << it;
    if (restart) {
      // The crash: nothing in memory survives; the same database reopens.
      d.reset();
      r.t.Reopen();
      now += 500;
      d = Start(r.t, r.job, now);
      EXPECT_NE(d, nullptr);
      if (d == nullptr) return "";
      // The same round, party 0's share loaded: it is not asked again.
      EXPECT_TRUE(d->engine->round_open()) << it;
      EXPECT_EQ(d->engine->round_id(), round) << it;
      EXPECT_EQ(d->engine->TaskFor(r.ids[0]).kind, rounds::Task::Kind::kWait);
      const rounds::Task late = d->engine->TaskFor(r.ids[1]);
      EXPECT_EQ(late.kind, rounds::Task::Kind::kTrain) << it;
      EXPECT_EQ(late.round_id, round) << it;
      EXPECT_EQ(late.deadline_ms, now + 10'000) << it;  // a fresh deadline
      // Its resend (a lost receipt) is a duplicate, never a second accept;
      // a different body for the same round is a conflict. Neither changes
      // the store.
      const std::string before = testing::Snapshot(r.t.db());
      const Response again = r.Post(*d, 0, first, now);
      EXPECT_EQ(again.code, wire::kCoapChanged) << it;
      EXPECT_TRUE(testing::DecodeStatusBodyOrZero(again.body).duplicate) << it;
      std::vector<double> other = UploadOf(0, it);
      other[0] += 1;
      EXPECT_EQ(r.Post(*d, 0, r.Body(*d, 0, it, other), now).code,
                wire::kCoapConflict)
          << it;
      EXPECT_EQ(testing::Snapshot(r.t.db()), before) << it;
    }
    const Response second = r.Post(*d, 1, r.Body(*d, 1, it), now);
    EXPECT_EQ(second.code, wire::kCoapChanged) << it;
    EXPECT_FALSE(testing::DecodeStatusBodyOrZero(second.body).duplicate);
    EXPECT_TRUE(d->engine->Advance(now).ok());
    EXPECT_EQ(d->engine->iteration(), it + 1);
    now += 1000;
  }
  EXPECT_EQ(d->engine->job().state, jobs::JobState::kCompleted);
  // Nothing lost, nothing twice: rounds 1..T committed with both shares,
  // one local and one per-party ledger row per (party, round).
  EXPECT_EQ(testing::QueryInt(r.t.db(),
                              "SELECT count(*) FROM rounds WHERE state = "
                              "'committed' AND participants = 2"),
            kRounds);
  EXPECT_EQ(testing::QueryInt(r.t.db(), "SELECT count(*) FROM rounds"),
            kRounds);
  EXPECT_EQ(testing::QueryInt(r.t.db(), "SELECT count(*) FROM uploads"),
            2 * kRounds);
  // One local and one per-party ledger row per (party, round): a resumed
  // round neither loses nor repeats a charge.
  for (const char* scope : {"local:", "party:"}) {
    EXPECT_EQ(
        testing::QueryInt(r.t.db(), std::string("SELECT count(*) FROM ledger "
                                                "WHERE scope LIKE '") +
                                        scope + "%'"),
        2 * kRounds)
        << scope;
  }
  return Models(r.t.db());
}

TEST(RequestHandlerSharingRestartTest, ARestartMidRoundLosesNoShare) {
  const std::string uninterrupted = RunJob(false);
  const std::string restarted = RunJob(true);
  ASSERT_FALSE(uninterrupted.empty());
  // Iterations 0..T, bit-identical (z, y), broadcasts and test score.
  EXPECT_EQ(std::count(uninterrupted.begin(), uninterrupted.end(), '\n'),
            kRounds + 1);
  EXPECT_EQ(restarted, uninterrupted);
}

TEST(RequestHandlerSharingRestartTest, RetriesSurviveARestartAndTheJobFails) {
  SharingJob r;
  std::unique_ptr<Daemon> d = Start(r.t, r.job, 1000);
  ASSERT_NE(d, nullptr);
  const int64_t round = d->engine->round_id();
  ASSERT_EQ(r.Post(*d, 0, r.Body(*d, 0, 0), 1000).code, wire::kCoapChanged);
  ASSERT_TRUE(d->engine->Advance(11'000).ok());  // deadline: retry 1 of 1
  ASSERT_EQ(d->engine->round_id(), round);
  EXPECT_EQ(testing::QueryInt(r.t.db(),
                              "SELECT retries FROM rounds WHERE round_id = " +
                                  std::to_string(round)),
            1);
  d.reset();
  r.t.Reopen();
  d = Start(r.t, r.job, 15'000);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->engine->round_id(), round);
  EXPECT_EQ(d->engine->TaskFor(r.ids[1]).deadline_ms, 25'000);
  // The retry was used before the restart: this deadline is the last.
  ASSERT_TRUE(d->engine->Advance(25'000).ok());
  EXPECT_EQ(d->engine->job().state, jobs::JobState::kFailed);
  EXPECT_FALSE(d->engine->round_open());
  EXPECT_EQ(d->engine->job().end_reason,
            "barrier: round " + std::to_string(round) +
                " missed 1 of 2 nodes after 2 deadlines");
  // Discarded: its share is deleted (the uploads table keeps committed
  // rounds' uploads only); the local charge stays (the gateway saw it).
  EXPECT_EQ(testing::QueryInt(r.t.db(), "SELECT count(*) FROM uploads"), 0);
  EXPECT_EQ(testing::QueryInt(r.t.db(),
                              "SELECT count(*) FROM ledger WHERE scope = "
                              "'local:" +
                                  r.ids[0] + "'"),
            1);
}

TEST(RequestHandlerSharingRestartTest, APartyRevokedWhileDownFailsTheJob) {
  SharingJob r;
  std::unique_ptr<Daemon> d = Start(r.t, r.job, 1000);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(r.Post(*d, 0, r.Body(*d, 0, 0), 1000).code, wire::kCoapChanged);
  d.reset();
  r.t.Reopen();
  ASSERT_TRUE(registry::DeviceRegistry(r.t.db()).Disable(r.ids[1]).ok());
  d = Start(r.t, r.job, 2000);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->engine->job().state, jobs::JobState::kFailed);
  EXPECT_EQ(d->engine->job().end_reason,
            "barrier: 1 of 2 nodes revoked or at their lifetime budget; "
            "admm-sharing needs every node every round");
  EXPECT_EQ(testing::QueryInt(r.t.db(), "SELECT count(*) FROM uploads"), 0);
}

}  // namespace
}  // namespace edgeadmm::server
